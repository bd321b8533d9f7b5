"""``toolguards hook HOST [--config PATH] [--locale LOC] [--state-dir DIR] [--outcome-log FILE]``: run as a coding
agent's command hook.

Reads one hook event on stdin and prints the reminders for the model on stdout, if there are any, in the host's own
format (``toolguards.hooks``: one module per host). It always exits 0, even on a usage error: any failure prints
nothing on stdout and one line, ``toolguards hook: …``, on stderr (a closed or full stdout included), because a
non-zero exit would disturb the session (exit 2 blocks in every host). ``toolguards hook install HOST`` and
``uninstall HOST`` write or remove the registration in the host's settings file (``toolguards.hooks.install`` does
it; their command line is read here): they are commands for people, with ordinary exit codes and usage errors.

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

registration (toolguards hook install --help):
  toolguards hook install HOST [--scope project|user | --settings PATH] [--config PATH] [--dry-run] ...
  toolguards hook uninstall HOST [--scope project|user | --settings PATH] [--dry-run] ...

exit codes:
  0 always: a problem is one line on stderr, and nothing is printed on stdout (exit 2 would block the call)"""

_OPTIONS = {"--config": "config", "--locale": "locale", "--state-dir": "state_dir", "--outcome-log": "outcome_log"}
#: The commands under this one, each with its own command line (``toolguards hook install --help``).
SUBCOMMANDS = ("install", "uninstall")
REGISTRATION_EXIT_CODES = ("0 done (or nothing to do)", "1 refused (the settings file is left untouched)",
                           "2 a usage error")


class _UsageError(Exception):
    pass


def _options() -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415 - only for command lines the fast reader leaves to it

    class Parser(argparse.ArgumentParser):
        """Reports a usage error as an exception, so that the hook can still exit 0."""

        def error(self, message: str) -> NoReturn:
            raise _UsageError(message)

    from .options import add_option  # noqa: PLC0415 - with argparse, only for the command lines it reads

    parser = Parser(prog="toolguards hook", usage=USAGE, description=HELP, epilog=EPILOG,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("host", choices=tuple(HOSTS), help=argparse.SUPPRESS)
    for option, dest in _OPTIONS.items():
        add_option(parser, option, dest=dest)
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
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:  # UTF-8 whatever the locale; a lone surrogate as its JSON escape, \udxxx
            reconfigure(encoding="utf-8", errors="backslashreplace")
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
    if argv and argv[0] in SUBCOMMANDS:
        return registration(argv[0], argv[1:])
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


def _registration_parser(action: str) -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415

    from .options import add_option, exit_codes  # noqa: PLC0415
    from .parser import Parser  # noqa: PLC0415

    parser = Parser(
        prog=f"toolguards hook {action}", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=("register the hook in a host's settings file" if action == "install"
                     else "remove the hook's registration from a host's settings file"),
        epilog=exit_codes(*REGISTRATION_EXIT_CODES),
    )
    parser.add_argument("host", choices=tuple(HOSTS), help="the coding agent")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scope", choices=("project", "user"), default="project",
                       help="the current folder's settings file (default) or the home folder's")
    add_option(where, "--settings")
    if action == "install":
        add_option(parser, "--config")
        parser.add_argument("--trust", action="store_true",
                            help="codex only: record the hooks' trust as Codex's own /hooks review does")
    add_option(parser, "--dry-run")
    parser.add_argument("--http", metavar="URL", help="post each event to URL (toolguards serve's /hooks/HOST): "
                        "claude's http hooks, a curl command for the other hosts (no Python started)")
    if action == "install":
        parser.add_argument("--token-env", metavar="VAR",
                            help="with --http: send the bearer token held in the environment variable VAR")
    return parser


def registration(action: str, argv: Sequence[str]) -> int:
    """``toolguards hook install|uninstall HOST …``: 0 done, 1 refused, 2 a usage error."""
    from ..hooks import curl, host  # noqa: PLC0415
    from ..hooks.install import ENV_NAME, Registration, run, trusts  # noqa: PLC0415

    parser = _registration_parser(action)
    options = parser.parse_args(argv)
    token_env = getattr(options, "token_env", None)  # install only
    if options.http is not None and not host(options.host).HTTP and action == "install":
        trouble = curl.url_problem(options.http, options.host)  # the host has command hooks only: a curl command
        if trouble is not None:
            parser.error(f"--http: {trouble}")
    if token_env is not None:
        if options.http is None:
            parser.error("--token-env: only with --http")
        if not ENV_NAME.fullmatch(token_env):
            parser.error(f"--token-env: {token_env!r} is not an environment variable name (letters, digits, _)")
    trust = getattr(options, "trust", False)  # install only
    if trust and not trusts(options.host):
        trusting = [name for name in HOSTS if trusts(name)]
        parser.error(f"--trust: only {', '.join(trusting)}, which runs a hook only once it is reviewed")
    return run(Registration(action, options.host, options.scope, options.settings, getattr(options, "config", None),
                            options.dry_run, options.http, token_env, trust))
