"""Codex's trust steps of ``toolguards hook install|uninstall codex``: the hooks' review state in
``$CODEX_HOME/config.toml``, and what Codex still needs before it runs them.

After the hooks file is merged (``toolguards.hooks.install``), install:

- with ``--trust``, records each of our handlers' trust exactly as Codex's ``/hooks`` review records it
  (``[hooks.state."<key>"] trusted_hash = "sha256:…"``, computed by ``toolguards.hooks.codex_trust``), in the user's
  ``config.toml`` (where Codex reads the trust of user and project hooks alike);
- without it, says in one line that Codex will not run the hooks until they are reviewed, and the two ways to do it;
- says in one line when the hooks file is a project's and Codex does not trust the project (that stays the user's
  decision: install never writes ``[projects]``), or when ``[features] hooks = false`` turns hooks off.

Uninstall removes the trust entries of the handlers it removes: the ``trusted_hash`` of each of our keys that holds
our handler's hash, whoever recorded it (a table left empty goes too); every other entry stays. Removing our group
moves the groups after it up one place, so their recorded trust no longer applies: uninstall says how many.

``config.toml`` is edited with tomlkit, which keeps the user's comments, order and formatting: only the tables touched
change. A file that is not valid TOML is refused and left untouched; the previous file is kept as
``config.toml.toolguards.bak``; a symlinked ``config.toml`` is written through its link, as Codex writes it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from .codex_trust import (
    HookEntry,
    HookState,
    codex_home,
    hook_entries,
    hook_states,
    hooks_enabled,
    project_hooks_file,
    project_trust,
    trust_status,
)
from .install import InstallError, ours, write_document

__all__ = ["TRUST", "config_file", "installed", "read_config", "uninstalled"]

#: Codex runs a new or changed hook only once it is reviewed: ``--trust`` records that review.
TRUST = True

_NAME = "codex"


def config_file() -> Path:
    """The user's ``config.toml``: where Codex reads hook and project trust."""
    return codex_home() / "config.toml"


def read_config(path: Path) -> tuple[tomlkit.TOMLDocument, str | None]:
    """The parsed ``config.toml`` and its text (None: no file); InstallError when it is not TOML."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document(), None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        return tomlkit.parse(text), text
    except TOMLKitError as exc:
        raise InstallError(f"{path}: is not valid TOML ({exc}); left untouched") from None


def _ours(source: str, document: Mapping[str, Any]) -> list[HookEntry]:
    return [entry for entry in hook_entries(source, document) if ours(entry.handler, _NAME)]


def _table(parent: Any, key: str, path: Path, create: bool) -> Any:
    found = parent.get(key)
    if found is None and create:
        found = parent[key] = tomlkit.table(is_super_table=True)
    if found is not None and not isinstance(found, dict):
        raise InstallError(f"{path}: `{key}` is not a table; left untouched")
    return found


def _write(path: Path, document: tomlkit.TOMLDocument, previous: str | None,
           expected: Mapping[str, str | None], trim_end: bool = False) -> str:
    """Write the edited file, once it reads back with each key's ``trusted_hash`` as ``expected`` (None: none);
    what to say of the previous file. ``trim_end``: the file ended with a table that was removed, so the blank line
    put before that table goes too."""
    text = tomlkit.dumps(document)
    if trim_end:
        text = text.rstrip("\n") + "\n" if text.strip() else ""
    states = hook_states(tomlkit.parse(text).unwrap())
    if any(states.get(key, HookState()).trusted_hash != digest for key, digest in expected.items()):
        raise InstallError(f"{path}: the edited file would not read back as intended; left untouched")
    backup = write_document(os.path.realpath(path), text, previous)
    return f" (the previous file is {backup})" if backup else ""


def _record(path: Path, document: tomlkit.TOMLDocument, entries: list[HookEntry]) -> int:
    """Set each entry's ``trusted_hash``; how many changed."""
    state = _table(_table(document, "hooks", path, create=True), "state", path, create=True)
    changed = 0
    for entry in entries:
        table = state.get(entry.key)
        if table is None:
            table = state[entry.key] = tomlkit.table()
        elif not isinstance(table, dict):
            raise InstallError(f"{path}: `hooks.state.\"{entry.key}\"` is not a table; left untouched")
        if table.get("trusted_hash") != entry.hash:
            table["trusted_hash"] = entry.hash
            changed += 1
    return changed


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def installed(hooks_file: str, document: Mapping[str, Any], trust: bool, dry_run: bool) -> list[str]:
    """Install's Codex lines (and, with ``trust``, the trust written); InstallError before anything is written."""
    path = config_file()
    mine = _ours(os.path.abspath(hooks_file), document)
    if trust:
        config, previous = read_config(path)
        changed = _record(path, config, mine)
        if not changed:
            lines = [f"{path} unchanged: Codex already trusts these hooks"]
        elif dry_run:
            lines = [f"{path} (dry run, nothing written): would record Codex's trust of {_plural(changed, 'hook')}"]
        else:
            kept = _write(path, config, previous, {entry.key: entry.hash for entry in mine})
            lines = [f"{path}: recorded Codex's trust of {_plural(changed, 'hook')}, as its /hooks review does{kept}"]
    else:
        try:
            config, _ = read_config(path)
        except InstallError as exc:
            return [f"{exc}, so whether Codex trusts these hooks is not known"]
        states = hook_states(config.unwrap())
        statuses = {trust_status(entry, states) for entry in mine}
        lines = []
        if "disabled" in statuses:
            lines.append(f"{path} turns some of these hooks off (enabled = false): Codex does not run them")
        if statuses & {"untrusted", "modified"}:
            lines.append("Codex will not run these hooks until they are reviewed: trust them in /hooks in `codex`, "
                         "or install again with --trust")
    plain = config.unwrap()
    if not hooks_enabled(plain):
        lines.append(f"{path} turns Codex's hooks off ([features] hooks = false): it runs none")
    return lines + _project_lines(hooks_file, plain, path)


def _project_lines(hooks_file: str, config: Mapping[str, Any], path: Path) -> list[str]:
    dot_codex = Path(os.path.abspath(hooks_file)).parent
    if dot_codex.name != ".codex" or os.path.realpath(dot_codex) == os.path.realpath(codex_home()):
        return []
    folder = dot_codex.parent
    lines = []
    read = project_hooks_file(folder)
    if os.path.realpath(read) != os.path.realpath(hooks_file):
        lines.append(f"Codex reads the hooks of {folder} from {read} (this is a linked git worktree), not from "
                     f"{hooks_file}: install in {read.parent.parent}")
    decision = project_trust(folder, config)
    if decision.level == "untrusted":
        lines.append(f"{decision.key} is marked untrusted in {path}: Codex loads no hooks of the project until it is "
                     "marked trusted")
    elif not decision.trusted:
        lines.append(f"Codex loads no hooks of {folder} until the project is trusted: trust it when `codex` asks "
                     f'there, or add [projects."{decision.key}"] trust_level = "trusted" to {path}')
    return lines


def uninstalled(hooks_file: str, before: Mapping[str, Any], after: Mapping[str, Any], dry_run: bool) -> list[str]:
    """Uninstall's Codex lines: our trust entries removed (unless ``dry_run``), other hooks whose trust moved."""
    path = config_file()
    if not path.exists():
        return []
    source = os.path.abspath(hooks_file)
    config, previous = read_config(path)
    states = hook_states(config.unwrap())
    removed = [entry for entry in _ours(source, before)
               if states.get(entry.key, HookState()).trusted_hash == entry.hash]
    lines = []
    if removed:
        hooks = _table(config, "hooks", path, create=False)
        state = _table(hooks, "state", path, create=False)
        for entry in removed:
            table = state[entry.key]
            del table["trusted_hash"]
            if not table:
                del state[entry.key]
        if not state:
            del hooks["state"]
        if not hooks:
            del config["hooks"]
        if dry_run:
            lines.append(f"{path} (dry run, nothing written): would remove Codex's trust of "
                         f"{_plural(len(removed), 'hook')}")
        else:
            last = (previous or "").rstrip().rpartition("\n")[2]
            ended = any(last == f'trusted_hash = "{entry.hash}"' for entry in removed)
            kept = _write(path, config, previous, {entry.key: None for entry in removed}, trim_end=ended)
            lines.append(f"{path}: removed Codex's trust of {_plural(len(removed), 'hook')}{kept}")
    moved = _moved(source, before, after, states)
    if moved:
        lines.append(f"Codex will ask to review {_plural(moved, 'other hook')} of {hooks_file} again: removing ours "
                     "moved them")
    return lines


def _moved(source: str, before: Mapping[str, Any], after: Mapping[str, Any], states: Mapping[str, HookState]) -> int:
    """How many trusted handlers of others changed key: the ones after ours in their event's list, moved up."""
    kept = [entry for entry in hook_entries(source, before) if not ours(entry.handler, _NAME)]
    now: dict[str, list[HookEntry]] = {}
    for entry in hook_entries(source, after):
        now.setdefault(entry.event, []).append(entry)
    moved = 0
    for event in dict.fromkeys(entry.event for entry in kept):
        old = [entry for entry in kept if entry.event == event]
        moved += sum(1 for was, is_now in zip(old, now.get(event, []), strict=False)
                     if was.key != is_now.key and trust_status(was, states) == "trusted")
    return moved
