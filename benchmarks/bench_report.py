"""``toolguards report`` on a folder of sessions against ``toolguards replay --summary`` on the same sessions.

    python benchmarks/bench_report.py            # 500 sessions, 3 rounds: a few minutes on a 2-core machine
    python benchmarks/bench_report.py --quick    # 100 sessions, 1 round: a smoke test

Both commands run in this process on the folder, side by side, in rounds that alternate which goes first; the median
of the rounds' ratios is quoted (replay's text output goes to a null sink). They are measured twice: with their
default --jobs (one process per core, as a user runs them) and with --jobs 1. Then the page's size, and — where
Chromium is installed — how long the page takes to open in it, from the page's own navigation timing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from functools import partial
from pathlib import Path

from timing import interleaved
from workloads import write_events

from toolguards.cli import main as toolguards_main

RATIO_TARGET = 3.0  # report ÷ replay --summary
SIZE_TARGET = 5 * 1024 * 1024  # bytes, for 500 sessions
OPEN_TARGET = 1000.0  # ms


def write_sessions(folder: Path, count: int) -> list[str]:
    """``count`` session files of 100 to 700 lines (4 agents, step boundaries, now and then a loop), every tenth
    with a status poll whose answer changes every third call."""
    paths = []
    for number in range(count):
        path = folder / f"session-{number:04d}.jsonl"
        write_events(path, 100 + (number * 37) % 600, seed=number)
        if number % 10 == 0:
            with path.open("a", encoding="utf-8") as out:
                for i in range(9):
                    out.write(json.dumps({"type": "post-execute", "agent": "main", "tool": "job_status",
                                          "arguments": {"job": number}, "result": {"state": i // 3}}) + "\n")
        paths.append(str(path))
    return paths


def quiet(args: list[str]) -> None:
    with open(os.devnull, "w", encoding="utf-8") as null, contextlib.redirect_stdout(null), \
            contextlib.redirect_stderr(null):
        status = toolguards_main(args)
    if status != 0:
        raise AssertionError(f"toolguards {args[0]} exited with {status}")



def opening_ms(page: Path) -> float | None:
    """navigationStart → loadEventEnd of the page in headless Chromium (None where Chromium is absent)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from chromium import Browser, executable  # noqa: PLC0415 - the test suite's DevTools client, only when wanted

    if executable() is None:
        return None
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(Path(profile))
        try:
            browser.open(page.as_uri())
            browser.open(page.as_uri())  # the second opening: the browser itself is warm
            problems = browser.problems()
            if problems:
                raise AssertionError(f"the page logged problems: {problems}")
            return float(browser.evaluate(
                "(() => { const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd; })()"
            ))
        finally:
            browser.close()


def line(label: str, value: str, target: str, ok: bool | None) -> None:
    verdict = "" if ok is None else ("PASS" if ok else "MISS")
    print(f"  {label:<66} {value:>10}   target {target:<10} {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100 sessions and one round")
    args = parser.parse_args()
    count, rounds = (100, 1) if args.quick else (500, 3)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        sessions = folder / "sessions"
        sessions.mkdir()
        paths = write_sessions(sessions, count)
        lines = sum(1 for path in paths for _ in open(path, encoding="utf-8"))  # noqa: SIM115
        megabytes = sum(os.path.getsize(path) for path in paths) / 1e6
        page = folder / "report.html"
        print(f"toolguards report ÷ toolguards replay --summary — {count} sessions, {lines:,} lines, "
              f"{megabytes:.0f} MB")
        for jobs in ([], ["--jobs", "1"]):
            replay = ["replay", "--summary", *jobs, str(sessions)]
            report = ["report", "-o", str(page), *jobs, str(sessions)]
            ratio = interleaved(partial(quiet, replay), partial(quiet, report), rounds)
            label = "one process each" if jobs else "the folder, default --jobs"
            line(f"report ÷ replay --summary, {label} ({rounds} round{'s' if rounds > 1 else ''})", f"{ratio:.2f}x",
                 f"<= {RATIO_TARGET:.0f}x", ratio <= RATIO_TARGET)
        size = page.stat().st_size
        line(f"page size for {count} sessions", f"{size / 1024 / 1024:.2f} MB", "< 5 MB",
             size < SIZE_TARGET if count >= 500 else None)
        opening = opening_ms(page)
        if opening is None:
            print("  opening time: chromium is not installed")
        else:
            line("opening in headless Chromium (load event, ms; absolute)", f"{opening:.0f} ms", "<= 1000 ms",
                 opening <= OPEN_TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
