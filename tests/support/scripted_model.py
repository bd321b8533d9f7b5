"""A scripted model server on 127.0.0.1 for the real-host tests: a real host program talks to it as to its model.

The server plays a fixed script, one ``Turn`` per model request that is not a side request (titles, summaries,
quota probes), and records every request it receives, so a test can read what the host sent the model: where a
reminder landed, in which request. Each model API (Anthropic Messages, OpenAI Responses, Gemini) is one ``ModelApi``:
it says which requests are turns, and writes a turn in its wire format (JSON or server-sent events). Nothing here
reaches beyond loopback; the host is pointed at ``url`` through its own configuration.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol


@dataclass(frozen=True)
class ToolCall:
    """The model calls ``tool`` with ``arguments``."""

    tool: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class Text:
    """The model answers with ``text`` and ends its turn."""

    text: str


Turn = ToolCall | Text


@dataclass(frozen=True)
class Request:
    """One request as the host sent it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any  # the parsed JSON body, or the raw text when it is not JSON


@dataclass(frozen=True)
class Reply:
    """What the server writes back: a status, a content type and the body bytes (a whole SSE stream, or JSON)."""

    status: int
    content_type: str
    body: bytes


class ModelApi(Protocol):
    """One model API's wire format."""

    def is_turn(self, request: Request) -> bool:
        """Whether this request asks the model for the next turn of the script (not a side request)."""
        ...

    def reply(self, request: Request, turn: Turn, index: int) -> Reply:
        """The reply that plays ``turn`` (the ``index``-th turn, from 0)."""
        ...

    def side_reply(self, request: Request) -> Reply:
        """The reply to a request that is not a turn (a model list, a token count, a title)."""
        ...


@dataclass
class ScriptedModel:
    """Plays ``turns`` in order to the host; past the last one, every turn is the last one again."""

    api: ModelApi
    turns: Sequence[Turn]
    requests: list[Request] = field(default_factory=list)
    turn_requests: list[Request] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self._server is not None, "the server is not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def _answer(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if not self.api.is_turn(request):
                return self.api.side_reply(request)
            index = len(self.turn_requests)
            self.turn_requests.append(request)
        turn = self.turns[min(index, len(self.turns) - 1)]
        return self.api.reply(request, turn, index)

    def start(self) -> ScriptedModel:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                request = Request(self.command, self.path, dict(self.headers.items()), body)
                reply = model._answer(request)
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            do_GET = do_POST = do_PUT = _handle

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def sse(events: Iterator[tuple[str | None, Any]] | Sequence[tuple[str | None, Any]]) -> bytes:
    """A server-sent-events stream of ``(event name or None, JSON data)`` pairs."""
    out = []
    for name, data in events:
        if name is not None:
            out.append(f"event: {name}\n")
        out.append(f"data: {json.dumps(data)}\n\n")
    return "".join(out).encode()
