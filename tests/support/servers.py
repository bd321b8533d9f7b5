"""Real servers for the service's tests: a throwaway ``redis-server`` and ``toolguards serve`` processes.

Each waits for the line its process prints when it is ready (no polling, no sleeps) and is stopped by whoever
started it. Requests go through ``http.client`` to 127.0.0.1 directly, never through a proxy from the environment.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from conftest import require

REDIS_SERVER = shutil.which("redis-server")
READY_TIMEOUT = 30.0


def need_redis() -> str:
    """The redis-server binary; skip the test where it is absent (CI installs it, so there it fails instead)."""
    return require("redis-server", "the Redis store's tests run a real server", "redis-server")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    """A redis-server on a free loopback port, keeping nothing on disk; ``stop()`` and ``start()`` again keep the port."""

    def __init__(self, folder: Path) -> None:
        self.binary = need_redis()
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        command = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
                   "--dir", str(self.folder), "--daemonize", "no", "--loglevel", "notice", "--protected-mode", "yes"]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.process = process
        seen = []
        assert process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            if "Ready to accept connections" in line:
                self._drain = threading.Thread(target=process.stdout.read, daemon=True)  # keep the pipe drained
                self._drain.start()
                return self
        process.wait()
        process.stdout.close()
        raise RuntimeError(f"redis-server did not start: {''.join(seen)}")

    def stop(self) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=READY_TIMEOUT)
        if self._drain is not None:
            self._drain.join(timeout=READY_TIMEOUT)
        assert process.stdout is not None
        process.stdout.close()
        self.process = self._drain = None

    def client(self) -> Any:
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port)


class Serve:
    """A ``toolguards serve`` process on a free port (``--port 0``), started with these arguments."""

    def __init__(self, *arguments: str, cwd: Path | None = None) -> None:
        command = [sys.executable, "-m", "toolguards", "serve", "--port", "0", *arguments]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                                        cwd=cwd, env=env)
        self.lines: list[str] = []
        self.port = 0
        self._drain: threading.Thread | None = None

    def ready(self) -> Serve:
        """Wait for the line announcing the address; RuntimeError with stderr when the process ends instead."""
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            if line.startswith("toolguards serve: listening on http://127.0.0.1:"):
                self.port = int(line.split("127.0.0.1:", 1)[1].split(" ", 1)[0])
                self._drain = threading.Thread(target=self._read_rest, daemon=True)
                self._drain.start()
                return self
        self.process.wait()
        self.process.stderr.close()
        raise RuntimeError(f"toolguards serve did not start: {''.join(self.lines)}")

    def _read_rest(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=READY_TIMEOUT)

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                connection: http.client.HTTPConnection | None = None) -> tuple[int, bytes]:
        """(status, body) of one request; ``body`` is sent as JSON unless it is bytes."""
        own = connection is None
        conn = self.connect() if connection is None else connection
        try:
            data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
            conn.request(method, path, data, {"Content-Type": "application/json", **(headers or {})})
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            if own:
                conn.close()

    def post(self, body: Any, connection: http.client.HTTPConnection | None = None) -> Any:
        """The decoded answer of POST /v1/events, which must be a 200."""
        status, answer = self.request("POST", "/v1/events", body, connection=connection)
        assert status == 200, answer
        return json.loads(answer)

    def stop(self) -> str:
        """Stop the process; everything it printed on stderr."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=READY_TIMEOUT)
        assert self.process.stderr is not None
        if self._drain is not None:
            self._drain.join(timeout=READY_TIMEOUT)
        else:
            self.lines.append(self.process.stderr.read())
        self.process.stderr.close()
        return "".join(self.lines)


def start_all(*servers: Serve) -> list[Serve]:
    """Wait for every server (started together, so they import side by side); stop them all if one fails."""
    try:
        return [server.ready() for server in servers]
    except BaseException:
        for server in servers:
            server.stop()
        raise


def call(agent: str, tool: str = "grep", **more: Any) -> dict[str, Any]:
    """A post-execute event of the ``events`` format."""
    return {"type": "post-execute", "agent": agent, "tool": tool, "arguments": {"q": "retry policy"}, **more}
