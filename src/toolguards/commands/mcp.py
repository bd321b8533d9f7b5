"""``toolguards mcp``: guard the tools of any MCP server, for any MCP client (``toolguards.mcp_proxy``; docs/mcp.md).

::

    toolguards mcp [--config PATH] [--locale LOC] [--store URL] [--name NAME] [--listen HOST:PORT [--token-file FILE]]
                   (-- COMMAND [ARGS...] | --upstream URL)
    toolguards mcp install CLIENT SERVER|--all [--settings PATH] [--config PATH] [--dry-run]
    toolguards mcp uninstall CLIENT SERVER|--all [--settings PATH] [--dry-run]

The proxy forwards every message both ways unchanged, except a ``tools/call`` answer that draws a reminder. Exit
codes: the child server's exit status (a death by signal N: 128 + N) once either side ends; 0 for an HTTP upstream or
after ``--listen`` is interrupted; 1 for a guard file with problems (each printed as ``path:line:col: message``); 2 for
a usage error (``toolguards mcp: …`` on stderr; the mcp extra not installed is one); 126 or 127 when COMMAND cannot be
run or is not found. Nothing but the protocol is ever written on stdout, which is the client's channel.

It reads its own command line (it is in ``RAW``): everything after ``--`` is the server's, never toolguards' options.
``install`` and ``uninstall`` are read here too, and done by ``toolguards.mcp_proxy.client_config``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..guardfile.diagnostics import ConfigError
from ..mcp_proxy.clients import CLIENTS
from .options import add_option, exit_codes
from .parser import Parser

HELP = "guard the tools of any MCP server: a proxy between an MCP client and the server (needs the mcp extra)"
USAGE = ("toolguards mcp [--config PATH] [--locale LOC] [--store URL] [--name NAME] [--listen HOST:PORT "
         "[--token-file FILE]] (-- COMMAND [ARGS...] | --upstream URL)")
EXIT_CODES = (
    "N the server's own exit status once either side ends (a death by signal N: 128 + N)",
    "0 an --upstream server, or --listen stopped by SIGINT or SIGTERM",
    "1 the guard file has problems",
    "2 a usage error (the mcp extra not installed is one)",
    "126, 127 COMMAND cannot be run, or is not found",
)
EPILOG = f"""examples:
  toolguards mcp -- npx -y @modelcontextprotocol/server-everything
  toolguards mcp --upstream http://127.0.0.1:3001/mcp
  toolguards mcp --listen 127.0.0.1:8788 -- mcp-server-time

client configs (toolguards mcp install --help):
  toolguards mcp install CLIENT SERVER|--all [--settings PATH] [--config PATH] [--dry-run]
  toolguards mcp uninstall CLIENT SERVER|--all [--settings PATH] [--dry-run]
  clients: claude-desktop, claude-code, vscode, cursor

{exit_codes(*EXIT_CODES)}"""
INSTALL_EXIT_CODES = ("0 done (or nothing to do)", "1 refused (the settings file is left untouched)", "2 a usage error")

#: The commands under this one, each with its own command line (``toolguards mcp install --help``).
SUBCOMMANDS = ("install", "uninstall")


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="toolguards mcp", usage=USAGE, description=HELP, epilog=EPILOG,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    add_option(parser, "--config")
    add_option(parser, "--locale")
    add_option(parser, "--store", default="memory")
    parser.add_argument("--name", metavar="NAME",
                        help="the server's name in the agent keys (default: the name it gives itself)")
    parser.add_argument("--upstream", metavar="URL", help="a streamable-HTTP MCP server instead of a COMMAND")
    parser.add_argument("--listen", metavar="HOST:PORT",
                        help="offer the proxy over streamable HTTP at http://HOST:PORT/mcp instead of stdio "
                             "(any address but loopback needs --token-file)")
    add_option(parser, "--token-file")
    return parser


def _install_parser(action: str) -> argparse.ArgumentParser:
    parser = Parser(
        prog=f"toolguards mcp {action}", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=("run a server of an MCP client's settings through toolguards mcp" if action == "install"
                     else "run a proxied server of an MCP client's settings directly again"),
        epilog=exit_codes(*INSTALL_EXIT_CODES),
    )
    parser.add_argument("client", choices=tuple(CLIENTS), help="the MCP client")
    parser.add_argument("server", nargs="?", help="the server's name in the client's settings")
    parser.add_argument("--all", action="store_true", help="every server the client starts")
    add_option(parser, "--settings")
    if action == "install":
        add_option(parser, "--config")
    add_option(parser, "--dry-run")
    return parser


def registration(action: str, argv: Sequence[str]) -> int:
    """``toolguards mcp install|uninstall CLIENT SERVER|--all …``: 0 done, 1 refused, 2 a usage error."""
    from ..mcp_proxy.client_config import Installation, run  # noqa: PLC0415

    parser = _install_parser(action)
    options = parser.parse_args(argv)
    if (options.server is None) == (not options.all):
        parser.error("name one SERVER or give --all")
    return run(Installation(action, options.client, options.server, options.settings,
                            getattr(options, "config", None), options.dry_run))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register mcp's arguments: main() parses them itself, so that the server's own options stay the server's."""
    parser.usage = USAGE
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("argv", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Run the proxy (or install/uninstall); the exit code."""
    return main(args.argv)


def _fail(message: str, code: int = 2) -> int:
    print(f"toolguards mcp: {message}", file=sys.stderr)
    return code


def _split(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """toolguards' part of the command line, and the server's command (after the first ``--``)."""
    words = list(argv)
    if "--" in words:
        at = words.index("--")
        return words[:at], words[at + 1:]
    return words, []


def main(argv: Sequence[str]) -> int:
    """Parse mcp's own command line and run it."""
    if argv and argv[0] in SUBCOMMANDS:
        return registration(argv[0], argv[1:])
    own, command = _split(argv)
    options = _parser().parse_args(own)
    if options.upstream is not None and command:
        return _fail("give the server as `-- COMMAND` or as --upstream URL, not both")
    if options.upstream is None and not command:
        return _fail("no server: give its command after `--` (toolguards mcp -- COMMAND [ARGS...]) or --upstream URL")
    if options.upstream is not None and not options.upstream.startswith(("http://", "https://")):
        return _fail(f"--upstream must be an http:// or https:// URL, not {options.upstream!r}")
    if options.token_file is not None and options.listen is None:
        return _fail("--token-file: only with --listen")
    try:
        from ..mcp_proxy.upstream import Target  # noqa: PLC0415 - the SDK only when the proxy runs
    except ImportError as exc:
        return _fail(f"needs the mcp extra ({exc.name} is missing): pip install 'toolguards[mcp]'")
    target = Target(tuple(command), options.upstream)
    if options.listen is not None:
        from ..mcp_proxy.listen import ListenError, run_listen  # noqa: PLC0415

        try:
            return _with_guard(options, lambda guard: run_listen(guard, target, options.name, options.listen,
                                                                  options.token_file))
        except ListenError as exc:
            return _fail(str(exc))
    from ..mcp_proxy.proxy import run_stdio  # noqa: PLC0415

    return _with_guard(options, lambda guard: run_stdio(guard, target, options.name))


def _with_guard(options: argparse.Namespace, serve: object) -> int:
    from ..mcp_proxy.proxy import log_to_stderr, open_guard  # noqa: PLC0415
    from ..serve.security import SetupError  # noqa: PLC0415

    try:
        guard = open_guard(options.config, locale=options.locale, store=options.store)
    except SetupError as exc:
        return _fail(str(exc))
    except ConfigError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        count = len(exc.diagnostics)
        return _fail(f"the guard file has {count} problem{'s' if count != 1 else ''}", 1)
    log_to_stderr()
    try:
        return int(serve(guard))  # type: ignore[operator]
    except FileNotFoundError as exc:
        return _fail(f"cannot run {exc.filename or 'the server'}: not found", 127)
    except PermissionError as exc:
        return _fail(f"cannot run {exc.filename or 'the server'}: permission denied", 126)
