"""``toolguards schema``: print the JSON Schema of guard files, built from the registry of kinds.

The committed ``schemas/toolguards.schema.json`` is this command's output for the built-in kinds (a test keeps the two
equal: after adding or changing a kind, run ``toolguards schema > schemas/toolguards.schema.json``). With
``--installed`` the kinds of installed plugins are included too, as the loader checks files against them.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..guardfile.check import builtin_schema, kinds_schema
from ..kinds import registry
from .options import exit_codes

HELP = "print the JSON Schema of guard files (the built-in kinds, or every installed kind with --installed)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register schema's arguments."""
    parser.epilog = exit_codes("0 the schema printed", "2 a usage error")
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--installed", action="store_true",
                        help="include the kinds of installed plugins (toolguards.kinds entry points)")


def render(installed: bool = False) -> str:
    """The schema as the committed file holds it: two-space indents, non-ASCII as is, a final line break."""
    schema = kinds_schema(registry()) if installed else builtin_schema()
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace) -> int:
    """Print the schema; always 0."""
    sys.stdout.write(render(args.installed))
    return 0
