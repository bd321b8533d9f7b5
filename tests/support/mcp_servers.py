"""The real MCP servers the proxy's tests run, and the SDK client's ways of reaching them.

- ``everything()``: ``@modelcontextprotocol/server-everything`` (npm, from ``.ci/install-hosts``; the reference server,
  with ``echo``, a ``structuredContent`` tool and a long-running one), as a stdio command;
- ``time_server()``: ``mcp-server-time`` (PyPI, in the test extra; a 2026-07-28 server), as a stdio command;
- ``proxied(command, *options)``: the same server behind ``toolguards mcp``.

Where a server is absent the test skips with the reason on a developer's machine and fails under CI.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.real_hosts import host_program

TOOLGUARDS = str(Path(sys.executable).with_name("toolguards"))


def everything() -> list[str]:
    """server-everything over stdio."""
    return [str(host_program("mcp-server-everything")), "stdio"]


def time_server() -> list[str]:
    """mcp-server-time over stdio."""
    found = Path(sys.executable).with_name("mcp-server-time")
    if not found.exists():
        message = "mcp-server-time is not installed: pip install -e '.[test]' installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return [str(found)]


def proxied(command: list[str], *options: str) -> list[str]:
    """``command`` behind ``toolguards mcp``."""
    return [TOOLGUARDS, "mcp", *options, "--", *command]


def free_port() -> int:
    """A port nothing listens on just now (on 127.0.0.1)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 15) -> None:
    """Until 127.0.0.1:port accepts a connection; fails when ``process`` exits first or time runs out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{process.args} exited with {process.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    pytest.fail(f"nothing listened on 127.0.0.1:{port} after {seconds} s")


@contextlib.contextmanager
def running(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` running until the block ends, listening on 127.0.0.1:port."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, **(env or {})})
    try:
        wait_for_port(port, process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def which(program: str) -> str:
    """The path of ``program`` on PATH (the test fails where it is missing: these are the machine's basics)."""
    found = shutil.which(program)
    assert found is not None, f"{program} is not on PATH"
    return found
