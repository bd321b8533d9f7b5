"""``gemini``: Gemini CLI command hooks (``docs/hooks/reference.md``, ``packages/core/src/hooks/types.ts``).

Gemini CLI starts ``toolguards hook gemini`` once per hook event, with one JSON object on stdin. Events:

- ``AfterTool`` counts the call: ``tool_name`` (``run_shell_command``, ``read_file``, ``write_file``, ``replace``,
  MCP tools as ``mcp_<server>_<tool>``…), ``tool_input``, and ``tool_response``, an object
  ``{llmContent, returnDisplay, error?}``: ``llmContent`` (what the model sees) is the result, and a set ``error``
  (``{message, type}``, or a string) makes it a failed call whose error text is the message;
- ``BeforeAgent`` (a prompt was submitted) resets the session's chains;
- every other event (``BeforeTool``, ``AfterModel``, ``SessionStart``…) is ignored.

Every event carries ``session_id``, ``hook_event_name``, ``transcript_path``, ``cwd`` and ``timestamp``. No event
carries an agent or subagent id, so the session is the agent (``main``), and no call id either, so a call Gemini CLI
delivered twice would count twice. A reminder goes to stdout as::

    {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "<the reminders>"}}

which Gemini CLI appends to the tool's result (exit 0: stdout is parsed as JSON). The registration, in
``.gemini/settings.json`` (``toolguards hook install gemini`` writes it; ``hooksConfig.enabled`` must not be false)::

    {"hooks": {
      "AfterTool":   [{"matcher": "*", "hooks": [{"name": "toolguards", "type": "command",
                                                  "command": "toolguards hook gemini"}]}],
      "BeforeAgent": [{"hooks": [{"name": "toolguards", "type": "command", "command": "toolguards hook gemini"}]}]
    }}
"""

from __future__ import annotations

from types import MappingProxyType

from .protocol import MAIN_AGENT, HookError, error_text, required_string

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

NAME = "gemini"
STATE_FILE = "gemini-cli.sqlite3"
CONTEXT_LIMIT = 10_000
#: Gemini CLI decodes each chunk of the hook's stdout apart (a character cut between two reads would be
#: lost): non-ASCII goes out as JSON's ``\\u`` escapes.
STDOUT_UTF8 = False

EVENTS: Mapping[str, Action] = MappingProxyType({"AfterTool": "count", "BeforeAgent": "reset"})

#: The host's hooks file, under the project folder (``--scope project``) or the home folder (``--scope user``).
CONFIG_FILE = ".gemini/settings.json"
#: Top-level keys a hooks file must have, with the value ``install`` writes when one is missing.
FILE_KEYS: Mapping[str, Any] = MappingProxyType({})
HTTP = False


def handler(command: str) -> dict[str, Any]:
    """A command hook running ``command``, named so that ``hooksConfig.disabled`` can name it."""
    return {"name": "toolguards", "type": "command", "command": command}


def register(hook: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The entries that run ``hook`` (a handler), by event: every tool's results, and each new prompt."""
    return {"AfterTool": {"matcher": "*", "hooks": [dict(hook)]}, "BeforeAgent": {"hooks": [dict(hook)]}}


def read(event: Mapping[str, Any]) -> tuple[str, str, str]:
    """The event's name and its session; the agent is always the session's main thread."""
    name = required_string(event, "hook_event_name")
    return name, required_string(event, "session_id"), MAIN_AGENT


def _error(response: Any) -> str | None:
    if not isinstance(response, dict):
        return None
    error = response.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return error_text(error)


def calls(event_name: str, event: Mapping[str, Any]) -> list[RawCall]:
    """The one call an ``AfterTool`` reports."""
    if not isinstance(event.get("tool_name"), str):
        raise HookError("the event has no `tool_name` string")
    response = event.get("tool_response")
    result = response["llmContent"] if isinstance(response, dict) and "llmContent" in response else response
    return [(event["tool_name"], event.get("tool_input"), None, result, _error(response))]


def answer(event_name: str, text: str) -> dict[str, Any]:
    """The hook-specific output that appends ``text`` to the tool's result."""
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
