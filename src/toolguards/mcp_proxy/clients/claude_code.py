"""``claude-code``: Claude Code's project servers, ``.mcp.json`` in the project folder (the current one).

Its servers are the ``mcpServers`` object; a local server has ``command`` and ``args`` (``"type": "stdio"`` may be
given, and ``env``); an ``"http"`` or ``"sse"`` entry has a ``url`` instead and is not rewritten::

    {"mcpServers": {"time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"], "env": {}}}}

Claude Code asks once before it uses a project's servers, and starts them with each session. It shows the model only
``structuredContent`` when a result has one (claude-code #55677), so the reminder also goes there where the tool's
output schema allows it; a success over 50,000 characters is saved to a file the model is told of.
"""

from __future__ import annotations

__all__ = ["NAME", "SERVERS_KEY", "config_path"]

NAME = "claude-code"
SERVERS_KEY = "mcpServers"


def config_path() -> str:
    """``.mcp.json`` in the current folder."""
    return ".mcp.json"
