"""``toolguards serve``: run the guards as an HTTP JSON service (see ``toolguards.serve`` for the endpoints).

Exit codes: 0 after SIGINT or SIGTERM (once the requests under way are answered); 1 when the guard file has problems
(each printed as ``path:line:col: message``); 2 for a usage error, including a setup the service refuses (a
non-loopback ``--host`` without ``--token-file``, an unusable token file, a store URL no store takes) and a missing
``serve`` extra. Problems are printed on stderr as ``toolguards serve: …``.
"""

from __future__ import annotations

import argparse
import socket
import sys

from ..guardfile.diagnostics import ConfigError
from ..serve.security import DEFAULT_MAX_BODY, SetupError, listen, read_token
from .options import add_option, exit_codes

HELP = "run the guards as an HTTP JSON service (POST /v1/events, /hooks/HOST; needs the serve extra)"

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8787
EPILOG = """endpoints:
  POST /v1/events   one event or an array (the `events` format replay reads) -> one decision per event
  POST /hooks/HOST  claude, codex, gemini, cursor: the host's hook event -> what `toolguards hook HOST` prints
  GET  /healthz     200 when the store answers, else 503
  GET  /metrics     Prometheus text

stores:
  memory                   this process only (the default)
  sqlite:///PATH           one file shared by the processes of this machine
  redis://HOST:PORT/DB     one Redis database shared by every replica (rediss:// for TLS)
  redis+cluster://HOST:PORT[,HOST:PORT...]
                           a Redis Cluster shared by every replica (rediss+cluster:// for TLS)

""" + exit_codes(
    "0 stopped by SIGINT or SIGTERM, once the requests under way are answered",
    "1 the guard file has problems",
    "2 a usage error: a setup the service refuses (a --host beyond loopback without --token-file, a token file or "
    "store URL it cannot use), or the serve extra is not installed",
)


def _whole(option: str, least: int, most: int | None = None) -> type[int]:
    """An argparse type for a whole number in a range, with our own message."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} must be a whole number, not {text!r}") from None
        if value < least or (most is not None and value > most):
            limits = f"from {least} to {most}" if most is not None else f"at least {least}"
            raise argparse.ArgumentTypeError(f"{option} must be {limits}, not {value}")
        return value

    return parse  # type: ignore[return-value]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register serve's arguments."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    add_option(parser, "--config")
    add_option(parser, "--locale")
    add_option(parser, "--store", default="memory")
    parser.add_argument("--host", metavar="HOST", default=DEFAULT_HOST,
                        help=f"address to bind (default {DEFAULT_HOST}; any but loopback needs --token-file)")
    parser.add_argument("--port", metavar="PORT", type=_whole("--port", 0, 65535), default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one, printed on stderr)")
    add_option(parser, "--token-file")
    parser.add_argument("--max-body", metavar="BYTES", type=_whole("--max-body", 1), default=DEFAULT_MAX_BODY,
                        help=f"largest request body (default {DEFAULT_MAX_BODY}: room for a 256 KB write_file)")
    add_option(parser, "--outcome-log")
    parser.add_argument("--idle-ttl", metavar="SECONDS", type=_whole("--idle-ttl", 1), default=None,
                        help="redis store: drop an agent's chains after this long untouched (default 604800, 7 days)")


def _fail(message: str, code: int) -> int:
    print(f"toolguards serve: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    """Start the service and answer requests until interrupted."""
    try:
        token = read_token(args.token_file) if args.token_file is not None else None
        sock = listen(args.host, args.port, token=token is not None)
    except SetupError as exc:
        return _fail(str(exc), 2)
    try:
        return _serve(args, sock, token)
    finally:
        sock.close()


def _serve(args: argparse.Namespace, sock: socket.socket, token: str | None) -> int:
    try:
        # Imported here: the other commands never pay for the server stack, and without the extra only this fails.
        from ..serve.server import open_service, serve  # noqa: PLC0415
    except ImportError as exc:
        return _fail(f"needs the serve extra ({exc.name} is missing): pip install 'toolguards[serve]'", 2)
    try:
        service = open_service(args.config, locale=args.locale, store=args.store, idle_ttl=args.idle_ttl,
                               outcome_log=args.outcome_log)
    except SetupError as exc:
        return _fail(str(exc), 2)
    except ConfigError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        count = len(exc.diagnostics)
        return _fail(f"the guard file has {count} problem{'s' if count != 1 else ''}", 1)
    serve(service, sock, token=token, max_body=args.max_body)
    return 0
