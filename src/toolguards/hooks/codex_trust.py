"""Whether Codex CLI will run a hook: its hook trust (the ``/hooks`` review) and project trust, read from its files.

Codex runs an unmanaged command hook only when ``$CODEX_HOME/config.toml`` records that the hook, exactly as it is
now, was reviewed::

    [hooks.state."/home/u/project/.codex/hooks.json:post_tool_use:0:0"]
    trusted_hash = "sha256:aa18351a…"

- the **key** is ``<hooks file>:<event label>:<group index>:<handler index>``: the hooks file's absolute path (in
  ``$CODEX_HOME`` resolved through symlinks when ``CODEX_HOME`` is set, as Codex resolves it; ``~/.codex`` as ``$HOME``
  spells it), the event's snake-case label (``post_tool_use``, ``user_prompt_submit``), the index of the matcher group
  in the event's list and of the handler in the group, from 0. The key is positional: a group inserted or removed
  before a hook moves it to another key;
- the **hash** is ``sha256:`` and the hex SHA-256 of the compact JSON, keys sorted at every level, of the hook's
  normalized identity: ``{"event_name": <label>, "matcher": <matcher>, "hooks": [<handler>]}`` where the matcher is
  dropped for events without matchers (``UserPromptSubmit``, ``Stop``…) and the handler is the one hook with its
  defaults filled in (``timeout`` 600 seconds, at least 1; 1 to 3 for ``SessionEnd`` and ``Interrupt``; ``async``
  false), ``commandWindows`` dropped, ``additionalContextLimit`` dropped when it is the default 2,500, and absent
  optional fields (``statusMessage``) left out, as Codex's TOML serialization leaves them out (an ``mcp_tool``
  hook's ``server``, ``tool``, ``input``, with each number of ``input`` as ``{"$serde_json::private::Number":
  "<its text>"}``, and ``timeout``);
- a hook without an entry is *untrusted*, one whose entry holds another hash *modified*: both are skipped, without a
  word under ``codex exec``; ``enabled = false`` in the same table turns a hook off whatever its trust.

Codex reads these states only from the user's own config (``$CODEX_HOME/config.toml``), for the user's hooks and the
project's alike. A project's ``.codex/`` folder (its ``hooks.json`` included) is loaded only when the project is
trusted: ``[projects."<folder>"] trust_level = "trusted"``, looked up for the folder itself, then the project root
(the nearest folder above holding one of ``project_root_markers``, by default ``.git``), then the root of the main
checkout of a linked git worktree, each by its path as given and resolved through symlinks. In a linked worktree
Codex reads the project's hooks from the main checkout's ``.codex/hooks.json`` (at the same place below its root),
never from the worktree's own. Hooks as a whole are off when ``[features] hooks = false`` (older name:
``codex_hooks``).

The hash was learnt from Codex's public source (``codex-rs/hooks/src/engine/discovery.rs``, ``codex-rs/config``'s
``version_for_toml``) and is checked against the real Codex's own ``hooks/list`` answers by the real-host tests.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_CONTEXT_LIMIT",
    "DEFAULT_TIMEOUT_SEC",
    "EVENTS",
    "HookEntry",
    "HookState",
    "ProjectTrust",
    "codex_home",
    "event_label",
    "handler_hash",
    "hook_entries",
    "hook_key",
    "hook_states",
    "hooks_enabled",
    "project_hooks_file",
    "project_root",
    "project_trust",
    "trust_status",
]

#: The events Codex 0.171 reads from a hooks file; it passes over any other key of ``hooks``.
EVENTS = frozenset({
    "PreModelRequest", "PostModelRequest", "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact",
    "PostCompact", "SessionStart", "SessionEnd", "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop",
    "Interrupt",
})
DEFAULT_TIMEOUT_SEC = 600
#: Codex spills a hook's ``additionalContext`` past this many tokens to a file; the default is not hashed.
DEFAULT_CONTEXT_LIMIT = 2_500
#: Events whose hooks Codex runs with a short timeout: 1 second by default, 3 at most.
_SHORT_EVENTS = frozenset({"SessionEnd", "Interrupt"})
#: Events whose matcher Codex ignores (and leaves out of the hash).
_NO_MATCHER = frozenset({"UserPromptSubmit", "Stop", "Interrupt", "SessionEnd"})
#: Events whose hooks may hand the model an ``additionalContext`` (only they keep ``additionalContextLimit``).
_CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart"})


def codex_home(environ: Mapping[str, str] | None = None) -> Path:
    """Codex's home folder as Codex names it: ``$CODEX_HOME`` resolved through symlinks, else ``$HOME/.codex``."""
    environ = os.environ if environ is None else environ
    moved = environ.get("CODEX_HOME")
    if moved:
        return Path(os.path.realpath(os.path.expanduser(moved)))
    home = environ.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".codex"


def event_label(event: str) -> str:
    """The snake-case label of an event name in keys and hashes (``PostToolUse`` → ``post_tool_use``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def hook_key(source: str, event: str, group_index: int, handler_index: int) -> str:
    """The ``hooks.state`` key of a handler: its file, event label, group and handler positions."""
    return f"{source}:{event_label(event)}:{group_index}:{handler_index}"


def _timeout(event: str, value: Any) -> int:
    if event in _SHORT_EVENTS:
        return min(max(value if isinstance(value, int) else 1, 1), 3)
    return max(value if isinstance(value, int) else DEFAULT_TIMEOUT_SEC, 1)


def _normalized(event: str, handler: Mapping[str, Any]) -> dict[str, Any] | None:
    """The handler as Codex hashes it; None for one Codex skips (not a command or MCP tool, or an empty one)."""
    kind = handler.get("type")
    found: dict[str, Any] = {"type": kind}
    if kind == "command":
        command = handler.get("command")
        if not isinstance(command, str) or not command.strip():
            return None
        found |= {"command": command, "timeout": _timeout(event, handler.get("timeout")),
                  "async": handler.get("async") is True}
        limit = handler.get("additionalContextLimit")
        if event in _CONTEXT_EVENTS and isinstance(limit, int) and limit != DEFAULT_CONTEXT_LIMIT:
            found["additionalContextLimit"] = limit
    elif kind == "mcp_tool":
        server, tool = handler.get("server"), handler.get("tool")
        if not (isinstance(server, str) and server.strip() and isinstance(tool, str) and tool.strip()):
            return None
        found |= {"server": server, "tool": tool, "input": _numbers_as_text(handler.get("input") or {}),
                  "timeout": _timeout(event, handler.get("timeout"))}
    else:
        return None
    if isinstance(handler.get("statusMessage"), str):
        found["statusMessage"] = handler["statusMessage"]
    return found


def _numbers_as_text(value: Any) -> Any:
    """An MCP hook's input as Codex hashes it: its JSON parser keeps each number's text (serde_json's arbitrary
    precision), which goes into the hash as ``{"$serde_json::private::Number": "<text>"}``. The text here is Python's
    (the same as the file's for integers and for decimals written in their shortest form)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return {"$serde_json::private::Number": json.dumps(value)}
    if isinstance(value, dict):
        return {key: _numbers_as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_numbers_as_text(item) for item in value]
    return value


def _sha256(identity: Mapping[str, Any]) -> str:
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def handler_hash(event: str, matcher: str | None, handler: Mapping[str, Any]) -> str | None:
    """The hash Codex records when the handler is trusted; None for a handler Codex would not run at all."""
    normalized = _normalized(event, handler)
    if normalized is None:
        return None
    identity: dict[str, Any] = {"event_name": event_label(event), "hooks": [normalized]}
    if matcher is not None and event not in _NO_MATCHER:
        identity["matcher"] = matcher
    return _sha256(identity)


@dataclass(frozen=True)
class HookEntry:
    """One handler of a hooks file as Codex lists it: where it is (``key``), what it runs, and its current hash."""

    key: str
    event: str
    handler: Mapping[str, Any]
    hash: str


def hook_entries(source: str, document: Mapping[str, Any]) -> list[HookEntry]:
    """The handlers of a parsed ``hooks.json`` (``source``: its path as Codex names it) that Codex would run."""
    found: list[HookEntry] = []
    hooks = document.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if event not in EVENTS or not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            matcher = group.get("matcher") if isinstance(group, dict) else None
            for handler_index, handler in enumerate(handlers if isinstance(handlers, list) else []):
                digest = handler_hash(event, matcher if isinstance(matcher, str) else None, handler) \
                    if isinstance(handler, dict) else None
                if digest is not None:
                    found.append(HookEntry(hook_key(source, event, group_index, handler_index), event, handler,
                                           digest))
    return found


@dataclass(frozen=True)
class HookState:
    """What ``[hooks.state."<key>"]`` records for one hook."""

    enabled: bool | None = None
    trusted_hash: str | None = None


def hook_states(config: Mapping[str, Any]) -> dict[str, HookState]:
    """The hook states of a parsed ``config.toml``; entries of the wrong types are passed over, as Codex does."""
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    found: dict[str, HookState] = {}
    for key, value in state.items() if isinstance(state, dict) else ():
        if not isinstance(value, dict) or not key.strip():
            continue
        enabled, trusted = value.get("enabled"), value.get("trusted_hash")
        if (enabled is None or isinstance(enabled, bool)) and (trusted is None or isinstance(trusted, str)):
            found[key.strip()] = HookState(enabled, trusted)
    return found


def trust_status(entry: HookEntry, states: Mapping[str, HookState]) -> str:
    """``trusted``, ``modified`` (reviewed, then changed), ``untrusted`` or ``disabled``: only ``trusted`` runs."""
    state = states.get(entry.key, HookState())
    if state.enabled is False:
        return "disabled"
    if state.trusted_hash is None:
        return "untrusted"
    return "trusted" if state.trusted_hash == entry.hash else "modified"


def hooks_enabled(config: Mapping[str, Any]) -> bool:
    """Whether the ``hooks`` feature is on (it is unless ``config.toml`` turns it off)."""
    features = config.get("features")
    if not isinstance(features, dict):
        return True
    return all(features.get(name) is not False for name in ("hooks", "codex_hooks"))


@dataclass(frozen=True)
class ProjectTrust:
    """Codex's decision for a project folder: ``level`` as found (``trusted``, ``untrusted`` or None for no entry),
    under ``key``: the ``projects`` key that decided it, or the one to add."""

    level: str | None
    key: str

    @property
    def trusted(self) -> bool:
        return self.level == "trusted"


def _keys(folder: Path) -> list[str]:
    resolved = os.path.realpath(folder)
    return list(dict.fromkeys((resolved, str(folder))))


def _above(folder: Path, markers: list[str]) -> Path:
    if not markers:
        return folder
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in markers):
            return candidate
    return folder


def _checkout(folder: Path) -> Path | None:
    """The root of the git checkout holding ``folder`` (the nearest folder with a ``.git``), if any."""
    return next((candidate for candidate in (folder, *folder.parents) if (candidate / ".git").exists()), None)


def _main_checkout(folder: Path) -> Path | None:
    """The root of the repository's main checkout: itself, or for a linked worktree the one its ``.git`` file names."""
    for candidate in (folder, *folder.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            return candidate
        if dot_git.is_file():
            found = re.match(r"gitdir:\s*(.+)", dot_git.read_text(encoding="utf-8", errors="replace").strip())
            if found is None:
                return candidate
            git_dir = (candidate / found.group(1)).resolve()
            common = git_dir / "commondir"
            if common.is_file():
                git_dir = (git_dir / common.read_text(encoding="utf-8").strip()).resolve()
            return git_dir.parent
    return None


def project_hooks_file(folder: str | Path) -> Path:
    """The ``hooks.json`` Codex reads for the project folder ``folder``: its own ``.codex/hooks.json``, or, in a linked
    git worktree, the one at the same place in the main checkout (Codex takes a worktree's hooks from there)."""
    folder = Path(os.path.abspath(folder))
    checkout, main = _checkout(folder), _main_checkout(folder)
    if checkout is not None and main is not None and os.path.realpath(checkout) != os.path.realpath(main):
        return main / folder.relative_to(checkout) / ".codex" / "hooks.json"
    return folder / ".codex" / "hooks.json"


def project_root(folder: str | Path, config: Mapping[str, Any]) -> Path:
    """The project root of ``folder`` as Codex finds it: the nearest folder, ``folder`` itself or above, holding one of
    the ``project_root_markers`` of a parsed ``config.toml`` (by default ``.git``); ``folder`` when none does."""
    folder = Path(os.path.abspath(folder))
    markers = config.get("project_root_markers", [".git"])
    return _above(folder, [m for m in markers if isinstance(m, str)] if isinstance(markers, list) else [".git"])


def project_trust(folder: str | Path, config: Mapping[str, Any]) -> ProjectTrust:
    """How Codex decides the trust of the project folder ``folder`` from a parsed ``config.toml``."""
    folder = Path(os.path.abspath(folder))
    projects = config.get("projects")
    levels = {key: value["trust_level"] for key, value in (projects.items() if isinstance(projects, dict) else ())
              if isinstance(value, dict) and isinstance(value.get("trust_level"), str)}
    root = project_root(folder, config)
    checkout = _main_checkout(folder)
    candidates = [_keys(folder), _keys(root)] + ([_keys(checkout)] if checkout is not None else [])
    for keys in candidates:
        for key in keys:
            if key in levels:
                return ProjectTrust(levels[key], key)
    return ProjectTrust(None, candidates[-1][0])
