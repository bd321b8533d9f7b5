"""RedisClusterStores against a real Redis Cluster (three masters, one replica each): one key per agent on the master
of its slot, exact under concurrent writers, a failure kept to its master, and what a failover keeps and loses."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from support.redis_cluster import RedisCluster, need_cluster
from toolguards.stores import StoreError, open_stores
from toolguards.stores.redis import DEFAULT_IDLE_TTL
from toolguards.stores.redis_cluster import RedisClusterStores

pytest.importorskip("redis", reason="the redis client is not installed (pip install 'toolguards[redis]')")

FORM = "redis+cluster://HOST:PORT[,HOST:PORT…]"


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
def cluster(tmp_path_factory):
    need_cluster()
    started = RedisCluster(tmp_path_factory.mktemp("cluster")).start()
    yield started
    started.stop()


@pytest.fixture
def reader(cluster):
    client = cluster.client()
    client.flushall(target_nodes=client.PRIMARIES)
    yield client
    client.close()


@pytest.fixture
def stores(cluster, reader):
    opened = RedisClusterStores.from_url(cluster.url, namespace="g.yaml")
    yield opened
    opened.close()


def agents_by_master(reader, prefix: bytes, per_master: int = 1) -> dict[str, list[str]]:
    """Agent ids whose keys (``prefix`` + id) fall on each master: ``per_master`` of them each."""
    found: dict[str, list[str]] = {node.name: [] for node in reader.get_primaries()}
    number = 0
    while any(len(agents) < per_master for agents in found.values()):
        agent = f"agent-{number}"
        agents = found[reader.get_node_from_key(prefix + agent.encode()).name]
        if len(agents) < per_master:
            agents.append(agent)
        number += 1
    return found


@pytest.mark.parametrize(("url", "message"), [
    ("redis+cluster://h:99999", "the port of a Redis Cluster node must be a number from 0 to 65535: 'h:99999'"),
    ("redis+cluster://h:7000,:7001", f"a node of a Redis Cluster store URL is HOST:PORT, not ':7001': {FORM}"),
    ("redis+cluster://h:7000,", f"a node of a Redis Cluster store URL is HOST:PORT, not '': {FORM}"),
    ("redis+cluster://h:7000/3", f"a Redis Cluster has only database 0, not '3': {FORM}"),
    ("redis+cluster://h:7000?db=2", f"a Redis Cluster has only database 0, not 2: {FORM}"),
    ("redis+cluster://h:7000?socket_timeout=soon",
     "bad redis URL cluster h:7000: Invalid value for 'socket_timeout' in connection URL."),
    ("redis+cluster://:secret@h:7000,h:7001?nosuch=1", "bad redis URL cluster h:7000,h:7001: unknown option 'nosuch'"),
    ("redis+cluster://h:7000?health_check_interval=5",
     "bad redis URL cluster h:7000: the cluster client takes no option 'health_check_interval'"),
])
def test_bad_cluster_urls(url, message):
    with pytest.raises(ValueError) as caught:
        open_stores(url)
    assert str(caught.value) == message


def test_the_url_names_its_nodes_never_the_password():
    stores = open_stores("rediss+cluster://user:hunter2hunter2@[::1]:7000,cache.internal?socket_timeout=0.2")
    assert isinstance(stores, RedisClusterStores)
    assert stores.location == "[::1]:7000,cache.internal:6379"
    assert stores.name == "redis cluster at [::1]:7000,cache.internal:6379"
    assert repr(stores) == "<RedisClusterStores [::1]:7000,cache.internal:6379 namespace='default'>"
    assert stores.client is None  # nothing is asked of the cluster before a guard needs it


def test_each_agent_is_one_key_on_the_master_of_its_slot_with_the_envelope_and_the_idle_expiry(cluster, stores,
                                                                                               reader):
    assert stores.health() == f"redis cluster at {stores.location} (3 masters)"
    store = stores("repeat:it").bind(COUNTER)
    prefix = b"toolguards:g.yaml:repeat%3Ait:"
    spread = agents_by_master(reader, prefix)
    agents = [agent for found in spread.values() for agent in found]
    assert [store.update(agent, increment) for agent in agents * 2] == [1, 1, 1, 2, 2, 2]
    assert sorted(reader.keys("*", target_nodes=reader.PRIMARIES)) == sorted(prefix + a.encode() for a in agents)
    for master, (agent,) in spread.items():
        node = next(node for node in cluster.nodes if node.name == master)
        direct = node.client()
        assert json.loads(direct.get(prefix + agent.encode())) == {"kind": "counter", "version": 1, "state": 2}
        assert DEFAULT_IDLE_TTL - 5 < direct.ttl(prefix + agent.encode()) <= DEFAULT_IDLE_TTL
        direct.close()


def test_updates_are_exact_under_threads_on_every_master(stores, reader):
    store = stores("g").bind(COUNTER)
    agents = [agent for found in agents_by_master(reader, b"toolguards:g.yaml:g:").values() for agent in found]
    results: dict[str, list[int]] = {agent: [] for agent in agents}

    def work() -> None:
        for _ in range(50):
            for agent in agents:
                results[agent].append(store.update(agent, increment))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {agent: sorted(counts) for agent, counts in results.items()} == {a: list(range(1, 201)) for a in agents}


def test_a_master_without_the_script_is_given_it_again(cluster, stores, reader):
    store = stores("g").bind(COUNTER)
    assert store.update("a", increment) == 1
    for master in cluster.masters:
        direct = master.client()
        direct.script_flush()
        direct.close()
    assert store.update("a", increment) == 2


def test_another_writer_is_seen_though_this_store_remembers_what_it_wrote(stores, reader):
    store = stores("g").bind(COUNTER)
    assert store.update("a", increment) == 1
    reader.set(b"toolguards:g.yaml:g:a", json.dumps({"kind": "counter", "version": 1, "state": 40}))
    assert store.update("a", increment) == 41
    reader.delete(b"toolguards:g.yaml:g:a")
    assert store.update("a", increment) == 1
    store.reset("a")
    assert reader.exists(b"toolguards:g.yaml:g:a") == 0


def test_a_node_named_down_at_start_is_no_matter_and_no_node_at_all_fails_open_then_connects(cluster, reader):
    stores = RedisClusterStores.from_url(f"redis+cluster://127.0.0.1:1,{cluster.nodes[2].name}")
    assert stores("g").bind(COUNTER).update("a", increment) == 1
    stores.close()

    replica = next(iter(cluster.replica_of.values()))
    replica.stop()
    alone = RedisClusterStores.from_url(f"redis+cluster://{replica.name}")
    store = alone("g").bind(COUNTER)
    with pytest.raises(StoreError) as first:
        store.update("a", increment)
    assert str(first.value).startswith(f"redis cluster at {replica.name}: no node answers (RedisClusterException: ")
    with pytest.raises(StoreError) as paused:
        store.update("a", increment)
    assert str(paused.value) == f"redis cluster at {replica.name} failed less than 1 s ago; not retried yet"
    since = replica.mark()
    replica.start()
    replica.wait_synced(since)
    assert alone.health() == f"redis cluster at {replica.name} (3 masters)"  # a good answer ends the pause
    assert store.update("a", increment) == 2
    alone.close()


def test_a_failover_keeps_the_other_masters_chains_and_loses_only_what_the_replica_had_not_received(cluster, reader):
    stores = RedisClusterStores.from_url(cluster.url, namespace="g.yaml")
    stores.retry_after = 30.0  # every pause below lasts the whole test, unless a good answer ends it
    store = stores("g").bind(COUNTER)
    spread = agents_by_master(reader, b"toolguards:g.yaml:g:")
    master = cluster.masters[0]
    replica = cluster.replica_of[master.name]
    lost, kept, other = spread[master.name][0], *(spread[m.name][0] for m in cluster.masters[1:])
    assert [store.update(lost, increment) for _ in range(3)] == [1, 2, 3]
    direct = master.client()
    assert direct.execute_command("WAIT", 1, 1000) == 1  # the replica has all three
    direct.close()
    # Cut the replica off as a slow link would: stopped, it reads nothing; once more is queued for it than its
    # socket holds and the limit allows, the master drops the link. The master still acknowledges every write.
    replica.pause()
    mark = master.mark()
    direct = master.client()
    direct.config_set("client-output-buffer-limit", "replica 1mb 1mb 0")
    filler = next(f"filler-{n}" for n in range(10_000) if reader.get_node_from_key(f"filler-{n}").name == master.name)
    direct.set(filler, b"x" * (32 << 20))
    direct.close()
    master.wait_for("for overcoming of output buffer limits", since=mark)
    assert [store.update(lost, increment) for _ in range(2)] == [4, 5]  # acknowledged, never sent to the replica

    since, seen = replica.mark(), cluster.masters[1].mark()
    master.kill()
    with pytest.raises(StoreError) as failed:
        store.update(lost, increment)
    assert str(failed.value).startswith(f"redis cluster at {stores.location}: the master {master.name}: "
                                        "ConnectionError: ")
    with pytest.raises(StoreError) as paused:
        store.update(lost, increment)
    assert str(paused.value) == (f"redis cluster at {stores.location}: the master {master.name} failed less than "
                                 "30 s ago; not retried yet")
    assert [store.update(kept, increment) for _ in range(3)] == [1, 2, 3]  # the other masters go on counting

    # With cluster-require-full-coverage yes, a cluster that has marked a master failed refuses every write until
    # a replica takes over: that pauses every master at once.
    survivors = [node for node in cluster.nodes if node not in (master, replica)]
    for node in survivors:
        direct = node.client()
        direct.config_set("cluster-require-full-coverage", "yes")
        if node in cluster.masters:
            # A node weighs its state again only when something changes: the others may have marked the master
            # failed already (a loaded machine is slow to get here), so have each master look again, as the
            # harmless CLUSTER SETSLOT <one of its slots> STABLE makes it do.
            mine = next(line for line in direct.execute_command("CLUSTER", "NODES").decode().splitlines()
                        if "myself" in line)
            direct.execute_command("CLUSTER", "SETSLOT", mine.split()[8].split("-")[0], "STABLE")
        direct.close()
    cluster.masters[1].wait_for("Cluster state changed: fail", since=seen)
    with pytest.raises(StoreError) as down:
        store.update(kept, increment)
    assert str(down.value) == f"redis cluster at {stores.location}: ClusterDownError: The cluster is down"
    with pytest.raises(StoreError) as all_paused:
        store.update(other, increment)
    assert str(all_paused.value) == f"redis cluster at {stores.location} failed less than 30 s ago; not retried yet"
    for node in survivors:
        direct = node.client()
        direct.config_set("cluster-require-full-coverage", "no")
        direct.close()

    replica.resume()
    cluster.failover_won(replica, since)
    for _ in range(100):  # the cluster's other nodes learn of the new master within moments
        try:
            assert stores.health() == f"redis cluster at {stores.location} (3 masters)"  # ends every pause
            break
        except StoreError:
            threading.Event().wait(0.05)
    # The two writes the replica never received are gone: the chain goes back to 3, never forward, never misread.
    assert store.update(lost, increment) == 4
    assert [store.update(agent, increment) for agent in (kept, other)] == [4, 1]
    stores.close()
    cluster.rejoin(master, replica)
