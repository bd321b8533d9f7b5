"""``cursor``: what ``toolguards doctor`` checks for Cursor (closed source; ``toolguards.hooks.cursor`` is the reference
of its hook protocol, from Cursor's documentation).

- **Where**: the project's ``.cursor/hooks.json`` in the working folder and the user's ``~/.cursor/hooks.json``
  (Cursor runs both).
- **Valid**: each file parses as JSON and has ``"version": 1``; our handlers are the event lists' entries
  themselves (no matcher groups): ``postToolUse`` must be there (``postToolUseFailure`` and ``beforeSubmitPrompt``
  too, or failing calls are not counted and a new prompt does not reset the chains: notes); one distinct
  registration of ours per event.
- **Does it answer**: the command (``toolguards.doctor.probe``) on synthetic ``beforeSubmitPrompt`` and
  ``postToolUse`` events of the documented shape (a ``Shell`` call whose output is the JSON string Cursor sends),
  each answer an ``additional_context`` text.

Cursor has no trust step of its own for hooks that doctor could read.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from .documents import read_json
from .finding import Context, Finding, note, problem
from .probe import Trial
from .registrations import Registration, registrations, tried, twice, where_lines

__all__ = ["NAME", "PROGRAMS", "call_event", "check", "from_files", "registered", "reset_event", "validate"]

NAME = "cursor"
PROGRAMS = ("cursor-agent",)
_INSTALL = "toolguards hook install cursor"


def _envelope(session: str, event: str, cwd: str) -> dict[str, Any]:
    return {"conversation_id": session, "generation_id": "toolguards-doctor", "hook_event_name": event,
            "model": "toolguards-doctor", "cursor_version": "0", "workspace_roots": [cwd], "user_email": None,
            "transcript_path": None}


def reset_event(session: str, number: int, cwd: str = "") -> dict[str, Any]:
    """A synthetic ``beforeSubmitPrompt`` of the documented shape."""
    return {**_envelope(session, "beforeSubmitPrompt", cwd), "prompt": "toolguards doctor", "attachments": []}


def call_event(session: str, number: int, cwd: str = "") -> dict[str, Any]:
    """The ``number``-th of identical synthetic ``postToolUse`` events of a ``Shell`` call."""
    return {**_envelope(session, "postToolUse", cwd), "tool_name": "Shell",
            "tool_input": {"command": "echo toolguards doctor"}, "tool_use_id": f"doctor-call-{number}",
            "tool_output": '{"output": "toolguards doctor", "exitCode": 0}', "cwd": cwd, "duration": 1}


def validate(answer: Any) -> list[str]:
    """What Cursor would not hand the model in a ``postToolUse`` answer."""
    context = answer.get("additional_context") if isinstance(answer, dict) else None
    return [] if isinstance(context, str) and context else ["no additional_context text"]


def _files(context: Context) -> list[tuple[str, Path]]:
    return [("project", context.cwd / ".cursor" / "hooks.json"), ("user", context.home() / ".cursor" / "hooks.json")]


def _found(context: Context) -> tuple[list[Registration], list[Finding]]:
    mine: list[Registration] = []
    lines: list[Finding] = []
    for scope, path in _files(context):
        document = read_json(path)
        if document.error is not None:
            lines.append(problem(NAME, str(path), f"{document.error}: Cursor cannot use it", "correct the file"))
        elif document.usable:
            found = registrations(NAME, scope, path, document.value, grouped=False)
            if found and document.value.get("version") != 1:
                lines.append(problem(NAME, str(path), 'the file has no "version": 1, which Cursor reads hooks with',
                                     f"add it, or install again: {_INSTALL}"))
            mine += found
    return mine, lines


def registered(context: Context) -> bool:
    """Whether a hooks file Cursor reads here holds a toolguards hook."""
    return bool(_found(context)[0])


def from_files(context: Context) -> tuple[list[Finding], list[Registration]]:
    """The findings of Cursor's files alone (nothing is run), and our registrations in them."""
    mine, lines = _found(context)
    lines = where_lines(NAME, mine) + lines
    if not mine:
        return [*lines, problem(NAME, str(context.cwd / ".cursor" / "hooks.json"),
                                "no toolguards hook in the hooks files Cursor reads here", _INSTALL)], mine
    events = {registration.event for registration in mine}
    if "postToolUse" not in events:
        lines.append(problem(NAME, "postToolUse", "no toolguards hook answers postToolUse: no call is counted",
                             _INSTALL))
    for event, loss in (("postToolUseFailure", "a failing call is not counted"),
                        ("beforeSubmitPrompt", "a new prompt does not start the chains afresh")):
        if event not in events:
            lines.append(note(NAME, event, f"no toolguards hook answers {event}: {loss}", _INSTALL))
    lines += twice(NAME, mine, ("postToolUse", "postToolUseFailure", "beforeSubmitPrompt"),
                   "keep one: toolguards hook uninstall cursor in the scope you do not want")
    return lines, mine


def check(context: Context) -> list[Finding]:
    """Every finding about Cursor."""
    lines, mine = from_files(context)
    cwd = str(context.cwd)
    trial = Trial(NAME, NAME, context.cwd, context.env, partial(reset_event, cwd=cwd), partial(call_event, cwd=cwd),
                  validate, _INSTALL)
    return lines + tried(trial, mine, context, _timeout)


def _timeout(registration: Registration) -> float | None:
    value = registration.handler.get("timeout")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None
