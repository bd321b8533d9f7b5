"""toolguards against the least an exact-match guard can do: each figure a ratio to a floor measured beside it.

    python benchmarks/bench_guard.py            # about a minute and a half
    python benchmarks/bench_guard.py --quick    # fewer rounds and a smaller replay input, for a smoke test

Times are never compared with numbers taken elsewhere: the floor and the subject run in the same process, in rounds
that alternate which of the two goes first, and the median of the rounds' ratios is quoted. See README.md here for
what each figure measures.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import gc
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import toolguards as tg
from toolguards.cli import main as toolguards_main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import interleaved  # beside this script, not a package
from workloads import SHAPES, write_events

#: engine.post_execute ÷ json.dumps, per argument shape (issue 6)
EVENT_TARGETS = {"small": 2.0, "floats": 2.0, "4k": 1.5, "256k": 1.2, "wide": 2.0,
                 "wide_lists": 2.0, "deep": 2.0, "objects": 2.0}  # the nested shapes: issue 26
TOOLS = {"small": "run_tests", "floats": "llm_call", "4k": "multi_edit", "256k": "write_file", "wide": "submit_form",
         "wide_lists": "fill_table", "deep": "write_config", "objects": "import_rows"}
MEMORY_TARGET = 256  # bytes per tracked agent
REPLAY_TARGET = 3.0  # replay ÷ json.loads
PEAK_TARGET = 1.2  # peak memory at 10x the input ÷ peak memory at 1x


def floor_dumps(arguments: Any) -> str:
    """The least an exact-match guard does per call: serialize the arguments once, keys sorted."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def floor_seconds(arguments: Any) -> float:
    """About how long the floor takes on these arguments (to size the batches)."""
    start = time.perf_counter()
    for _ in range(20):
        floor_dumps(arguments)
    return (time.perf_counter() - start) / 20



def verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "MISS"


def line(label: str, value: str, target: str, ok: str) -> None:
    print(f"  {label:<52} {value:>9}   target {target:<9} {ok}", flush=True)


# engine.post_execute per event


def per_event(name: str, stream: str, rounds: int, batch_seconds: float, call_ids: bool = False) -> float:
    """engine.post_execute ÷ json.dumps over the same prebuilt arguments; ``distinct``: four variants in turn (no
    call repeats, no reminder); ``repeated``: one call again and again (reminders at 3, 5 and 8, then silence: the
    warm-up round takes the chain past them)."""
    _, make = SHAPES[name]
    variants = [make(n) for n in range(4)]
    count = max(8, int(batch_seconds / min(map(floor_seconds, variants))))
    # Fresh objects for every call, as a host that parses each call's JSON would pass them.
    arguments = [copy.deepcopy(variants[i % 4 if stream == "distinct" else 0]) for i in range(count)]
    # With call ids, each round needs ids of its own: the same ids again would be ignored as re-deliveries.
    batches = [
        [
            tg.ToolEvent(tool=TOOLS[name], arguments=a, agent="agent-1", call_id=f"r{r}.{i}" if call_ids else None)
            for i, a in enumerate(arguments)
        ]
        for r in range(rounds + 1 if call_ids else 1)
    ]
    post = tg.load_default().post_execute
    dumps = json.dumps
    turn = itertools.count()

    def floor() -> None:
        for a in arguments:
            dumps(a, sort_keys=True, separators=(",", ":"), ensure_ascii=False)  # floor_dumps, without its frame

    def subject() -> None:
        for event in batches[next(turn) % len(batches)]:
            post(event)

    subject()  # warm-up: caches filled, the repeated chain past its last threshold
    return interleaved(floor, subject, rounds)


# Memory per tracked agent


class Agent:
    """A host's agent object: weakly referenced and keyed by identity, as the reference's WeakMap keys are."""


def memory_per_agent(kind: str, agents_count: int = 20_000) -> tuple[float, int]:
    """Bytes allocated (tracemalloc) per agent tracked, each agent's last call carrying 64 KB of arguments; and how
    many agents the store holds. The agents and the payload exist before tracing starts, so they are not counted."""
    stores: list[tg.MemoryStore[Any]] = []

    def store(_guard_id: str) -> tg.MemoryStore[Any]:
        stores.append(tg.MemoryStore(max_keyed_agents=agents_count))  # the default keeps 10,000 string ids
        return stores[-1]

    engine = tg.load_default(stores=store)
    payload = ("x = compute(y)  # 64 KB of arguments\n" * 2000)[: 64 * 1024]
    agents: list[Any] = [Agent() for _ in range(agents_count)] if kind == "object" else [
        f"agent-{n:05d}" for n in range(agents_count)
    ]
    engine.post_execute(tg.ToolEvent(tool="write_file", arguments={"path": "warm", "content": payload}, agent=Agent()))
    references = sys.getrefcount(payload)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n, agent in enumerate(agents):
            arguments = {"path": f"src/generated/file_{n}.py", "content": payload}
            engine.post_execute(tg.ToolEvent(tool="write_file", arguments=arguments, agent=agent))
        del arguments
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    if sys.getrefcount(payload) != references:
        raise AssertionError("the guard kept a reference to the arguments")
    return (after - before) / agents_count, len(stores[0])


# toolguards replay


def replay_cli(path: Path) -> None:
    with open(os.devnull, "w", encoding="utf-8") as null, contextlib.redirect_stdout(null), \
            contextlib.redirect_stderr(null):  # no progress bar either
        status = toolguards_main(["replay", "--format", "jsonl", str(path)])
    if status != 0:
        raise AssertionError(f"toolguards replay exited with {status}")


def loads_lines(path: Path) -> None:
    """The floor of replay: read the file's lines and json.loads each."""
    with path.open(encoding="utf-8") as lines:
        for text in lines:
            json.loads(text)


def replay_throughput(path: Path, rounds: int) -> tuple[float, float]:
    """toolguards replay --format jsonl (in process, output to a null sink) ÷ json.loads of every line of the file:
    the median ratio of wall times and, beside it, of this process's CPU times (which other jobs on a shared machine
    disturb less: a round takes seconds, and the subject's are the longer ones)."""
    walls, cpus = [], []
    for number in range(rounds):
        order = [lambda: loads_lines(path), lambda: replay_cli(path)]
        timed = {}
        for run in order if number % 2 == 0 else order[::-1]:
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            timed[run] = (time.perf_counter() - wall, time.process_time() - cpu)
        (floor_wall, floor_cpu), (subject_wall, subject_cpu) = timed[order[0]], timed[order[1]]
        walls.append(subject_wall / floor_wall)
        cpus.append(subject_cpu / floor_cpu)
    return statistics.median(walls), statistics.median(cpus)


def replay_stages(path: Path, rounds: int) -> dict[str, float]:
    """Where replay's time goes, each stage ÷ the floor: the stages run cumulatively (reading the lines; decoding them;
    the importer's records; the engine's outcomes; the whole command, which adds the JSON Lines output and loading the
    guard file), each interleaved with the floor, and a stage is the difference of two medians."""
    from toolguards.replay.feed import Outcome  # noqa: PLC0415 - replay's own stages
    from toolguards.replay.printing import jsonl_line  # noqa: PLC0415
    from toolguards.replay.session import Input, Reading, outcomes  # noqa: PLC0415

    engines = [tg.load_default()]
    agents: set[str] = set()

    def read() -> None:
        with path.open(encoding="utf-8") as lines:
            for _ in lines:
                pass

    def records() -> None:
        with Input(str(path), Reading("events")) as opened:
            for _ in opened.records():
                pass

    def engine() -> None:
        with Input(str(path), Reading("events")) as opened:
            for item in outcomes(opened, engines):
                agents.add(getattr(getattr(item, "record", item), "agent", None))
        for agent in agents - {None}:  # each round a session of its own, as replay resets between files
            engines[0].forget(agent)

    def output() -> None:
        with open(os.devnull, "w", encoding="utf-8") as null, Input(str(path), Reading("events")) as opened:
            write = null.write
            for item in outcomes(opened, engines):
                if type(item) is Outcome:
                    agents.add(item.record.agent)
                    write(jsonl_line(item))
        for agent in agents - {None}:
            engines[0].forget(agent)

    floor = lambda: loads_lines(path)  # noqa: E731
    cumulative = {name: interleaved(floor, run, rounds) for name, run in
                  (("read", read), ("records", records), ("engine", engine), ("output", output),
                   ("command", lambda: replay_cli(path)))}
    return {
        "read: the file's lines": cumulative["read"],
        "json.loads of each (the rest of the floor)": 1.0 - cumulative["read"],
        "import: the importer's records, beyond that": cumulative["records"] - 1.0,
        "engine: the guards' outcomes": cumulative["engine"] - cumulative["records"],
        "output: one JSON line per call": cumulative["output"] - cumulative["engine"],
        "the command: its setup, the guard file's load": cumulative["command"] - cumulative["output"],
    }


_PEAK_RSS = (
    "import resource, sys\n"
    "from toolguards.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(status)\n"
)


def peak_rss(path: Path) -> int:
    """Peak resident memory of a `toolguards replay --format jsonl` process (kB on Linux)."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS, "replay", "--format", "jsonl", str(path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True,
    )
    return int(done.stderr.strip().splitlines()[-1])


def peak_traced(path: Path) -> int:
    """Peak memory Python allocated (tracemalloc) while replaying ``path`` in process. Call it after a warm-up replay
    and with no gc.collect() between: CPython keeps freed small tuples, lists and dicts on free lists (up to 2,000
    tuples of each size) that fill as any long run goes on, and a full collection empties them; measured from empty,
    the peak would grow with the input by what the free lists hold, not by anything the replay keeps."""
    tracemalloc.start()
    try:
        replay_cli(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def head(source: Path, target: Path, lines: int) -> Path:
    with source.open(encoding="utf-8") as reader, target.open("w", encoding="utf-8") as writer:
        for _, text in zip(range(lines), reader, strict=False):
            writer.write(text)
    return target


def describe(path: Path, sample: Path) -> str:
    """Lines, mean line size, and the share of calls that draw a reminder (counted on ``sample``)."""
    with path.open(encoding="utf-8") as reader:
        lines = sum(1 for _ in reader)
    engine = tg.load_default()
    calls = reminders = 0
    with sample.open(encoding="utf-8") as reader:
        for text in reader:
            event = json.loads(text)
            if event["type"] == "pre-step":
                engine.pre_step(event["agent"], user_prompt=event["userPrompt"])
                continue
            calls += 1
            decision = engine.post_execute(
                tg.ToolEvent(event["tool"], event["arguments"], agent=event["agent"], call_id=event["callId"])
            )
            reminders += bool(decision.additional_contexts)
    mean = path.stat().st_size / lines / 1024
    return f"{lines:,} lines, mean {mean:.1f} KB, 4 agents, {100 * reminders / calls:.1f}% of calls remind"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and a smaller replay input")
    args = parser.parse_args()
    rounds, batch, replay_lines, replay_rounds = (7, 0.004, 20_000, 3) if args.quick else (21, 0.012, 200_000, 7)
    started = time.perf_counter()
    print(f"toolguards {tg.__version__} · Python {platform.python_version()} · {platform.machine()} · "
          f"{os.cpu_count()} CPUs · median of interleaved rounds")

    print(f"\nengine.post_execute per event ÷ json.dumps(args, sort_keys=True, separators=(',', ':'), "
          f"ensure_ascii=False) — {rounds} rounds")
    for name, (label, make) in SHAPES.items():
        size = len(floor_dumps(make(0)).encode())
        for stream in ("distinct", "repeated"):
            ratio = per_event(name, stream, rounds, batch)
            target = EVENT_TARGETS[name]
            line(f"{label} ({size:,} B), {stream}", f"{ratio:.2f}x", f"<= {target}x", verdict(ratio, target))
    ratio = per_event("small", "distinct", rounds, batch, call_ids=True)
    line("small arguments, distinct, with call ids", f"{ratio:.2f}x", "(info)", "")

    print("\nmemory per tracked agent — 20,000 agents, each last call 64 KB of arguments (tracemalloc)")
    for kind, label in (("object", "agent objects (weakly keyed)"), ("string", "string ids (keyed by value)")):
        per_agent, tracked = memory_per_agent(kind)
        line(f"{label}, {tracked:,} tracked", f"{per_agent:.0f} B", f"<= {MEMORY_TARGET} B",
             verdict(per_agent, MEMORY_TARGET))

    with tempfile.TemporaryDirectory(prefix="toolguards-bench-") as folder:
        big = Path(folder) / "events.jsonl"
        write_events(big, replay_lines)
        small = head(big, Path(folder) / "events-small.jsonl", replay_lines // 10)
        print(f"\ntoolguards replay --format jsonl ÷ json.loads of the same lines — {describe(big, small)}")
        ratio, cpu = replay_throughput(big, replay_rounds)
        line(f"throughput, {replay_lines:,} lines (CPU time: {cpu:.2f}x)", f"{ratio:.2f}x", f"<= {REPLAY_TARGET}x",
             verdict(ratio, REPLAY_TARGET))
        print(f"  stage split on {replay_lines // 10:,} lines, each ÷ json.loads of them ({replay_rounds} rounds; "
              "the stages add up to the command's ratio)")
        for stage, share in replay_stages(small, replay_rounds).items():
            line(f"  {stage}", f"{share:+.2f}x", "(info)", "")

        print("\nreplay peak memory at 10x the input ÷ at 1x")
        low, high = peak_rss(small), peak_rss(big)
        line(f"peak RSS, {replay_lines // 10:,} -> {replay_lines:,} lines (subprocesses)", f"{high / low:.2f}x",
             f"<= {PEAK_TARGET}x", verdict(high / low, PEAK_TARGET))
        tiny = head(big, Path(folder) / "events-tiny.jsonl", replay_lines // 40)
        mid = head(big, Path(folder) / "events-mid.jsonl", replay_lines // 4)
        replay_cli(mid)  # the warm-up: free lists filled (see peak_traced)
        low, high = peak_traced(tiny), peak_traced(mid)
        line(f"peak traced, {replay_lines // 40:,} -> {replay_lines // 4:,} lines (tracemalloc)", f"{high / low:.2f}x",
             f"<= {PEAK_TARGET}x", verdict(high / low, PEAK_TARGET))
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
