"""``claude``: what ``toolguards doctor`` checks for Claude Code (2.1; ``toolguards.hooks.claude`` is the reference of
its hook protocol).

- **Where**: the settings files by scope: the user's ``settings.json`` in ``$CLAUDE_CONFIG_DIR`` (else ``~/.claude``),
  the project's ``.claude/settings.json`` and ``.claude/settings.local.json`` in the working folder, and the managed
  ``managed-settings.json`` (with the files of ``managed-settings.d/``) in ``/etc/claude-code`` on Linux (``/Library/
  Application Support/ClaudeCode`` on macOS, ``C:\\Program Files\\ClaudeCode`` on Windows).
- **Valid**: Claude Code checks each file against a schema built into the program and, in ``claude -p``, ignores a
  file that fails it **without a word** (its hooks and every other setting in it). So each file must be strict JSON
  (no comments, no trailing commas) and pass ``schemas/claude-code-settings.schema.json``: toolguards' description of
  what Claude Code 2.1.197 checks, read from the program (every top-level setting's type, and the hooks in full:
  matcher groups, handler types and fields). Unknown keys pass, as in Claude Code. A file that fails and holds our
  hooks is a problem; another one is a note (its own settings are lost). Our handlers: ``PostToolUse`` must be there
  (``PostToolUseFailure`` and ``UserPromptSubmit`` too, or failing calls are not counted and a new prompt does not
  reset the chains: notes), a ``PostToolUse`` matcher other than ``""`` or ``"*"`` narrows the calls counted (a
  note), and one distinct registration of ours per event across the files.
- **Will Claude Code run it**: ``"disableAllHooks": true`` in any file; ``allowManagedHooksOnly`` or
  ``strictPluginOnlyCustomization`` in the managed settings (unless our hooks are managed ones); for an ``http``
  handler, an ``allowedHttpHookUrls`` list that does not match its URL, and a header naming an environment variable
  that ``allowedEnvVars`` (or ``httpHookAllowedEnvVars``) does not allow, or that is not set.
- **Does it answer**: a command (``toolguards.doctor.probe``) on synthetic ``UserPromptSubmit`` and ``PostToolUse``
  events of the shape Claude Code sends, with ``$CLAUDE_PROJECT_DIR`` set; an ``http`` handler's URL (``toolguards
  serve``) posted a synthetic event with its headers (``toolguards.doctor.endpoint``).

What files cannot show: ``--bare``, ``--safe-mode``, ``--settings`` and ``--setting-sources`` change this for one run.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from .documents import Document, packaged_schema, read_json, schema_problems
from .finding import Context, Finding, note, problem
from .probe import Trial
from .registrations import Registration, registrations, tried, twice, where_lines

__all__ = ["MANAGED", "NAME", "PROGRAMS", "call_event", "check", "from_files", "registered", "reset_event", "validate"]

NAME = "claude"
PROGRAMS = ("claude",)
#: The folder of Claude Code's managed settings on this platform.
MANAGED = Path("/Library/Application Support/ClaudeCode" if sys.platform == "darwin" else
               "C:\\Program Files\\ClaudeCode" if os.name == "nt" else "/etc/claude-code")
_INSTALL = "toolguards hook install claude"
_SCHEMA = "claude-code-settings.schema.json"
_HEADER_VARIABLE = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def reset_event(session: str, number: int, cwd: str = "") -> dict[str, Any]:
    """A synthetic ``UserPromptSubmit`` of the shape Claude Code 2.1 sends."""
    return {"session_id": session, "transcript_path": "", "cwd": cwd, "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit", "prompt": "toolguards doctor"}


def call_event(session: str, number: int, cwd: str = "") -> dict[str, Any]:
    """The ``number``-th of identical synthetic ``PostToolUse`` events of a Bash call, as Claude Code 2.1 sends them."""
    return {"session_id": session, "transcript_path": "", "cwd": cwd, "permission_mode": "default",
            "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "echo toolguards doctor", "description": "toolguards doctor's probe"},
            "tool_response": {"stdout": "toolguards doctor", "stderr": "", "interrupted": False, "isImage": False},
            "tool_use_id": f"toolu_doctor_{number}"}


def validate(answer: Any) -> list[str]:
    """What Claude Code would not hand the model in a ``PostToolUse`` answer."""
    specific = answer.get("hookSpecificOutput") if isinstance(answer, dict) else None
    if not isinstance(specific, dict):
        return ["no hookSpecificOutput object"]
    if specific.get("hookEventName") != "PostToolUse":
        return ['hookSpecificOutput.hookEventName is not "PostToolUse"']
    context = specific.get("additionalContext")
    return [] if isinstance(context, str) and context else ["no hookSpecificOutput.additionalContext"]


def _files(context: Context) -> list[tuple[str, Path]]:
    user = Path(context.env.get("CLAUDE_CONFIG_DIR") or context.home() / ".claude")
    project = Path(os.path.abspath(context.cwd)) / ".claude"
    found = [("user", user / "settings.json"), ("project", project / "settings.json"),
             ("local", project / "settings.local.json"), ("managed", MANAGED / "managed-settings.json")]
    dropins = MANAGED / "managed-settings.d"
    if dropins.is_dir():
        found += [("managed", path) for path in sorted(dropins.glob("*.json")) if not path.name.startswith(".")]
    if os.path.realpath(project) == os.path.realpath(user):
        found = [item for item in found if item[0] != "project" or item[1] != project / "settings.json"]
    return found


def _documents(context: Context) -> list[tuple[str, Document]]:
    return [(scope, read_json(path)) for scope, path in _files(context)]


def registered(context: Context) -> bool:
    """Whether a settings file Claude Code reads here holds a toolguards hook."""
    return any(document.usable and registrations(NAME, scope, document.path, document.value)
               for scope, document in _documents(context))


def from_files(context: Context) -> tuple[list[Finding], list[Registration]]:
    """The findings of Claude Code's files alone (nothing is run or asked), and our registrations in them that
    Claude Code would run (an http handler's headers filled in as Claude Code fills them)."""
    documents = _documents(context)
    lines: list[Finding] = []
    mine: list[Registration] = []
    in_effect: list[tuple[str, Mapping[str, Any]]] = []
    for scope, document in documents:
        found = registrations(NAME, scope, document.path, document.value) if document.usable else []
        refused = [document.error] if document.error is not None else (
            schema_problems(packaged_schema(_SCHEMA), document.value) if document.usable else [])
        for text in refused:
            said = f"{text}: Claude Code ignores the whole file, without a word under `claude -p`"
            if found or (document.error is not None and "toolguards hook claude" in _raw(document.path)):
                lines.append(problem(NAME, str(document.path), said, "correct the file: its hooks run only once "
                                                                       "it is valid"))
            else:
                lines.append(note(NAME, str(document.path), said, "correct the file"))
        if document.usable and not refused:
            mine += found
            in_effect.append((scope, document.value))
    lines = where_lines(NAME, mine) + lines
    if not mine:
        return [*lines, problem(NAME, str(context.cwd / ".claude" / "settings.json"),
                                "no toolguards hook in the settings files Claude Code reads here (or none of them is "
                                "valid)", f"{_INSTALL} (or --scope user)")], mine
    lines += _switched_off(mine, in_effect)
    lines += _shape(mine)
    lines += twice(NAME, mine, ("PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit"),
                   "keep one: toolguards hook uninstall claude in the scope you do not want")
    http, runnable = _http(mine, in_effect, context)
    return lines + http, [registration for registration in mine if registration.handler.get("type") != "http"] + \
        runnable


def check(context: Context) -> list[Finding]:
    """Every finding about Claude Code."""
    lines, mine = from_files(context)
    cwd = str(context.cwd)
    env = {**context.env, "CLAUDE_PROJECT_DIR": cwd}
    trial = Trial(NAME, NAME, context.cwd, env, partial(reset_event, cwd=cwd), partial(call_event, cwd=cwd), validate,
                  _INSTALL)
    return lines + tried(trial, mine, context, _timeout)


def _timeout(registration: Registration) -> float | None:
    value = registration.handler.get("timeout")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _raw(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _switched_off(mine: list[Registration], in_effect: list[tuple[str, Mapping[str, Any]]]) -> list[Finding]:
    lines = []
    for scope, settings in in_effect:
        if settings.get("disableAllHooks") is True:
            lines.append(problem(NAME, f"{scope} settings", '"disableAllHooks": true: Claude Code runs no hooks',
                                 "remove the setting"))
    managed_ours = any(registration.scope == "managed" for registration in mine)
    for scope, settings in in_effect:
        if scope != "managed" or managed_ours:
            continue
        for key in ("allowManagedHooksOnly", "strictPluginOnlyCustomization"):
            value = settings.get(key)
            if value is True or (key == "strictPluginOnlyCustomization" and isinstance(value, list)
                                 and "hooks" in value):
                lines.append(problem(NAME, "managed settings", f'"{key}": {json.dumps(value)}: Claude Code runs only '
                                                               "managed hooks, none of toolguards'",
                                     "ask whoever manages this machine to add toolguards' hooks to the managed "
                                     "settings"))
    return lines


def _shape(mine: list[Registration]) -> list[Finding]:
    lines = []
    for registration in mine:
        if registration.event == "PostToolUse" and registration.matcher not in (None, "", "*"):
            where = f"{registration.path}: hooks.PostToolUse[{registration.group}]"
            lines.append(note(NAME, where, f"the matcher {json.dumps(registration.matcher)} narrows the calls counted "
                                           "to the tools it matches", 'make it "*"'))
    events = {registration.event for registration in mine}
    if "PostToolUse" not in events:
        lines.append(problem(NAME, "PostToolUse", "no toolguards hook answers PostToolUse: no call is counted",
                             _INSTALL))
    for event, loss in (("PostToolUseFailure", "a failing call is not counted"),
                        ("UserPromptSubmit", "a new prompt does not start the chains afresh")):
        if event not in events:
            lines.append(note(NAME, event, f"no toolguards hook answers {event}: {loss}", _INSTALL))
    return lines


def _http(mine: list[Registration], in_effect: list[tuple[str, Mapping[str, Any]]],
          context: Context) -> tuple[list[Finding], list[Registration]]:
    """The http handlers: allowed by the settings, and their headers filled in (the findings, and the handlers Claude
    Code would post with, their headers as it sends them)."""
    allowed_urls = [pattern for _, settings in in_effect
                    for pattern in _strings(settings.get("allowedHttpHookUrls"))]
    listed = any(isinstance(settings.get("allowedHttpHookUrls"), list) for _, settings in in_effect)
    limits = [set(_strings(settings.get("httpHookAllowedEnvVars"))) for _, settings in in_effect
              if isinstance(settings.get("httpHookAllowedEnvVars"), list)]
    lines: list[Finding] = []
    runnable = []
    for registration in mine:
        url = registration.url
        if registration.handler.get("type") != "http" or url is None:
            continue
        where = str(registration.path)
        if listed and not any(fnmatch.fnmatchcase(url, pattern) for pattern in allowed_urls):
            lines.append(problem(NAME, where, f"allowedHttpHookUrls does not allow {url}: Claude Code blocks the hook",
                                 "add the URL to allowedHttpHookUrls"))
            continue
        allowed = set(_strings(registration.handler.get("allowedEnvVars")))
        for limit in limits:
            allowed &= limit
        missing: list[str] = []

        def filled(found: re.Match[str], allowed: set[str] = allowed, missing: list[str] = missing) -> str:
            variable = found.group(1) or found.group(2)
            if variable not in allowed or variable not in context.env:
                missing.append(variable)
                return ""
            return context.env[variable]

        headers = {name: _HEADER_VARIABLE.sub(filled, value) for name, value in registration.headers.items()
                   if isinstance(value, str)}
        for variable in dict.fromkeys(missing):
            why = "is not set" if variable in allowed else "is not in the handler's allowedEnvVars"
            lines.append(problem(NAME, where, f"the header names ${variable}, which {why}: Claude Code sends it empty",
                                 f"export {variable} before starting Claude Code" if variable in allowed else
                                 f'add "{variable}" to the handler\'s allowedEnvVars'))
        runnable.append(replace(registration, headers=headers))
    return list(dict.fromkeys(lines)), runnable


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
