"""The ``anthropic`` format: Anthropic Messages API message lists.

The input is a JSON array of messages, an object with a ``messages`` array (a request body; ``system``, ``tools``
and the rest are skipped), or JSON Lines with one message per line. A one-document input is read whole, and each
record's line is the line where its message starts; JSON Lines stream. One list is one agent, labelled ``main``.

- ``assistant`` — starts a new step; each ``tool_use`` block (``id``, ``name``, ``input``, already an object) is a
  post-execute. Server-side tools (``server_tool_use``) run inside the API call and are not counted. A ``usage``
  object (a logged API response is itself such a message: ``{"id", "type": "message", "role": "assistant", "model",
  "content", "stop_reason", "usage"}``) is a ``usage`` record before the message's calls: ``input_tokens`` +
  ``cache_creation_input_tokens`` + ``cache_read_input_tokens`` in, ``output_tokens`` out (0 where absent), the
  message's ``model`` as the model. A ``usage`` that is neither an object nor null is a ``skipped`` record.
- ``user`` — each ``tool_result`` block (``tool_use_id``, ``content`` a string or blocks, ``is_error``) is the outcome
  of its call: the content's text as the result, or as the error when ``is_error`` is true. A user turn with text (a
  string content, or any ``text`` block beside the results) carries a user prompt: a pre-step after its results.
- ``system`` (where a list carries one) passes in silence.

Nothing in this format says a call was denied: ``denied`` is always false. A message of another role, and a
content or a block in a shape this importer does not know (a ``tool_use`` without a name, say), is a ``skipped``
record (counted; an error only with ``--strict``); the other blocks of the message are read. A message that is not an
object with a string ``role`` is an error of its line. The blocks are read as ``_blocks`` documents them. Detection:
the first message with an Anthropic mark (``_messages``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record, usage
from ._blocks import is_prompt, tokens, tool_result, tool_use
from ._json import Lines, json_type
from ._messages import dialect
from .pending import Pending, read_messages

__all__ = ["AGENT", "FILE_NAME", "identifies", "read"]

AGENT = "main"
FILE_NAME: re.Pattern[str] | None = None


def identifies(value: Any) -> bool:
    """Whether a decoded value holds Messages API messages with an Anthropic mark before any OpenAI one."""
    return dialect(value) == "anthropic"


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of one Messages API message list, in input order."""
    pending = Pending()
    return read_messages(path, lines, pending, lambda line, message: _message(pending, line, message))


def _message(pending: Pending, line: int, message: Any) -> str | None:
    if not isinstance(message, dict):
        return f"expected a message object, not {json_type(message)}"
    role = message.get("role")
    if not isinstance(role, str):
        return 'a message needs a string "role"'
    if role not in ("user", "assistant"):
        if role != "system":
            pending.skip(line, f'role "{role}"')
        return None
    content = message.get("content")
    if not isinstance(content, (str, list)):
        pending.skip(line, f'the "content" of a message must be a string or a list of blocks, not {json_type(content)}')
        return None
    if role == "assistant":
        pending.end_step(AGENT)
        _usage(pending, line, message)
        for block in content if isinstance(content, list) else ():
            call = tool_use(block, line, AGENT)
            if isinstance(call, str):
                pending.skip(line, call)
            elif call is not None:
                pending.call(call)
        return None
    for block in content if isinstance(content, list) else ():
        answer = tool_result(block)
        if isinstance(answer, str):
            pending.skip(line, answer)
        elif answer is not None:
            pending.resolve(AGENT, answer.call_id, answer.result, answer.error)
    if is_prompt(content):
        pending.end_step(AGENT)
        pending.add(Record("pre-step", line, agent=AGENT, user_prompt=True))
    return None


def _usage(pending: Pending, line: int, message: dict[str, Any]) -> None:
    """The turn's tokens, queued before its calls."""
    counts = message.get("usage")
    if counts is None:
        return
    if not isinstance(counts, dict):
        pending.skip(line, f'"usage" must be an object, not {json_type(counts)}')
        return
    model = message.get("model")
    pending.add(usage(line, AGENT, model if isinstance(model, str) else None, *tokens(counts)))
