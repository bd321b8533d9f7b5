"""Anthropic content blocks, as the Messages API and Claude Code transcripts both write them (shared by the
``anthropic`` and ``claude-code`` importers).

- ``tool_use`` — ``{"type": "tool_use", "id", "name", "input"}``: a tool call (``input`` is already an object).
- ``tool_result`` — ``{"type": "tool_result", "tool_use_id", "content", "is_error"}``: its outcome; ``content`` is a
  string or a list of blocks, and its text is the result (or the error when ``is_error`` is true).
- ``text`` — text; a user turn with any is a user prompt.

And the ``usage`` object both write on an assistant message, the tokens of its model turn: ``input_tokens`` (the
prompt's tokens that no cache served) + ``cache_creation_input_tokens`` + ``cache_read_input_tokens`` in,
``output_tokens`` out; an absent or non-integer count is 0.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..records import Record
from ._json import count, outcome

__all__ = ["Result", "is_prompt", "tokens", "tool_result", "tool_use"]

_INPUT_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def tool_use(block: Any, line: int, agent: str) -> Record | str | None:
    """A ``tool_use`` block as a post-execute record; what is wrong with it when it has no name (the block is not
    read); None when the block is something else."""
    if not (isinstance(block, dict) and block.get("type") == "tool_use"):
        return None
    name = block.get("name")
    if not isinstance(name, str) or not name:
        return 'a tool_use block needs a string "name"'
    call_id = block.get("id")
    return Record(
        "post-execute",
        line,
        agent=agent,
        tool=name,
        arguments=block.get("input", {}),
        call_id=call_id if isinstance(call_id, str) else None,
    )


class Result(NamedTuple):
    """A ``tool_result`` block read: the call it answers and its outcome."""

    call_id: str
    result: Any
    error: str | None


def tool_result(block: Any) -> Result | str | None:
    """A ``tool_result`` block's outcome; what is wrong with it when it names no call; None when the block is
    something else."""
    if not (isinstance(block, dict) and block.get("type") == "tool_result"):
        return None
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str):
        return 'a tool_result block needs a string "tool_use_id"'
    result, error = outcome(block.get("content"), block.get("is_error") is True)
    return Result(call_id, result, error)


def is_prompt(content: Any) -> bool:
    """Whether a user message content carries text from the user: a string, or any text block."""
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "text" for b in content)


def tokens(counts: dict[str, Any]) -> tuple[int, int]:
    """A ``usage`` object's (input, output) tokens: the prompt's, cached or not, and the answer's."""
    return sum(count(counts, key) for key in _INPUT_KEYS), count(counts, "output_tokens")
