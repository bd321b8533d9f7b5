"""``toolguards replay --jobs 2`` ÷ ``--jobs 1``: a folder of 200 generated sessions replayed in two processes
against one, wall time.

    python benchmarks/bench_replay.py            # about a minute on a 2-core machine
    python benchmarks/bench_replay.py --quick    # 40 smaller sessions, for a smoke test

Both runs are the command in this process (its workers forked from it), output to a null sink, in rounds that
alternate which goes first; the median of the rounds' ratios is quoted. The two outputs are checked to be the same.
On a machine with fewer than two free cores the ratio says so, not the code.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import toolguards as tg
from toolguards.cli import main as toolguards_main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import write_sessions  # beside this script, not a package

TARGET = 0.6  # --jobs 2 ÷ --jobs 1 on 2 cores


def replay(folder: Path, jobs: int) -> tuple[float, str]:
    """Wall time of one folder replay with ``jobs`` processes, and what it printed."""
    out = io.StringIO()
    with open(os.devnull, "w", encoding="utf-8") as null, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(null):
        start = time.perf_counter()
        status = toolguards_main(["replay", "--jobs", str(jobs), str(folder)])
        elapsed = time.perf_counter() - start
    if status != 0:
        raise AssertionError(f"toolguards replay --jobs {jobs} exited with {status}")
    return elapsed, out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 smaller sessions and fewer rounds")
    args = parser.parse_args()
    sessions, calls, rounds = (40, 200, 3) if args.quick else (200, 500, 5)
    print(f"toolguards {tg.__version__} · Python {platform.python_version()} · {platform.machine()} · "
          f"{os.cpu_count()} CPUs · median of interleaved rounds")
    with tempfile.TemporaryDirectory(prefix="toolguards-bench-") as name:
        folder = Path(name)
        write_sessions(folder, sessions, calls)
        size = sum(path.stat().st_size for path in folder.rglob("*.jsonl")) / 1024 / 1024
        print(f"\ntoolguards replay --jobs 2 ÷ --jobs 1 — {sessions} sessions of about {calls:,} calls "
              f"(half Claude Code transcripts, half events files), {size:.0f} MB")
        replay(folder, 1)  # warm-up: imports, the page cache
        ratios = []
        for number in range(rounds):
            order = (1, 2) if number % 2 == 0 else (2, 1)
            times, outputs = {}, {}
            for jobs in order:
                times[jobs], outputs[jobs] = replay(folder, jobs)
            if outputs[1] != outputs[2]:
                raise AssertionError("--jobs 2 printed something else than --jobs 1")
            ratios.append(times[2] / times[1])
            print(f"  round {number + 1}: --jobs 1 {times[1]:.2f} s, --jobs 2 {times[2]:.2f} s")
        ratio = statistics.median(ratios)
        verdict = "PASS" if ratio <= TARGET else "MISS"
        print(f"{'wall time, --jobs 2 ÷ --jobs 1':<60} {ratio:>7.2f}x  <= {TARGET}x  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
