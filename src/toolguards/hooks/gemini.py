"""``gemini``: Gemini CLI command hooks (``docs/hooks/reference.md``, ``packages/core/src/hooks/types.ts``).

Gemini CLI starts ``toolguards hook gemini`` once per hook event, with one JSON object on stdin. Events:

- ``AfterTool`` counts the call: ``tool_name`` (``run_shell_command``, ``read_file``, ``write_file``, ``replace``,
  MCP tools as ``mcp_<server>_<tool>``…), ``tool_input``, and ``tool_response``, an object
  ``{llmContent, returnDisplay, error?}``: ``llmContent`` (what the model sees) is the result, and a set ``error``
  (``{message, type}``, or a string) makes it a failed call whose error text is the message. A shell command that
  exits non-zero is no failed call: Gemini CLI 0.61 sets no ``error`` for it, and its ``llmContent`` reads
  ``<untrusted_context>\nOutput: …\nExit Code: 1\nProcess Group PGID: <n>\n</untrusted_context>`` (a new ``<n>``
  every call). A call Gemini CLI refuses before running it (an unknown tool, its own loop detection) has no event;
- ``BeforeAgent`` (a prompt was submitted) resets the session's chains; Gemini CLI's own turns within a prompt
  ("Please continue.", its "Potential loop detected" note) send none;
- every other event (``BeforeTool``, ``AfterModel``, ``SessionStart``…) is ignored.

Every event carries ``session_id``, ``hook_event_name``, ``transcript_path``, ``cwd`` and ``timestamp``. No event
carries an agent or subagent id, so the session is the agent (``main``), and no call id either, so a call Gemini CLI
delivered twice would count twice. A reminder goes to stdout as::

    {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "<the reminders>"}}

which Gemini CLI appends to the tool's result, the ``output`` of the call's ``functionResponse``, as
``\n\n<hook_context><the reminders></hook_context>`` (exit 0: stdout is parsed as JSON). The registration, in
``.gemini/settings.json`` (``toolguards hook install gemini`` writes it, with ``--config`` naming ``GUARD_FILE``;
``hooksConfig.enabled`` must not be false, and Gemini CLI runs it only in a trusted folder:
``toolguards.hooks.gemini_settings``)::

    {"hooks": {
      "AfterTool":   [{"matcher": "*", "hooks": [{"name": "toolguards", "type": "command",
                                                  "command": "toolguards hook gemini"}]}],
      "BeforeAgent": [{"hooks": [{"name": "toolguards", "type": "command", "command": "toolguards hook gemini"}]}]
    }}
"""

from __future__ import annotations

from types import MappingProxyType

from . import protocol
from .protocol import (
    MAIN_AGENT,
    MEMBERS,
    HookError,
    error_text,
    required_string,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .protocol import Action, RawCall

__all__ = list(MEMBERS)

NAME = "gemini"
STATE_FILE = "gemini-cli.sqlite3"

# The protocol's defaults this host takes; what differs from them is declared below.
CONTEXT_LIMIT = protocol.CONTEXT_LIMIT
FILE_KEYS = protocol.FILE_KEYS
HTTP = protocol.HTTP
SINCE = protocol.SINCE
USER_FOLDER_ENV = protocol.USER_FOLDER_ENV
#: Gemini CLI decodes each chunk of the hook's stdout apart (a character cut between two reads would be lost):
#: non-ASCII goes out as JSON's ``\\u`` escapes (the protocol's default).
STDOUT_UTF8 = protocol.STDOUT_UTF8

EVENTS: Mapping[str, Action] = MappingProxyType({"AfterTool": "count", "BeforeAgent": "reset"})

#: The host's hooks file, under the project folder (``--scope project``) or the home folder (``--scope user``).
CONFIG_FILE = ".gemini/settings.json"
#: The shipped guard file install registers when no --config is given: thresholds 3 and 4, below Gemini CLI's own
#: loop detection, which interrupts the 5th identical call in a row (``docs/hosts/gemini-cli.md``).
GUARD_FILE = "gemini-cli.yaml"
#: The host's command-line program.
PROGRAM = "gemini"


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
