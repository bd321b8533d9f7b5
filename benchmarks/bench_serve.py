"""toolguards serve against its floors: each figure a ratio to a floor measured beside it, in one run.

    python benchmarks/bench_serve.py            # about two minutes
    python benchmarks/bench_serve.py --quick    # fewer rounds, for a smoke test

Needs the serve and redis extras (``pip install -e '.[serve,redis]'``) and ``redis-server`` on the PATH; it starts
a throwaway redis-server and ``toolguards serve`` processes on free loopback ports and stops them at the end. The
subject and its floor run back to back from the same client, in rounds that alternate which goes first; the median
of the rounds' ratios is quoted. See README.md here for what each figure measures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import redis
from timing import interleaved, side_by_side  # beside this script, not a package

import toolguards as tg
from toolguards.stores.redis import RedisStore, RedisStores

EVENTS_TARGET = 1.5  # POST /v1/events (memory) ÷ POST /v1/noop
REDIS_TARGET = 3.0  # POST /v1/events (redis) ÷ a bare GET + SET
BATCH = 50  # events per request in the batched line

ARGUMENTS = [{"command": f"pytest tests/test_pricing.py -q -k case_{n}", "timeout": 120} for n in range(4)]


def event(number: int, agent: str = "bench") -> bytes:
    """A post-execute event; four variants in turn, so that no run reaches a threshold and every call is counted."""
    return json.dumps({"type": "post-execute", "agent": agent, "tool": "run_tests",
                       "arguments": ARGUMENTS[number % 4]}).encode()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_redis(folder: str) -> tuple[subprocess.Popen[str], int]:
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("bench_serve: redis-server is not on the PATH (Debian: apt-get install redis-server)")
    port = free_port()
    process = subprocess.Popen([binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly",
                                "no", "--dir", folder, "--loglevel", "notice"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if "Ready to accept connections" in line:
            return process, port
    sys.exit("bench_serve: redis-server did not start")


def start_serve(*arguments: str) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([sys.executable, "-m", "toolguards", "serve", "--port", "0", *arguments],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    if not line.startswith("toolguards serve: listening on http://127.0.0.1:"):
        sys.exit(f"bench_serve: toolguards serve did not start: {line}{process.stderr.read()}")
    return process, int(line.split("127.0.0.1:", 1)[1].split(" ", 1)[0])


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(timeout=30)


class NoDelay(http.client.HTTPConnection):
    """http.client sends a request's head and body in two writes: without TCP_NODELAY, Nagle's algorithm would hold
    the body back for the server's delayed acknowledgement. Every real client (curl, Node's fetch) sets it."""

    def connect(self) -> None:
        super().connect()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Client:
    """One keep-alive connection to a server."""

    def __init__(self, port: int) -> None:
        self.connection = NoDelay("127.0.0.1", port)
        self.headers = {"Content-Type": "application/json"}

    def post(self, path: str, body: bytes) -> bytes:
        try:
            self.connection.request("POST", path, body, self.headers)
            response = self.connection.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # The server closes a connection idle for 5 s (uvicorn's keep-alive timeout): open a new one.
            self.connection.close()
            self.connection.request("POST", path, body, self.headers)
            response = self.connection.getresponse()
        answer = response.read()
        if response.status != 200:
            raise RuntimeError(f"{path}: {response.status} {answer!r}")
        return answer



def line(label: str, value: float, target: float | None = None) -> None:
    verdict = "" if target is None else f"target ≤ {target:.1f}×  {'PASS' if value <= target else 'MISS'}"
    print(f"  {label:<66} {value:>6.2f}×   {verdict}", flush=True)


def requests(client: Client, path: str, bodies: list[bytes]) -> Callable[[], None]:
    def run() -> None:
        for body in bodies:
            client.post(path, body)

    return run


def get_set(client: redis.Redis, count: int) -> Callable[[], None]:
    def run() -> None:
        for number in range(count):
            key = f"bench:floor:{number % 4}"
            client.get(key)
            client.set(key, b'{"kind":"repeat-tool-reminder","version":1,"state":{"digest":1,"count":1}}')

    return run


# ---------------------------------------------------------------- throughput: many client processes, 1 or 4 servers


def _hammer(port: int, seconds: float, start: Any, results: Any, agent: str) -> None:
    # A raw keep-alive socket, not http.client: the clients share the cores with the servers, so the less a client
    # spends per request, the more of the machine the servers get.
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    wire = [b"POST /v1/events HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"\r\n%s" % (len(body), body) for body in (event(n, agent) for n in range(4))]
    start.wait()
    done = 0
    pending = b""
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        sock.sendall(wire[done % 4])
        while b"\r\n\r\n" not in pending:
            pending += sock.recv(65536)
        head, _, pending = pending.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head.decode())
        length = int(head.lower().split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
        while len(pending) < length:
            pending += sock.recv(65536)
        pending = pending[length:]
        done += 1
    sock.close()
    results.put(done)


def throughput(ports: list[int], clients: int, seconds: float) -> float:
    """Events per second answered by these servers, ``clients`` client processes spread over them."""
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    results = context.Queue()
    workers = [context.Process(target=_hammer, args=(ports[n % len(ports)], seconds, start, results, f"t{n}"))
               for n in range(clients)]
    for worker in workers:
        worker.start()
    time.sleep(1.0)  # let the spawned clients import and connect before the clock starts
    start.set()
    total = sum(results.get(timeout=seconds + 60) for _ in workers)
    for worker in workers:
        worker.join(timeout=30)
    return total / seconds


# ---------------------------------------------------------------- the atomic update: compare-and-set or WATCH/MULTI


class Count:
    name = "count"
    version = 1

    def to_json(self, state: int) -> int:
        return state

    def from_json(self, data: Any) -> int:
        return int(data)


def increment(state: int | None) -> tuple[int, int]:
    return (state or 0) + 1, (state or 0) + 1


class WatchStore(RedisStore):
    """The alternative measured against the store's script: optimistic WATCH, GET, MULTI/SET/EXEC, again on a race."""

    def update(self, agent: Any, step: Any) -> Any:
        key = self._prefix + agent.encode()
        with self.stores.client.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(key)
                    old = pipe.get(key)
                    new_state, result = step(self._envelopes.loads(old) if old else None)
                    pipe.multi()
                    pipe.set(key, self._envelopes.dumps(new_state), ex=self.stores.idle_ttl)
                    pipe.execute()
                    return result
                except redis.WatchError:
                    continue


def _store(url: str, kind: str) -> RedisStore:
    stores = RedisStores.from_url(url, namespace="bench")
    if kind == "watch":
        return WatchStore(stores, "g", Count())
    if kind == "script, nothing remembered":
        stores.cache_size = 0
    return RedisStore(stores, "g", Count())


def _contender(url: str, tasks: Any, barrier: Any, results: Any) -> None:
    stores = {kind: _store(url, kind) for kind in KINDS}
    while True:
        task = tasks.get()
        if task is None:
            return
        kind, count = task
        store = stores[kind]
        barrier.wait()
        begun = time.perf_counter()
        counted = [store.update("contended", increment) for _ in range(count)]
        results.put((time.perf_counter() - begun, counted))


KINDS = ("script", "script, nothing remembered", "watch")


class Contenders:
    """Worker processes that update one agent at once, each run started by a barrier; kept alive between runs."""

    def __init__(self, url: str, processes: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.url = url
        self.barrier = context.Barrier(processes)
        self.results = context.Queue()
        self.tasks = [context.Queue() for _ in range(processes)]
        self.workers = [context.Process(target=_contender, args=(url, tasks, self.barrier, self.results))
                        for tasks in self.tasks]
        for worker in self.workers:
            worker.start()

    def run(self, kind: str, count: int) -> float:
        """Seconds per update (the slowest worker's); checks that no count was lost or doubled."""
        _store(self.url, kind).reset("contended")
        for tasks in self.tasks:
            tasks.put((kind, count))
        outcomes = [self.results.get(timeout=300) for _ in self.tasks]
        counted = sorted(n for _, part in outcomes for n in part)
        if counted != list(range(1, len(self.tasks) * count + 1)):
            raise RuntimeError(f"{kind}: counts were lost or doubled")
        return max(seconds for seconds, _ in outcomes) / (len(self.tasks) * count)

    def close(self) -> None:
        for tasks in self.tasks:
            tasks.put(None)
        for worker in self.workers:
            worker.join(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and shorter runs")
    args = parser.parse_args()
    rounds, count, seconds = (5, 200, 2.0) if args.quick else (15, 600, 5.0)
    started = time.perf_counter()
    print(f"toolguards {tg.__version__} · Python {platform.python_version()} · {platform.machine()} · "
          f"{os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        redis_process, redis_port = start_redis(folder)
        url = f"redis://127.0.0.1:{redis_port}/0"
        servers = []
        try:
            memory_server, memory_port = start_serve("--store", "memory")
            redis_server, redis_server_port = start_serve("--store", url)
            servers += [memory_server, redis_server]
            bodies = [event(n) for n in range(count)]
            batch = [b"[" + b",".join(event(n + i, f"b{i}") for i in range(BATCH)) + b"]" for n in range(count // 10)]
            memory, over_redis = Client(memory_port), Client(redis_server_port)
            bare = redis.Redis(host="127.0.0.1", port=redis_port)
            for client in (memory, over_redis):  # warm up: connections, first states
                requests(client, "/v1/events", bodies[:50])()
                requests(client, "/v1/noop", bodies[:50])()

            print(f"\nper event, one event per request ({count} requests a round, {rounds} rounds)", flush=True)
            line("POST /v1/events, memory store ÷ POST /v1/noop, same server",
                 interleaved(requests(memory, "/v1/noop", bodies), requests(memory, "/v1/events", bodies), rounds),
                 EVENTS_TARGET)
            stages = side_by_side(get_set(bare, count), {
                "events": requests(over_redis, "/v1/events", bodies),
                "noop": requests(over_redis, "/v1/noop", bodies),
                "memory events": requests(memory, "/v1/events", bodies),
                "memory noop": requests(memory, "/v1/noop", bodies),
            }, rounds)
            line("POST /v1/events, redis store ÷ a bare Redis GET + SET, same client", stages["events"], REDIS_TARGET)
            http, guard = stages["noop"], stages["memory events"] - stages["memory noop"]
            print(f"    = HTTP {http:.2f} + guard {guard:.2f} + Redis {stages['events'] - http - guard:.2f}   (HTTP: "
                  "POST /v1/noop; guard: /v1/events − /v1/noop, memory store; Redis: the rest)", flush=True)
            line(f"  batched: POST /v1/events of {BATCH} events, redis store, per event ÷ GET + SET",
                 interleaved(get_set(bare, len(batch) * BATCH), requests(over_redis, "/v1/events", batch), rounds))

            print("\natomic update, per update, in one process ÷ the store's compare-and-set script", flush=True)
            script = _store(url, "script")
            for kind in ("script, nothing remembered", "watch"):
                other = _store(url, kind)
                line(f"{'WATCH/GET/MULTI/SET/EXEC' if kind == 'watch' else kind}, one process",
                     interleaved(lambda: [script.update("seq", increment) for _ in range(count)],
                                 lambda other=other: [other.update("seq", increment) for _ in range(count)], rounds))
            contenders = Contenders(url, 4)
            try:
                contenders.run("script", 50)  # warm up: imports, connections, the script loaded
                for kind in ("script, nothing remembered", "watch"):
                    label = "WATCH/GET/MULTI/SET/EXEC" if kind == "watch" else kind
                    ratios = []
                    for number in range(max(3, rounds // 3)):
                        first, second = ("script", kind) if number % 2 == 0 else (kind, "script")
                        times = {first: contenders.run(first, count // 2)}
                        times[second] = contenders.run(second, count // 2)
                        ratios.append(times[kind] / times["script"])
                    line(f"{label}, 4 processes on one agent", statistics.median(ratios))
            finally:
                contenders.close()
            stop(memory_server)
            stop(redis_server)
            servers.clear()

            print(f"\nthroughput, redis store, 8 client processes, {seconds:g} s a run, 3 runs each", flush=True)
            ratios = []
            for _ in range(3):
                one = [start_serve("--store", url)]
                servers += [process for process, _ in one]
                single = throughput([port for _, port in one], 8, seconds)
                for process, _ in one:
                    stop(process)
                servers.clear()
                four = [start_serve("--store", url) for _ in range(4)]
                servers += [process for process, _ in four]
                quadruple = throughput([port for _, port in four], 8, seconds)
                for process, _ in four:
                    stop(process)
                servers.clear()
                print(f"    1 process {single:,.0f} events/s, 4 processes {quadruple:,.0f} events/s", flush=True)
                ratios.append(quadruple / single)
            line(f"4 serve processes ÷ 1 on {os.cpu_count()} cores", statistics.median(ratios))
        finally:
            for process in servers:
                stop(process)
            stop(redis_process)
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
