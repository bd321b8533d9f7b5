"""``toolguards hook HOST [--config PATH] [--locale LOC] [--state-dir DIR] [--outcome-log FILE]``: run as a coding
agent's command hook.

Reads one hook event on stdin and prints the reminders for the model on stdout, if there are any, in the host's own
format (``toolguards.hooks``: one module per host). It always exits 0, even on a usage error: any failure prints
nothing on stdout and one line, ``toolguards hook: …``, on stderr (a closed or full stdout included), because a
non-zero exit would disturb the session (exit 2 blocks in every host). ``toolguards hook install HOST`` and
``uninstall HOST`` write or remove the registration in the host's config file (``toolguards.hooks.install``); they are
commands for people, with ordinary exit codes.

The common command line is read without argparse (a hook call must start fast); anything else — a typo, ``--help`` —
goes to argparse, whose messages are the reference, and a test checks that both read every command line alike.
"""

from __future__ import annotations

import os
import sys

from ..hooks import HOSTS, HookError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import NoReturn

HELP = "run as a coding agent's hook: read one event on stdin, print reminders for the model (always exits 0)"

USAGE = (f"toolguards hook {{{','.join(HOSTS)}}} [--config PATH] [--locale LOC] [--state-dir DIR] "
         "[--outcome-log FILE]")
EPILOG = """hosts:
  claude            Claude Code (and VS Code's agent hooks): PostToolUse, PostToolUseFailure, PostToolBatch,
                    UserPromptSubmit
  codex             Codex CLI: PostToolUse, UserPromptSubmit
  gemini            Gemini CLI: AfterTool, BeforeAgent
  cursor            Cursor: postToolUse, postToolUseFailure, beforeSubmitPrompt

registration (exit 0 done, 1 failed, 2 usage error):
  toolguards hook install HOST [--scope project|user] [--config PATH] [--dry-run] ...
  toolguards hook uninstall HOST [--scope project|user] [--config PATH] [--dry-run] ..."""

_OPTIONS = {"--config": "config", "--locale": "locale", "--state-dir": "state_dir", "--outcome-log": "outcome_log"}
_HELP = {
    "--config": ("PATH", "guard file (default: the shipped repeat-tool-reminder)"),
    "--locale": ("LOC", "reminder language (default: the guard file's)"),
    "--state-dir": ("DIR", "folder of the state file (default: the user's cache folder + toolguards)"),
    "--outcome-log": ("FILE", "append one JSON line per resolved reminder outcome (default: the guard file's "
                              "outcomes.log, if any)"),
}
_REGISTRATION = ("install", "uninstall")


class _UsageError(Exception):
    pass


def _options() -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415 - only for command lines the fast reader leaves to it

    class Parser(argparse.ArgumentParser):
        """Reports a usage error as an exception, so that the hook can still exit 0."""

        def error(self, message: str) -> NoReturn:
            raise _UsageError(message)

    parser = Parser(prog="toolguards hook", usage=USAGE, description=HELP, epilog=EPILOG,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("host", choices=tuple(HOSTS), help=argparse.SUPPRESS)
    for option, dest in _OPTIONS.items():
        metavar, text = _HELP[option]
        parser.add_argument(option, dest=dest, metavar=metavar, help=text)
    return parser


def read_options(argv: Sequence[str]) -> dict[str, str | None]:
    """The host and options of a hook command line (``host``, ``config``, ``locale``, ``state_dir``,
    ``outcome_log``); _UsageError."""
    found = _fast(argv)
    if found is None:
        found = dict(vars(_options().parse_args(argv)))
    for dest in ("config", "state_dir", "outcome_log"):
        if found[dest] == "":
            raise _UsageError(f"argument --{dest.replace('_', '-')}: expected a path, not an empty string")
    return found


def _fast(argv: Sequence[str]) -> dict[str, str | None] | None:
    """The common, well-formed command line read without argparse; None for anything else (argparse decides)."""
    if not argv or argv[0] not in HOSTS:
        return None
    found: dict[str, str | None] = {"host": argv[0], "config": None, "locale": None, "state_dir": None,
                                    "outcome_log": None}
    index = 1
    while index < len(argv):
        option, equals, value = argv[index].partition("=")
        if option not in _OPTIONS:
            return None
        if not equals:
            if index + 1 >= len(argv) or argv[index + 1].startswith("-"):
                return None
            value = argv[index + 1]
            index += 1
        found[_OPTIONS[option]] = value
        index += 1
    return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register hook's arguments: all of them are parsed in main(), where a mistake cannot make the exit code 2."""
    import argparse  # noqa: PLC0415

    parser.usage = USAGE
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("argv", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def _fail(message: str) -> int:
    """One line on stderr; exit 0 all the same."""
    try:  # noqa: SIM105 - contextlib is one more import for every call
        print(f"toolguards hook: {' '.join(message.split())}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):  # no stderr either: there is no one left to tell
        pass
    return 0


def _silence_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush cannot fail (and exit 120)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:  # nowhere to point it: the interpreter's own message at exit is all that is left
        pass


def _emit(text: str) -> int:
    stream = sys.stdout
    try:
        if stream is None:
            raise OSError("stdout is closed")
        stream.write(text)
        stream.flush()
    except (OSError, ValueError) as exc:  # a closed pipe, a full disk, a closed file
        _silence_stdout()
        return _fail(f"cannot write the answer to stdout ({getattr(exc, 'strerror', None) or exc})")
    return 0


def run(args: argparse.Namespace) -> int:
    """Handle one event from stdin; always 0."""
    return main(args.argv)


def main(argv: Sequence[str]) -> int:
    """Parse the hook's own arguments and handle one event from stdin; always 0 (install/uninstall: see their help)."""
    if argv and argv[0] in _REGISTRATION:
        from ..hooks.install import main as registration  # noqa: PLC0415

        return registration(argv)
    try:
        options = read_options(argv)
    except _UsageError as exc:
        return _fail(f"{exc} (usage: {USAGE})")
    host = str(options["host"])
    try:
        if sys.stdin is None:
            raise HookError("stdin is closed")
        payload = sys.stdin.buffer.read()
        text, notices = _handle(host, payload, options)
    except HookError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot read stdin ({exc.strerror or exc})")
    except Exception as exc:  # a bug of ours: still one line, still exit 0
        return _fail(f"internal error ({type(exc).__name__}: {exc})")
    for notice in notices:
        _fail(notice)
    return _emit(text + "\n") if text else 0


def _handle(host: str, payload: bytes, options: dict[str, str | None]) -> tuple[str, tuple[str, ...]]:
    """The stdout text and the notices for one event. An event the host module does not act on costs only reading it:
    the engine, the state file and the guard file are never touched (``runner.run_event`` would answer "" too)."""
    from ..hooks import host as host_module  # noqa: PLC0415
    from ..hooks.protocol import decode  # noqa: PLC0415

    event = decode(payload)
    module = host_module(host)
    name, _session, _agent = module.read(event)
    if name not in module.EVENTS:
        return "", ()
    from ..hooks.command import run_event  # noqa: PLC0415 - the engine's imports, only for an event that counts

    return run_event(host, event, config=options["config"], locale=options["locale"], state_dir=options["state_dir"],
                     outcome_log=options["outcome_log"])
