"""The ``openai`` format: OpenAI Chat Completions message lists.

The input is a JSON array of messages, an object with a ``messages`` array (a request body; other members are
skipped), or JSON Lines with one message per line. A one-document input is read whole, and each record's line is the
line where its message starts; JSON Lines stream. One list is one agent, labelled ``main``.

- ``assistant`` — starts a new step; each ``tool_calls[]`` entry is a post-execute: ``function.name``,
  ``function.arguments`` (the JSON text the model produced, parsed as the reference parses it: ``{}`` for an empty
  string, the raw string when it is not JSON) and ``id`` as the call id. A legacy ``function_call`` is a call too
  (with no id, so no result is paired with it).
- ``tool`` — the result of the call named by ``tool_call_id`` (its content's text). Chat Completions has no error
  flag, so ``error`` stays None and a failure is whatever the tool wrote (``"Error: ..."`` in tau-bench).
- ``user`` — a pre-step with a user prompt.
- ``system``, ``developer`` and any other role are skipped.

Nothing in this format says a call was denied: ``denied`` is always false.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..records import InputError, Record
from ._json import Lines, json_type, outcome, parse_arguments
from .pending import Pending, read_messages

__all__ = ["AGENT", "read"]

AGENT = "main"


def read(path: str, lines: Lines) -> Iterator[Record | InputError]:
    """The records of one Chat Completions message list, in input order."""
    return read_messages(path, lines, _message)


def _message(pending: Pending, line: int, message: Any) -> str | None:
    if not isinstance(message, dict):
        return f"expected a message object, not {json_type(message)}"
    role = message.get("role")
    if not isinstance(role, str):
        return 'a message needs a string "role"'
    if role == "assistant":
        pending.end_step(AGENT)
        calls = _calls(line, message)
        if isinstance(calls, str):
            return calls
        for call in calls:
            pending.call(call)
    elif role == "tool":
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str):
            return 'a tool message needs a string "tool_call_id"'
        result, error = outcome(message.get("content"), is_error=False)
        pending.resolve(AGENT, call_id, result, error)
    elif role == "user":
        pending.end_step(AGENT)
        pending.add(Record("pre-step", line, agent=AGENT, user_prompt=True))
    return None


def _calls(line: int, message: dict[str, Any]) -> list[Record] | str:
    entries = message.get("tool_calls")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        return f'"tool_calls" must be a list, not {json_type(entries)}'
    calls = []
    for index, entry in enumerate(entries):
        function = entry.get("function") if isinstance(entry, dict) else None
        if not (isinstance(entry, dict) and isinstance(function, dict) and _is_name(function.get("name"))):
            return f'tool_calls[{index}] needs a string "function.name"'
        call_id = entry.get("id")
        calls.append(
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
        calls.append(Record("post-execute", line, agent=AGENT, tool=legacy["name"], arguments=arguments))
    return calls


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value != ""
