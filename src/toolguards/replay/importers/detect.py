"""Which format an input is in, decided from its head (the first 64 KiB) — never from the file's name — by these rules
in order:

1. A head that starts with ``[`` is a JSON array of messages: ``openai`` or ``anthropic`` by its messages (below).
2. A head whose first line starts with ``{`` but is not JSON by itself (a request body spread over lines): by the
   messages of its ``messages`` array, as far as the head holds them, when they tell.
3. Otherwise the head is read as JSON Lines, and the first line that decodes to an object decides:

   - ``type`` is ``post-execute``, ``pre-step`` or ``forget`` → ``events``;
   - ``type`` is ``session``, or contains a ``/`` (``tool/call``, ``turn/start``, ``agent/inbox/spliced``...) → ``dsh``;
   - ``type`` is a Claude Code entry type (``user``, ``assistant``, ``system``, ``summary``, ``progress``,
     ``file-history-snapshot``, ``queue-operation``) and the object has one of ``sessionId``, ``uuid``, ``message``,
     ``messageId``, ``leafUuid`` → ``claude-code``;
   - a ``messages`` array (a request body on one line) → by its messages;
   - a ``role`` (JSON Lines of messages) → by the messages of all the head's lines.
4. A first line too long for the head: ``"type"`` as its first key decides as in 3, or ``"parentUuid"`` and
   ``"sessionId"`` in it → ``claude-code``.

Messages: the first message that has an OpenAI mark — ``tool_calls``, ``function_call`` or ``tool_call_id``, or role
``tool``, ``function``, ``system`` or ``developer`` — means ``openai``; the first with an Anthropic mark — a content
list with a ``tool_use``, ``tool_result``, ``thinking`` or ``redacted_thinking`` block — means ``anthropic``. With no
mark (no tool calls at all, where both importers give the same records), content lists of ``text`` blocks mean
``anthropic`` and string contents ``openai``. Anything else is unknown (None): the caller asks for
``--input-format``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..records import InputError
from ._json import loads, message_list

__all__ = ["classify_messages", "detect_format"]

_EVENT_TYPES = frozenset({"post-execute", "pre-step", "forget"})
_CLAUDE_CODE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "progress", "file-history-snapshot", "queue-operation"}
)
_CLAUDE_CODE_KEYS = ("sessionId", "uuid", "message", "messageId", "leafUuid")
_OPENAI_KEYS = ("tool_calls", "function_call", "tool_call_id")
_OPENAI_ROLES = frozenset({"tool", "function", "system", "developer"})
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})
_FIRST_KEY_TYPE = re.compile(r'\s*\{\s*"type"\s*:\s*"([^"\\]*)"')


def detect_format(path: str, head: str) -> str | None:
    """The format of an input from its first 64 KiB of text, or None when it cannot tell (``path`` is not used: a
    ``.json`` name says nothing of the dialect inside)."""
    text = head.lstrip("\ufeff \t\r\n")
    if not text:
        return None
    if text.startswith("["):
        return classify_messages(_leading_messages(text))
    lines = text.split("\n")
    if not _decodes(lines[0]):
        found = classify_messages(_leading_messages(text))  # an object spread over lines: a request body
        if found:
            return found
    role_messages: list[Any] = []
    for line in lines:
        value = _decode(line)
        if not isinstance(value, dict):
            continue
        if "role" in value:
            role_messages.append(value)
        elif role_messages:
            break
        else:
            return _by_object(value)
    if role_messages:
        return classify_messages(role_messages)
    return _by_first_line(lines[0])


def classify_messages(messages: Iterable[Any]) -> str | None:
    """``openai`` or ``anthropic`` for a list of chat messages, by the rules of the module docstring."""
    weak = None
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if any(key in message for key in _OPENAI_KEYS) or message.get("role") in _OPENAI_ROLES:
            return "openai"
        if isinstance(content, list):
            types = {block.get("type") for block in content if isinstance(block, dict)}
            if types & _ANTHROPIC_BLOCKS:
                return "anthropic"
            if "text" in types:
                weak = weak or "anthropic"
        elif isinstance(content, str):
            weak = weak or "openai"
    return weak


def _by_object(value: dict[str, Any]) -> str | None:
    kind = value.get("type")
    if isinstance(kind, str):
        found = _by_type(kind)
        if found == "claude-code" and not any(key in value for key in _CLAUDE_CODE_KEYS):
            found = None
        if found:
            return found
    messages = value.get("messages")
    if isinstance(messages, list):
        return classify_messages(messages)
    return None


def _by_type(kind: str) -> str | None:
    if kind in _EVENT_TYPES:
        return "events"
    if kind == "session" or "/" in kind:
        return "dsh"
    if kind in _CLAUDE_CODE_TYPES:
        return "claude-code"
    return None


def _by_first_line(line: str) -> str | None:
    match = _FIRST_KEY_TYPE.match(line)
    if match:
        return _by_type(match.group(1))
    if '"parentUuid"' in line and '"sessionId"' in line:
        return "claude-code"
    return None


def _decode(line: str) -> Any:
    try:
        return loads(line) if line.strip() else None
    except ValueError:
        return None


def _decodes(line: str) -> bool:
    return _decode(line) is not None


def _leading_messages(text: str) -> list[Any]:
    # The head may end inside the document: keep the messages decoded before the cut.
    return [item[1] for item in message_list("-", text) if not isinstance(item, InputError)]
