"""``toolguards mcp install|uninstall CLIENT SERVER``: run a server of a client's MCP config through the proxy, or not.

::

    toolguards mcp install CLIENT (SERVER | --all) [--settings PATH] [--config PATH] [--dry-run]
    toolguards mcp uninstall CLIENT (SERVER | --all) [--settings PATH] [--dry-run]

``commands.mcp`` reads the command line into an ``Installation``; ``run`` does it. CLIENT is ``claude-desktop``,
``claude-code``, ``vscode`` or ``cursor`` (``toolguards.mcp_proxy.clients``: where each keeps its file, and the key of
its servers); ``--settings PATH`` names another file of the same shape. Install rewrites the entry's ``command`` and
``args`` in place, every other key (``env``, ``type``, ``cwd``...) left as it is::

    "time": {"command": "uvx", "args": ["mcp-server-time"]}
    "time": {"command": "/abs/path/toolguards", "args": ["mcp", "--name", "time", "--", "uvx", "mcp-server-time"]}

``--name`` is the entry's name (the agent keys' prefix); ``--config PATH`` (the guard file) adds ``--config <its
absolute path>`` after checking the file. An entry already proxied is updated, never wrapped twice; an entry with a
``url`` (a remote server) is refused (``--all`` skips it). Uninstall gives the entry back its own ``command`` and
``args``, read from the proxied ones (an empty ``args`` comes back absent); when the backup holds exactly the result,
its own text is written back, so an uninstall after an install restores the file byte for byte. The file is read and
written as ``toolguards hook install`` does (``toolguards.hooks.install``): strict JSON, a broken file refused and
left untouched, the previous file kept as ``<file>.toolguards.bak``, its indentation kept; ``--dry-run`` prints the
result and writes nothing. Exit codes: 0 done (or nothing to do), 1 refused, 2 a usage error; a summary line goes to
stderr.

``entry_status(entry)`` is what ``toolguards doctor`` reads of an entry: whether it is proxied, and whether the
commands it runs exist.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..hooks.install import BACKUP_SUFFIX, InstallError, indent_of, installed_command, read_document, write_document
from .clients import client

__all__ = ["EntryStatus", "Installation", "entry_status", "proxied", "run", "unwrap", "wrap"]

_SCRIPT_NAMES = ("toolguards", "toolguards.exe")


def proxied(entry: Any) -> tuple[str, list[str]] | None:
    """The server's own (command, args) when ``entry`` runs it through ``toolguards mcp --``; None otherwise."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return None
    args = entry.get("args")
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        return None
    words = [entry["command"], *args]
    program = os.path.basename(words[0])
    if program in _SCRIPT_NAMES:
        rest = words[1:]
    elif words[1:3] == ["-m", "toolguards"]:
        rest = words[3:]
    else:
        return None
    if rest[:1] != ["mcp"] or "--" not in rest:
        return None
    server = rest[rest.index("--") + 1:]
    return (server[0], server[1:]) if server else None


def wrap(entry: Mapping[str, Any], name: str, toolguards: str, guard_file: str | None = None) -> dict[str, Any]:
    """The entry running its server through the proxy (an entry already proxied: its server, wrapped afresh)."""
    found = proxied(entry)
    command, args = found if found is not None else (entry["command"], list(entry.get("args") or []))
    options = ["--name", name] + (["--config", guard_file] if guard_file is not None else [])
    changed = dict(entry)
    changed["command"] = toolguards
    changed["args"] = ["mcp", *options, "--", command, *args]
    return changed


def unwrap(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The entry running its server directly again; the entry itself when it is not proxied."""
    found = proxied(entry)
    if found is None:
        return dict(entry)
    command, args = found
    changed = dict(entry)
    changed["command"] = command
    if args:
        changed["args"] = args
    else:
        del changed["args"]
    return changed


@dataclass(frozen=True)
class EntryStatus:
    """What a check of one server entry finds."""

    #: the entry runs its server through ``toolguards mcp --``
    proxied: bool
    #: the server's own program (None: a remote entry with a ``url``, or no command at all)
    server_command: str | None
    #: that program is found (an absolute or relative path that exists, or a name on PATH)
    server_found: bool
    #: for a proxied entry, whether the ``toolguards`` it runs is found (True for an entry that is not proxied)
    toolguards_found: bool


def _found(program: str) -> bool:
    if os.sep in program or (os.altsep and os.altsep in program):
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program) is not None


def entry_status(entry: Any) -> EntryStatus:
    """Is this client config entry proxied, and do the commands it runs exist (what ``toolguards doctor`` reports)."""
    found = proxied(entry)
    if found is not None:
        return EntryStatus(True, found[0], _found(found[0]), _found(entry["command"]))
    command = entry.get("command") if isinstance(entry, dict) else None
    if not isinstance(command, str):
        return EntryStatus(False, None, False, True)
    return EntryStatus(False, command, _found(command), True)


def _servers(document: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    servers = document.get(key)
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: `{key}` is not an object; left untouched")
    return servers


def _chosen(servers: dict[str, Any], server: str | None, key: str, path: str) -> list[str]:
    if server is None:
        return [name for name, entry in servers.items() if isinstance(entry, dict)
                and isinstance(entry.get("command"), str)]
    if server not in servers:
        known = ", ".join(servers) or "none"
        raise InstallError(f"{path}: no server `{server}` in `{key}` (servers: {known}); left untouched")
    entry = servers[server]
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        what = "a remote server (it has a `url`)" if isinstance(entry, dict) and "url" in entry else "not a command"
        raise InstallError(f"{path}: the server `{server}` is {what}; only servers the client starts can be proxied")
    return [server]


def _guard_file(path: str | None) -> str | None:
    if path is None:
        return None
    absolute = os.path.abspath(path)
    from ..guardfile.loader import check_file  # noqa: PLC0415

    problems = check_file(absolute)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InstallError(f"the guard file has problems, so nothing was installed: {problems[0]}{more}")
    return absolute


@dataclass(frozen=True)
class Installation:
    """What ``toolguards mcp install|uninstall`` is asked to do (``commands.mcp`` reads it from the command line)."""

    #: ``install`` or ``uninstall``
    action: str
    client: str
    #: the server's name in the client's file; None: every server the client starts (``--all``)
    server: str | None
    #: the client's settings file, instead of its own
    settings: str | None = None
    #: the guard file the proxy runs with (install)
    config: str | None = None
    dry_run: bool = False


def run(options: Installation) -> int:
    """Proxy the servers, or run them directly again; 0 done (or nothing to do), 1 refused. A summary line goes to
    stderr."""
    action = options.action
    module = client(options.client)
    path = options.settings or module.config_path()
    prefix = f"toolguards mcp {action}"
    try:
        document, previous = read_document(path)
        before = json.loads(json.dumps(document))
        servers = _servers(document, module.SERVERS_KEY, path)
        names = _chosen(servers, options.server, module.SERVERS_KEY, path)
        if action == "install":
            toolguards, guard_file = installed_command(), _guard_file(options.config)
            for name in names:
                servers[name] = wrap(servers[name], name, toolguards, guard_file)
            done = [name for name in names if servers[name] != before.get(module.SERVERS_KEY, {}).get(name)]
            summary = f"{_listed(names)} run through toolguards mcp"
        else:
            done = [name for name in names if proxied(servers[name]) is not None]
            for name in done:
                servers[name] = unwrap(servers[name])
            summary = f"{_listed(done)} run directly again"
        text = json.dumps(document, indent=indent_of(previous), ensure_ascii=False) + "\n"
        if action == "uninstall":
            text = _as_backed_up(path, document) or text
        if options.dry_run:
            sys.stdout.write(text)
            print(f"{prefix}: {path} (dry run, nothing written): {summary}", file=sys.stderr)
            return 0
        if document == before:
            print(f"{prefix}: {path} unchanged: {summary}", file=sys.stderr)
            return 0
        backup = write_document(path, text, previous)
        kept = f" (the previous file is {backup})" if backup else ""
        print(f"{prefix}: {path}: {summary}{kept}", file=sys.stderr)
        return 0
    except (InstallError, OSError) as exc:
        message = str(exc) if isinstance(exc, InstallError) else f"{path}: {exc.strerror or exc}"
        print(f"{prefix}: {message}", file=sys.stderr)
        return 1


def _as_backed_up(path: str, document: dict[str, Any]) -> str | None:
    """The backup's own text when it holds exactly ``document`` (an uninstall after an install: the file as it was,
    byte for byte); None otherwise."""
    try:
        backed_up, text = read_document(path + BACKUP_SUFFIX)
    except InstallError:
        return None
    return text if text is not None and backed_up == document else None


def _listed(names: list[str]) -> str:
    if not names:
        return "no server"
    return f"{'server' if len(names) == 1 else 'servers'} {', '.join(names)}"
