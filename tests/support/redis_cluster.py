"""A real Redis Cluster for the tests: three masters with one replica each, from Debian's ``redis-server``.

``RedisCluster.start(folder)`` starts six ``redis-server --cluster-enabled yes`` nodes on free loopback ports (each
with its own cluster-bus port), joins them with ``redis-cli --cluster create … --cluster-replicas 1 --cluster-yes``
and waits until every replica has synced with its master and every node says the cluster is ok; ``stop()`` stops
them all. Each node's log is read as it is written, and every wait is for a line of it (no sleeps): a node being
ready, a replica synced, a failover won. A short ``cluster-node-timeout`` keeps a failover to about a second.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from conftest import require

READY_TIMEOUT = 30.0
#: Milliseconds a node may be unreachable before the others take it for failed (Redis's default is 15,000).
NODE_TIMEOUT_MS = 500
SYNCED = "MASTER <-> REPLICA sync: Finished with success"
PARTLY_SYNCED = "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization"


def need_cluster() -> tuple[str, str]:
    """redis-server and redis-cli; skip where they are absent (CI installs them, so there the test fails instead)."""
    server = require("redis-server", "the Redis Cluster tests run real servers", "redis-server")
    cli = require("redis-cli", "the Redis Cluster tests join the servers with redis-cli", "redis-tools")
    return server, cli


def free_ports(count: int) -> list[int]:
    """Distinct free loopback ports (all held open until every one is picked, so none is handed out twice)."""
    with ExitStack() as stack:
        probes = [stack.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in probes]


class Node:
    """One cluster node: a redis-server process whose log lines are kept and can be waited for."""

    def __init__(self, binary: str, folder: Path, port: int, bus_port: int) -> None:
        self.binary = binary
        self.folder = folder
        self.port = port
        self.bus_port = bus_port
        self.name = f"127.0.0.1:{port}"
        self.lines: list[str] = []
        self.process: subprocess.Popen[str] | None = None
        self._changed = threading.Condition()
        self._reader: threading.Thread | None = None
        folder.mkdir(parents=True, exist_ok=True)

    def start(self) -> Node:
        """Start the process (again, after a stop or a kill: it keeps its port and its nodes.conf)."""
        command = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--protected-mode", "yes",
                   "--cluster-enabled", "yes", "--cluster-port", str(self.bus_port),
                   "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
                   # the other masters go on serving their slots while one is down, and a replica always may take
                   # over, however long its link was down
                   "--cluster-require-full-coverage", "no", "--cluster-replica-validity-factor", "0",
                   # a replica's full sync starts at once, not after the 5 s Redis waits for more replicas to join
                   "--repl-diskless-sync-delay", "0",
                   "--save", "", "--appendonly", "no", "--dir", str(self.folder), "--daemonize", "no",
                   "--loglevel", "notice"]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self._reader = threading.Thread(target=self._read, args=(self.process,), daemon=True)
        self._reader.start()
        self.wait_for("Ready to accept connections", since=len(self.lines))
        return self

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def mark(self) -> int:
        """Where the log is now: wait_for(..., since=mark()) waits for a line written after this."""
        with self._changed:
            return len(self.lines)

    def wait_for(self, *texts: str, since: int = 0, timeout: float = READY_TIMEOUT) -> str:
        """The first log line from ``since`` on that holds one of ``texts``; RuntimeError with the log when none
        comes."""
        process = self.process
        with self._changed:
            def found() -> str | None:
                return next((line for line in self.lines[since:] if any(text in line for text in texts)), None)

            self._changed.wait_for(lambda: found() is not None or (process is not None and process.poll() is not None),
                                   timeout)
            line = found()
        if line is None:
            raise RuntimeError(f"redis node {self.name}: none of {texts!r} in its log:\n{''.join(self.lines[-40:])}")
        return line

    def wait_synced(self, since: int) -> None:
        """Wait until this replica has synced with its master (in full or in part) after ``since``."""
        self.wait_for(SYNCED, PARTLY_SYNCED, since=since)

    def kill(self) -> None:
        """SIGKILL, as a crash: nothing is flushed to its replica."""
        self._end(signal.SIGKILL)

    def pause(self) -> None:
        """SIGSTOP: the process stops answering (and receiving) until ``resume()``."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        self._end(signal.SIGTERM)

    def _end(self, how: signal.Signals) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)  # a paused process would not act on SIGTERM
            process.send_signal(how)
            process.wait(timeout=READY_TIMEOUT)
        if self._reader is not None:
            self._reader.join(timeout=READY_TIMEOUT)
        assert process.stdout is not None
        process.stdout.close()
        self.process = self._reader = None

    def client(self) -> Any:
        """A plain client of this one node."""
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port)


class RedisCluster:
    """Three masters with one replica each, on loopback; ``masters``/``replica_of`` after ``start()``."""

    def __init__(self, folder: Path) -> None:
        self.binary, self.cli = need_cluster()
        ports = free_ports(12)
        self.nodes = [Node(self.binary, folder / f"node-{n}", ports[n], ports[n + 6]) for n in range(6)]
        self.masters: list[Node] = []
        self.replica_of: dict[str, Node] = {}  # a master's name → its replica

    @property
    def url(self) -> str:
        """The store URL, naming two of the nodes."""
        return f"redis+cluster://{self.nodes[0].name},{self.nodes[1].name}"

    def start(self) -> RedisCluster:
        try:
            for node in self.nodes:
                node.start()
            marks = [node.mark() for node in self.nodes]
            create = subprocess.run([self.cli, "--cluster", "create", *(node.name for node in self.nodes),
                                     "--cluster-replicas", "1", "--cluster-yes"],
                                    capture_output=True, text=True, timeout=READY_TIMEOUT, check=False)
            if create.returncode != 0 or "[OK] All 16384 slots covered." not in create.stdout:
                raise RuntimeError(f"redis-cli --cluster create failed:\n{create.stdout}{create.stderr}")
            for node, mark in zip(self.nodes, marks, strict=True):
                node.wait_for("Cluster state changed: ok", since=mark)
            self._layout()
            for replica in self.replica_of.values():
                replica.wait_synced(since=0)
        except BaseException:
            self.stop()
            raise
        return self

    def _layout(self) -> None:
        """Which nodes are masters, and the replica of each, as the cluster says."""
        client = self.nodes[0].client()
        try:
            listing = client.execute_command("CLUSTER NODES")  # parsed: address → {"node_id", "flags", "master_id", …}
        finally:
            client.close()
        names = {node.name: node for node in self.nodes}
        by_id = {facts["node_id"]: names[address] for address, facts in listing.items()}
        self.masters = [names[address] for address, facts in listing.items() if "master" in facts["flags"]]
        self.replica_of = {by_id[facts["master_id"]].name: names[address]
                           for address, facts in listing.items() if "slave" in facts["flags"]}

    def failover_won(self, replica: Node, since: int) -> None:
        """Wait until ``replica`` has won the election that makes it a master."""
        replica.wait_for("Failover election won", since=since)

    def rejoin(self, node: Node, master: Node) -> None:
        """Start a killed node again and wait until it has synced as the replica of ``master`` (its old replica)."""
        since = node.mark()
        node.start()
        node.wait_synced(since=since)
        self.masters = [master if m is node else m for m in self.masters]
        self.replica_of.pop(node.name, None)
        self.replica_of[master.name] = node

    def client(self) -> Any:
        """A cluster client (redis-py's), for reading what the store wrote."""
        from redis.cluster import ClusterNode
        from redis.cluster import RedisCluster as Client

        return Client(startup_nodes=[ClusterNode("127.0.0.1", node.port) for node in self.nodes])

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()  # nothing here is kept, and a master told to stop would wait for its replica

