"""RedisStore against a real redis-server: the same chains as in memory, exact under concurrent writers, fail open."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import pytest

import toolguards as tg
from conftest import FIRST
from support.servers import RedisServer, need_redis
from toolguards.stores import StoreError, open_stores
from toolguards.stores.redis import DEFAULT_IDLE_TTL, RedisStores

pytest.importorskip("redis", reason="the redis client is not installed (pip install 'toolguards[redis]')")


class Counter:
    """A state type for these tests: a count."""

    name = "counter"
    version = 1

    def to_json(self, state: Any) -> Any:
        return state

    def from_json(self, data: Any) -> Any:
        if type(data) is not int:
            raise ValueError("not a count")
        return data


COUNTER = Counter()


def increment(state: Any) -> tuple[Any, int]:
    count = (state or 0) + 1
    return count, count


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    need_redis()
    redis_server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield redis_server
    redis_server.stop()


@pytest.fixture
def redis(server):
    client = server.client()
    client.flushdb()
    yield client
    client.close()


@pytest.fixture
def stores(server, redis):
    opened = RedisStores.from_url(server.url, namespace="g.yaml")
    yield opened
    opened.close()


def test_one_key_per_namespace_guard_and_agent_with_the_envelope_and_the_idle_expiry(server, stores, redis):
    store = stores("repeat:it").bind(COUNTER)
    assert [store.update(agent, increment) for agent in ("main", "agent:a:b", "main")] == [1, 1, 2]
    assert sorted(redis.keys("*")) == [b"toolguards:g.yaml:repeat%3Ait:agent:a:b", b"toolguards:g.yaml:repeat%3Ait:main"]
    assert json.loads(redis.get(b"toolguards:g.yaml:repeat%3Ait:main")) == {"kind": "counter", "version": 1, "state": 2}
    assert DEFAULT_IDLE_TTL - 5 < redis.ttl(b"toolguards:g.yaml:repeat%3Ait:main") <= DEFAULT_IDLE_TTL
    other = RedisStores.from_url(server.url, namespace="other.yaml")
    assert other("repeat:it").bind(COUNTER).update("main", increment) == 1
    other.close()


def test_the_idle_ttl_is_set_on_every_write(server, redis):
    stores = RedisStores.from_url(server.url, idle_ttl=90)
    store = stores("g").bind(COUNTER)
    store.update("a", increment)
    assert 85 < redis.ttl(b"toolguards:default:g:a") <= 90
    redis.expire(b"toolguards:default:g:a", 5)
    store.update("a", increment)
    assert 85 < redis.ttl(b"toolguards:default:g:a") <= 90
    stores.close()


def test_none_deletes_and_reset_and_forget_drop_the_state(stores, redis):
    store = stores("g").bind(COUNTER)
    store.update("a", increment)
    assert store.update("a", lambda old: (None, old)) == 1
    assert redis.keys("*") == []
    assert store.update("a", increment) == 1
    store.reset("a")
    assert store.update("a", increment) == 1
    store.forget("a")
    store.forget("never-seen")
    assert redis.keys("*") == []


def test_another_writer_is_seen_though_this_store_remembers_what_it_wrote(stores, redis):
    store = stores("g").bind(COUNTER)
    assert store.update("a", increment) == 1
    redis.set(b"toolguards:g.yaml:g:a", json.dumps({"kind": "counter", "version": 1, "state": 40}))
    assert store.update("a", increment) == 41
    redis.delete(b"toolguards:g.yaml:g:a")  # expired, say
    assert store.update("a", increment) == 1


@pytest.mark.parametrize(("stored", "found"), [
    ({"kind": "counter", "version": 0, "state": 5}, "of version 0"),
    ({"kind": "cycle-reminder", "version": 1, "state": 5}, "of another kind"),
    ({"kind": "counter", "version": 1, "state": "five"}, "that does not decode"),
    ("not json", "that does not decode"),
])
def test_a_state_this_version_must_not_read_is_discarded_with_one_warning(stores, redis, caplog, stored, found):
    store = stores("g").bind(COUNTER)
    for agent in ("a", "b"):
        redis.set(f"toolguards:g.yaml:g:{agent}", stored if isinstance(stored, str) else json.dumps(stored))
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        assert [store.update(agent, increment) for agent in ("a", "b", "a")] == [1, 1, 2]
    assert [r.getMessage() for r in caplog.records] == [
        f"toolguards: a stored counter state {found} was discarded (this version reads version 1); that chain "
        "starts afresh"
    ]


def test_updates_are_exact_under_threads(stores):
    store = stores("g").bind(COUNTER)
    results: list[int] = []

    def work() -> None:
        results.extend(store.update("a", increment) for _ in range(100))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == list(range(1, 401))


def test_agents_must_be_string_ids(stores):
    store = stores("g").bind(COUNTER)
    with pytest.raises(TypeError) as caught:
        store.update(object(), increment)
    assert str(caught.value) == "RedisStore keys agents by string id, not by object"


def test_an_unbound_store_says_so(stores):
    with pytest.raises(RuntimeError) as caught:
        stores("g").update("a", increment)
    assert str(caught.value).endswith("guard='g'> was not bound to a state type (StateStore.bind)")


@pytest.mark.parametrize(("url", "message"), [
    ("redis://h:99999/0", "the port of a Redis store URL must be a number from 0 to 65535: 'h:99999'"),
    ("redis://h:6379/zero", "the database of a Redis store URL is a number (redis://HOST:PORT/DB), not 'zero'"),
    ("redis://h:6379/0?socket_timeout=soon", "bad redis URL h:6379/0: Invalid value for 'socket_timeout' in "
                                             "connection URL."),
    ("redis://:secret@h:6379/0?nosuch=1", "bad redis URL h:6379/0: unknown option 'nosuch'"),
    ("unix://redis.sock",
     "unknown store 'unix://redis.sock' (known: memory:, sqlite:, mapping:, redis:, rediss:, redis+cluster:, "
     "rediss+cluster:)"),
])
def test_bad_urls(url, message):
    with pytest.raises(ValueError) as caught:
        open_stores(url)
    assert str(caught.value) == message


def test_an_unreachable_server_fails_open_names_no_password_and_pauses(server, caplog):
    stopped = RedisServer(server.folder)  # a free port with nothing on it
    stores = RedisStores.from_url(f"redis://:hunter2hunter2@127.0.0.1:{stopped.port}/3")
    store = stores("g").bind(COUNTER)
    with pytest.raises(StoreError) as first:
        store.update("a", increment)
    assert str(first.value).startswith(f"redis at 127.0.0.1:{stopped.port}/3: ConnectionError: ")
    with pytest.raises(StoreError) as paused:
        store.update("a", increment)
    assert str(paused.value) == (f"redis at 127.0.0.1:{stopped.port}/3 failed less than 1 s ago; not retried yet")
    with pytest.raises(StoreError) as health:
        stores.health()
    assert str(health.value).startswith(f"redis at 127.0.0.1:{stopped.port}/3 is unreachable (ConnectionError: ")
    assert "hunter2" not in f"{first.value} {paused.value} {health.value}"
    stopped.start()
    try:
        assert stores.health() == f"redis at 127.0.0.1:{stopped.port}/3"
        assert store.update("a", increment) == 1  # a good answer ended the pause at once
    finally:
        stopped.stop()
        stores.close()


def test_the_guards_count_in_redis_from_a_url_string(server, redis):
    engine = tg.load_default(stores=server.url)
    decisions = [engine.post_execute(tg.ToolEvent("grep", {"q": "x"}, agent="a")) for _ in range(3)]
    assert [len(d.additional_contexts) for d in decisions] == [0, 0, 1]
    assert decisions[2].additional_contexts[0].text == FIRST
    stored = json.loads(redis.get(b"toolguards:default:repeat-tool-reminder:a"))
    assert stored["kind"] == "repeat-tool-reminder"
    assert stored["version"] == 1
    assert set(stored["state"]) == {"digest", "count"}  # a digest of the call, never its arguments
    assert stored["state"]["count"] == 3
    again = tg.load_default(stores=server.url)  # another process would read the same chain
    assert again.post_execute(tg.ToolEvent("grep", {"q": "x"}, agent="a")).additional_contexts == ()
    assert again.post_execute(tg.ToolEvent("grep", {"q": "x"}, agent="a")).additional_contexts[0].metadata["count"] == 5


def test_a_lost_race_is_run_again_from_the_winners_value(stores, redis):
    store = stores("g").bind(COUNTER)
    key = b"toolguards:g.yaml:g:a"
    races = []

    def interfering(state):
        if len(races) < 5:  # another process writes between our read and our write, five times over
            races.append(state)
            redis.set(key, json.dumps({"kind": "counter", "version": 1, "state": 100 + len(races)}))
        return increment(state)

    assert store.update("a", interfering) == 106
    assert races == [None, 101, 102, 103, 104]


def test_a_race_lost_every_time_gives_up_with_a_store_error(stores, redis, monkeypatch):
    monkeypatch.setattr("toolguards.stores.redis.BACKOFF_CAP", 0.0)
    store = stores("g").bind(COUNTER)
    runs = []

    def always_interfering(state):
        runs.append(state)
        redis.set(b"toolguards:g.yaml:g:a", json.dumps({"kind": "counter", "version": 1, "state": len(runs)}))
        return increment(state)

    with pytest.raises(StoreError) as caught:
        store.update("a", always_interfering)
    assert str(caught.value) == (f"redis at {stores.location}: other writers changed the state of 'a' 64 times in a "
                                 "row; the update gave up")
    assert len(runs) == 64
