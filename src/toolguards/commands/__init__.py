"""The sub-commands of ``toolguards``, by name; each module has HELP, add_arguments(parser) and run(args) -> int.

Modules are imported only when their command runs (or ``toolguards --help`` lists them all): a hook call must not pay
for replay's imports. A command listed in ``RAW`` also has ``main(argv) -> int`` and reads its own command line before
any parser is built; one with commands under it (``toolguards hook install``) names them in ``SUBCOMMANDS``. Every
parser is a ``parser.Parser`` and takes the shared options of ``options`` (``tests/commands/test_cli_rules.py`` walks
them all).
"""

from __future__ import annotations

import importlib
from types import MappingProxyType, ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["COMMANDS", "RAW", "command"]

#: Sub-command modules by command name.
COMMANDS: Mapping[str, str] = MappingProxyType(
    {
        "hook": "toolguards.commands.hook",
        "validate": "toolguards.commands.validate",
        "replay": "toolguards.commands.replay",
        "report": "toolguards.commands.report",
        "schema": "toolguards.commands.schema",
        "serve": "toolguards.commands.serve",
        "mcp": "toolguards.commands.mcp",
        "doctor": "toolguards.commands.doctor",
    }
)

#: Commands that parse their own arguments: ``toolguards hook`` starts in a few milliseconds and exits 0 even on a
#: usage error, so it never waits for argparse or the other commands; ``toolguards mcp`` leaves everything after
#: ``--`` to the server it runs (argparse would read the server's options as its own); ``toolguards doctor`` says a
#: usage error in one line.
RAW = frozenset({"hook", "mcp", "doctor"})


def command(name: str) -> ModuleType:
    """The module of the command ``name`` (KeyError for a name that is not a command)."""
    return importlib.import_module(COMMANDS[name])
