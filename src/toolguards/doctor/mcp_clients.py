"""``mcp``: what ``toolguards doctor`` checks of the MCP clients' servers run through ``toolguards mcp`` (the files
``toolguards mcp install`` rewrites: ``toolguards.mcp_proxy.clients``, one module per client).

For each client's config file (Claude Desktop's ``claude_desktop_config.json``, Claude Code's ``.mcp.json``, VS
Code's ``.vscode/mcp.json``, Cursor's ``.cursor/mcp.json``; the project files in the working folder), each server
entry proxied through ``toolguards mcp --`` (``toolguards.mcp_proxy.client_config.entry_status``):

- the file parses (JSON; VS Code's may hold comments);
- the ``toolguards`` the entry runs is found, and so is the server's own program (a path, or a name on PATH);
- the guard file of the proxy's ``--config`` validates.

Findings name the client as ``mcp:<client>``. The servers are not started: a server may need credentials, or fetch
itself from a package registry, which a check must not set off.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ..guardfile.loader import check_file
from ..mcp_proxy.client_config import entry_status, proxied
from ..mcp_proxy.clients import CLIENTS, client
from .documents import read_json
from .finding import Context, Finding, ok, problem

__all__ = ["NAME", "PROGRAMS", "check", "registered"]

NAME = "mcp"
#: The MCP clients are checked where their files proxy a server, never for a program on PATH.
PROGRAMS: tuple[str, ...] = ()


def _proxied(context: Context) -> list[tuple[str, Path, str, dict[str, Any]]]:
    """(client, file, server name, entry) of each proxied entry, and nothing of files that do not parse."""
    found = []
    for name in CLIENTS:
        module = client(name)
        path = context.cwd / module.config_path()
        document = read_json(path, comments=name == "vscode")
        servers = document.value.get(module.SERVERS_KEY) if document.usable else None
        for server, entry in servers.items() if isinstance(servers, dict) else ():
            if proxied(entry) is not None:
                found.append((name, path, server, entry))
    return found


def registered(context: Context) -> bool:
    """Whether a client's config file here runs a server through ``toolguards mcp``."""
    return bool(_proxied(context))


def _broken(context: Context) -> list[Finding]:
    lines = []
    for name in CLIENTS:
        module = client(name)
        document = read_json(context.cwd / module.config_path(), comments=name == "vscode")
        if document.error is not None:
            lines.append(problem(f"mcp:{name}", str(document.path), f"{document.error}: the client cannot start "
                                                                   "its servers", "correct the file"))
    return lines


def _guard_file(args: list[str]) -> str | None:
    """The proxy's ``--config`` value (before the ``--`` that starts the server's command)."""
    own = args[: args.index("--")] if "--" in args else args
    for index, word in enumerate(own):
        if word == "--config" and index + 1 < len(own):
            return own[index + 1]
        if word.startswith("--config="):
            return word.partition("=")[2]
    return None


def check(context: Context) -> list[Finding]:
    """Every finding about the proxied servers of the MCP clients' files here."""
    lines = _broken(context)
    found = _proxied(context)
    if not found:
        return [*lines, problem(NAME, str(context.cwd), "no MCP client's config file here runs a server through "
                                                       "toolguards mcp", "toolguards mcp install CLIENT SERVER")]
    for name, path, server, entry in found:
        label, where = f"mcp:{name}", f"{path}: {server}"
        status = entry_status(entry)
        again = f"toolguards mcp install {name} {shlex.quote(server)}"
        lines.append(ok(label, where, f"runs {status.server_command} through {entry['command']} mcp"))
        if not status.toolguards_found:
            lines.append(problem(label, where, f"{entry['command']} is not found, so the client cannot start the "
                                               "server", f"install again from the toolguards you use: {again}"))
        if not status.server_found:
            lines.append(problem(label, where, f"the server's own program {status.server_command} is not found, so "
                                               "the proxy cannot start it", "install the server, or correct the entry"))
        config = _guard_file(entry["args"])
        if config is not None:
            problems = check_file(context.cwd / config)
            if problems:
                more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
                lines.append(problem(label, config, f"the proxy's guard file does not validate: {problems[0]}{more}",
                                     f"toolguards validate {shlex.quote(config)}, and fix what it says"))
            else:
                lines.append(ok(label, config, "the proxy's guard file validates"))
    return lines
