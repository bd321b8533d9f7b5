"""``toolguards mcp``: a proxy between any MCP client and any MCP server that adds the guards' reminders to the
results of the tool calls that draw them, and changes nothing else (docs/mcp.md is the user's page).

Built on the official MCP Python SDK (the ``mcp`` extra): its message types parse and dump every message, its
streamable-HTTP transports carry ``--upstream`` and ``--listen``. The parts, one module each:

- ``relay``: one connection's messages both ways, and which answers are ``tools/call`` results;
- ``guarding`` and ``reminders``: the engine behind the relay, and where a reminder goes in a result;
- ``stdio``, ``child``, ``upstream``, ``listen``: the client over stdio, the server as a child process, the server
  over HTTP, the clients over HTTP;
- ``proxy``: the guard file's engine over its store, and the stdio proxy put together;
- ``client_config`` and ``clients``: ``toolguards mcp install|uninstall`` for the clients' config files.
"""

from __future__ import annotations

__all__: list[str] = []
