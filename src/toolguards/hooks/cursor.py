"""``cursor``: Cursor agent hooks (closed source; from https://cursor.com/docs/hooks.md and secondary references).

Cursor starts ``toolguards hook cursor`` once per hook event, with one JSON object on stdin. Events (camelCase):

- ``postToolUse`` counts the call: ``tool_name`` (``Shell``, ``Read``, ``Write``, ``Grep``, ``Delete``, ``Task``,
  ``MCP:<tool>``…), ``tool_input``, ``tool_output`` (the result) and ``tool_use_id`` (the call id: a call delivered
  twice counts once). For ``Shell`` the output is a JSON *string* ``{"output", "exitCode"}``: it is parsed, so the
  result is the object (a string that does not parse stays a string);
- ``postToolUseFailure`` (a Shell command that exits non-zero, say) counts the call too, with ``error_message`` as the
  error text: a repeated failing call is the commonest loop;
- ``beforeSubmitPrompt`` (a new prompt) resets the conversation's chains;
- every other event (``preToolUse``, ``afterShellExecution``, ``stop``…) is ignored.

Every event carries ``conversation_id`` (the session), ``generation_id``, ``hook_event_name``, ``model``,
``cursor_version``, ``workspace_roots``, ``user_email`` and ``transcript_path``. Tool events carry no subagent id, so
the conversation is the agent (``main``). A reminder goes to stdout as::

    {"additional_context": "<the reminders>"}

which Cursor appends after the tool's result. The registration, in ``.cursor/hooks.json`` (``toolguards hook install
cursor`` writes it)::

    {"version": 1, "hooks": {
      "postToolUse":        [{"command": "toolguards hook cursor"}],
      "postToolUseFailure": [{"command": "toolguards hook cursor"}],
      "beforeSubmitPrompt": [{"command": "toolguards hook cursor"}]
    }}
"""

from __future__ import annotations

import json
from types import MappingProxyType

from . import protocol
from .protocol import (
    MAIN_AGENT,
    MEMBERS,
    HookError,
    error_text,
    optional_string,
    required_string,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .protocol import Action, RawCall

__all__ = list(MEMBERS)

NAME = "cursor"
STATE_FILE = "cursor.sqlite3"

# The protocol's defaults this host takes; what differs from them is declared below.
CONTEXT_LIMIT = protocol.CONTEXT_LIMIT
GUARD_FILE = protocol.GUARD_FILE
HTTP = protocol.HTTP
PROGRAM = protocol.PROGRAM
SINCE = protocol.SINCE
USER_FOLDER_ENV = protocol.USER_FOLDER_ENV
#: Cursor's reader of the hook's stdout cannot be read (closed source): non-ASCII goes out as JSON's ``\\u``
#: escapes (the protocol's default), which no reader decodes wrong.
STDOUT_UTF8 = protocol.STDOUT_UTF8

EVENTS: Mapping[str, Action] = MappingProxyType({
    "postToolUse": "count",
    "postToolUseFailure": "count",
    "beforeSubmitPrompt": "reset",
})

#: The host's hooks file, under the project folder (``--scope project``) or the home folder (``--scope user``).
CONFIG_FILE = ".cursor/hooks.json"
#: Top-level keys a hooks file must have, with the value ``install`` writes when one is missing. (No program is asked
#: for its version: the editor and its CLI share the hooks file.)
FILE_KEYS: Mapping[str, Any] = MappingProxyType({"version": 1})


def handler(command: str) -> dict[str, Any]:
    """A hook running ``command`` (Cursor's entries are handlers themselves, without matcher groups)."""
    return {"command": command}


def register(hook: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The entries that run ``hook``, by event: every tool's calls and failures, and each new prompt."""
    return {name: dict(hook) for name in ("postToolUse", "postToolUseFailure", "beforeSubmitPrompt")}


def read(event: Mapping[str, Any]) -> tuple[str, str, str]:
    """The event's name and its conversation; the agent is always the conversation's main thread."""
    name = required_string(event, "hook_event_name")
    return name, required_string(event, "conversation_id"), MAIN_AGENT


def _result(tool: str, output: Any) -> Any:
    if tool == "Shell" and isinstance(output, str):
        try:
            return json.loads(output)
        except ValueError:
            return output
    return output


def calls(event_name: str, event: Mapping[str, Any]) -> list[RawCall]:
    """The one call a ``postToolUse`` or ``postToolUseFailure`` reports."""
    tool = event.get("tool_name")
    if not isinstance(tool, str):
        raise HookError("the event has no `tool_name` string")
    call_id = optional_string(event, "tool_use_id")
    if event_name == "postToolUseFailure":
        return [(tool, event.get("tool_input"), call_id, None, error_text(event.get("error_message")))]
    return [(tool, event.get("tool_input"), call_id, _result(tool, event.get("tool_output")), None)]


def answer(event_name: str, text: str) -> dict[str, Any]:
    """The output that appends ``text`` after the tool's result."""
    return {"additional_context": text}
