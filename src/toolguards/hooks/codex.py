"""``codex``: OpenAI Codex CLI command hooks (``codex-rs/hooks``; the JSON Schemas of every payload ship with Codex).

Codex starts ``toolguards hook codex`` once per hook event, with one JSON object on stdin. Events:

- ``PostToolUse`` counts the call: ``tool_name`` (``Bash`` for shell commands, ``apply_patch`` for edits,
  ``spawn_agent``, ``mcp__<server>__<tool>``…), ``tool_input``, ``tool_response`` (the result: the output text for
  ``Bash``) and ``tool_use_id`` (the call id: a call delivered twice counts once). Codex reports no failure event and no
  error field; a failing command is a result like any other;
- ``UserPromptSubmit`` (a new prompt) resets the agent's chains;
- every other event (``PreToolUse``, ``SessionStart``, ``Stop``…) is ignored.

Every event carries ``session_id`` and ``hook_event_name``; a call made by a subagent adds ``agent_id`` (and
``agent_type``), which keeps its own chains (agent ``agent:<agent_id>``; the main thread is ``main``). A reminder goes
to stdout as::

    {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "<the reminders>"}}

which validates against Codex's ``post-tool-use.command.output.schema.json``. Plain text on stdout would be ignored
for ``PostToolUse``, and JSON that fails the schema marks the hook failed, so nothing else is ever printed. Codex spills
a context above ``additionalContextLimit`` (2,500 tokens by default) to a file; the reminders are kept under 10,000
characters so that they reach the model as text. Codex puts each reminder before the call's output, as a ``developer``
message. The registration, in ``.codex/hooks.json`` (``toolguards hook install codex`` writes it; ``--scope user``
writes ``$CODEX_HOME/hooks.json``). Codex runs it only once it is trusted (``--trust``, or its ``/hooks`` review) and,
for a project's file, in a trusted project: ``toolguards.hooks.codex_trust``::

    {"hooks": {
      "PostToolUse":      [{"hooks": [{"type": "command", "command": "toolguards hook codex"}]}],
      "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "toolguards hook codex"}]}]
    }}
"""

from __future__ import annotations

from types import MappingProxyType

from . import protocol
from .protocol import (
    MEMBERS,
    HookError,
    optional_string,
    required_string,
    subagent,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .protocol import Action, RawCall

__all__ = list(MEMBERS)

NAME = "codex"
STATE_FILE = "codex.sqlite3"

# The protocol's defaults this host takes; what differs from them is declared below.
CONTEXT_LIMIT = protocol.CONTEXT_LIMIT
FILE_KEYS = protocol.FILE_KEYS
GUARD_FILE = protocol.GUARD_FILE
HTTP = protocol.HTTP
SINCE = protocol.SINCE
handler = protocol.handler
#: Codex decodes the hook's whole stdout at once as UTF-8: non-ASCII goes out as is.
STDOUT_UTF8 = True

EVENTS: Mapping[str, Action] = MappingProxyType({"PostToolUse": "count", "UserPromptSubmit": "reset"})

#: The host's hooks file, under the project folder (``--scope project``) or the home folder (``--scope user``).
CONFIG_FILE = ".codex/hooks.json"
#: Where the user's ``.codex`` folder is when set (Codex resolves it through symlinks): ``--scope user`` writes there.
USER_FOLDER_ENV = "CODEX_HOME"
#: The host's command-line program.
PROGRAM = "codex"


def register(hook: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The entries that run ``hook`` (a handler), by event: no matcher, so every tool's calls; each new prompt."""
    return {"PostToolUse": {"hooks": [dict(hook)]}, "UserPromptSubmit": {"hooks": [dict(hook)]}}


def read(event: Mapping[str, Any]) -> tuple[str, str, str]:
    """The event's name, its session, and its agent key."""
    name = required_string(event, "hook_event_name")
    return name, required_string(event, "session_id"), subagent(event)


def calls(event_name: str, event: Mapping[str, Any]) -> list[RawCall]:
    """The one call a ``PostToolUse`` reports."""
    if not isinstance(event.get("tool_name"), str):
        raise HookError("the event has no `tool_name` string")
    call_id = optional_string(event, "tool_use_id")
    return [(event["tool_name"], event.get("tool_input"), call_id, event.get("tool_response"), None)]


def answer(event_name: str, text: str) -> dict[str, Any]:
    """The hook-specific output that adds ``text`` to the model's context."""
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
