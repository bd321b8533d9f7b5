"""``gemini``: what ``toolguards doctor`` checks for Gemini CLI (0.61; ``toolguards.hooks.gemini_settings`` is the
reference of its files and folder trust).

- **Where**: the settings files Gemini CLI merges, in its order: the system defaults, the user's
  ``<$GEMINI_CLI_HOME or home>/.gemini/settings.json``, the project's ``.gemini/settings.json`` (read only in a
  trusted folder, and never when the folder is the home folder itself), the system file. A registration in
  ``~/.gemini/settings.json`` while ``GEMINI_CLI_HOME`` moves the user's settings elsewhere is a problem.
- **Valid**: each file parses as JSON with comments (Gemini CLI stops on one that does not: a problem); its
  ``hooks`` and ``hooksConfig`` against the shipped settings schema (Gemini CLI only warns and keeps the values: a
  note). Our handlers need ``"type": "command"`` (Gemini CLI drops any other without a word); ``AfterTool`` must be
  there (``BeforeAgent`` too, or a new prompt does not reset the chains), its matcher absent, ``""`` or ``"*"``
  (anything else narrows the counted tools: a note); one distinct registration of ours per event across the files
  (Gemini CLI joins the files' hooks, so two different ones count every call twice).
- **Will Gemini CLI run it**: the folder's trust (``GEMINI_CLI_TRUST_WORKSPACE``, ``security.folderTrust.enabled``,
  ``trustedFolders.json``): in a folder it does not trust it runs no hook at all, and ``gemini -p`` exits 55;
  ``hooksConfig.enabled: false``; ``hooksConfig.disabled`` naming ``toolguards`` (or our command).
- **What the model sees**: Gemini CLI's own loop detection (on unless ``model.disableLoopDetection`` is true) takes
  the 5th identical call and stops the prompt at the 6th, so a reminder at 5 or more identical calls (or cycle
  repetitions) never arrives: a note naming the guard and its thresholds, a problem when none of them can arrive.
- **Does it answer**: the command (``toolguards.doctor.probe``), on synthetic ``BeforeAgent`` and ``AfterTool`` events
  of the shape Gemini CLI sends, with ``$GEMINI_PROJECT_DIR``, ``$GEMINI_CWD``, ``$GEMINI_SESSION_ID`` and
  ``$CLAUDE_PROJECT_DIR`` replaced in the command line (quotes or not) and set in its environment, as Gemini CLI does,
  within the registration's ``timeout`` (milliseconds, by default 60,000).

What files cannot show: an IDE's trust signal, ``--skip-trust`` (which still leaves a project's hooks out), and a
headless run without ``--approval-mode yolo`` (or allowed tools), where the shell tool is not offered at all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from ..guardfile.diagnostics import ConfigError
from ..guardfile.loader import check_bytes
from ..guardfile.reading import read_guard_file
from ..hooks.gemini_settings import HOOK_NAME, folder_trust, merged, settings_files, trusted_folders_file
from ..kinds.cycle_reminder import CycleSettings
from ..kinds.repeat_tool_reminder import RepeatSettings
from ..kinds.repeated_error_reminder import ErrorSettings
from ..resources import default_guard_file
from .documents import Document, packaged_schema, read_json, schema_problems
from .finding import Context, Finding, note, ok, problem
from .probe import Trial, expand
from .registrations import Registration, registrations, tried, twice, where_lines

__all__ = [
    "LOOP_CALLS",
    "NAME",
    "PROGRAMS",
    "call_event",
    "check",
    "from_files",
    "registered",
    "reset_event",
    "validate",
]

NAME = "gemini"
PROGRAMS = ("gemini",)
#: Gemini CLI's loop detection takes the call that makes this many identical calls in a row.
LOOP_CALLS = 5
_EVENTS = ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
           "BeforeToolSelection", "SessionStart", "SessionEnd", "PreCompress", "Notification")
_INSTALL = "toolguards hook install gemini"
_SCHEMA = "gemini-settings.hooks-subset.schema.json"


def reset_event(session: str, number: int, cwd: str = "") -> dict[str, Any]:
    """A synthetic ``BeforeAgent`` of the shape Gemini CLI 0.61 sends."""
    return {"session_id": session, "transcript_path": "", "cwd": cwd, "hook_event_name": "BeforeAgent",
            "timestamp": "2026-01-01T00:00:00.000Z", "prompt": "toolguards doctor"}


def call_event(session: str, number: int, cwd: str = "") -> dict[str, Any]:
    """The ``number``-th of identical synthetic ``AfterTool`` events of a shell call, as Gemini CLI 0.61 sends them."""
    return {"session_id": session, "transcript_path": "", "cwd": cwd, "hook_event_name": "AfterTool",
            "timestamp": f"2026-01-01T00:00:{number:02d}.000Z", "tool_name": "run_shell_command",
            "tool_input": {"command": "echo toolguards doctor", "description": "toolguards doctor's probe"},
            "tool_response": {"llmContent": "<untrusted_context>\nOutput: toolguards doctor\n</untrusted_context>",
                              "returnDisplay": "toolguards doctor"}}


def validate(answer: Any) -> list[str]:
    """What Gemini CLI would not hand the model in an ``AfterTool`` answer."""
    specific = answer.get("hookSpecificOutput") if isinstance(answer, dict) else None
    if not isinstance(specific, dict):
        return ["no hookSpecificOutput object"]
    if specific.get("hookEventName") != "AfterTool":
        return ['hookSpecificOutput.hookEventName is not "AfterTool"']
    context = specific.get("additionalContext")
    return [] if isinstance(context, str) and context else ["no hookSpecificOutput.additionalContext"]


def _files(context: Context, trusted: bool) -> list[tuple[str, Path]]:
    """The settings files Gemini CLI reads here, in its merge order (later wins)."""
    files = settings_files(context.env)
    found = [("system defaults", Path(files["system defaults"])), ("user", Path(files["user"]))]
    project = Path(os.path.abspath(context.cwd)) / ".gemini" / "settings.json"
    at_home = os.path.realpath(context.cwd) == os.path.realpath(context.home())
    if trusted and not at_home and os.path.realpath(project) != os.path.realpath(files["user"]):
        found.append(("project", project))
    return [*found, ("system", Path(files["system"]))]


def _documents(context: Context, trusted: bool) -> list[tuple[str, Document]]:
    return [(scope, read_json(path, comments=True)) for scope, path in _files(context, trusted)]


def _trusted(context: Context) -> bool:
    return folder_trust(str(context.cwd), context.env).trusted is True


def registered(context: Context) -> bool:
    """Whether a settings file Gemini CLI reads here (the project's, trusted or not) holds a toolguards hook."""
    return any(document.usable and registrations(NAME, scope, document.path, document.value)
               for scope, document in _documents(context, trusted=True))


def from_files(context: Context) -> tuple[list[Finding], list[Registration]]:
    """The findings of Gemini CLI's files alone (nothing is run), and our registrations in them."""
    trust = folder_trust(str(context.cwd), context.env)
    documents = _documents(context, trusted=True)  # the project's file too: where is the registration, trusted or not
    lines: list[Finding] = []
    mine: list[Registration] = []
    for scope, document in documents:
        if document.error is not None:
            lines.append(problem(NAME, str(document.path), f"{document.error}: Gemini CLI stops with an error",
                                 "correct the file (comments are allowed)"))
        elif document.usable:
            mine += registrations(NAME, scope, document.path, document.value)
            lines += [note(NAME, str(document.path), f"{text}: Gemini CLI warns, and keeps the value",
                           "correct the setting") for text in schema_problems(packaged_schema(_SCHEMA), document.value)]
    lines = where_lines(NAME, mine) + lines + _elsewhere(context)
    if trust.trusted is not True:
        rule = f"{json.dumps(str(context.cwd))}: \"TRUST_FOLDER\""
        lines.append(problem(NAME, str(context.cwd), f"Gemini CLI runs no hooks in this folder until it is trusted "
                                                     f"({trust.reason}); `gemini -p` exits 55 here",
                             f'start `gemini` here once and choose "Trust folder", or add {rule} to '
                             f"{trusted_folders_file(context.env)}"))
    else:
        lines.append(ok(NAME, str(context.cwd), f"Gemini CLI trusts this folder ({trust.reason})"))
    if not mine:
        return [*lines, problem(NAME, str(context.cwd / ".gemini" / "settings.json"),
                                "no toolguards hook in the settings files Gemini CLI reads here",
                                f"{_INSTALL} (or --scope user)")], mine
    in_effect = [document.value for _, document in documents if document.usable]
    lines += _switched_off(mine, documents, in_effect)
    lines += _shape(mine)
    lines += twice(NAME, mine, ("AfterTool", "BeforeAgent"),
                   "keep one: toolguards hook uninstall gemini in the scope you do not want")
    return lines + _loop_detection(mine, in_effect, context), mine


def check(context: Context) -> list[Finding]:
    """Every finding about Gemini CLI."""
    lines, mine = from_files(context)
    cwd = str(context.cwd)
    own = {"GEMINI_PROJECT_DIR": cwd, "GEMINI_CWD": cwd, "CLAUDE_PROJECT_DIR": cwd}
    trial = Trial(NAME, NAME, context.cwd, {**context.env, **own}, partial(reset_event, cwd=cwd),
                  partial(call_event, cwd=cwd), validate, _INSTALL, {**own, "GEMINI_SESSION_ID": "$SESSION"})
    return lines + tried(trial, mine, context, _timeout)


def _timeout(registration: Registration) -> float:
    """A handler's timeout as Gemini CLI reads it: milliseconds, by default 60,000."""
    value = registration.handler.get("timeout")
    return value / 1000 if isinstance(value, (int, float)) and value > 0 else 60.0


def _elsewhere(context: Context) -> list[Finding]:
    """Our hooks in ``~/.gemini/settings.json`` while ``GEMINI_CLI_HOME`` moves the user's settings elsewhere."""
    user = Path(settings_files(context.env)["user"])
    other = context.home() / ".gemini" / "settings.json"
    if os.path.realpath(other) == os.path.realpath(user):
        return []
    document = read_json(other, comments=True)
    if not document.usable or not registrations(NAME, "user", other, document.value):
        return []
    return [problem(NAME, str(other), f"holds a toolguards hook, but GEMINI_CLI_HOME moves the user's settings to "
                                      f"{user}: Gemini CLI never reads this file", f"move the hooks to {user}")]


def _switched_off(mine: list[Registration], documents: list[tuple[str, Document]],
                  in_effect: list[Mapping[str, Any]]) -> list[Finding]:
    lines = []
    if merged(*in_effect, keys=("hooksConfig", "enabled")) is False:
        lines.append(problem(NAME, "hooksConfig.enabled", "Gemini CLI's hooks are switched off (false): it runs none",
                             "remove hooksConfig.enabled: false from the settings"))
    names = {HOOK_NAME} | {registration.runs for registration in mine} | {
        registration.handler["name"] for registration in mine if isinstance(registration.handler.get("name"), str)}
    for scope, document in documents:
        hooks_config = document.value.get("hooksConfig") if document.usable else None
        disabled = hooks_config.get("disabled") if isinstance(hooks_config, dict) else None
        named = [item for item in disabled if item in names] if isinstance(disabled, list) else []
        if named:
            lines.append(problem(NAME, str(document.path), f"the {scope} settings' hooksConfig.disabled names "
                                                           f"{json.dumps(named[0])}: Gemini CLI skips the hook",
                                 f"take {json.dumps(named[0])} out of hooksConfig.disabled"))
    return lines


def _shape(mine: list[Registration]) -> list[Finding]:
    lines = []
    for registration in mine:
        where = f"{registration.path}: hooks.{registration.event}[{registration.group}]"
        if registration.event not in _EVENTS:
            lines.append(note(NAME, where, f"Gemini CLI knows no `{registration.event}` event: it skips this hook",
                              "remove it"))
        elif isinstance(registration.handler.get("command"), str) and registration.handler.get("type") != "command":
            lines.append(problem(NAME, where, 'Gemini CLI runs only handlers with "type": "command": it drops this '
                                              "one without a word", _INSTALL))
        elif registration.event == "AfterTool" and registration.matcher not in (None, "", "*"):
            lines.append(note(NAME, where, f"the matcher {json.dumps(registration.matcher)} narrows the calls counted "
                                           "to the tools it matches", 'remove the matcher, or make it "*"'))
    events = {registration.event for registration in mine}
    if "AfterTool" not in events:
        lines.append(problem(NAME, "AfterTool", "no toolguards hook answers AfterTool: no call is counted", _INSTALL))
    if "BeforeAgent" not in events:
        lines.append(note(NAME, "BeforeAgent", "no toolguards hook answers BeforeAgent: a new prompt does not start "
                                               "the chains afresh", _INSTALL))
    return lines


def _counts(settings: Any) -> tuple[int, ...]:
    """The run lengths at which a guard of a shipped kind reminds (identical calls, failures, or cycle rounds)."""
    if isinstance(settings, RepeatSettings):
        found = {*settings.thresholds, *(count for override in settings.overrides
                                         for count in override.rules.thresholds)}
        return tuple(sorted(found))
    if isinstance(settings, ErrorSettings):
        return settings.thresholds
    if isinstance(settings, CycleSettings):
        return settings.repetitions
    return ()


def _loop_detection(mine: list[Registration], in_effect: list[Mapping[str, Any]], context: Context) -> list[Finding]:
    if merged(*in_effect, keys=("model", "disableLoopDetection")) is True:
        return [note(NAME, "model.disableLoopDetection", "Gemini CLI's own loop detection is off: only toolguards "
                                                         "answers a loop")]
    lines = []
    for config in dict.fromkeys(registration.command.config if registration.command else None
                                for registration in mine if registration.command is not None):
        path = default_guard_file() if config is None else context.cwd / expand(config, context.env)
        try:
            checked = check_bytes(str(path), read_guard_file(str(path), path), path.parent)
        except (ConfigError, OSError):
            continue  # the command's own check reports it
        for spec in checked.guard_file.guards:
            counts = _counts(spec.settings)
            late = [count for count in counts if count >= LOOP_CALLS]
            if not late:
                continue
            early = [count for count in counts if count < LOOP_CALLS]
            said = (f"Gemini CLI's own loop detection takes the {LOOP_CALLS}th identical call and stops at the next, "
                    f"so guard `{spec.id}`'s reminders at {_listed(late)}")
            fix = (f"thresholds below {LOOP_CALLS} (the install's default, guards/gemini-cli.yaml, reminds at 3 and "
                   "4), or model.disableLoopDetection: true in the settings")
            if early:
                lines.append(note(NAME, str(path), f"{said} never arrive (at {_listed(early)} they do)", fix))
            else:
                lines.append(problem(NAME, str(path), f"{said} never arrive: none of them can", fix))
    return lines


def _listed(counts: list[int]) -> str:
    return ", ".join(map(str, counts))
