"""The ``toolguards`` command: one sub-command per module under ``toolguards.commands``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from .commands import COMMANDS

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="toolguards",
        description="Guards that remind LLM agents when they loop on the same tool call.",
    )
    parser.add_argument("--version", action="version", version=f"toolguards {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, command in COMMANDS.items():
        command.add_arguments(sub.add_parser(name, help=command.HELP, description=command.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(COMMANDS[args.command].run(args))
    except KeyboardInterrupt:
        print("toolguards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`toolguards replay … | head`): not an error of ours.
        sys.stderr.close()
        return 0
