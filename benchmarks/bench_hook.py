"""A hook process against a bare interpreter: what ``toolguards hook claude`` costs a host on every tool call.

Hosts start the hook once per event and wait for it, so the figure that matters is a whole process's wall time. The
floor is a process of the same interpreter that imports what any hook in Python needs (``import json, sqlite3``):

- a counted ``PostToolUse`` (a new call each time, so no reminder is rendered) ÷ the floor: target ≤ 2.0×;
- an ignored event (``PreToolUse``) ÷ the floor: target ≤ 1.3×;
- for information, a counted call that renders a reminder (Jinja2 is imported and compiles its template).

The three kinds of process run interleaved, 30 times each after a warm-up (which also writes the compiled guard-file
cache and the bytecode), and the medians are compared. The hook is the installed ``toolguards`` script beside this
interpreter, with its state in a temporary cache folder (``XDG_CACHE_HOME``), as a host would run it.

    python benchmarks/bench_hook.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 30


def event(name: str, call_id: str, command: str) -> bytes:
    found = {
        "session_id": "bench-session",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "List files"},
        "tool_use_id": call_id,
    }
    if name == "PostToolUse":
        found["tool_response"] = {"stdout": "total 0", "stderr": "", "interrupted": False, "isImage": False}
    return json.dumps(found).encode("utf-8")


def timed(args: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(args, input=stdin, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{args} failed: {done.returncode} {done.stderr.decode(errors='replace')}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    runs = parser.parse_args().runs
    script = Path(sys.executable).parent / ("toolguards.exe" if os.name == "nt" else "toolguards")
    if not script.is_file():
        raise SystemExit(f"no installed toolguards script at {script}: pip install -e . first")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        hook = [str(script), "hook", "claude"]
        floor = [sys.executable, "-c", "import json, sqlite3"]
        counter = iter(range(10**9))

        def counted() -> float:
            n = next(counter)
            return timed(hook, event("PostToolUse", f"c{n}", f"ls -la dir{n}"), env)

        def reminded() -> float:
            n = next(counter)
            for i in range(2):  # two more identical calls, so that this one is the third: a reminder
                timed(hook, event("PostToolUse", f"r{n}.{i}", f"cat file{n}"), env)
            return timed(hook, event("PostToolUse", f"r{n}.2", f"cat file{n}"), env)

        def ignored() -> float:
            return timed(hook, event("PreToolUse", "p", "ls"), env)

        def bare() -> float:
            return timed(floor, b"", env)

        cases = {"bare": bare, "counted": counted, "ignored": ignored, "reminded": reminded}
        for case in cases.values():  # warm-up: bytecode, the compiled guard file, the state file
            case()
            case()
        times: dict[str, list[float]] = {name: [] for name in cases}
        for run in range(runs):
            names = list(cases)
            names = names[run % len(names):] + names[:run % len(names)]  # rotate, so no case always runs first
            for name in names:
                times[name].append(cases[name]())
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    base = medians["bare"]
    print(f"median of {runs} runs each, Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"  bare interpreter (import json, sqlite3)   {base:7.1f} ms")
    for name, label, target in (
        ("counted", "hook claude, counted PostToolUse", 2.0),
        ("ignored", "hook claude, ignored PreToolUse", 1.3),
        ("reminded", "hook claude, PostToolUse + reminder", None),
    ):
        ratio = medians[name] / base
        verdict = "" if target is None else f"  target <= {target:.1f}x: {'met' if ratio <= target else 'MISSED'}"
        print(f"  {label:40s} {medians[name]:7.1f} ms  {ratio:5.2f}x{verdict}")


if __name__ == "__main__":
    main()
