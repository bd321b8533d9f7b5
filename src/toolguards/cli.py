"""The ``toolguards`` command: one sub-command per module under ``toolguards.commands``, imported when it runs."""

from __future__ import annotations

import sys

from . import __version__
from .commands import COMMANDS, RAW, command

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Collection, Sequence

__all__ = ["build_parser", "main"]


def build_parser(only: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered (with its arguments: all of them, or those in ``only``)."""
    import argparse  # noqa: PLC0415 - not for the hook, which reads its own command line

    parser = argparse.ArgumentParser(
        prog="toolguards",
        description="Guards that remind LLM agents when they loop on the same tool call.",
    )
    parser.add_argument("--version", action="version", version=f"toolguards {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        if only is not None and name not in only:
            sub.add_parser(name)
            continue
        module = command(name)
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in RAW:
            return int(command(args[0]).main(args[1:]))
        parser = build_parser(only=args[:1] if args and args[0] in COMMANDS else None)
        parsed = parser.parse_args(args)
        return int(command(parsed.command).run(parsed))
    except KeyboardInterrupt:
        print("toolguards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`toolguards replay … | head`): not an error of ours.
        sys.stderr.close()
        return 0
