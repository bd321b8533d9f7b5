"""A proxy on 127.0.0.1 that refuses every request and records where it was going: the net under a real host.

A host program under test is pointed at its scripted model on loopback and has its update checks and telemetry
switched off by its own settings; as a second line, its ``HTTPS_PROXY``/``HTTP_PROXY`` name this proxy (with
``NO_PROXY`` covering loopback), so a request the settings missed reaches this proxy instead of the internet, is
answered ``403``, and is recorded in ``targets`` (``CONNECT api.example.com:443`` names the host even for TLS). A test
asserts that ``targets`` stays empty.
"""

from __future__ import annotations

import socketserver
import threading
from typing import Any

__all__ = ["LoopbackProxy"]


class LoopbackProxy:
    """Start with ``with LoopbackProxy() as proxy:``; ``proxy.url`` for the environment, ``proxy.targets`` after."""

    def __init__(self) -> None:
        self.targets: list[str] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline(8192).decode("latin-1").strip()
                while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                    pass  # the request's headers
                method, _, rest = line.partition(" ")
                with proxy._lock:
                    proxy.targets.append(f"{method} {rest.rsplit(' ', 1)[0]}")
                self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def environment(self) -> dict[str, str]:
        """The variables that send a program's non-loopback HTTP(S) traffic here (both spellings)."""
        names = {"HTTPS_PROXY": self.url, "HTTP_PROXY": self.url, "NO_PROXY": "127.0.0.1,localhost"}
        return {**names, **{name.lower(): value for name, value in names.items()}}

    def __enter__(self) -> LoopbackProxy:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
