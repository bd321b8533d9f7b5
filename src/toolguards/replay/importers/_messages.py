"""What tells the two chat message-list dialects apart: OpenAI Chat Completions (``openai``) and Anthropic Messages
(``anthropic``). Both importers' ``identifies`` and the detector's last rule read these marks, so the two can never
both claim one input.

A value holds messages when it is a message (an object with a ``role``), a list of them, or an object with a
``messages`` list (a request body). The first message with a mark decides:

- an OpenAI mark: a ``tool_calls``, ``function_call`` or ``tool_call_id`` key, or role ``tool``, ``function``,
  ``system`` or ``developer`` (the Messages API keeps its system prompt outside the list);
- an Anthropic mark: a content list with a ``tool_use``, ``tool_result``, ``thinking`` or ``redacted_thinking`` block.

Without a mark (no tool calls at all, where both importers read the same records) the list only resembles one:
content lists of ``text`` blocks resemble ``anthropic``, string contents ``openai`` — the first message with a string
``role`` and either kind of content decides. Every check looks at a value's type before using it as a key.
"""

from __future__ import annotations

from typing import Any

__all__ = ["dialect", "resemblance"]

_OPENAI_KEYS = ("tool_calls", "function_call", "tool_call_id")
_OPENAI_ROLES = frozenset({"tool", "function", "system", "developer"})
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})


def _messages(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        listed = value.get("messages")
        if isinstance(listed, list):
            return listed
        if "role" in value:
            return [value]
    return []


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
