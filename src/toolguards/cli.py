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

EPILOG = "exit codes: each command's own (toolguards COMMAND --help lists them); 2 a usage error"


def build_parser(only: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered (with its arguments: all of them, or those in ``only``)."""
    return _parsers(only)[0]


def _parsers(only: Collection[str] | None) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each sub-command's, by name."""
    from .commands.parser import Parser  # noqa: PLC0415 - argparse is not for the hook, which reads its own line

    parser = Parser(
        prog="toolguards",
        description="Guards that remind LLM agents when they loop on the same tool call.",
        epilog=EPILOG,
    )
    parser.add_argument("-V", "--version", action="version", version=f"toolguards {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parsers: dict[str, argparse.ArgumentParser] = {}
    for name in COMMANDS:
        if only is not None and name not in only:
            parsers[name] = sub.add_parser(name)
            continue
        module = command(name)
        parsers[name] = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(parsers[name])
    return parser, parsers


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in RAW:
            return int(command(args[0]).main(args[1:]))
        parser, parsers = _parsers(only=args[:1] if args and args[0] in COMMANDS else None)
        parsed, unknown = parser.parse_known_args(args)
        if unknown:  # the sub-command's own usage and name, not the top level's
            parsers[parsed.command].error(f"unrecognized arguments: {' '.join(unknown)}")
        return int(command(parsed.command).run(parsed))
    except KeyboardInterrupt:
        print("toolguards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`toolguards replay … | head`): not an error of ours.
        sys.stderr.close()
        return 0
