"""Claude Code command hooks: count every tool call of a session and hand reminders back as ``additionalContext``.

Claude Code starts ``toolguards hook claude`` once per hook event, with one JSON object on stdin. The chains live in
a SQLite file (``toolguards.stores.sqlite``) keyed by ``session_id``, so separate processes, even concurrent ones, count
one session exactly; ``tool_use_id`` is the call id, so an event delivered twice counts once. The fields read:

- ``PostToolUse``: ``tool_name``, ``tool_input``, ``tool_response``, ``tool_use_id``;
- ``PostToolUseFailure``: the same with ``error`` instead of ``tool_response`` (a repeated failing call counts too);
- ``PostToolBatch``: ``tool_calls``, a list of those objects, counted in the listed (emitted) order (``tool_results``
  with ``tool_result``/``error_message`` is read too);
- ``UserPromptSubmit``: a new prompt, which resets the main thread's chains;
- in every event ``session_id``, and ``agent_id`` inside a subagent, which keeps its own chains (the main thread is
  the agent ``main``). Any other event is ignored.

Register it in ``.claude/settings.json``. Where the CLI has ``PostToolBatch``, it may replace ``PostToolUse``: it
reports a parallel batch in the model's order, where ``PostToolUse`` fires as the calls complete (with both, each call
counts once, in the order of whichever event delivers it first)::

    {"hooks": {
      "PostToolUse":        [{"matcher": "*", "hooks": [{"type": "command", "command": "toolguards hook claude"}]}],
      "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "toolguards hook claude"}]}],
      "UserPromptSubmit":   [{"hooks": [{"type": "command", "command": "toolguards hook claude"}]}]
    }}

A reminder goes to stdout as ``{"hookSpecificOutput": {"hookEventName": <the event>, "additionalContext": <text>}}``
(several reminders joined by blank lines); no reminder, no output. The state file is ``claude-code.sqlite3`` in the
state folder, by default the user's cache folder + ``toolguards`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux,
``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows). Every failure raises ``HookError``, whose one-line
message the command prints on stderr before it exits 0: a broken hook must never break the user's session.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs

from ..diagnostics import ConfigError
from ..engine import Engine
from ..events import ToolEvent
from ..loader import load, load_default
from ..stores.sqlite import SqliteDatabase

__all__ = ["MAIN_AGENT", "STATE_FILE", "HookError", "default_state_dir", "handle", "parse_event", "run_hook",
           "tool_events"]

#: The agent key of the main thread (a subagent's key is ``agent:<agent_id>``).
MAIN_AGENT = "main"
STATE_FILE = "claude-code.sqlite3"

_COUNTED = frozenset({"PostToolUse", "PostToolUseFailure", "PostToolBatch"})
_RESETS = frozenset({"UserPromptSubmit"})


class HookError(Exception):
    """A failure of the hook, reported as one line on stderr."""


def default_state_dir() -> Path:
    """The user's cache folder for toolguards, by the platform's rules (platformdirs)."""
    return platformdirs.user_cache_path("toolguards", appauthor=False)


def parse_event(data: bytes | str) -> dict[str, Any]:
    """The hook event read from stdin; raises HookError unless it is a JSON object naming its event and session."""
    try:
        event = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HookError(f"stdin is not a JSON event ({exc})") from None
    if not isinstance(event, dict):
        raise HookError(f"stdin holds a JSON {type(event).__name__}, not an event object")
    for field in ("hook_event_name", "session_id"):
        if not isinstance(event.get(field), str) or not event[field]:
            raise HookError(f"the event has no `{field}` string")
    return event


def _agent(event: Mapping[str, Any]) -> str:
    agent_id = event.get("agent_id")
    if agent_id is None or agent_id == "":
        return MAIN_AGENT
    if not isinstance(agent_id, str):
        raise HookError(f"`agent_id` is a {type(agent_id).__name__}, not a string")
    return f"agent:{agent_id}"


def _tool_event(call: Any, agent: str, where: str) -> ToolEvent:
    if not isinstance(call, dict) or not isinstance(call.get("tool_name"), str):
        raise HookError(f"{where} has no `tool_name` string")
    call_id = call.get("tool_use_id")
    if call_id is not None and not isinstance(call_id, str):
        raise HookError(f"{where}: `tool_use_id` is a {type(call_id).__name__}, not a string")
    result = call["tool_response"] if "tool_response" in call else call.get("tool_result")
    error = call["error"] if "error" in call else call.get("error_message")
    if error is not None and not isinstance(error, str):
        error = json.dumps(error)
    return ToolEvent(tool=call["tool_name"], arguments=call.get("tool_input"), agent=agent, call_id=call_id,
                     result=result, error=error)


def tool_events(event: Mapping[str, Any]) -> list[ToolEvent]:
    """The tool calls an event reports, in the order to count them (none for other events)."""
    name = event["hook_event_name"]
    if name not in _COUNTED:
        return []
    agent = _agent(event)
    if name != "PostToolBatch":
        return [_tool_event(event, agent, "the event")]
    key = "tool_calls" if "tool_calls" in event else "tool_results"
    calls = event.get(key)
    if not isinstance(calls, list):
        raise HookError("the PostToolBatch event has no `tool_calls` list")
    return [_tool_event(call, agent, f"tool_calls[{index}]") for index, call in enumerate(calls)]


def handle(engine: Engine, event: Mapping[str, Any]) -> str | None:
    """Count or reset what the event reports; the reminder text for the model, if any."""
    if event["hook_event_name"] in _RESETS:
        engine.pre_step(MAIN_AGENT, user_prompt=True)
        return None
    texts = []
    for tool_event in tool_events(event):
        texts += [entry.text for entry in engine.post_execute(tool_event).additional_contexts]
    return "\n\n".join(texts) or None


def _open_state(folder: Path) -> SqliteDatabase:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return SqliteDatabase(folder / STATE_FILE)
    except Exception as exc:
        raise HookError(f"cannot open the state file in {folder}: {exc}") from None


def _load(
    config: str | None, locale: str | None, database: SqliteDatabase, session: str, failures: list[str]
) -> Engine:
    stores = database.stores(session)

    def failed(guard_id: str | None, what: str, exc: BaseException) -> None:
        where = "engine" if guard_id is None else f"{guard_id}.{what}"
        failures.append(f"{where} failed and was skipped ({type(exc).__name__}: {exc})")

    try:
        if config:
            return load(config, locale=locale, stores=stores, on_failure=failed)
        return load_default(locale=locale, stores=stores, on_failure=failed)
    except ConfigError as exc:
        problems = exc.diagnostics
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise HookError(f"{problems[0] if problems else 'the guard file cannot be loaded'}{more}") from None


def run_hook(
    data: bytes | str,
    *,
    config: str | None = None,
    locale: str | None = None,
    state_dir: str | os.PathLike[str] | None = None,
) -> str:
    """Handle one hook event (stdin's bytes); the text for stdout, empty when there is no reminder."""
    event = parse_event(data)
    name = event["hook_event_name"]
    if name not in _COUNTED and name not in _RESETS:
        return ""
    tool_events(event)  # a malformed event fails here, before the state file is touched
    database = _open_state(Path(state_dir) if state_dir is not None else default_state_dir())
    failures: list[str] = []
    logger = logging.getLogger("toolguards")
    propagate = logger.propagate
    logger.propagate = False  # failures reach stderr as one line below, not as logged tracebacks
    try:
        engine = _load(config, locale, database, event["session_id"], failures)
        text = handle(engine, event)
    finally:
        logger.propagate = propagate
        database.close()
    if failures:
        raise HookError(failures[0])
    if text is None:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}})
