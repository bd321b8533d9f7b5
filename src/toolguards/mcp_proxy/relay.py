"""One client connection's traffic, both ways: every message forwarded as it came, but for a ``tools/call`` answer.

The relay sits between two pairs of the SDK's message streams (``SessionMessage``: one JSON-RPC message each), the
client's side and the server's, whatever transport carries them (stdio, a child's pipes, streamable HTTP). It keeps
only what it needs to recognise an answer:

- a client request ``tools/call`` is remembered by its id until its answer comes; a result answering it goes through
  ``ToolGuard.answer`` (counted, and forwarded with the reminders when some fire); an error answer, or a request the
  client cancelled (``notifications/cancelled``), is forgotten uncounted;
- a ``tools/list`` answer lends its tools' output schemas to the guard (where a reminder may go);
- the ``initialize`` (or ``server/discover``) answer names the server, unless ``--name`` did;
- a server message that is not an answer (progress, logging, sampling, elicitation...) is tagged with the client
  request it belongs to — the one whose ``progressToken`` it carries, else the only request in flight — so that an HTTP
  client gets it on that request's stream, as from the server directly.

The agent key of every call is ``<server name>:<session>``: the session is one client connection (for streamable HTTP
the ``Mcp-Session-Id`` the proxy gave the client), so a new connection starts fresh chains and two servers behind two
proxies never share one, even in one store.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
from mcp.shared.message import MessageMetadata, ServerMessageMetadata, SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse, RequestId

from .guarding import ToolGuard

__all__ = ["SERVER_INFO_META_KEY", "Relay", "Streams", "UpstreamStamp"]

log = logging.getLogger("toolguards")

#: Where a 2026-07-28 server names itself in a result's ``_meta``.
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
_NAMING_METHODS = frozenset({"initialize", "server/discover"})

#: A pair of the SDK's message streams: (what arrives, where to send).
Streams = tuple[Any, Any]
#: The metadata a client message needs on its way to the server (an HTTP upstream's headers), or None; called with
#: the message and the protocol version the ``initialize`` answer settled (None before it, or without one).
UpstreamStamp = Callable[[Any, "str | None"], MessageMetadata]


def _server_name(result: dict[str, Any]) -> str | None:
    info = result.get("serverInfo")
    meta = result.get("_meta")
    if not isinstance(info, dict) and isinstance(meta, dict):
        info = meta.get(SERVER_INFO_META_KEY)
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name else None


def _progress_token(params: dict[str, Any] | None, inside_meta: bool) -> Any:
    if not isinstance(params, dict):
        return None
    holder = params.get("_meta") if inside_meta else params
    return holder.get("progressToken") if isinstance(holder, dict) else None


class Relay:
    """Forward one connection's messages between the client's streams and the server's (see the module docstring)."""

    def __init__(self, guard: ToolGuard, *, session: str, name: str | None = None, fallback_name: str = "mcp",
                 stamp: UpstreamStamp | None = None) -> None:
        self.guard = guard
        self.session = session
        self.name = name
        self.fallback_name = fallback_name
        self.stamp = stamp
        #: the protocol version of the initialize handshake (None before its answer, or for a 2026-07-28 connection)
        self.protocol_version: str | None = None
        self._in_flight: dict[RequestId, str] = {}  # client request id -> method
        self._calls: dict[RequestId, dict[str, Any]] = {}  # tools/call id -> its params
        self._progress: dict[Any, RequestId] = {}  # progress token -> client request id

    @property
    def agent(self) -> str:
        """The agent key of this connection's calls."""
        return f"{self.name or self.fallback_name}:{self.session}"

    async def run(self, client: Streams, server: Streams) -> None:
        """Forward both ways until either side ends; then stop the other direction."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._pump, client[0], server[1], self.to_server, group.cancel_scope)
            group.start_soon(self._pump, server[0], client[1], self.to_client, group.cancel_scope)

    async def _pump(self, source: Any, target: Any, change: Callable[[SessionMessage], SessionMessage],
                    scope: anyio.CancelScope) -> None:
        try:
            async for item in source:
                if isinstance(item, Exception):  # a line that is no JSON-RPC message: nothing to forward
                    log.warning("toolguards mcp: dropped a message that could not be read (%s)", item)
                    continue
                await target.send(change(item))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream):
            pass  # the other side is gone
        finally:
            scope.cancel()

    def to_server(self, item: SessionMessage) -> SessionMessage:
        """A client message on its way: note what its answer will need; the message itself is unchanged."""
        message = item.message
        if isinstance(message, JSONRPCRequest):
            self._in_flight[message.id] = message.method
            if message.method == "tools/call":
                self._calls[message.id] = message.params or {}
            token = _progress_token(message.params, inside_meta=True)
            if token is not None:
                self._progress[token] = message.id
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            cancelled = (message.params or {}).get("requestId")
            if cancelled is not None and not isinstance(cancelled, (dict, list)):
                self._settled(cancelled)
        return SessionMessage(message, None if self.stamp is None else self.stamp(message, self.protocol_version))

    def to_client(self, item: SessionMessage) -> SessionMessage:
        """A server message on its way: an answer the guard may add to, anything else tagged with its request."""
        message = item.message
        if isinstance(message, JSONRPCResponse):
            method = self._in_flight.get(message.id)
            params = self._calls.get(message.id)
            self._settled(message.id)
            if params is not None:
                answer = self.guard.answer(self.agent, params, message.result)
                if answer is not message.result:
                    message = JSONRPCResponse(jsonrpc="2.0", id=message.id, result=answer)
            elif method == "tools/list":
                self.guard.listed(message.result)
            elif method in _NAMING_METHODS:
                version = message.result.get("protocolVersion")
                self.protocol_version = version if method == "initialize" and isinstance(version, str) else None
                self.name = self.name or _server_name(message.result)
            return SessionMessage(message)
        if isinstance(message, JSONRPCError):
            if message.id is not None:
                self._settled(message.id)
            return SessionMessage(message)
        return SessionMessage(message, self._related(message))

    def _settled(self, request_id: RequestId) -> None:
        self._in_flight.pop(request_id, None)
        self._calls.pop(request_id, None)
        for token in [token for token, owner in self._progress.items() if owner == request_id]:
            del self._progress[token]

    def _related(self, message: JSONRPCRequest | JSONRPCNotification) -> ServerMessageMetadata | None:
        """The client request a server request or notification belongs to, for a transport that routes by it."""
        owner = None
        if isinstance(message, JSONRPCNotification) and message.method == "notifications/progress":
            owner = self._progress.get(_progress_token(message.params, inside_meta=False))
        if owner is None and len(self._in_flight) == 1:
            owner = next(iter(self._in_flight))
        return None if owner is None else ServerMessageMetadata(related_request_id=owner)
