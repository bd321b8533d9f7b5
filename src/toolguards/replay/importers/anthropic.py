"""The ``anthropic`` format: Anthropic Messages API message lists.

The input is a JSON array of messages, an object with a ``messages`` array (a request body; ``system``, ``tools``
and the rest are skipped), or JSON Lines with one message per line. A one-document input is read whole, and each
record's line is the line where its message starts; JSON Lines stream. One list is one agent, labelled ``main``.

- ``assistant`` — starts a new step; each ``tool_use`` block (``id``, ``name``, ``input``, already an object) is a
  post-execute. Server-side tools (``server_tool_use``) run inside the API call and are not counted.
- ``user`` — each ``tool_result`` block (``tool_use_id``, ``content`` a string or blocks, ``is_error``) is the outcome
  of its call: the content's text as the result, or as the error when ``is_error`` is true. A user turn with text (a
  string content, or any ``text`` block beside the results) carries a user prompt: a pre-step after its results.
- Any other role is skipped.

Nothing in this format says a call was denied: ``denied`` is always false.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..records import InputError, Record
from ._json import Lines, json_type, outcome, tool_use
from .pending import Pending, read_messages

__all__ = ["AGENT", "read"]

AGENT = "main"


def read(path: str, lines: Lines) -> Iterator[Record | InputError]:
    """The records of one Messages API message list, in input order."""
    return read_messages(path, lines, _message)


def _message(pending: Pending, line: int, message: Any) -> str | None:
    if not isinstance(message, dict):
        return f"expected a message object, not {json_type(message)}"
    role = message.get("role")
    if not isinstance(role, str):
        return 'a message needs a string "role"'
    content = message.get("content")
    if role not in ("user", "assistant"):
        return None
    if not isinstance(content, (str, list)):
        return f'the "content" of a message must be a string or a list of blocks, not {json_type(content)}'
    if role == "assistant":
        pending.end_step(AGENT)
        calls = _calls(line, content)
        if isinstance(calls, str):
            return calls
        for call in calls:
            pending.call(call)
        return None
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "tool_result":
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                return 'a tool_result block needs a string "tool_use_id"'
            result, error = outcome(block.get("content"), block.get("is_error") is True)
            pending.resolve(AGENT, call_id, result, error)
    if is_prompt(content):
        pending.end_step(AGENT)
        pending.add(Record("pre-step", line, agent=AGENT, user_prompt=True))
    return None


def is_prompt(content: Any) -> bool:
    """Whether a user message content carries text from the user: a string, or any text block."""
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "text" for b in content)


def _calls(line: int, content: str | list[Any]) -> list[Record] | str:
    calls = []
    for block in content if isinstance(content, list) else ():
        call = tool_use(block, line, AGENT)
        if isinstance(call, str):
            return call
        if call is not None:
            calls.append(call)
    return calls
