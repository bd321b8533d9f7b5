"""``vscode``: VS Code's workspace servers, ``.vscode/mcp.json`` in the workspace folder (the current one).

Its servers are the ``servers`` object (not ``mcpServers``); a local server has ``"type": "stdio"``, ``command`` and
``args`` (and ``env``, ``envFile``); an ``"http"`` or ``"sse"`` entry has a ``url`` and is not rewritten. The file may
also hold ``inputs``, kept as they are::

    {"servers": {"time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}}, "inputs": []}

VS Code reads the file as JSON with comments; install reads it as strict JSON and refuses a file with comments
(nothing is written). Its agent mode shows the model ``structuredContent`` when a result has one.
"""

from __future__ import annotations

import os

__all__ = ["NAME", "SERVERS_KEY", "config_path"]

NAME = "vscode"
SERVERS_KEY = "servers"


def config_path() -> str:
    """``.vscode/mcp.json`` in the current folder."""
    return os.path.join(".vscode", "mcp.json")
