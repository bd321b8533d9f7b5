"""``claude``: Claude Code command hooks (and VS Code's agent hooks, which speak the same protocol).

Claude Code starts ``toolguards hook claude`` once per hook event, with one JSON object on stdin. Events (as Claude Code
2.1.197 sends them, recorded in ``tests/fixtures/claude-code/``):

- ``PostToolUse`` counts the call: ``tool_name``, ``tool_input``, ``tool_response`` (the result: an object such as
  Bash's ``{"stdout", "stderr", "interrupted", "isImage", "noOutputExpected"}``), ``tool_use_id`` (the call id: a call
  delivered twice counts once);
- ``PostToolUseFailure`` counts it too, with ``error`` (text, ``"Exit code 2\nls: …"``) instead of ``tool_response``:
  a repeated failing call is the commonest loop;
- ``PostToolBatch`` (accepted from 2.1.101; sent by 2.1.118 and later, not by 2.1.101) comes once per step, after
  every call of it has resolved, with a ``tool_calls`` list in the order the model emitted the calls: ``tool_name``,
  ``tool_input``, ``tool_use_id`` and ``tool_response`` (here the text the model reads, not the object above, and
  nothing that tells a failure). Each call counts once, in the order of whichever event delivers it first: the per-call
  events come before the batch, so the batch counts only what they did not report — the calls Claude Code refused at
  its permission step (a tool the user did not allow), which fire neither ``PostToolUse`` nor ``PostToolUseFailure``.
  Parallel calls still count in the order they finished, as their ``PostToolUse`` events come. A ``tool_results`` list
  whose entries carry ``tool_result`` and ``error_message`` is read too (a shape described elsewhere, not seen from
  Claude Code);
- ``UserPromptSubmit`` (a new prompt) resets the main thread's chains;
- every other event is ignored.

Every event carries ``hook_event_name`` and ``session_id`` (VS Code sends ``hookEventName`` and ``sessionId``, read
too), with ``transcript_path``, ``cwd``, ``prompt_id``, ``permission_mode`` and ``effort``, which are not read; inside a
subagent, tool events add ``agent_id``, which keeps its own chains (agent ``agent:<agent_id>``; the main thread is
``main``). A reminder goes to stdout as::

    {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "<the reminders>"}}

with ``hookEventName`` the event's own name; Claude Code caps ``additionalContext`` at 10,000 characters, and hands it
to the model as a text block right after the call's result (after the step's results, for ``PostToolBatch``):
``<system-reminder>\nPostToolUse:Bash hook additional context: <the reminders>\n</system-reminder>``. No reminder,
no output. The registration, in ``.claude/settings.json`` (``toolguards hook install claude`` writes it)::

    {"hooks": {
      "PostToolUse":        [{"matcher": "*", "hooks": [{"type": "command", "command": "toolguards hook claude"}]}],
      "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "toolguards hook claude"}]}],
      "PostToolBatch":      [{"hooks": [{"type": "command", "command": "toolguards hook claude"}]}],
      "UserPromptSubmit":   [{"hooks": [{"type": "command", "command": "toolguards hook claude"}]}]
    }}

``PostToolBatch`` is registered only where ``claude --version`` says 2.1.101 or later (``SINCE``): before it, Claude
Code drops, without a word, a whole settings file that names an event it does not know (2.1.100 does so). At user scope
the file is ``$CLAUDE_CONFIG_DIR/settings.json`` when that variable is set, as Claude Code reads it. An ``http`` hook
(``{"type": "http", "url": …}``) posts the same JSON to ``toolguards serve`` instead.
"""

from __future__ import annotations

from types import MappingProxyType

from . import protocol
from .protocol import (
    MEMBERS,
    HookError,
    error_text,
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

NAME = "claude"
STATE_FILE = "claude-code.sqlite3"

# The protocol's defaults this host takes; what differs from them is declared below.
CONTEXT_LIMIT = protocol.CONTEXT_LIMIT
FILE_KEYS = protocol.FILE_KEYS
GUARD_FILE = protocol.GUARD_FILE
handler = protocol.handler
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
#: Where Claude Code keeps the user's own ``.claude`` folder when this variable is set.
USER_FOLDER_ENV = "CLAUDE_CONFIG_DIR"
#: Claude Code also runs ``http`` hooks (``{"type": "http", "url": …}``), served by ``toolguards serve``.
HTTP = True
#: The program install asks for its version, and the first version that accepts each event that needs one.
PROGRAM = "claude"
SINCE: Mapping[str, tuple[int, ...]] = MappingProxyType({"PostToolBatch": (2, 1, 101)})


def register(hook: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The entries that run ``hook`` (a handler), by event: every tool's calls and failures, each step's batch (for the
    refused calls), and each new prompt."""
    return {
        "PostToolUse": {"matcher": "*", "hooks": [dict(hook)]},
        "PostToolUseFailure": {"matcher": "*", "hooks": [dict(hook)]},
        "PostToolBatch": {"hooks": [dict(hook)]},
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
