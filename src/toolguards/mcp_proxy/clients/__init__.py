"""The MCP clients whose config files ``toolguards mcp install`` rewrites, one module each, by name.

Each module's docstring is its reference (where the file is, what an entry looks like); each has ``NAME``,
``SERVERS_KEY`` (the object of server entries) and ``config_path() -> str`` (the file by default, relative paths to the
current folder). ``CLIENTS`` names them; ``client(name)`` imports one.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType, ModuleType

__all__ = ["CLIENTS", "client"]

#: Client modules by the name ``toolguards mcp install CLIENT`` takes.
CLIENTS: Mapping[str, str] = MappingProxyType({
    "claude-desktop": "toolguards.mcp_proxy.clients.claude_desktop",
    "claude-code": "toolguards.mcp_proxy.clients.claude_code",
    "vscode": "toolguards.mcp_proxy.clients.vscode",
    "cursor": "toolguards.mcp_proxy.clients.cursor",
})


def client(name: str) -> ModuleType:
    """The module of the client ``name`` (KeyError for a name that is not one)."""
    return importlib.import_module(CLIENTS[name])
