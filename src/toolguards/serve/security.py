"""Who may talk to the service, and how much they may send: loopback only, unless a bearer token guards it.

Binding an address other than loopback (``127.0.0.0/8``, ``::1``) requires ``--token-file``; the service refuses to
start without it. With a token, every request must carry ``Authorization: Bearer <token>``; the token is compared in
constant time (``hmac.compare_digest`` of SHA-256 digests) and never logged or echoed.
"""

from __future__ import annotations

import ipaddress
import os
import socket

__all__ = ["DEFAULT_MAX_BODY", "MIN_TOKEN_LENGTH", "SetupError", "is_loopback", "listen", "read_token"]

#: Bytes a request body may hold by default: a 256 KB ``write_file`` argument, escaped, twice (a Claude Code hook
#: event carries the written text in its input and again in its response), with room to spare.
DEFAULT_MAX_BODY = 4 * 1024 * 1024
#: The shortest token accepted (``openssl rand -hex 32`` makes 64 characters).
MIN_TOKEN_LENGTH = 16


class SetupError(Exception):
    """The service cannot start as asked; the message is one line."""


def read_token(path: str) -> str:
    """The bearer token in a file (one line; surrounding white space dropped); SetupError when it is unusable."""
    try:
        with open(path, "rb") as file:
            raw = file.read(4097)
    except OSError as exc:
        raise SetupError(f"cannot read the token file {path}: {exc.strerror or exc}") from None
    try:
        token = raw.decode("ascii").strip()
    except UnicodeDecodeError:
        raise SetupError(f"the token file {path} must hold printable ASCII only") from None
    if not token:
        raise SetupError(f"the token file {path} is empty")
    if len(raw) > 4096 or not token.isprintable() or any(c.isspace() for c in token):
        raise SetupError(f"the token file {path} must hold one token: printable ASCII without spaces, "
                         "at most 4096 characters")
    if len(token) < MIN_TOKEN_LENGTH:
        raise SetupError(f"the token in {path} has {len(token)} characters; use at least {MIN_TOKEN_LENGTH} "
                         "(`openssl rand -hex 32` makes one)")
    return token


def is_loopback(address: str) -> bool:
    """Whether a bound address is on the loopback interface only."""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int, *, token: bool) -> socket.socket:
    """A listening socket on ``host:port``; SetupError when it cannot bind, or binds beyond loopback without a token."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise SetupError(f"cannot resolve --host {host}: {getattr(exc, 'strerror', None) or exc}") from None
    family, kind, protocol, _, address = found[0]
    if not token and not is_loopback(str(address[0])):
        raise SetupError(f"--host {host} is not a loopback address: binding it requires --token-file "
                         "(every request must then carry `Authorization: Bearer <token>`)")
    sock = socket.socket(family, kind, protocol)
    try:
        if os.name != "nt":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise SetupError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
