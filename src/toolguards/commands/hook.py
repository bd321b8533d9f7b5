"""``toolguards hook claude [--config PATH] [--locale LOC] [--state-dir DIR]``: run as a Claude Code command hook.

Reads one hook event on stdin and prints a reminder for the model on stdout, if there is one (see
``toolguards.integrations.claude_code``). It always exits 0, even on a usage error: any failure prints nothing on
stdout and exactly one line, ``toolguards hook: …``, on stderr, because a non-zero exit would disturb the session
(exit 2 is a blocking error in Claude Code).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

HELP = "run as a host's hook: read one event on stdin, print reminders for the model (always exits 0)"

HOSTS = ("claude",)
USAGE = "toolguards hook {claude} [--config PATH] [--locale LOC] [--state-dir DIR]"
EPILOG = """hosts:
  claude            a Claude Code command hook (PostToolUse, PostToolUseFailure, PostToolBatch, UserPromptSubmit)

options:
  --config PATH     guard file (default: the shipped repeat-tool-reminder)
  --locale LOC      reminder language (default: the guard file's)
  --state-dir DIR   folder of the state file (default: the user's cache folder + toolguards)"""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Reports a usage error as an exception, so the hook can still exit 0."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _options() -> argparse.ArgumentParser:
    parser = _Parser(prog="toolguards hook", usage=USAGE, description=HELP)
    parser.add_argument("host", choices=HOSTS, help="claude: a Claude Code command hook")
    parser.add_argument("--config", metavar="PATH", help="guard file (default: the shipped repeat-tool-reminder)")
    parser.add_argument("--locale", metavar="LOC", help="reminder language (default: the guard file's)")
    parser.add_argument("--state-dir", metavar="DIR", help="folder of the state file (default: the user's cache)")
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register hook's arguments: all of them are parsed in run(), where a mistake cannot make the exit code 2."""
    parser.usage = USAGE
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("argv", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def _fail(message: str) -> int:
    print(f"toolguards hook: {' '.join(message.split())}", file=sys.stderr)
    return 0


def run(args: argparse.Namespace) -> int:
    """Handle one event from stdin; always 0."""
    return main(args.argv)


def main(argv: Sequence[str]) -> int:
    """Parse the hook's own arguments and handle one event from stdin; always 0."""
    try:
        options = _options().parse_args(argv)
    except _UsageError as exc:
        return _fail(f"{exc} (usage: {USAGE})")
    try:
        # Imported here, so that the other commands never pay for what only the hook needs.
        from ..integrations.claude_code import HookError, run_hook  # noqa: PLC0415
    except Exception as exc:
        return _fail(f"cannot start ({type(exc).__name__}: {exc})")
    try:
        text = run_hook(sys.stdin.buffer.read(), config=options.config, locale=options.locale,
                        state_dir=options.state_dir)
    except HookError as exc:
        return _fail(str(exc))
    except Exception as exc:  # a bug of ours: still one line, still exit 0
        return _fail(f"internal error ({type(exc).__name__}: {exc})")
    if text:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    return 0
