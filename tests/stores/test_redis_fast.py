"""The Redis store's fast compare-and-set against its plain path (redis-py's Script), on a real redis-server: the
same answers and the same stored bytes and expiry for every case, NOSCRIPT left to the plain path, and a failed
connection dropped and made anew."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from support.servers import RedisServer, need_redis
from toolguards.stores import StoreError
from toolguards.stores.redis import _COMPARE_AND_SET, RedisStores
from toolguards.stores.redis_fast import NOT_SENT, fast_script

redis = pytest.importorskip("redis", reason="the redis client is not installed (pip install 'toolguards[redis]')")

A = b'{"kind":"counter","version":1,"state":1}'
B = b'{"kind":"counter","version":1,"state":2}'
KEY = b"toolguards:g.yaml:g:agent:\xc3\xa9 \r\n$3"  # bytes that look like the protocol's own, and UTF-8


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    need_redis()
    started = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield started
    started.stop()


@pytest.fixture
def client(server):
    opened = server.client()
    opened.flushdb()
    yield opened
    opened.close()


@pytest.fixture
def stores(server, client):
    opened = RedisStores.from_url(server.url, idle_ttl=300)
    client.script_load(_COMPARE_AND_SET)
    yield opened
    opened.close()


# (what the key holds before, expected, new): each answered and written alike by both paths
CASES = [
    (None, b"", A),  # absent, and taken to be: written
    (None, A, B),  # taken to hold A, but absent: the answer is b"" (nothing), nothing written
    (A, A, B),  # holds what was expected: written
    (A, b"", B),  # holds A, taken to be absent: the answer is A
    (B, A, B),  # holds something else: the answer is it
    (A, A, b""),  # the new state is none: deleted
    (None, b"", b""),  # absent, stays absent
]


@pytest.mark.parametrize(("before", "expected", "new"), CASES)
def test_the_fast_path_answers_and_writes_as_the_plain_path_does(stores, client, before, expected, new):
    outcomes = []
    for fast in (True, False):
        client.delete(KEY)
        if before is not None:
            client.set(KEY, before, ex=50)
        if fast:
            answer = stores.fast(KEY, expected, new, 300)
            assert answer is not NOT_SENT
            answer = None if answer == 1 else bytes(answer)
        else:
            keep, stores.fast = stores.fast, None
            try:
                answer = stores.compare_and_set(KEY, expected, new)
            finally:
                stores.fast = keep
        expiry = client.pttl(KEY)  # milliseconds left; -2 for no key
        outcomes.append((answer, client.get(KEY), expiry if expiry < 0 else 299_000 < expiry <= 300_000))
    assert outcomes[0] == outcomes[1]


def test_a_server_without_the_script_is_left_to_the_plain_path_which_loads_it(stores, client):
    client.script_flush()
    assert stores.fast(KEY, b"", A, 300) is NOT_SENT
    assert client.exists(KEY) == 0  # the fast path ran nothing
    assert stores.compare_and_set(KEY, b"", A) is None  # the plain path loaded the script and ran it
    assert client.get(KEY) == A
    assert stores.fast(KEY, A, B, 300) == 1  # and the fast path uses it from then on
    assert client.get(KEY) == B


def test_a_failed_connection_is_dropped_and_the_next_call_makes_a_new_one(server, stores, client):
    assert stores.compare_and_set(KEY, b"", A) is None
    server.stop()
    with pytest.raises(StoreError) as caught:
        stores.compare_and_set(KEY, A, B)
    assert str(caught.value).startswith(f"redis at 127.0.0.1:{server.port}/0: ConnectionError: ")
    server.start()  # empty: nothing is kept on disk
    assert stores.health() == f"redis at 127.0.0.1:{server.port}/0"
    assert stores.compare_and_set(KEY, b"", B) is None
    again = server.client()
    assert again.get(KEY) == B
    again.close()


FORKED = """
import os, sys
from toolguards.stores.redis import RedisStores
stores = RedisStores.from_url(sys.argv[1])
assert stores.compare_and_set(b"forked", b"", b"parent") is None
kept = stores.fast._idle[0]
child = os.fork()
if child == 0:  # its parent's socket would read the parent's answers: the child makes its own connection
    ok = stores.compare_and_set(b"forked", b"parent", b"child") is None and stores.fast._idle[0] is not kept
    os._exit(0 if ok else 1)
_, status = os.waitpid(child, 0)
assert os.waitstatus_to_exitcode(status) == 0, "the child used its parent's connection"
assert stores.compare_and_set(b"forked", b"child", b"parent again") is None and stores.fast._idle == [kept]
print("ok")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_makes_its_own_connection_and_the_parent_keeps_its_own(server, client):
    # In a process of its own: pytest's has threads, and forking a process with threads is deprecated from 3.12 on.
    found = subprocess.run([sys.executable, "-c", FORKED, server.url], capture_output=True, text=True, check=False)
    assert (found.returncode, found.stdout, found.stderr) == (0, "ok\n", "")


@pytest.mark.parametrize("make", [
    lambda url: redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(url)),
    lambda url: redis.Redis.from_url(url).pipeline(),
])
def test_only_a_plain_client_over_its_usual_pool_takes_the_fast_path(server, make):
    client = make(server.url)
    assert fast_script(client, "0" * 40) is None
    assert fast_script(redis.Redis.from_url(server.url), "0" * 40) is not None
