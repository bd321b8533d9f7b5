"""The service's hot endpoints, ``POST /v1/events`` and ``POST /v1/noop``, answered in plain ASGI in front of the
Starlette application (``toolguards.serve.app``), which answers everything else.

The rule is the application's wrapper: the same gate (bearer token, then the body read within ``--max-body``), the
same handler, the same answers — status, headers and body, byte for byte, errors included (401 with
``WWW-Authenticate: Bearer``, 413, 400 for a client gone before its body, a 500 without a traceback whose traceback
goes to the log) — and the same metrics. What is skipped is Starlette's routing, its ``Request`` and ``Response``
objects and its two middlewares, which cost a guarded call more than the guard itself. Any other method or path,
``/v1/events/`` included, goes on to the application unchanged; ``tests/serve/test_fast_routes.py`` sends the same
requests both ways and compares the answers.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .service import RequestError, encode_json

__all__ = ["FastRoutes"]

log = logging.getLogger("toolguards")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_JSON = b"application/json"
_BEARER = [(b"www-authenticate", b"Bearer")]


class _Disconnected(Exception):
    """The client left before its body arrived."""


class FastRoutes:
    """An ASGI application: ``routes`` (path → body → answer body) for POST, everything else to ``app``."""

    def __init__(self, app: ASGIApp, routes: dict[str, Callable[[bytes], bytes]], gate: Any, metrics: Any) -> None:
        self.app = app
        self._routes = routes
        self._gate = gate
        self._metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = self._routes.get(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST" else None
        if handler is None:
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        path = scope["path"]
        extra: list[tuple[bytes, bytes]] = []
        try:
            authorization = length = None
            for name, value in scope["headers"]:  # the first of each, as Starlette's Headers.get reads them
                if name == b"authorization" and authorization is None:
                    authorization = value.decode("latin-1")
                elif name == b"content-length" and length is None:
                    length = value.decode("latin-1")
            self._gate.check(authorization)
            self._gate.declared(length)
            status, body = 200, handler(await self._body(receive))
        except RequestError as exc:
            if exc.status == 401:
                extra = _BEARER
            status, body = exc.status, encode_json({"error": exc.message})
        except _Disconnected:  # nobody reads this answer
            status, body = 400, encode_json({"error": "the client disconnected before the body arrived"})
        except Exception as exc:  # a bug of ours: a one-line answer, the traceback in the log only
            log.exception("toolguards serve: %s failed", path)
            status, body = 500, encode_json({"error": f"internal error ({type(exc).__name__})"})
        self._metrics.answered(path, status, time.perf_counter() - start)
        headers = [*extra, (b"content-length", b"%d" % len(body)), (b"content-type", _JSON)]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _body(self, receive: Receive) -> bytes:
        """The request's body, within the limit."""
        limit = self._gate.max_body
        chunks = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                if chunk:
                    size += len(chunk)
                    if size > limit:
                        raise self._gate.over()
                    chunks.append(chunk)
                if not message.get("more_body", False):
                    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
            elif message["type"] == "http.disconnect":
                raise _Disconnected
