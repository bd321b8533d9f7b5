"""The HTTP side of the service: a Starlette application whose every answer is one line of JSON.

Each endpoint runs through one wrapper that checks the bearer token (when the service has one), reads the body up to
the limit, turns a ``RequestError`` into its 4xx answer and anything unexpected into a 500 without a traceback (the
traceback goes to the log), and counts the request and its latency. ``POST /v1/events`` and ``POST /v1/noop`` are
answered the same way in plain ASGI before the request reaches Starlette (``toolguards.serve.fast_routes``). The
guards run in the event loop's thread: a store call blocks the loop for its round trip, and a service scales by
running more processes, not threads.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from . import host_routes
from .fast_routes import FastRoutes
from .metrics import CONTENT_TYPE
from .security import DEFAULT_MAX_BODY
from .service import RequestError, Service, encode_json

__all__ = ["DEFAULT_MAX_BODY", "create_app"]

log = logging.getLogger("toolguards")

JSON = "application/json"
Handler = Callable[[Request, bytes], Awaitable[Response]]


def _answer(status: int, body: bytes, media_type: str = JSON) -> Response:
    # An empty answer (a hook with nothing to say) has no type: it is no JSON document.
    return Response(body, status_code=status, media_type=media_type if body else None)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response(encode_json({"error": message}), status_code=status, media_type=JSON, headers=headers)


def _digest(token: str) -> bytes:
    # Comparing digests, not the texts, keeps the comparison's time independent of the given token's length too.
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


class _Gate:
    """Checks the bearer token and reads the body within the limit."""

    def __init__(self, token: str | None, max_body: int) -> None:
        self._token = None if token is None else _digest(token)
        self.max_body = max_body

    def check(self, header: str | None) -> None:
        """RequestError 401 unless the Authorization header's value carries the token (when the service has one)."""
        if self._token is None:
            return
        if header is None:
            raise RequestError(401, "missing bearer token: send the header `Authorization: Bearer <token>`")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise RequestError(401, "the Authorization header is not `Bearer <token>`")
        if not hmac.compare_digest(_digest(given.strip()), self._token):
            raise RequestError(401, "wrong bearer token")

    def declared(self, length: str | None) -> None:
        """RequestError 413 when the Content-Length header's value is over the limit."""
        if length is not None and length.isdigit() and int(length) > self.max_body:
            raise self.over()

    def over(self) -> RequestError:
        """The error of a body over the limit."""
        return RequestError(413, f"the body is over the limit of {self.max_body} bytes (--max-body)")

    async def body(self, request: Request) -> bytes:
        self.declared(request.headers.get("content-length"))
        limit = self.max_body
        chunks = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise self.over()
            chunks.append(chunk)
        return b"".join(chunks)


def create_app(
    service: Service, *, token: str | None = None, max_body: int = DEFAULT_MAX_BODY, fast: bool = True
) -> Any:
    """The application: ``POST /v1/events``, ``POST /hooks/HOST``, ``POST /v1/noop``, ``GET /healthz``,
    ``GET /metrics``; ``fast`` answers the first and the third in plain ASGI (``toolguards.serve.fast_routes``)."""
    gate = _Gate(token, max_body)
    metrics = service.metrics

    def endpoint(path: str, handler: Handler, reads_body: bool) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            start = time.perf_counter()
            try:
                gate.check(request.headers.get("authorization"))
                response = await handler(request, await gate.body(request) if reads_body else b"")
            except RequestError as exc:
                headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
                response = _error(exc.status, exc.message, headers)
            except ClientDisconnect:  # the client left before its body arrived: nobody reads this answer
                response = _error(400, "the client disconnected before the body arrived")
            except Exception as exc:  # a bug of ours: a one-line answer, the traceback in the log only
                log.exception("toolguards serve: %s failed", path)
                response = _error(500, f"internal error ({type(exc).__name__})")
            metrics.answered(path, response.status_code, time.perf_counter() - start)
            return response

        return run

    async def events(request: Request, body: bytes) -> Response:
        return _answer(200, service.events(body))

    async def noop(request: Request, body: bytes) -> Response:
        return _answer(200, b"{}")

    async def health(request: Request, body: bytes) -> Response:
        status, answer = service.health()
        return _answer(status, answer)

    async def render_metrics(request: Request, body: bytes) -> Response:
        return _answer(200, metrics.render(), CONTENT_TYPE)

    def hook(host: str) -> Handler:
        async def answer(request: Request, body: bytes) -> Response:
            return _answer(200, host_routes.answer(service, host, body))

        return answer

    routes = [
        Route("/v1/events", endpoint("/v1/events", events, True), methods=["POST"]),
        Route("/v1/noop", endpoint("/v1/noop", noop, True), methods=["POST"]),
        Route("/healthz", endpoint("/healthz", health, False), methods=["GET"]),
        Route("/metrics", endpoint("/metrics", render_metrics, False), methods=["GET"]),
        *(Route(f"/hooks/{host}", endpoint(f"/hooks/{host}", hook(host), True), methods=["POST"])
          for host in host_routes.HOSTS),
    ]
    allowed = {route.path: sorted(route.methods or ()) for route in routes}

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        path = request.url.path
        if status == 405 and path in allowed:
            methods = ", ".join(m for m in allowed[path] if m != "HEAD")
            return _error(405, f"{request.method} {path}: method not allowed (use {methods})", {"Allow": methods})
        if status == 404:
            return _error(404, f"no such endpoint: {request.method} {path}")
        return _error(status, f"{request.method} {path}: HTTP {status}")

    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {HTTPException: http_error}
    app = Starlette(routes=routes, exception_handlers=handlers)
    if not fast:
        return app
    return FastRoutes(app, {"/v1/events": service.events, "/v1/noop": lambda body: b"{}"}, gate, metrics)
