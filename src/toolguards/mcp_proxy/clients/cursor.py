"""``cursor``: Cursor's project servers, ``.cursor/mcp.json`` in the project folder (the current one).

Its servers are the ``mcpServers`` object; a local server has ``command`` and ``args`` (and ``env``); one with a
``url`` is remote and not rewritten (``~/.cursor/mcp.json``, the user's servers, is the same shape: ``--settings``)::

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}

Cursor prefers ``structuredContent`` over ``content`` when a result has one.
"""

from __future__ import annotations

import os

__all__ = ["NAME", "SERVERS_KEY", "config_path"]

NAME = "cursor"
SERVERS_KEY = "mcpServers"


def config_path() -> str:
    """``.cursor/mcp.json`` in the current folder."""
    return os.path.join(".cursor", "mcp.json")
