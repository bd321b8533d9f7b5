"""``codex``: what ``toolguards doctor`` checks for OpenAI Codex CLI (0.171; ``toolguards.hooks.codex_trust`` is the
reference of its trust rules).

- **Where**: the user's ``$CODEX_HOME/hooks.json`` (``$HOME/.codex`` when ``CODEX_HOME`` is unset) and the hook
  tables of ``$CODEX_HOME/config.toml``; the project's, in every folder from the project root (the nearest folder
  with one of ``project_root_markers``, by default ``.git``) down to the working folder: ``.codex/hooks.json`` (in a
  linked git worktree, the main checkout's: one left in the worktree's own ``.codex/`` is a problem) and
  ``.codex/config.toml``. A registration under ``~/.codex`` while ``CODEX_HOME`` points elsewhere is a problem: Codex
  never reads it.
- **Valid**: each file parses (JSON, TOML); each of our handlers sits under an event Codex reads, with
  ``"type": "command"`` and a command (Codex passes over anything else without a word); ``PostToolUse`` must be
  there (``UserPromptSubmit`` too, or a new prompt does not reset the chains); one registration of ours per event.
- **Will Codex run it**: each handler's review in the user's ``config.toml`` (``[hooks.state."<key>"]``): not
  reviewed, reviewed and then changed (the hash no longer matches: a new toolguards path or guard file, or another
  group inserted before ours), or ``enabled = false`` — each a problem with its fix (``toolguards hook install codex
  --trust`` records the review as Codex's ``/hooks`` does). For a project's hooks, the project's trust
  (``[projects."<folder>"] trust_level = "trusted"``). ``[features] hooks = false`` (in any config Codex reads;
  a profile's ``<name>.config.toml`` or ``[profiles.<name>]`` is a note). A managed
  ``/etc/codex/requirements.toml`` with ``allow_managed_hooks_only = true`` runs no hook of ours.
- **Does it answer**: the command (``toolguards.doctor.probe``), on synthetic ``UserPromptSubmit`` and ``PostToolUse``
  events of the shape Codex sends, each answer checked against Codex's own ``post-tool-use.command.output`` schema.

What files cannot show: ``codex --ignore-user-config``, ``--disable hooks``, ``-c`` overrides and
``--dangerously-bypass-hook-trust`` change this for one run (``docs/doctor.md``).
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

from ..hooks.codex_trust import (
    EVENTS,
    HookEntry,
    codex_home,
    handler_hash,
    hook_key,
    hook_states,
    hooks_enabled,
    project_hooks_file,
    project_root,
    project_trust,
    trust_status,
)
from .documents import Document, packaged_schema, read_json, read_toml, schema_problems
from .finding import Context, Finding, note, ok, problem
from .probe import Trial
from .registrations import Registration, registrations, tried, twice, where_lines

__all__ = [
    "NAME",
    "PROGRAMS",
    "REQUIREMENTS",
    "call_event",
    "check",
    "from_files",
    "registered",
    "reset_event",
    "validate",
]

NAME = "codex"
PROGRAMS = ("codex",)
#: Codex's managed requirements on Linux and macOS.
REQUIREMENTS = Path("/etc/codex/requirements.toml")
_INSTALL = "toolguards hook install codex --trust"


def reset_event(session: str, number: int, cwd: str = "") -> dict[str, Any]:
    """A synthetic ``UserPromptSubmit`` of the shape Codex 0.171 sends."""
    return {"session_id": session, "turn_id": f"doctor-turn-{number}", "transcript_path": None, "cwd": cwd,
            "hook_event_name": "UserPromptSubmit", "model": "toolguards-doctor", "permission_mode": "default",
            "prompt": "toolguards doctor"}


def call_event(session: str, number: int, cwd: str = "") -> dict[str, Any]:
    """The ``number``-th of identical synthetic ``PostToolUse`` events of a shell call, as Codex 0.171 sends them."""
    return {"session_id": session, "turn_id": "doctor-turn-0", "transcript_path": None, "cwd": cwd,
            "hook_event_name": "PostToolUse", "model": "toolguards-doctor", "permission_mode": "default",
            "tool_name": "Bash", "tool_input": {"command": "echo toolguards doctor"},
            "tool_response": "toolguards doctor\n", "tool_use_id": f"doctor-call-{number}"}


def validate(answer: Any) -> list[str]:
    """What Codex refuses in a ``PostToolUse`` answer (its output schema), or a missing reminder."""
    refused = schema_problems(packaged_schema("codex-post-tool-use.command.output.schema.json"), answer)
    context = answer.get("hookSpecificOutput", {}).get("additionalContext") if isinstance(answer, dict) else None
    if not refused and not (isinstance(context, str) and context):
        refused = ["no hookSpecificOutput.additionalContext"]
    return refused


def _sources(context: Context, config: dict[str, Any]) -> list[tuple[str, Path]]:
    """The files Codex reads hooks from, by scope: hooks.json files and config.toml files."""
    home = codex_home(context.env)
    found = [("user", home / "hooks.json"), ("user", home / "config.toml")]
    root = project_root(context.cwd, config)
    cwd = Path(os.path.abspath(context.cwd))
    folders = [root, *reversed([folder for folder in cwd.parents if folder.is_relative_to(root) and folder != root])]
    folders += [cwd] if cwd != root else []
    for folder in dict.fromkeys(folders):
        if os.path.realpath(folder / ".codex") == os.path.realpath(home):
            continue
        found += [("project", project_hooks_file(folder)), ("project", folder / ".codex" / "config.toml")]
    return found


def _read(path: Path) -> Document:
    return read_toml(path) if path.suffix == ".toml" else read_json(path)


def _found(context: Context, config: dict[str, Any]) -> tuple[list[Registration], list[Finding]]:
    """Our registrations in the files Codex reads, and the problems of files that do not parse."""
    mine: list[Registration] = []
    lines: list[Finding] = []
    for scope, path in _sources(context, config):
        document = _read(path)
        if document.error is not None:
            lines.append(problem(NAME, str(path), f"{document.error}: Codex cannot use it",
                                 "correct the file, then run toolguards doctor again"))
        elif document.usable:
            mine += registrations(NAME, scope, path, document.value)
    return mine, lines


def registered(context: Context) -> bool:
    """Whether a file Codex reads holds a toolguards hook."""
    config = read_toml(codex_home(context.env) / "config.toml")
    return bool(_found(context, config.value if config.usable else {})[0])


def from_files(context: Context) -> tuple[list[Finding], list[Registration]]:
    """The findings of Codex's files alone (nothing is run), and our registrations in them."""
    home = codex_home(context.env)
    user = read_toml(home / "config.toml")
    config = user.value if user.usable else {}
    mine, lines = _found(context, config)
    lines = where_lines(NAME, mine) + lines + _elsewhere(context, home)
    if not mine:
        return [*lines, problem(NAME, str(home / "hooks.json"), "no toolguards hook in the hooks files Codex reads "
                                                               "here", f"{_INSTALL} (or --scope user --trust)")], mine
    lines += _shape(mine)
    lines += twice(NAME, mine, ("PostToolUse", "UserPromptSubmit"),
                   "keep one: toolguards hook uninstall codex in the scope you do not want")
    lines += _trust(mine, config, user.path, context.cwd)
    if any(registration.scope == "project" for registration in mine):
        lines += _project(context, config, user.path)
    return lines + _features(context, config, user.path, home), mine


def check(context: Context) -> list[Finding]:
    """Every finding about Codex CLI."""
    lines, mine = from_files(context)
    cwd = str(context.cwd)
    trial = Trial(NAME, NAME, context.cwd, context.env, partial(reset_event, cwd=cwd), partial(call_event, cwd=cwd),
                  validate, _INSTALL)
    return lines + tried(trial, mine, context, _timeout)


def _timeout(registration: Registration) -> float:
    """A handler's timeout as Codex reads it: whole seconds, by default 600."""
    value = registration.handler.get("timeout")
    return float(value) if isinstance(value, int) and value > 0 else 600.0


def _elsewhere(context: Context, home: Path) -> list[Finding]:
    """Our hooks under ``~/.codex`` while ``CODEX_HOME`` moves Codex's home elsewhere."""
    other = context.home() / ".codex"
    if os.path.realpath(other) == os.path.realpath(home):
        return []
    document = read_json(other / "hooks.json")
    if not document.usable or not registrations(NAME, "user", other / "hooks.json", document.value):
        return []
    return [problem(NAME, str(other / "hooks.json"), f"holds a toolguards hook, but CODEX_HOME is {home}: Codex "
                                                     "reads only that folder",
                    "toolguards hook install codex --scope user --trust with CODEX_HOME set as Codex has it")]


def _shape(mine: list[Registration]) -> list[Finding]:
    lines = []
    for registration in mine:
        key = hook_key(str(registration.path), registration.event, registration.group, registration.position)
        if registration.event not in EVENTS:
            lines.append(problem(NAME, key, f"Codex reads no `{registration.event}` event, so it never runs this hook",
                                 "remove it, or install again: toolguards hook install codex --trust"))
        elif _hash(registration) is None:
            lines.append(problem(NAME, key, 'Codex runs only handlers with "type": "command" and a command: it '
                                            "passes over this one", _INSTALL))
    events = {registration.event for registration in mine}
    if "PostToolUse" not in events:
        lines.append(problem(NAME, "PostToolUse", "no toolguards hook answers PostToolUse: no call is counted",
                             _INSTALL))
    if "UserPromptSubmit" not in events:
        lines.append(note(NAME, "UserPromptSubmit", "no toolguards hook answers UserPromptSubmit: a new prompt does "
                                                    "not start the chains afresh", _INSTALL))
    return lines


def _hash(registration: Registration) -> str | None:
    matcher = registration.matcher if isinstance(registration.matcher, str) else None
    return handler_hash(registration.event, matcher, registration.handler)


def _trust(mine: list[Registration], config: dict[str, Any], path: Path, cwd: Path) -> list[Finding]:
    states = hook_states(config)
    lines = []
    trusted = 0
    for registration in mine:
        digest = _hash(registration)
        if registration.event not in EVENTS or digest is None:
            continue
        key = hook_key(str(registration.path), registration.event, registration.group, registration.position)
        status = trust_status(HookEntry(key, registration.event, registration.handler, digest), states)
        in_toml = registration.path.suffix == ".toml"
        folder = registration.path.parent.parent  # the project folder of a project's .codex/hooks.json
        there = "" if registration.scope == "user" or folder == Path(os.path.abspath(cwd)) else f"in {folder}: "
        fix = ("review it in /hooks in `codex`" if in_toml else
               f"{there}toolguards hook install codex{' --scope user' if registration.scope == 'user' else ''} "
               "--trust, or review it in /hooks in `codex`")
        if status == "untrusted":
            lines.append(problem(NAME, key, "Codex has not reviewed this hook, so it skips it (without a word under "
                                            "`codex exec`)", fix))
        elif status == "modified":
            lines.append(problem(NAME, key, f"the hook changed after Codex's review (the hash in {path} is not its "
                                            "hash now), so Codex skips it", fix))
        elif status == "disabled":
            lines.append(problem(NAME, key, f"{path} turns this hook off (enabled = false)",
                                 f'remove enabled = false from [hooks.state."{key}"], or turn it on in /hooks'))
        else:
            trusted += 1
    if trusted:
        lines.insert(0, ok(NAME, str(path), f"Codex trusts {trusted} toolguards hook{'s' if trusted != 1 else ''} "
                                            "as they are now"))
    return lines


def _project(context: Context, config: dict[str, Any], path: Path) -> list[Finding]:
    lines = []
    cwd = Path(os.path.abspath(context.cwd))
    own, read = cwd / ".codex" / "hooks.json", project_hooks_file(cwd)
    if os.path.realpath(own) != os.path.realpath(read):
        document = read_json(own)
        if document.usable and registrations(NAME, "project", own, document.value):
            lines.append(problem(NAME, str(own), f"Codex reads this linked git worktree's hooks from {read}, not from "
                                                 "here", f"install in {read.parent.parent}: {_INSTALL}"))
    decision = project_trust(cwd, config)
    if decision.level == "untrusted":
        lines.append(problem(NAME, decision.key, f"{path} marks the project untrusted: Codex loads none of its hooks",
                             f'set [projects."{decision.key}"] trust_level = "trusted" in {path}'))
    elif not decision.trusted:
        lines.append(problem(NAME, decision.key, "Codex does not trust the project, so it loads none of its hooks",
                             f'add [projects."{decision.key}"] trust_level = "trusted" to {path}, or trust the '
                             "project when `codex` asks"))
    else:
        lines.append(ok(NAME, decision.key, "Codex trusts the project"))
    return lines


def _features(context: Context, config: dict[str, Any], path: Path, home: Path) -> list[Finding]:
    lines = []
    configs = [(path, config)] + [
        (project, document.value) for scope, project in _sources(context, config)[2:]
        if project.suffix == ".toml" and (document := read_toml(project)).usable]
    for where, value in configs:
        if not hooks_enabled(value):
            lines.append(problem(NAME, str(where), "[features] hooks = false: Codex runs no hooks",
                                 "remove the setting (hooks are on by default)"))
    profiles = [(profile.name.removesuffix(".config.toml"), read_toml(profile).value)
                for profile in sorted(home.glob("*.config.toml"))]
    legacy = config.get("profiles")
    profiles += [(name, value) for name, value in legacy.items()] if isinstance(legacy, dict) else []
    for name, value in profiles:
        if isinstance(value, dict) and not hooks_enabled(value):
            lines.append(note(NAME, f"profile {name}", f"with --profile {name}, Codex runs no hooks ([features] "
                                                       "hooks = false)"))
    managed = read_toml(REQUIREMENTS)
    if managed.usable and managed.value.get("allow_managed_hooks_only") is True:
        lines.append(problem(NAME, str(REQUIREMENTS), "allow_managed_hooks_only = true: Codex runs only managed "
                                                      "hooks, none of toolguards'",
                             "ask whoever manages this machine to add toolguards' hooks to the managed ones"))
    return lines
