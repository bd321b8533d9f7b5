"""The plain-ASGI answers of POST /v1/events and /v1/noop (toolguards.serve.fast_routes) against the Starlette
application's own routes: the same requests, in process, give the same status, headers and body, and the same
metrics."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'toolguards[serve]')")

from toolguards.serve.app import create_app
from toolguards.serve.fast_routes import FastRoutes
from toolguards.serve.server import open_service

TOKEN = "s3cret-token-0123456789abcdef"
EVENT = {"type": "post-execute", "agent": "a", "tool": "grep", "arguments": {"q": "x"}}


def ask(app, method, path, chunks=(b"",), headers=(), disconnect=False):
    """(status, headers, body) of one request through an ASGI application; ``chunks`` arrive one message each."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(name.lower().encode(), value.encode()) for name, value in headers],
             "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8787), "state": {}}
    incoming = [{"type": "http.request", "body": chunk, "more_body": n < len(chunks) - 1}
                for n, chunk in enumerate(chunks)]
    if disconnect:
        incoming = [*incoming[:-1], {"type": "http.disconnect"}]
    sent = []

    async def receive():
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start, body = sent
    return start["status"], start["headers"], body["body"]


def both(token=None, max_body=1000):
    services = [open_service(None), open_service(None)]
    return services, [create_app(services[0], token=token, max_body=max_body),
                      create_app(services[1], token=token, max_body=max_body, fast=False)]


def event(n=0):
    return json.dumps({**EVENT, "arguments": {"q": n % 2}}).encode()


REQUESTS = [
    ("POST", "/v1/events", (event(),), ()),
    ("POST", "/v1/events", (event(),) * 1, (("Content-Type", "application/json"),)),
    ("POST", "/v1/events", (b"[" + b",".join([event(0)] * 4) + b"]",), ()),  # a batch: its first is the third call
    ("POST", "/v1/events", (event(1)[:9], event(1)[9:20], event(1)[20:]), ()),  # the body in three messages
    ("POST", "/v1/events", (b"{",), ()),
    ("POST", "/v1/events", (b"",), ()),
    ("POST", "/v1/events", (b"   ",), ()),
    ("POST", "/v1/events", (b"\xff",), ()),
    ("POST", "/v1/events", (b"7",), ()),
    ("POST", "/v1/events", (b'{"type": "post-execute"}',), ()),
    ("POST", "/v1/events", (b'[{"type": "nosuch"}, 1, {}]',), ()),
    ("POST", "/v1/events", (b"x" * 600, b"y" * 600), ()),  # over the limit as it streams in
    ("POST", "/v1/events", (event(),), (("Content-Length", "1001"),)),  # over the limit as declared
    ("POST", "/v1/events", (event(),), (("Content-Length", "many"),)),
    ("POST", "/v1/noop", (event(),), ()),
    ("POST", "/v1/noop", (b"x" * 1001,), ()),
    ("GET", "/v1/events", (b"",), ()),
    ("PUT", "/v1/noop", (b"",), ()),
    ("POST", "/v1/events/", (event(),), ()),
    ("POST", "/v1/eventsx", (event(),), ()),
    ("GET", "/healthz", (b"",), ()),
]


def test_every_request_is_answered_alike_by_both_paths():
    _, (fast, plain) = both()
    assert isinstance(fast, FastRoutes)
    answers = [[ask(app, method, path, chunks, headers) for method, path, chunks, headers in REQUESTS]
               for app in (fast, plain)]
    assert answers[0] == answers[1]
    assert [status for status, _, _ in answers[0]] == [
        200, 200, 200, 200, 400, 400, 400, 400, 400, 400, 400, 413, 413, 200, 200, 413, 405, 405, 307, 404, 200]
    assert json.loads(answers[0][2][2])[0]["contexts"][0]["metadata"]["count"] == 3


@pytest.mark.parametrize("headers", [
    (),
    (("Authorization", "Basic abc"),),
    (("Authorization", "Bearer "),),
    (("Authorization", "Bearer wrong-token-0123456789"),),
    (("Authorization", f"Bearer {TOKEN}"),),
    (("authorization", f"bearer  {TOKEN} "),),
    (("Authorization", "Bearer wrong"), ("Authorization", f"Bearer {TOKEN}")),  # the first one counts
    (("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer wrong")),
])
def test_the_token_is_checked_alike(headers):
    _, apps = both(token=TOKEN)
    found = [[ask(app, "POST", path, (event(),), headers) for path in ("/v1/events", "/v1/noop")] for app in apps]
    assert found[0] == found[1]


def test_a_client_gone_before_its_body_and_a_failure_of_ours_are_answered_alike(caplog):
    services, apps = both()
    gone = [ask(app, "POST", "/v1/events", (event()[:5], b""), disconnect=True) for app in apps]
    assert gone[0] == gone[1]
    assert gone[0][0] == 400
    for service in services:
        service.engine = None  # a bug of ours: the events endpoint raises
    with caplog.at_level(logging.ERROR, logger="toolguards"):
        failed = [ask(app, "POST", "/v1/events", (event(),)) for app in apps]
    assert failed[0] == failed[1] == (500, [(b"content-length", b"43"), (b"content-type", b"application/json")],
                                      b'{"error":"internal error (AttributeError)"}')
    assert [record.getMessage() for record in caplog.records] == ["toolguards serve: /v1/events failed"] * 2


def test_the_metrics_count_alike():
    services, apps = both()
    for app in apps:
        for method, path, chunks, headers in REQUESTS:
            ask(app, method, path, chunks, headers)

    def counted(service):
        return sorted(line for line in service.metrics.render().decode().splitlines()
                      if line.startswith(("toolguards_requests_total", "toolguards_request_duration_seconds_count",
                                          "toolguards_events_total", "toolguards_reminders_total")))

    assert counted(services[0]) == counted(services[1])
    assert 'toolguards_requests_total{endpoint="/v1/events",status="413"} 2.0' in counted(services[0])
