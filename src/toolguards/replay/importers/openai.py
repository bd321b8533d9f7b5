"""The ``openai`` format: OpenAI Chat Completions message lists.

The input is a JSON array of messages, an object with a ``messages`` array (a request body; other members are
skipped), or JSON Lines with one message per line. A one-document input is read whole, and each record's line is the
line where its message starts; JSON Lines stream. One list is one agent, labelled ``main``.

- ``assistant`` — starts a new step; each ``tool_calls[]`` entry is a post-execute: ``function.name``,
  ``function.arguments`` (the JSON text the model produced, parsed as the reference parses it: ``{}`` for an empty
  string, the raw string when it is not JSON) and ``id`` as the call id. A legacy ``function_call`` is a call too
  (with no id, so no result is paired with it). A ``usage`` object among the message's members (where a log keeps
  the response's usage with its message) is a ``usage`` record before the message's calls: ``prompt_tokens`` in
  (cached ones included, as the API counts them), ``completion_tokens`` out (reasoning included), else the Responses
  API's ``input_tokens`` and ``output_tokens``, 0 where absent; the message's ``model`` as the model. A ``usage``
  that is neither an object nor null is a ``skipped`` record.
- a Chat Completions response object, ``{"object": "chat.completion", "model", "choices": [{"message": ...}],
  "usage"}``, in the place of a message (a line of JSON Lines, an element of the list): its first choice's
  ``message`` is the assistant message, read as above with the response's ``usage`` and ``model`` (other choices,
  asked for with ``n`` > 1, are not read: a conversation goes on with one). A response without an object
  ``choices[0].message`` is a ``skipped`` record. A streamed chunk (``chat.completion.chunk``) is no message: an
  error of its line, as any object without a ``role``.
- ``tool`` — the result of the call named by ``tool_call_id`` (its content's text). Chat Completions has no error
  flag, so ``error`` stays None and a failure is whatever the tool wrote (``"Error: ..."`` in tau-bench).
- ``user`` — a pre-step with a user prompt.
- ``system``, ``developer`` and ``function`` (a legacy call's result, which names no call) pass in silence.

Nothing in this format says a call was denied: ``denied`` is always false. A message of another role, and a
``tool_calls`` entry or a ``tool`` message in a shape this importer does not know, is a ``skipped`` record (counted;
an error only with ``--strict``); the other calls of the message are read. A message that is not an object with a
string ``role`` is an error of its line. Detection: the first message with an OpenAI mark, a response object's
message in its place (``_messages``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record, usage
from ._json import Lines, count, json_type, outcome, parse_arguments
from ._messages import completion, dialect
from .pending import Pending, read_messages

__all__ = ["AGENT", "FILE_NAME", "identifies", "read"]

AGENT = "main"
FILE_NAME: re.Pattern[str] | None = None
_QUIET_ROLES = frozenset({"system", "developer", "function"})
_TOKENS = (("prompt_tokens", "input_tokens"), ("completion_tokens", "output_tokens"))


def identifies(value: Any) -> bool:
    """Whether a decoded value holds Chat Completions messages with an OpenAI mark before any Anthropic one."""
    return dialect(value) == "openai"


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of one Chat Completions message list, in input order."""
    pending = Pending()
    return read_messages(path, lines, pending, lambda line, message: _message(pending, line, message))


def _message(pending: Pending, line: int, message: Any) -> str | None:
    if not isinstance(message, dict):
        return f"expected a message object, not {json_type(message)}"
    found, answer = completion(message)
    if found:
        if isinstance(answer, dict):
            _assistant(pending, line, answer, message)
        else:
            pending.skip(line, 'a chat.completion needs an object "choices[0].message"')
        return None
    role = message.get("role")
    if not isinstance(role, str):
        return 'a message needs a string "role"'
    if role == "assistant":
        _assistant(pending, line, message, message)
    elif role == "tool":
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str):
            pending.skip(line, 'a tool message needs a string "tool_call_id"')
        else:
            result, error = outcome(message.get("content"), is_error=False)
            pending.resolve(AGENT, call_id, result, error)
    elif role == "user":
        pending.end_step(AGENT)
        pending.add(Record("pre-step", line, agent=AGENT, user_prompt=True))
    elif role not in _QUIET_ROLES:
        pending.skip(line, f'role "{role}"')
    return None


def _assistant(pending: Pending, line: int, message: dict[str, Any], turn: dict[str, Any]) -> None:
    """An assistant message: a new step, the tokens of ``turn`` (the message, or the response holding it), the
    calls."""
    pending.end_step(AGENT)
    counts = turn.get("usage")
    if isinstance(counts, dict):
        numbers = [count(counts, *keys) for keys in _TOKENS]
        model = turn.get("model")
        pending.add(usage(line, AGENT, model if isinstance(model, str) else None, *numbers))
    elif counts is not None:
        pending.skip(line, f'"usage" must be an object, not {json_type(counts)}')
    _calls(pending, line, message)


def _calls(pending: Pending, line: int, message: dict[str, Any]) -> None:
    entries = message.get("tool_calls")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        pending.skip(line, f'"tool_calls" must be a list, not {json_type(entries)}')
        entries = []
    for entry in entries:
        function = entry.get("function") if isinstance(entry, dict) else None
        if not (isinstance(entry, dict) and isinstance(function, dict) and _is_name(function.get("name"))):
            pending.skip(line, 'a tool_calls entry needs a string "function.name"')
            continue
        call_id = entry.get("id")
        pending.call(
            Record(
                "post-execute",
                line,
                agent=AGENT,
                tool=function["name"],
                arguments=parse_arguments(function.get("arguments", "")),
                call_id=call_id if isinstance(call_id, str) else None,
            )
        )
    legacy = message.get("function_call")
    if isinstance(legacy, dict) and _is_name(legacy.get("name")):
        arguments = parse_arguments(legacy.get("arguments", ""))
        pending.call(Record("post-execute", line, agent=AGENT, tool=legacy["name"], arguments=arguments))


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value != ""
