"""``claude``: Claude Code command hooks (and VS Code's agent hooks, which speak the same protocol).

Claude Code starts ``toolguards hook claude`` once per hook event, with one JSON object on stdin. Events:

- ``PostToolUse`` counts the call: ``tool_name``, ``tool_input``, ``tool_response`` (the result), ``tool_use_id``
  (the call id: a call delivered twice counts once);
- ``PostToolUseFailure`` counts it too, with ``error`` (text) instead of ``tool_response``: a repeated failing call is
  the commonest loop;
- ``PostToolBatch`` (newer CLIs) counts every call of a parallel batch in the order the model emitted them: a
  ``tool_calls`` list of objects with the fields above (a ``tool_results`` list whose entries carry ``tool_result`` and
  ``error_message`` is read too: the official field names could not be confirmed). Where the CLI has it, it may replace
  ``PostToolUse``; with both, each call counts once, in the order of whichever event delivers it first;
- ``UserPromptSubmit`` (a new prompt) resets the main thread's chains;
- every other event is ignored.

Every event carries ``hook_event_name`` and ``session_id`` (VS Code sends ``hookEventName`` and ``sessionId``, read
too); inside a subagent, tool events add ``agent_id``, which keeps its own chains (agent ``agent:<agent_id>``; the
main thread is ``main``). A reminder goes to stdout as::

    {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "<the reminders>"}}

with ``hookEventName`` the event's own name; Claude Code caps ``additionalContext`` at 10,000 characters. No reminder,
no output. The registration, in ``.claude/settings.json`` (``toolguards hook install claude`` writes it)::

    {"hooks": {
      "PostToolUse":        [{"matcher": "*", "hooks": [{"type": "command", "command": "toolguards hook claude"}]}],
      "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "toolguards hook claude"}]}],
      "UserPromptSubmit":   [{"hooks": [{"type": "command", "command": "toolguards hook claude"}]}]
    }}

An ``http`` hook (``{"type": "http", "url": …}``) posts the same JSON to ``toolguards serve`` instead.
"""

from __future__ import annotations

from types import MappingProxyType

from .protocol import HookError, error_text, optional_string, required_string, subagent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .protocol import Action, RawCall

__all__ = [
    "CONFIG_FILE",
    "CONTEXT_LIMIT",
    "EVENTS",
    "FILE_KEYS",
    "HTTP",
    "NAME",
    "STATE_FILE",
    "STDOUT_UTF8",
    "answer",
    "calls",
    "handler",
    "read",
    "register",
]

NAME = "claude"
STATE_FILE = "claude-code.sqlite3"
CONTEXT_LIMIT = 10_000
#: Claude Code reads the hook's stdout through a UTF-8 stream decoder: non-ASCII goes out as is.
STDOUT_UTF8 = True

EVENTS: Mapping[str, Action] = MappingProxyType({
    "PostToolUse": "count",
    "PostToolUseFailure": "count",
    "PostToolBatch": "count",
    "UserPromptSubmit": "reset",
})

#: The host's hooks file, under the project folder (``--scope project``) or the home folder (``--scope user``).
CONFIG_FILE = ".claude/settings.json"
#: Top-level keys a hooks file must have, with the value ``install`` writes when one is missing.
FILE_KEYS: Mapping[str, Any] = MappingProxyType({})
#: Claude Code also runs ``http`` hooks (``{"type": "http", "url": …}``), served by ``toolguards serve``.
HTTP = True


def handler(command: str) -> dict[str, Any]:
    """A command hook running ``command``."""
    return {"type": "command", "command": command}


def register(hook: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The entries that run ``hook`` (a handler), by event: every tool's calls and failures, and each new prompt."""
    return {
        "PostToolUse": {"matcher": "*", "hooks": [dict(hook)]},
        "PostToolUseFailure": {"matcher": "*", "hooks": [dict(hook)]},
        "UserPromptSubmit": {"hooks": [dict(hook)]},
    }


def read(event: Mapping[str, Any]) -> tuple[str, str, str]:
    """The event's name, its session, and its agent key."""
    name = required_string(event, "hook_event_name", "hookEventName")
    session = required_string(event, "session_id", "sessionId")
    return name, session, subagent(event)


def _call(call: Any, where: str) -> RawCall:
    if not isinstance(call, dict) or not isinstance(call.get("tool_name"), str):
        raise HookError(f"{where} has no `tool_name` string")
    call_id = optional_string(call, "tool_use_id", where)
    result = call["tool_response"] if "tool_response" in call else call.get("tool_result")
    error = error_text(call["error"] if "error" in call else call.get("error_message"))
    return call["tool_name"], call.get("tool_input"), call_id, result, error


def calls(event_name: str, event: Mapping[str, Any]) -> list[RawCall]:
    """The calls the event reports: itself, or a batch's entries in their listed order."""
    if event_name != "PostToolBatch":
        return [_call(event, "the event")]
    key = "tool_calls" if "tool_calls" in event else "tool_results"
    entries = event.get(key)
    if not isinstance(entries, list):
        raise HookError("the PostToolBatch event has no `tool_calls` list")
    return [_call(entry, f"{key}[{index}]") for index, entry in enumerate(entries)]


def answer(event_name: str, text: str) -> dict[str, Any]:
    """The hook-specific output that adds ``text`` to the model's context."""
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
