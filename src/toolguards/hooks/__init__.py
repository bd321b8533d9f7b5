"""Coding agents' command hooks: one module per host protocol, one shared driver, one registry line per host.

- ``toolguards.hooks.claude``: Claude Code (and VS Code's agent hooks);
- ``toolguards.hooks.codex``: OpenAI Codex CLI;
- ``toolguards.hooks.gemini``: Gemini CLI;
- ``toolguards.hooks.cursor``: Cursor.

Each host module's docstring is the reference of its events and fields; ``toolguards.hooks.protocol`` is what they all
provide. ``toolguards.hooks.driver`` turns a host's event into a ``HookRequest`` and reminders into the host's stdout
text (``parse``, ``apply``, ``render``: pure functions, shared by ``toolguards hook`` and ``toolguards serve``);
``toolguards.hooks.command`` runs one request against the session's SQLite state (the command), and
``toolguards.hooks.install`` writes a host's registration into its own config file. A new host is one module here plus
its line below.

Host modules are imported on first use, and nothing of the driver is imported here: an event the hook ignores must not
pay for the engine's imports.
"""

from __future__ import annotations

import importlib
from types import MappingProxyType

from .protocol import HookError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .protocol import Host

__all__ = ["HOSTS", "HookError", "host"]

#: Host protocol modules by host name (``toolguards hook NAME``).
HOSTS: Mapping[str, str] = MappingProxyType({
    "claude": "toolguards.hooks.claude",
    "codex": "toolguards.hooks.codex",
    "gemini": "toolguards.hooks.gemini",
    "cursor": "toolguards.hooks.cursor",
})


def host(name: str) -> Host:
    """The protocol module of a host; HookError for a name no module has."""
    module = HOSTS.get(name)
    if module is None:
        raise HookError(f"unknown host `{name}` (known: {', '.join(HOSTS)})")
    found: Host = importlib.import_module(module)
    return found

