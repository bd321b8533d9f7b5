"""Four ``toolguards serve`` processes sharing a real Redis Cluster (three masters, one replica each): exact counts
under concurrency, and a master killed mid-run: every call still answered, the other masters' chains exact
throughout, one log line, and counting resumed by itself once its replica has taken over."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import FIRST, detailed
from support.redis_cluster import RedisCluster, need_cluster
from support.servers import Serve, call, start_all

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'toolguards[serve]')")
pytest.importorskip("redis", reason="the redis client is not installed (pip install 'toolguards[redis]')")

REPLICAS = 4
CLIENTS = 16
CALLS = 400
KEY = b"toolguards:repeat-tool-reminder.yaml:repeat-tool-reminder:"
#: Seconds the service may take to resume once the replica has won (its pause, then the client's new layout).
RESUME_WITHIN = 10.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    need_cluster()
    started = RedisCluster(tmp_path_factory.mktemp("cluster")).start()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def replicas(cluster):
    running = start_all(*(Serve("--store", cluster.url) for _ in range(REPLICAS)))
    yield running
    for server in running:
        server.stop()


@pytest.fixture
def reader(cluster):
    client = cluster.client()
    yield client
    client.close()


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


def agents_by_master(reader, per_master, tag):
    """``per_master`` agent ids whose keys fall on each master, by master."""
    found = {node.name: [] for node in reader.get_primaries()}
    number = 0
    while any(len(agents) < per_master for agents in found.values()):
        agent = f"{tag}-{number}"
        agents = found[reader.get_node_from_key(KEY + agent.encode()).name]
        if len(agents) < per_master:
            agents.append(agent)
        number += 1
    return found


def stored_count(reader, agent):
    return json.loads(reader.get(KEY + agent.encode()))["state"]["count"]


def test_the_service_names_the_cluster_and_its_health_pings_every_master(cluster, replicas):
    nodes = cluster.url.split("//", 1)[1]
    assert f"store: redis cluster at {nodes})" in replicas[0].lines[0]
    assert replicas[0].request("GET", "/healthz") == (
        200, f'{{"status":"ok","store":"redis cluster at {nodes} (3 masters)"}}'.encode())


def test_one_agent_over_four_replicas_gets_exactly_one_reminder_at_3_5_8(replicas):
    answers = spread(replicas, [call("solo")] * CALLS)
    contexts = [context for answer in answers for context in answer["contexts"]]
    assert counts(contexts) == {(3, "first"): 1, (5, "detailed"): 1, (8, "detailed"): 1}
    texts = {c["metadata"]["count"]: c["text"] for c in contexts}
    assert texts == {3: FIRST, 5: detailed("grep", 5, '{"q":"retry policy"}'),
                     8: detailed("grep", 8, '{"q":"retry policy"}')}


def test_agents_on_all_three_masters_at_once_each_get_exactly_one_reminder_at_3_5_8(replicas, reader):
    agents = [agent for found in agents_by_master(reader, 10, "many").values() for agent in found]
    batches = [[call(agent) for agent in agents] for _ in range(CALLS // 4)]
    answers = spread(replicas, batches)
    by_agent = {agent: Counter() for agent in agents}
    for batch in answers:
        for agent, answer in zip(agents, batch, strict=True):
            by_agent[agent] += counts(answer["contexts"])
    assert all(found == {(3, "first"): 1, (5, "detailed"): 1, (8, "detailed"): 1} for found in by_agent.values())
    assert {agent: stored_count(reader, agent) for agent in agents} == {agent: CALLS // 4 for agent in agents}


def test_a_master_killed_mid_run_fails_open_keeps_the_others_exact_and_resumes_by_itself(cluster, replicas, reader):
    spread_agents = agents_by_master(reader, 4, "failover")
    master = cluster.masters[0]
    replica = cluster.replica_of[master.name]
    on_lost = spread_agents[master.name]
    elsewhere = [agent for name, agents in spread_agents.items() if name != master.name for agent in agents]
    agents = on_lost + elsewhere
    rounds = {"sent": 0, "after": 0}
    stop = threading.Event()
    resumed = threading.Event()
    answers = []

    def one_round():
        # Each agent's calls go one at a time, in rounds; a round's calls are spread over every replica at once.
        batch = [call(agent) for agent in agents]
        with ThreadPoolExecutor(len(agents)) as pool:
            found = list(pool.map(lambda n: replicas[n % REPLICAS].post(batch[n]), range(len(agents))))
        answers.extend(zip(agents, found, strict=True))
        rounds["sent"] += 1
        if resumed.is_set():
            rounds["after"] += 1

    for _ in range(5):
        one_round()
    since = replica.mark()

    def drive():
        while not stop.is_set():
            one_round()

    driver = threading.Thread(target=drive)
    driver.start()
    try:
        master.kill()
        cluster.failover_won(replica, since)
        deadline = time.monotonic() + RESUME_WITHIN
        while not all(server.request("GET", "/healthz")[0] == 200 for server in replicas):
            assert time.monotonic() < deadline, "the service did not resume by itself"
            time.sleep(0.05)
        resumed.set()
        while rounds["after"] < 5:
            time.sleep(0.01)
    finally:
        stop.set()
        driver.join()

    # No error into the host: every call answered 200, an accept, with at most its reminder.
    assert len(answers) == rounds["sent"] * len(agents)
    assert all(answer["decision"] == "accept" and answer["feedback"] is None for _, answer in answers)
    reminded = {agent: Counter() for agent in agents}
    for agent, answer in answers:
        reminded[agent] += counts(answer["contexts"])
    # The other masters' agents were counted exactly, every call, all through the failover.
    assert {agent: stored_count(reader, agent) for agent in elsewhere} == {a: rounds["sent"] for a in elsewhere}
    assert all(reminded[agent] == {(3, "first"): 1, (5, "detailed"): 1, (8, "detailed"): 1} for agent in elsewhere)
    # The lost master's agents: calls answered without counting while it was down, never one counted twice, and
    # every call counted again once the replica had taken over.
    for agent in on_lost:
        assert rounds["after"] <= stored_count(reader, agent) < rounds["sent"]
    for server in replicas:
        logged = [line for line in server.lines if "answered without its reminders" in line]
        assert len(logged) == 1, logged  # one line per 10 s at most, and the failover took less than that
        assert logged[0].startswith(f"toolguards serve: repeat-tool-reminder failed, answered without its reminders: "
                                    f"redis cluster at {cluster.url.split('//', 1)[1]}: the master {master.name}: "
                                    "ConnectionError: ")
    cluster.rejoin(master, replica)
