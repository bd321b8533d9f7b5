"""``toolguards mcp`` against a direct connection: what the proxy adds to each call of server-everything's ``echo``.

Two sessions of the official SDK's client are open side by side in one process, one straight to
``@modelcontextprotocol/server-everything`` over stdio, one through ``toolguards mcp -- <the same server>`` (the
shipped guard file, the memory store). Each round times a batch of ``echo`` calls on each, back to back, alternating
which goes first; every call has its own message, so none repeats and the guard runs the path most calls take (counted,
no reminder). The figures are the median over rounds of the time per call added by the proxy (target ≤ 2 ms) and,
beside it, the median ratio proxy ÷ direct (``timing.interleaved``). The clients run on an event loop in a thread of
their own (an anyio blocking portal), which adds the same hop to both sides.

    python benchmarks/bench_mcp.py [--rounds N] [--calls N]

server-everything comes from ``.ci/install-hosts`` (``$TOOLGUARDS_HOSTS_DIR``, by default
``~/.cache/toolguards/hosts``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
from pathlib import Path

import anyio
from anyio.abc import TaskStatus
from anyio.from_thread import start_blocking_portal
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import interleaved, timed

TARGET_MS = 2.0
HOSTS_DIR = Path(os.environ.get("TOOLGUARDS_HOSTS_DIR") or Path.home() / ".cache" / "toolguards" / "hosts")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--calls", type=int, default=50, help="echo calls per side in one round")
    options = parser.parse_args()
    server = HOSTS_DIR / "node_modules" / ".bin" / "mcp-server-everything"
    if not server.exists():
        print(f"bench_mcp: {server} is missing: run .ci/install-hosts", file=sys.stderr)
        return 1
    toolguards = str(Path(sys.executable).with_name("toolguards"))
    direct = StdioServerParameters(command=str(server), args=["stdio"])
    through = StdioServerParameters(command=toolguards, args=["mcp", "--", str(server), "stdio"])
    numbers = itertools.count()

    async def hold(*, task_status: TaskStatus[tuple[list[Client], anyio.Event]]) -> None:
        async with Client(direct, mode="legacy") as plain, Client(through, mode="legacy") as proxied:
            done = anyio.Event()
            task_status.started(([plain, proxied], done))
            await done.wait()

    with start_blocking_portal() as portal:
        held, (clients, done) = portal.start_task(hold)
        try:

            def batch(client: Client) -> None:
                for _ in range(options.calls):
                    portal.call(client.call_tool, "echo", {"message": f"call {next(numbers)}"})

            for client in clients:  # warm-up: both servers and the proxy past their first calls
                batch(client)
            added = []
            for number in range(options.rounds):
                order = clients if number % 2 == 0 else clients[::-1]
                times = {id(client): timed(lambda client=client: batch(client)) for client in order}
                added.append((times[id(clients[1])] - times[id(clients[0])]) / options.calls * 1000)
            ratio = interleaved(lambda: batch(clients[0]), lambda: batch(clients[1]), options.rounds)
        finally:
            portal.call(done.set)
            held.result()
    median = statistics.median(added)
    verdict = "PASS" if median <= TARGET_MS else "MISS"
    print(f"echo over stdio, {options.rounds} rounds of {options.calls} calls a side")
    print(f"  added per call by the proxy (median): {median:.3f} ms   target <= {TARGET_MS} ms   {verdict}")
    print(f"  proxy / direct, per round (median):   {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
