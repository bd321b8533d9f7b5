"""``toolguards doctor``: why the guard would not work in a host, one finding per line, each with its fix.

One module per host (``claude``, ``codex``, ``gemini``, ``cursor``) and one for the MCP clients' proxied servers
(``mcp_clients``), each with the ``Checks`` interface (``toolguards.doctor.finding``) and its reference in its
docstring, registered by one line in ``CHECKS``. What they share: a config file read and checked against a schema
(``documents``), toolguards' handlers found in a hooks document (``registrations``), a registered command tried on
synthetic events (``probe``) and a registered URL posted to (``endpoint``).

``examine(names, context)`` runs the checks of ``names``; ``default_names(context)`` are the hosts a bare
``toolguards doctor`` checks: each whose files hold a toolguards registration, or whose program is on PATH.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from .finding import Checks, Context, Finding

__all__ = ["CHECKS", "Context", "Finding", "checks", "default_names", "examine"]

#: The checks of each host (and of the MCP clients), by the name ``toolguards doctor NAME`` takes.
CHECKS: Mapping[str, str] = MappingProxyType({
    "claude": "toolguards.doctor.claude",
    "codex": "toolguards.doctor.codex",
    "gemini": "toolguards.doctor.gemini",
    "cursor": "toolguards.doctor.cursor",
    "mcp": "toolguards.doctor.mcp_clients",
})


def checks(name: str) -> Checks:
    """The checks module of ``name`` (KeyError for a name that has none)."""
    found: Checks = importlib.import_module(CHECKS[name])
    return found


def default_names(context: Context) -> list[str]:
    """The hosts to check when none is named: a registration in their files, or their program on PATH."""
    path = context.env.get("PATH", "")
    found = []
    for name in CHECKS:
        module = checks(name)
        if any(shutil.which(program, path=path) for program in module.PROGRAMS) or module.registered(context):
            found.append(name)
    return found


def examine(names: Iterable[str], context: Context) -> list[Finding]:
    """Every finding of the checks of ``names``, host after host."""
    return [finding for name in names for finding in checks(name).check(context)]
