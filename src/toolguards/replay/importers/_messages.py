"""What tells the two chat message-list dialects apart: OpenAI Chat Completions (``openai``) and Anthropic Messages
(``anthropic``). Both importers' ``identifies`` and the detector's last rule read these marks, so the two can never
both claim one input.

A value holds messages when it is a message (an object with a ``role``), a list of them, or an object with a
``messages`` list (a request body). A Chat Completions response object (``"object": "chat.completion"``) in the
place of a message stands for its assistant message, ``choices[0].message`` (``completion``). The first message
with a mark decides:

- an OpenAI mark: a ``tool_calls``, ``function_call`` or ``tool_call_id`` key, or role ``tool``, ``function``,
  ``system`` or ``developer`` (the Messages API keeps its system prompt outside the list);
- an Anthropic mark: a content list with a ``tool_use``, ``tool_result``, ``thinking`` or ``redacted_thinking`` block.

Without a mark (no tool calls at all, where both importers read the same records) the list only resembles one:
content lists of ``text`` blocks resemble ``anthropic``, string contents ``openai`` — the first message with a string
``role`` and either kind of content decides. Every check looks at a value's type before using it as a key.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["completion", "dialect", "resemblance"]

_OPENAI_KEYS = ("tool_calls", "function_call", "tool_call_id")
_OPENAI_ROLES = frozenset({"tool", "function", "system", "developer"})
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})


def completion(value: Any) -> tuple[bool, Any]:
    """Whether ``value`` is a Chat Completions response object, and then its first choice's ``message`` (None where
    it has none); else ``(False, value)``."""
    if not (isinstance(value, dict) and value.get("object") == "chat.completion"):
        return False, value
    choices = value.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return True, first.get("message") if isinstance(first, dict) else None


def _messages(value: Any) -> Iterator[Any]:
    """The messages ``value`` holds, a response object's message in its place, as far as the caller reads."""
    listed = value.get("messages") if isinstance(value, dict) else value
    if isinstance(listed, list):
        yield from (completion(item)[1] for item in listed)
    elif isinstance(value, dict):
        found, message = completion(value)
        if found or "role" in value:
            yield message


def _mark(message: Any) -> str | None:
    if not isinstance(message, dict):
        return None
    role = message.get("role")
    if any(key in message for key in _OPENAI_KEYS) or (isinstance(role, str) and role in _OPENAI_ROLES):
        return "openai"
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if isinstance(kind, str) and kind in _ANTHROPIC_BLOCKS:
                return "anthropic"
    return None


def dialect(value: Any) -> str | None:
    """``openai`` or ``anthropic`` by the first marked message of ``value``; None when no message has a mark."""
    for message in _messages(value):
        found = _mark(message)
        if found:
            return found
    return None


def resemblance(value: Any) -> str | None:
    """The dialect an unmarked message list resembles (``anthropic`` for text blocks, ``openai`` for strings)."""
    for message in _messages(value):
        if not (isinstance(message, dict) and isinstance(message.get("role"), str)):
            continue
        content = message.get("content")
        if isinstance(content, str):
            return "openai"
        if isinstance(content, list) and any(
            isinstance(block, dict) and block.get("type") == "text" for block in content
        ):
            return "anthropic"
    return None
