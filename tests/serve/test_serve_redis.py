"""Many ``toolguards serve`` replicas sharing one real Redis: exact counts under concurrency, fail open, recover."""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import FIRST, detailed
from support.servers import RedisServer, Serve, call, need_redis, start_all

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'toolguards[serve]')")
pytest.importorskip("redis", reason="the redis client is not installed (pip install 'toolguards[redis]')")

REPLICAS = 4
CLIENTS = 16
CALLS = 400
KEY = "toolguards:repeat-tool-reminder.yaml:repeat-tool-reminder:"


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    need_redis()
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def replicas(redis_server):
    running = start_all(*(Serve("--store", redis_server.url) for _ in range(REPLICAS)))
    yield running
    for server in running:
        server.stop()


def spread(replicas, bodies):
    """Send each body to a replica in turn from CLIENTS concurrent clients (one connection each); the answers in order."""

    def client(number):
        server = replicas[number % len(replicas)]
        connection = server.connect()
        try:
            return [(i, server.post(bodies[i], connection)) for i in range(number, len(bodies), CLIENTS)]
        finally:
            connection.close()

    with ThreadPoolExecutor(CLIENTS) as pool:
        answered = [pair for part in pool.map(client, range(CLIENTS)) for pair in part]
    return [answer for _, answer in sorted(answered, key=lambda pair: pair[0])]


def counts(contexts):
    return Counter((c["metadata"]["count"], c["metadata"]["template"]) for c in contexts)


def test_one_agent_over_four_replicas_gets_exactly_one_reminder_at_3_5_8(replicas):
    answers = spread(replicas, [call("solo")] * CALLS)
    contexts = [context for answer in answers for context in answer["contexts"]]
    assert counts(contexts) == {(3, "first"): 1, (5, "detailed"): 1, (8, "detailed"): 1}
    texts = {c["metadata"]["count"]: c["text"] for c in contexts}
    assert texts == {3: FIRST, 5: detailed("grep", 5, '{"q":"retry policy"}'),
                     8: detailed("grep", 8, '{"q":"retry policy"}')}
    assert all(answer["decision"] == "accept" for answer in answers)


def test_fifty_agents_at_once_each_get_exactly_one_reminder_at_3_5_8(replicas):
    agents = [f"agent-{n}" for n in range(50)]
    batches = [[call(agent) for agent in agents] for _ in range(CALLS)]
    answers = spread(replicas, batches)
    by_agent = {agent: Counter() for agent in agents}
    for batch in answers:
        assert len(batch) == len(agents)
        for agent, answer in zip(agents, batch, strict=True):
            by_agent[agent] += counts(answer["contexts"])
    assert all(found == {(3, "first"): 1, (5, "detailed"): 1, (8, "detailed"): 1} for found in by_agent.values())


def test_an_old_version_state_is_discarded_with_one_warning(redis_server, replicas):
    client = redis_server.client()
    old = json.dumps({"kind": "repeat-tool-reminder", "version": 0, "state": {"digest": 1, "count": 2}})
    client.set(KEY + "old", old)
    server = replicas[0]
    answers = [server.post(call("old")) for _ in range(3)]
    client.close()
    assert [len(answer["contexts"]) for answer in answers] == [0, 0, 1]  # counted afresh, not from 2
    warning = ("toolguards: a stored repeat-tool-reminder state of version 0 was discarded (this version reads "
               "version 1); that chain starts afresh\n")
    assert server.lines.count(warning) == 1


def test_redis_down_every_request_still_answers_and_counting_resumes_when_it_is_back(tmp_path):
    need_redis()
    redis_server = RedisServer(tmp_path).start()
    server = Serve("--store", redis_server.url).ready()
    try:
        assert [len(a["contexts"]) for a in server.post([call("f")] * 2)] == [0, 0]
        assert server.request("GET", "/healthz") == (
            200, f'{{"status":"ok","store":"redis at 127.0.0.1:{redis_server.port}/0"}}'.encode())
        redis_server.stop()
        down = [server.post(call("f")) for _ in range(4)] + server.post([call("f")] * 4)
        assert down == [{"decision": "accept", "contexts": [], "feedback": None}] * 8
        status, health = server.request("GET", "/healthz")
        assert status == 503
        assert json.loads(health)["status"] == "unavailable"
        assert json.loads(health)["error"].startswith(
            f"redis at 127.0.0.1:{redis_server.port}/0 is unreachable (ConnectionError: ")
        status, metrics = server.request("GET", "/metrics")
        assert 'toolguards_store_errors_total{guard="repeat-tool-reminder"} 8.0' in metrics.decode().splitlines()
        redis_server.start()  # the same port, empty: the chain starts afresh
        assert server.request("GET", "/healthz")[0] == 200
        assert [len(a["contexts"]) for a in server.post([call("f")] * 3)] == [0, 0, 1]
    finally:
        output = server.stop()
        redis_server.stop()
    lines = output.splitlines()
    assert lines[0].startswith("toolguards serve: listening on http://127.0.0.1:")
    # the store's failures in one line (at most one per 10 s): no traceback, no second line from the engine
    assert len(lines) == 2
    assert lines[1].startswith(f"toolguards serve: repeat-tool-reminder failed, answered without its reminders: "
                               f"redis at 127.0.0.1:{redis_server.port}/0: ConnectionError: ")


def test_a_claude_code_session_over_four_replicas_gets_exactly_one_reminder_at_3_5_8(replicas):
    def event(number):
        return {"session_id": "shared-session", "transcript_path": "/home/u/.claude/projects/p/s.jsonl",
                "cwd": "/home/u/p", "permission_mode": "default", "hook_event_name": "PostToolUse",
                "tool_name": "Bash", "tool_input": {"command": "make test"}, "tool_response": {"stdout": "FAILED"},
                "tool_use_id": f"toolu_{number}"}

    def client(number):
        server = replicas[number % len(replicas)]
        connection = server.connect()
        try:
            return [server.request("POST", "/hooks/claude", event(i), connection=connection)
                    for i in range(number, CALLS, CLIENTS)]
        finally:
            connection.close()

    with ThreadPoolExecutor(CLIENTS) as pool:
        answers = [answer for part in pool.map(client, range(CLIENTS)) for answer in part]
    assert {status for status, _ in answers} == {200}
    texts = [json.loads(body)["hookSpecificOutput"]["additionalContext"] for _, body in answers if body]
    assert sorted(texts) == sorted([FIRST, detailed("Bash", 5, '{"command":"make test"}'),
                                    detailed("Bash", 8, '{"command":"make test"}')])
