"""Headless Chromium driven over the Chrome DevTools Protocol, with nothing but the standard library: the browser's
websocket spoken by hand (RFC 6455: masked text frames out, unmasked frames in), one page target attached in flat
mode, and every protocol event kept so that a test can look at console messages and network requests afterwards.

Used by tests/test_report_browser.py; nothing else needs it.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
)
_LISTENING = re.compile(r"DevTools listening on (ws://\S+)")


def executable() -> str | None:
    """The Chromium to drive, or None where it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class _WebSocket:
    """A client websocket: text messages only, as the DevTools protocol uses them."""

    def __init__(self, url: str, timeout: float) -> None:
        parts = urlparse(url)
        self._sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode("ascii")
        request = (
            f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self._sock.sendall(request.encode("ascii"))
        self._buffer = b""
        while b"\r\n\r\n" not in self._buffer:
            chunk = self._sock.recv(4096)
            if not chunk:
                raise ConnectionError("the browser closed the websocket during the handshake")
            self._buffer += chunk
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(f"the browser refused the websocket: {head.decode('latin-1')}")

    def _read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            chunk = self._sock.recv(max(65536, n - len(self._buffer)))
            if not chunk:
                raise ConnectionError("the browser closed the websocket")
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def send(self, text: str) -> None:
        payload = text.encode("utf-8")
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", 0x81, 0x80 | size)
        elif size < 1 << 16:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, size)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self._sock.sendall(header + mask + masked)

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", self._read(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", self._read(8))
            mask = self._read(4) if second & 0x80 else b""
            payload = self._read(size)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise ConnectionError("the browser closed the websocket")
            if opcode == 0x9:  # ping: answer, then keep reading
                self._sock.sendall(struct.pack("!BB", 0x8A, 0x80 | len(payload)) + b"\0\0\0\0" + payload)
                continue
            if opcode in (0x0, 0x1, 0x2):
                message += payload
                if first & 0x80:
                    return message.decode("utf-8")

    def close(self) -> None:
        self._sock.close()


class Browser:
    """A headless Chromium with one page; ``events`` holds every protocol event of that page, in order."""

    def __init__(self, profile: Path, timeout: float = 30.0) -> None:
        binary = executable()
        if binary is None:
            raise FileNotFoundError("chromium is not installed")
        self.timeout = timeout
        self._process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        self.stderr: list[str] = []
        found = threading.Event()
        url: list[str] = []

        def read_stderr() -> None:
            assert self._process.stderr is not None
            for line in self._process.stderr:
                self.stderr.append(line)
                match = _LISTENING.search(line)
                if match and not url:
                    url.append(match.group(1))
                    found.set()
            found.set()

        self._reader = threading.Thread(target=read_stderr, daemon=True)
        self._reader.start()
        if not found.wait(timeout) or not url:
            self.close()
            raise RuntimeError("chromium did not start its DevTools endpoint:\n" + "".join(self.stderr))
        self._ws = _WebSocket(url[0], timeout)
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.command("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.command("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.page(f"{domain}.enable")

    def command(self, method: str, session: str | None = None, **params: Any) -> Any:
        """Send one command and wait for its answer (events that arrive meanwhile are kept)."""
        self._next += 1
        number = self._next
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self._ws.send(json.dumps(message))
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            reply = json.loads(self._ws.receive())
            if reply.get("id") == number:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)
        raise TimeoutError(f"{method}: no answer in {self.timeout} s")

    def page(self, method: str, **params: Any) -> Any:
        """A command to the page."""
        return self.command(method, self._session, **params)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The first event ``method`` of the page from now on (or already kept since the last navigation)."""
        deadline = time.monotonic() + self.timeout
        for event in self.events:
            if event["method"] == method:
                return event
        while time.monotonic() < deadline:
            event = json.loads(self._ws.receive())
            if "method" in event:
                self.events.append(event)
                if event["method"] == method:
                    return event
        raise TimeoutError(f"no {method} in {self.timeout} s")

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event."""
        self.events.clear()
        self.page("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serializable values only)."""
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"the expression failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, width: int = 1280) -> None:
        """A PNG of the whole page, ``width`` pixels wide."""
        height = int(self.evaluate("Math.ceil(document.documentElement.scrollHeight)"))
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=min(height, 16000), deviceScaleFactor=1,
                  mobile=False)
        shot = self.page("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def problems(self) -> list[str]:
        """Every console error, uncaught exception and error log entry of the page since it was opened."""
        found = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails']}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") in ("error", "warning"):
                found.append(f"log {params['entry']['level']}: {params['entry'].get('text')}")
        return found

    def requests(self) -> list[str]:
        """The URL of every request the page made since it was opened (its own document's included)."""
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]

    def close(self) -> None:
        """End the browser."""
        ws = getattr(self, "_ws", None)
        if ws is not None:
            ws.close()
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._reader.join(10)
        if self._process.stderr is not None:
            self._process.stderr.close()
