"""The real server as a child process: its stdin and stdout as the SDK's message streams, and its exit status.

The SDK's own ``stdio_client`` hides the process, and the proxy must end with the child's exit status, so the pipes
are read here, with the SDK's message types (``mcp_types.jsonrpc_message_adapter``) doing every parse and dump. The
child inherits the proxy's whole environment, working folder and stderr — what the client configured for the server
reaches it unchanged, and its log lines reach the client's log. When the client side is done, the child's stdin is
closed and it has ``GRACE`` seconds to exit, then its process group gets SIGTERM, then SIGKILL after as long again
(the shutdown the MCP specification describes for stdio).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

__all__ = ["GRACE", "Child", "exit_code", "start_child"]

log = logging.getLogger("toolguards")

#: Seconds a child has to exit after its stdin closes (and again after SIGTERM).
GRACE = 2.0


def exit_code(returncode: int) -> int:
    """A child's status as a process exit code: a death by signal N is 128 + N, as shells report it."""
    return 128 - returncode if returncode < 0 else returncode


@dataclass
class Child:
    """A running server: ``streams`` for the relay; ``returncode`` once it has exited."""

    process: Process
    streams: tuple[Any, Any]
    exited: anyio.Event = field(default_factory=anyio.Event)

    @property
    def returncode(self) -> int | None:
        """The child's return code (negative: killed by that signal); None while it runs."""
        return self.process.returncode


async def _read(process: Process, writer: Any) -> None:
    assert process.stdout is not None
    buffer = ""
    async with writer:
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for chunk in TextReceiveStream(process.stdout, encoding="utf-8", errors="replace"):
                lines = (buffer + chunk).split("\n")
                buffer = lines.pop()
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        item: SessionMessage | Exception = SessionMessage(
                            jsonrpc_message_adapter.validate_json(line, by_name=False))
                    except ValueError as exc:
                        item = exc
                    await writer.send(item)


async def _write(process: Process, reader: Any) -> None:
    assert process.stdin is not None
    async with reader:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for item in reader:
                text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send((text + "\n").encode("utf-8"))


async def _exited(process: Process, seconds: float) -> bool:
    """Whether the child exits within ``seconds``. Its return code is polled, not awaited with ``wait()``, which also
    waits for the pipes to close: a grandchild that inherited them (``npx`` starts one) would make it hang."""
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


async def _stop(process: Process) -> None:
    """Close the child's stdin, then wait, then SIGTERM its process group, then SIGKILL (each wait ``GRACE``)."""
    assert process.stdin is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    for then in (signal.SIGTERM, signal.SIGKILL):
        if await _exited(process, GRACE):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, then)
    if not await _exited(process, GRACE):
        log.warning("toolguards mcp: the server (pid %d) is still running; left behind", process.pid)


@contextlib.asynccontextmanager
async def start_child(command: list[str]) -> AsyncIterator[Child]:
    """Start ``command`` with pipes for stdin and stdout; stop it when the block ends (OSError if it cannot start)."""
    # Its own process group, so that stopping it reaches what it started (npx runs the server as a grandchild).
    process = await anyio.open_process(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                                       start_new_session=True)
    to_relay, from_child = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_child, from_relay = anyio.create_memory_object_stream[SessionMessage](0)
    child = Child(process, (from_child, to_child))
    async with anyio.create_task_group() as group:
        group.start_soon(_read, process, to_relay)
        group.start_soon(_write, process, from_relay)
        try:
            yield child
        finally:
            with anyio.CancelScope(shield=True):
                await to_child.aclose()
                await _stop(process)
                if process.stdout is not None:
                    await process.stdout.aclose()
                await from_child.aclose()
            group.cancel_scope.cancel()
