"""What every host protocol module provides, and the field readers they share.

A host module (``toolguards.hooks.claude``, ``codex``, ``gemini``, ``cursor``) knows one host's hook protocol and
nothing else; its docstring is the reference of the events it handles and the fields it reads. It provides:

- ``NAME``: the host's key (``toolguards hook NAME``); ``STATE_FILE``: the SQLite file of its sessions' chains;
  ``CONTEXT_LIMIT``: the most text, in UTF-16 code units, one answer may hand the model;
- ``EVENTS``: the events it acts on, each mapped to ``"count"`` or ``"reset"`` (any other event is ignored);
- ``read(event) -> (event name, session, agent)``: the fields every event must carry;
- ``calls(event name, event) -> list[RawCall]``: the tool calls a counted event reports, in the order the model
  emitted them;
- ``answer(event name, text) -> dict``: the JSON object that hands ``text`` to the model, and ``STDOUT_UTF8``
  (whether the host decodes the hook's whole stdout as UTF-8, so non-ASCII may go out as it is);
- for ``toolguards hook install``: ``CONFIG_FILE`` (the hooks file, relative to the project or home folder),
  ``USER_FOLDER_ENV`` (the environment variable that, where it is set, stands for the first folder of
  ``CONFIG_FILE`` at user scope, as ``CLAUDE_CONFIG_DIR`` stands for ``~/.claude``; None for none), ``FILE_KEYS``
  (top-level keys a hooks file must have), ``HTTP`` (whether the host runs ``http`` hooks), ``GUARD_FILE`` (the
  shipped guard file install registers when none is given; None: the hook's default), ``handler(command)`` (the
  handler that runs a command), ``register(handler) -> {event: entry}`` (the entries to merge into the file's
  ``hooks``: a matcher group holding the handler, or the handler itself), and ``SINCE`` (registered events an older
  host refuses, each with the first version that accepts it) with ``PROGRAM`` (the host's command, asked
  ``PROGRAM --version`` when ``SINCE`` names an event; ``toolguards.hooks.versions``).

``MEMBERS`` names them all. The members most hosts share have their defaults here, and a host module imports the
defaults it takes and declares only what differs (as pre-commit's languages take ``lang_base``'s):
``CONTEXT_LIMIT``, ``STDOUT_UTF8``, ``USER_FOLDER_ENV``, ``FILE_KEYS``, ``HTTP``, ``GUARD_FILE``, ``PROGRAM``,
``SINCE`` and ``handler``.

Every function raises ``HookError`` with a one-line message for input it cannot read. This module and the host modules
import nothing heavier than ``json``: an event the hook ignores must cost no more than reading it.
"""

from __future__ import annotations

import json
from types import MappingProxyType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal, Protocol

    #: What the hook does with an event.
    Action = Literal["count", "reset", "ignore"]
    #: One tool call as a host reports it: tool name, arguments, call id, result, error text.
    RawCall = tuple[str, Any, str | None, Any, str | None]

    class Host(Protocol):
        """A host protocol module."""

        NAME: str
        STATE_FILE: str
        CONTEXT_LIMIT: int
        #: the host decodes the whole stdout as UTF-8 (else non-ASCII goes out as JSON's \u escapes)
        STDOUT_UTF8: bool
        EVENTS: Mapping[str, Action]

        def read(self, event: Mapping[str, Any]) -> tuple[str, str, str]: ...
        def calls(self, event_name: str, event: Mapping[str, Any]) -> list[RawCall]: ...
        def answer(self, event_name: str, text: str) -> dict[str, Any]: ...

        CONFIG_FILE: str
        USER_FOLDER_ENV: str | None
        FILE_KEYS: Mapping[str, Any]
        HTTP: bool
        GUARD_FILE: str | None
        PROGRAM: str | None
        SINCE: Mapping[str, tuple[int, ...]]

        def handler(self, command: str) -> dict[str, Any]: ...
        def register(self, hook: Mapping[str, Any]) -> dict[str, dict[str, Any]]: ...


__all__ = [
    "CONTEXT_LIMIT",
    "FILE_KEYS",
    "GUARD_FILE",
    "HTTP",
    "MAIN_AGENT",
    "MEMBERS",
    "PROGRAM",
    "SINCE",
    "STDOUT_UTF8",
    "USER_FOLDER_ENV",
    "HookError",
    "decode",
    "error_text",
    "handler",
    "optional_string",
    "required_string",
    "subagent",
]

#: What every host module provides (its ``__all__``).
MEMBERS = (
    "CONFIG_FILE", "CONTEXT_LIMIT", "EVENTS", "FILE_KEYS", "GUARD_FILE", "HTTP", "NAME", "PROGRAM", "SINCE",
    "STATE_FILE", "STDOUT_UTF8", "USER_FOLDER_ENV", "answer", "calls", "handler", "read", "register",
)

# The defaults a host module takes unless it declares its own.
#: The most text, in UTF-16 code units, one answer may hand the model.
CONTEXT_LIMIT = 10_000
#: No environment variable moves the user's folder.
USER_FOLDER_ENV: str | None = None
#: No top-level key a hooks file must have.
FILE_KEYS: Mapping[str, Any] = MappingProxyType({})
#: Command hooks only.
HTTP = False
#: The hook's default guard file (the shipped ``repeat-tool-reminder.yaml``).
GUARD_FILE: str | None = None
#: No program asked for its version, and no event that needs a newer host than the others.
PROGRAM: str | None = None
SINCE: Mapping[str, tuple[int, ...]] = MappingProxyType({})
#: The answer's non-ASCII as JSON's ``\u`` escapes: safe for any reader of the hook's stdout (``True``: as is, for a
#: host that decodes the whole stdout as UTF-8).
STDOUT_UTF8 = False


def handler(command: str) -> dict[str, Any]:
    """A command hook running ``command``."""
    return {"type": "command", "command": command}

#: The agent key of a session's main thread (a subagent's key is ``agent:<its id>``).
MAIN_AGENT = "main"


class HookError(Exception):
    """Input the hook cannot read, or a failure while handling it; its message is one line for stderr."""


def decode(payload: bytes | str) -> dict[str, Any]:
    """The event object a host sent; HookError unless the payload is one JSON object."""
    try:
        event = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HookError(f"stdin is not a JSON event ({exc})") from None
    if not isinstance(event, dict):
        raise HookError(f"stdin holds a JSON {type(event).__name__}, not an event object")
    return event


def required_string(event: Mapping[str, Any], *names: str) -> str:
    """The first of ``names`` present in ``event``, a non-empty string; HookError naming the first name otherwise."""
    for name in names:
        if name in event:
            value = event[name]
            if isinstance(value, str) and value:
                return value
            break
    raise HookError(f"the event has no `{names[0]}` string")


def optional_string(event: Mapping[str, Any], name: str, where: str = "the event") -> str | None:
    """``event[name]`` when it is a string, None when it is absent or null; HookError for any other value."""
    value = event.get(name)
    if value is None or isinstance(value, str):
        return value
    raise HookError(f"{where}: `{name}` is a {type(value).__name__}, not a string")


def subagent(event: Mapping[str, Any], name: str = "agent_id") -> str:
    """The agent key: ``agent:<id>`` when the event names a subagent, else the main thread."""
    agent_id = optional_string(event, name)
    return MAIN_AGENT if not agent_id else f"agent:{agent_id}"


def error_text(error: Any) -> str | None:
    """A host's error value as the text guards compare: a string as it is, anything else as JSON; None for none."""
    if error is None or isinstance(error, str):
        return error
    return json.dumps(error)
