"""The real server the proxy forwards to: a child process (``-- COMMAND``) or a streamable-HTTP URL (``--upstream``).

``connect(target)`` opens one connection and gives the relay its streams. For HTTP the SDK's ``streamable_http_client``
carries the messages; it takes the session id from the server's answer to ``initialize``, and the proxy stamps each
later message with the headers the client's own SDK would send (``http_stamp``): ``MCP-Protocol-Version`` once the
handshake has settled a version, and for a 2026-07-28 message (its version in ``params._meta``) also ``Mcp-Method``
and ``Mcp-Name``. A dead HTTP server is not the proxy's end: each request then answers an error, as it would directly.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
)
from mcp.shared.message import ClientMessageMetadata
from mcp_types import JSONRPCNotification, JSONRPCRequest

from .child import Child, start_child
from .relay import Streams, UpstreamStamp

__all__ = ["PROTOCOL_VERSION_META_KEY", "Target", "Upstream", "connect", "http_stamp"]

#: Where a 2026-07-28 message carries its protocol version.
PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"


@dataclass(frozen=True)
class Target:
    """What to connect to: a command to start, or an HTTP URL (exactly one of them)."""

    command: tuple[str, ...] = ()
    url: str | None = None

    @property
    def fallback_name(self) -> str:
        """The server's name until it names itself: the program's file name, or the URL's host and path."""
        if self.url is not None:
            parts = urlsplit(self.url)
            return f"{parts.netloc}{parts.path}".rstrip("/") or self.url
        return os.path.basename(self.command[0]) if self.command else "mcp"


@dataclass
class Upstream:
    """One open connection to the server."""

    streams: Streams
    stamp: UpstreamStamp | None
    child: Child | None


def http_stamp(message: Any, protocol_version: str | None) -> ClientMessageMetadata | None:
    """The headers an HTTP upstream needs on a client message (see the module docstring); None for none."""
    headers: dict[str, str] = {}
    params = message.params if isinstance(message, (JSONRPCRequest, JSONRPCNotification)) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    modern = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
    if isinstance(modern, str) and isinstance(message, (JSONRPCRequest, JSONRPCNotification)):
        headers[MCP_PROTOCOL_VERSION_HEADER] = modern
        headers[MCP_METHOD_HEADER] = message.method
        name_key = NAME_BEARING_METHODS.get(message.method)
        name = params.get(name_key) if name_key is not None and isinstance(params, dict) else None
        if isinstance(name, str):
            headers[MCP_NAME_HEADER] = encode_header_value(name)
    elif protocol_version is not None:
        headers[MCP_PROTOCOL_VERSION_HEADER] = protocol_version
    return ClientMessageMetadata(headers=headers) if headers else None


@contextlib.asynccontextmanager
async def connect(target: Target) -> AsyncIterator[Upstream]:
    """One connection to ``target``, closed (the child stopped) when the block ends."""
    if target.url is not None:
        from mcp.client.streamable_http import streamable_http_client  # noqa: PLC0415 - httpx only for --upstream

        async with streamable_http_client(target.url) as streams:
            yield Upstream(streams, http_stamp, None)
        return
    async with start_child(list(target.command)) as child:
        yield Upstream(child.streams, None, child)
