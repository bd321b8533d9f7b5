"""``--listen HOST:PORT``: the proxy offered over streamable HTTP at ``http://HOST:PORT/mcp``, one server per session.

Each session is the SDK's ``StreamableHTTPServerTransport`` with a fresh ``Mcp-Session-Id``; an ``initialize`` request
without a session id opens one, and with it a connection of its own to the server (a new child for ``-- COMMAND``, a
new HTTP session for ``--upstream``), so the session id keys the chains (``<server name>:<session id>``). The session
ends when the client deletes it, when it has been idle for ``IDLE_TIMEOUT`` seconds, or when its server connection
ends (a child that died): the client's next request is then answered 404, as the SDK's own servers do. Any other
request without a session id is answered 400 without starting anything; at most ``MAX_SESSIONS`` are open at once
(503 beyond). This side speaks the initialize handshake (protocol 2025-11-25 and older): a 2026-07-28 client that
probes ``server/discover`` over HTTP gets the 400 and falls back to it, as the SDK's client does.

Security, as ``toolguards serve``: loopback by default, where the transport also checks ``Host`` and ``Origin``
(DNS-rebinding protection); any other address requires ``--token-file``, and then every request must carry
``Authorization: Bearer <token>`` (compared in constant time, never logged).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import socket
import sys
import uuid
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.transport_security import TransportSecuritySettings

from ..serve.security import SetupError, is_loopback, listen, read_token
from .guarding import ToolGuard
from .relay import Relay
from .upstream import Target, connect

__all__ = ["IDLE_TIMEOUT", "MAX_BODY", "MAX_SESSIONS", "ListenError", "parse_address", "run_listen"]

log = logging.getLogger("toolguards")

IDLE_TIMEOUT = 30 * 60.0
MAX_SESSIONS = 64
MAX_BODY = 4 * 1024 * 1024
PATH = "/mcp"


class ListenError(Exception):
    """A ``--listen`` setup the proxy refuses (a usage error); the message is one line."""


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as (host, port); ListenError for anything else."""
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise ListenError(f"--listen must be HOST:PORT (a port from 0 to 65535), not {text!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


async def _answer(send: Any, status: int, message: str, code: int = -32600) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _body(receive: Any) -> bytes | None:
    """The whole request body; None past ``MAX_BODY``."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Any) -> Any:
    """A ``receive`` that hands out ``body`` once, then waits on the real one (for the disconnect)."""
    sent = False

    async def again() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def _opens_session(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize" and "id" in message


class Sessions:
    """The ASGI application: bearer check, session routing, one relay per session."""

    def __init__(self, guard: ToolGuard, target: Target, name: str | None, group: TaskGroup, *,
                 token: str | None, security: TransportSecuritySettings | None) -> None:
        self.guard = guard
        self.target = target
        self.name = name
        self.group = group
        self.security = security
        self._token = None if token is None else _digest(token)
        self.open: dict[str, StreamableHTTPServerTransport] = {}

    def _authorized(self, scope: dict[str, Any]) -> bool:
        if self._token is None:
            return True
        for key, value in scope["headers"]:
            if key == b"authorization":
                scheme, _, given = value.decode("latin-1").partition(" ")
                return scheme.lower() == "bearer" and hmac.compare_digest(_digest(given.strip()), self._token)
        return False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"].rstrip("/") != PATH:
            await _answer(send, 404, f"Not Found: the MCP endpoint is {PATH}")
            return
        if not self._authorized(scope):
            await _answer(send, 401, "Unauthorized: send the header `Authorization: Bearer <token>`")
            return
        headers = dict(scope["headers"])
        session_id = headers.get(b"mcp-session-id")
        if session_id is not None:
            transport = self.open.get(session_id.decode("latin-1"))
            if transport is None:
                await _answer(send, 404, "Session not found")
                return
            await transport.handle_request(scope, receive, send)
            return
        await self._open(scope, receive, send)

    async def _open(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = await _body(receive) if scope["method"] == "POST" else b""
        if body is None:
            await _answer(send, 413, f"Payload Too Large: at most {MAX_BODY} bytes")
            return
        if scope["method"] != "POST" or not _opens_session(body):
            await _answer(send, 400, "Bad Request: No valid session ID provided")
            return
        if len(self.open) >= MAX_SESSIONS:
            await _answer(send, 503, "Too many open sessions", code=-32603)
            return
        transport = StreamableHTTPServerTransport(mcp_session_id=uuid.uuid4().hex, security_settings=self.security,
                                                  idle_timeout=IDLE_TIMEOUT)
        try:
            await self.group.start(self._serve, transport)
        except OSError as exc:
            log.warning("toolguards mcp: cannot start the server: %s", exc)
            await _answer(send, 502, f"Bad Gateway: cannot reach the server ({exc})", code=-32603)
            return
        await transport.handle_request(scope, _replay(body, receive), send)

    async def _serve(self, transport: StreamableHTTPServerTransport, *,
                     task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        session_id = transport.mcp_session_id
        assert session_id is not None
        try:
            async with connect(self.target) as upstream, transport.connect() as client:
                self.open[session_id] = transport
                task_status.started()
                relay = Relay(self.guard, session=session_id, name=self.name,
                              fallback_name=self.target.fallback_name, stamp=upstream.stamp)
                idle = transport.idle_scope or anyio.CancelScope()
                with idle:
                    await relay.run(client, upstream.streams)
        finally:
            self.open.pop(session_id, None)
            with anyio.CancelScope(shield=True):
                if not transport.is_terminated:
                    await transport.terminate()


def _security(host: str, port: int, token: str | None) -> TransportSecuritySettings | None:
    if token is not None and not is_loopback(host):
        return None  # the token guards it; the Host a remote client sends cannot be known here
    names = ["127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host]
    hosts = [f"{name}:{port}" for name in dict.fromkeys(names)]
    return TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=[f"http://{item}" for item in hosts])


async def _run(guard: ToolGuard, target: Target, name: str | None, sock: socket.socket, token: str | None) -> None:
    import uvicorn  # noqa: PLC0415 - the server only for --listen

    host, port = sock.getsockname()[:2]
    async with anyio.create_task_group() as group:
        app = Sessions(guard, target, name, group, token=token, security=_security(host, port, token))
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False)
        shown = f"[{host}]" if ":" in host else host
        print(f"toolguards mcp: listening on http://{shown}:{port}{PATH}"
              f"{' (bearer token required)' if token else ''}", file=sys.stderr, flush=True)
        await uvicorn.Server(config).serve(sockets=[sock])
        group.cancel_scope.cancel()


def run_listen(guard: ToolGuard, target: Target, name: str | None, address: str, token_file: str | None) -> int:
    """Serve clients over streamable HTTP until SIGINT or SIGTERM; 0. ListenError for a setup it refuses."""
    host, port = parse_address(address)
    try:
        token = read_token(token_file) if token_file is not None else None
        sock = listen(host, port, token=token is not None)
    except SetupError as exc:
        raise ListenError(str(exc).replace("--host ", "--listen ")) from None
    try:
        anyio.run(_run, guard, target, name, sock, token)
    finally:
        sock.close()
    return 0
