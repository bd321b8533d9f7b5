"""The client's side over stdio: one JSON-RPC message per line on stdin and stdout, as the SDK's message streams.

The SDK's ``stdio_server`` reads stdin in a worker thread that no one can stop, so a proxy whose child had died would
wait for the client's next line before it could exit. Here stdin is read when the event loop sees it readable (a
regular file, which is always readable, in a worker thread), so the reader stops at once when the server side ends;
the writer drains every message already handed to it before the proxy exits. Parsing and dumping are the SDK's
(``mcp_types.jsonrpc_message_adapter``), exactly as its own transports do them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import AsyncIterator
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

__all__ = ["stdio_streams"]

_CHUNK = 65536


async def _chunk(fd: int, regular: bool) -> bytes:
    if regular:
        return await anyio.to_thread.run_sync(os.read, fd, _CHUNK)
    await anyio.wait_readable(fd)
    return os.read(fd, _CHUNK)


async def _read(fd: int, writer: Any, scope: anyio.CancelScope) -> None:
    with scope, contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        async with writer:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
            buffer = b""
            while chunk := await _chunk(fd, regular):
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    if line.strip():
                        await writer.send(_parse(line))
            if buffer.strip():
                await writer.send(_parse(buffer))


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


async def _write(fd: int, reader: Any) -> None:
    with contextlib.suppress(OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        async with reader:
            async for item in reader:
                text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                await anyio.to_thread.run_sync(_write_all, fd, (text + "\n").encode("utf-8"))


@contextlib.asynccontextmanager
async def stdio_streams(stdin: int = 0, stdout: int = 1) -> AsyncIterator[tuple[Any, Any]]:
    """The client's messages from ``stdin`` and the way to it through ``stdout``, as (read, write) streams."""
    to_relay, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_client, from_relay = anyio.create_memory_object_stream[SessionMessage](0)
    reading = anyio.CancelScope()
    async with anyio.create_task_group() as group:
        group.start_soon(_read, stdin, to_relay, reading)
        group.start_soon(_write, stdout, from_relay)
        try:
            yield from_client, to_client
        finally:
            await to_client.aclose()  # the writer ends once it has written what it holds
            reading.cancel()
