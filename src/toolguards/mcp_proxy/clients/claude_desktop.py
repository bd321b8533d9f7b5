"""``claude-desktop``: Claude Desktop's ``claude_desktop_config.json``, in the app's folder of the user's settings.

The file is ``~/Library/Application Support/Claude/claude_desktop_config.json`` on macOS,
``%APPDATA%\\Claude\\claude_desktop_config.json`` on Windows and ``~/.config/Claude/claude_desktop_config.json``
elsewhere; its servers are the ``mcpServers`` object, each a local command::

    {"mcpServers": {"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                                   "env": {"DEBUG": "1"}}}}

Claude Desktop starts each server when it starts: quit and reopen it after an install. It shows the model a tool
result's ``content`` (not ``structuredContent``), so the reminder's text block is what its model reads.
"""

from __future__ import annotations

import os
import sys

__all__ = ["NAME", "SERVERS_KEY", "config_path"]

NAME = "claude-desktop"
SERVERS_KEY = "mcpServers"
FILE_NAME = "claude_desktop_config.json"


def config_path() -> str:
    """The config file of this user's Claude Desktop."""
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Application Support", "Claude", FILE_NAME)
    if sys.platform == "win32":
        return os.path.join(os.environ.get("APPDATA", os.path.expanduser("~")), "Claude", FILE_NAME)
    return os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config"),
                        "Claude", FILE_NAME)
