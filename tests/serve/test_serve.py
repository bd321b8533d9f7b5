"""``toolguards serve`` with the memory store: real server processes, decisions in order, one-line 4xx errors."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys

import pytest

from conftest import FIRST, detailed, require
from support.docs_blocks import marked
from support.servers import Serve, call, free_port, start_all

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'toolguards[serve]')")

GUARDS = """guards:
  - id: repeat-tool-reminder
    config:
      block: {atCount: 9}
  - id: no-progress-reminder
    config:
      thresholds: [3]
"""
TOKEN = "s3cret-token-0123456789abcdef"
ARGUMENTS = '{"q":"retry policy"}'
BLOCKED = (
    "Blocked: this is call 9 of `grep` in a row with the exact same arguments, and it was stopped. The arguments "
    'were: {"q":"retry policy"}\nRepeating it will not give a different result. Choose a different action or '
    "different arguments, or finish the task with the evidence you have."
)


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    (folder / "g.yaml").write_text(GUARDS, encoding="utf-8")
    (folder / "token").write_text(TOKEN + "\n", encoding="utf-8")
    plain = Serve("--config", "g.yaml", cwd=folder)
    guarded = Serve("--token-file", "token", cwd=folder)
    in_sqlite = Serve("--store", "sqlite:///state.sqlite3", cwd=folder)
    running = start_all(plain, guarded, in_sqlite)
    yield running
    for server in running:
        server.stop()


@pytest.fixture(scope="module")
def server(servers):
    return servers[0]


@pytest.fixture(scope="module")
def guarded(servers):
    return servers[1]


def test_the_sqlite_store_serves_too(servers):
    in_sqlite = servers[2]
    assert reminders(in_sqlite.post([call("lite")] * 3)) == [(2, "first", 3)]
    assert in_sqlite.request("GET", "/healthz") == (
        200, b'{"status":"ok","store":"sqlite:///state.sqlite3 (a file on this machine)"}')


def error(message):
    """The exact body of an error answer."""
    return json.dumps({"error": message}, ensure_ascii=False, separators=(",", ":")).encode()


def reminders(answers):
    """(index, template, count) of every context in a list of answers."""
    return [(i, c["metadata"]["template"], c["metadata"]["count"]) for i, a in enumerate(answers) for c in a["contexts"]]


def test_an_event_s_result_reaches_the_guards(server):
    # new arguments each time and the same result: the no-progress guard reminds at its threshold
    events = [call("paging", "read_page", arguments={"offset": i}, result="Access denied") for i in range(3)]
    answers = [server.post(event) for event in events]
    assert reminders(answers) == [(2, "first", 3)]
    assert answers[2]["contexts"][0]["metadata"]["kind"] == "no-progress-reminder"


def test_one_event_at_a_time_reminders_at_3_5_8_then_a_block(server):
    connection = server.connect()
    answers = [server.post(call("one"), connection) for _ in range(9)]
    connection.close()
    assert reminders(answers) == [(2, "first", 3), (4, "detailed", 5), (7, "detailed", 8)]
    assert answers[0] == {"decision": "accept", "contexts": [], "feedback": None}
    assert answers[2] == {"decision": "accept", "feedback": None, "contexts": [{
        "text": FIRST,
        "source": {"kind": "plugin", "plugin": "repeat-tool-reminder", "form": "notice", "summary": "grep × 3"},
        "metadata": {"guard": "repeat-tool-reminder", "kind": "repeat-tool-reminder", "tool": "grep", "count": 3,
                     "template": "first"},
    }]}
    assert answers[4]["contexts"][0]["text"] == detailed("grep", 5, ARGUMENTS)
    assert answers[8] == {"decision": "block", "contexts": [], "feedback": BLOCKED}


def test_a_batch_is_answered_in_order_and_counted_in_order(server):
    batch = [call("batch"), call("batch", denied=True), {"type": "post-execute", "tool": "grep"}, call("batch"),
             call("other"), call("batch"), {"type": "pre-step", "agent": "batch"}, call("batch")]
    answers = server.post(batch)
    assert len(answers) == len(batch)
    # denied calls count, calls without an agent do not, other agents and plain step boundaries do not interrupt
    assert reminders(answers) == [(3, "first", 3), (7, "detailed", 5)]


@pytest.mark.parametrize(("reset", "expected"), [
    ({"type": "pre-step", "agent": "r", "userPrompt": True}, []),
    ({"type": "forget", "agent": "r"}, []),
    ({"type": "pre-step", "agent": "r", "userPrompt": False}, [(3, "first", 3)]),
])
def test_a_new_prompt_or_forget_starts_the_chain_afresh(server, reset, expected):
    agent = f"r-{json.dumps(reset)}"
    reset = {**reset, "agent": agent}
    answers = server.post([call(agent), call(agent), reset, call(agent), call(agent)])
    assert answers[2] == {"decision": "accept", "contexts": [], "feedback": None}
    assert reminders(answers) == expected


def test_a_call_delivered_twice_counts_once(server):
    answers = server.post([call("ids", callId="c1"), call("ids", callId="c1"), call("ids", callId="c2"),
                           call("ids", callId="c3")])
    assert reminders(answers) == [(3, "first", 3)]


def test_a_256_kb_write_file_fits_the_default_limit(server):
    content = "line of a file with \"quotes\" and \\ backslashes\n" * 5600
    assert len(content) > 256 * 1024
    event = call("big", tool="write_file", arguments={"path": "a.txt", "content": content})
    answers = server.post([event, event, event])
    assert reminders(answers) == [(2, "first", 3)]


@pytest.mark.parametrize(("body", "message"), [
    (b"", "the body is empty: send one event object or an array of events"),
    (b" \n", "the body is empty: send one event object or an array of events"),
    (b"{", "the body is not JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
    # Python's own words: 3.13 names a trailing comma (at the comma) where 3.10 to 3.12 expect a value after it
    (b'[\n{"type": "forget"},\n]', "the body is not JSON: Expecting value at line 3 column 1" if sys.version_info < (3, 13)
     else "the body is not JSON: Illegal trailing comma before end of array at line 2 column 19"),
    (b"\xff{}", "the body is not UTF-8 (byte 1)"),
    (b"[NaN]", "the body is not JSON: NaN is not a JSON value"),
    (b"[" * 100_000, "the body nests too deeply"),
    (b'"grep"', "expected one event object or an array of events, not a string"),
    (b"null", "expected one event object or an array of events, not null"),
    (b'{"type": "post-execute", "agent": "a"}', 'post-execute needs a string "tool"'),
    (b'{"type": "post-execute", "tool": "t", "args": {}}',
     'unknown key "args" in a post-execute event (allowed: type, agent, tool, arguments, denied, callId, result, '
     'error)'),
    (b'{"type": "pre-step", "agent": 7, "userPrompt": "yes"}',
     '"agent" must be a string or null, not a number; "userPrompt" must be true or false, not a string'),
    (b'[{"type": "forget"}, 5, {"type": "x"}]',
     '[1]: expected a JSON object, not a number; [2]: "type" must be "post-execute", "pre-step" or "forget", not "x"'),
    (b"[1, 2, 3, 4, 5]", "[0]: expected a JSON object, not a number; [1]: expected a JSON object, not a number; "
                         "[2]: expected a JSON object, not a number (and 2 more bad events)"),
    (b"[1, 2, 3, 4]", "[0]: expected a JSON object, not a number; [1]: expected a JSON object, not a number; "
                      "[2]: expected a JSON object, not a number (and 1 more bad event)"),
])
def test_bad_bodies_are_400_with_one_line(server, body, message):
    status, answer = server.request("POST", "/v1/events", body)
    assert (status, answer) == (400, error(message))
    assert b"\n" not in answer


def test_a_bad_event_rejects_its_batch_before_anything_is_counted(server):
    status, _ = server.request("POST", "/v1/events", [call("whole"), call("whole"), {"type": "?"}])
    assert status == 400
    assert reminders(server.post([call("whole"), call("whole")])) == []
    assert reminders(server.post([call("whole")])) == [(0, "first", 3)]


@pytest.mark.parametrize(("method", "path", "status", "message"), [
    ("GET", "/v2/events", 404, "no such endpoint: GET /v2/events"),
    ("GET", "/v1/events", 405, "GET /v1/events: method not allowed (use POST)"),
    ("POST", "/healthz", 405, "POST /healthz: method not allowed (use GET)"),
    ("DELETE", "/metrics", 405, "DELETE /metrics: method not allowed (use GET)"),
])
def test_unknown_endpoints_and_methods(server, method, path, status, message):
    assert server.request(method, path) == (status, error(message))


def test_over_max_body_is_413_whether_declared_or_streamed(server):
    limit = 4 * 1024 * 1024
    expected = (413, b'{"error":"the body is over the limit of 4194304 bytes (--max-body)"}')
    assert server.request("POST", "/v1/events", b" " * (limit + 1)) == expected
    connection = server.connect()
    connection.request("POST", "/v1/events", body=iter([b" " * limit, b"x"]), encode_chunked=True)
    response = connection.getresponse()
    assert (response.status, response.read()) == expected
    connection.close()
    assert server.request("POST", "/v1/noop", b" " * limit) == (200, b"{}")


def metrics(server):
    """Every sample of GET /metrics, by name and labels."""
    status, text = server.request("GET", "/metrics")
    assert status == 200
    samples = {}
    for line in text.decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def test_healthz_and_metrics(server):
    before = metrics(server)
    server.post([call("metrics")] * 3 + [{"type": "pre-step", "agent": "metrics", "userPrompt": True}])
    server.request("GET", "/nowhere")
    assert server.request("GET", "/healthz") == (200, b'{"status":"ok","store":"memory (in this process)"}')
    after = metrics(server)
    changed = {name: after[name] - before.get(name, 0.0) for name in after if after[name] != before.get(name)}
    assert {name: value for name, value in changed.items() if "duration" not in name} == {
        'toolguards_events_total{type="post-execute"}': 3.0,
        'toolguards_events_total{type="pre-step"}': 1.0,
        'toolguards_decisions_total{decision="accept"}': 3.0,
        'toolguards_reminders_total{guard="repeat-tool-reminder",template="first"}': 1.0,
        # the new prompt ended the run: no call followed the reminder
        'toolguards_reminder_outcomes_total{delivered="true",guard="repeat-tool-reminder",outcome="ended",'
        'template="first"}': 1.0,
        'toolguards_requests_total{endpoint="/metrics",status="200"}': 1.0,
        'toolguards_requests_total{endpoint="/v1/events",status="200"}': 1.0,
        'toolguards_requests_total{endpoint="/healthz",status="200"}': 1.0,
    }
    assert changed['toolguards_request_duration_seconds_count{endpoint="/v1/events"}'] == 1.0
    assert not any(name.endswith("_created") or "store_errors" in name for name in after)


@pytest.mark.parametrize(("headers", "message"), [
    ({}, "missing bearer token: send the header `Authorization: Bearer <token>`"),
    ({"Authorization": f"Basic {TOKEN}"}, "the Authorization header is not `Bearer <token>`"),
    ({"Authorization": "Bearer"}, "the Authorization header is not `Bearer <token>`"),
    ({"Authorization": f"Bearer {TOKEN}x"}, "wrong bearer token"),
    ({"Authorization": f"Bearer {TOKEN[:-1]}"}, "wrong bearer token"),
])
@pytest.mark.parametrize(("method", "path"), [("POST", "/v1/events"), ("GET", "/healthz"), ("GET", "/metrics")])
def test_with_a_token_every_request_needs_it(guarded, headers, message, method, path):
    connection = guarded.connect()
    try:
        connection.request(method, path, json.dumps(call("t")) if method == "POST" else None, headers)
        response = connection.getresponse()
        assert (response.status, response.read()) == (401, error(message))
        assert response.getheader("WWW-Authenticate") == "Bearer"
    finally:
        connection.close()


def test_the_right_token_passes_and_is_never_printed(guarded):
    for scheme in ("Bearer", "bearer"):
        status, _ = guarded.request("POST", "/v1/events", call("t"), {"Authorization": f"{scheme} {TOKEN}"})
        assert status == 200
    assert guarded.request("GET", "/healthz", headers={"Authorization": f"Bearer {TOKEN}"})[0] == 200
    assert "bearer token required" in guarded.lines[0]
    assert TOKEN not in "".join(guarded.lines)


def docs_block(marker: str) -> str:
    """The fenced block after ``<!-- tested: marker -->`` in docs/service.md."""
    return marked("docs/service.md", f"tested: {marker}").text


def docs_answer() -> dict:
    """The answer docs/service.md shows after the curl example."""
    return json.loads(docs_block("serve:curl-answer"))


def test_the_docs_curl_example(server):
    require("curl", "the docs' curl example is run as written", "curl")
    command = docs_block("serve:curl").replace("127.0.0.1:8787", f"127.0.0.1:{server.port}")
    outputs = [subprocess.run(["bash", "-c", command.replace("curl -s", "curl -s --noproxy '*'")],
                              capture_output=True, text=True, check=True).stdout for _ in range(3)]
    assert outputs[:2] == ['{"decision":"accept","contexts":[],"feedback":null}'] * 2
    assert json.loads(outputs[2]) == docs_answer()


TYPES = [  # the TypeScript-only parts of the docs' example, removed so that Node runs it as JavaScript
    ('type Decision = { decision: "accept" | "block"; contexts: { text: string }[]; feedback: string | null };\n', ""),
    ("(agent: string, tool: string, args: unknown): Promise<string[]>", "(agent, tool, args)"),
    (" as Decision", ""),
]


@pytest.mark.parametrize("up", [True, False])
def test_the_docs_typescript_example(server, up):
    require("node", "the docs' TypeScript example runs in Node.js", "nodejs")
    script = docs_block("serve:typescript")
    for typed, plain in TYPES:
        assert typed in script
        script = script.replace(typed, plain)
    port = server.port if up else free_port()
    script = script.replace("127.0.0.1:8787", f"127.0.0.1:{port}") + (
        f'(async () => {{ for (let i = 0; i < 3; i++) '
        f'console.log(JSON.stringify(await guard("ts-{up}", "grep", {{ q: "retry policy" }}))); }})();\n'
    )
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == ([[], [], [FIRST]] if up else [[], [], []])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_answers_the_request_under_way_then_exits_0(sig):
    server = Serve().ready()
    body = json.dumps(call("drain")).encode()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as conn:
            head = (f"POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n").encode()
            conn.sendall(head + body[:5])  # a request under way: its body not all sent yet
            assert server.request("GET", "/healthz")[0] == 200  # and the server has read its head meanwhile
            server.process.send_signal(sig)
            conn.sendall(body[5:])
            answer = conn.makefile("rb").read()
        assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
        assert answer.endswith(b'{"decision":"accept","contexts":[],"feedback":null}')
        assert server.process.wait(timeout=30) == 0
    finally:
        output = server.stop()
    assert "Traceback" not in output
