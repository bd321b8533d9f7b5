"""A hook process against a bare interpreter: what ``toolguards hook claude`` costs a host on every tool call.

Hosts start the hook once per event and wait for it, so the figure that matters is a whole process's wall time. The
floor is a process of the same interpreter that imports what any hook in Python needs (``import json, sqlite3``):

- a counted ``PostToolUse`` (a new call each time, so no reminder is rendered) ÷ the floor: target ≤ 2.0×;
- an ignored event (``PreToolUse``) ÷ the floor: target ≤ 1.3×;
- the command hook that starts no Python (``hook install codex --http URL``: ``curl`` posting the event to a running
  ``toolguards serve``, run through ``/bin/sh -c`` as the hosts run it), a counted ``PostToolUse`` ÷ the floor: target
  ≤ 0.5×; for information, the same command with the service down (it must print nothing and exit 0);
- for information, a counted call that renders a reminder (Jinja2 is imported and compiles its template), and a
  process that imports only the standard-library modules a counted call still imports beyond the floor (typing, which
  the public ``Protocol`` interfaces need, contextlib, bisect, importlib): the floor of a counted call while those
  modules import them. (dataclasses is never imported: the values are ``toolguards.values``'; logging only for a
  warning, threading not at all.)

The kinds of process run interleaved, 30 times each after a warm-up (which also writes the compiled guard-file cache,
and the bytecode: ``PYTHONDONTWRITEBYTECODE`` is dropped for the children, since an installed wheel has its bytecode),
and the medians are compared: wall time (what a host waits for) and, beside it, CPU time (user + system, steadier on a
busy machine; for the curl hook, that of its own processes: the service's share is in the wall time only). The hook
is the installed ``toolguards`` script beside this interpreter, with its state in a temporary
cache folder (``XDG_CACHE_HOME``), as a host would run it. The service is ``python -m toolguards serve`` of this
interpreter on a free loopback port, started before the runs and stopped after them (the curl cases are left out,
with the reason, where the ``serve`` extra or curl is missing). ``--baseline SCRIPT`` adds another installation's
``toolguards`` (a checkout of the code before a change, in its own virtualenv) to the same interleaved runs: its counted
and ignored events, for a before and after measured side by side.

    python benchmarks/bench_hook.py [--runs N] [--baseline OTHER/.venv/bin/toolguards]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import resource
except ImportError:  # not on Windows: CPU times are left out there
    resource = None  # type: ignore[assignment]

RUNS = 30
#: The standard-library modules that a counted call imports (toolguards' engine, events, guards and SQLite store):
#: the test ``test_a_counted_event_imports_no_loader_schema_templates_or_plugins`` keeps the others out.
ENGINE_STDLIB = "import json, sqlite3, typing, contextlib, bisect, importlib"


def event(name: str, call_id: str, command: str) -> bytes:
    found = {
        "session_id": "bench-session",
        "transcript_path": "/home/u/.claude/projects/p/bench-session.jsonl",
        "cwd": "/home/u/p",
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "List files"},
        "tool_use_id": call_id,
    }
    if name == "PostToolUse":
        found["tool_response"] = {"stdout": "total 0", "stderr": "", "interrupted": False, "isImage": False}
    return json.dumps(found).encode("utf-8")


def free_port() -> int:
    import socket  # noqa: PLC0415

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def timed(args: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """The wall and CPU seconds of one process (CPU: NaN where it cannot be measured)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN) if resource else None
    start = time.perf_counter()
    done = subprocess.run(args, input=stdin, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{args} failed: {done.returncode} {done.stderr.decode(errors='replace')}")
    if before is None:
        return elapsed, float("nan")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@contextlib.contextmanager
def served(env: dict[str, str]) -> Iterator[int | str]:
    """A ``toolguards serve`` on a free loopback port: its port, or why there is none."""
    if shutil.which("curl") is None:
        yield "curl is not on the PATH"
        return
    if importlib.util.find_spec("toolguards.hooks.curl") is None:
        yield "this toolguards has no curl hook (toolguards.hooks.curl)"
        return
    process = subprocess.Popen([sys.executable, "-m", "toolguards", "serve", "--port", "0"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**env, "PYTHONUNBUFFERED": "1"})
    assert process.stderr is not None
    seen = []
    try:
        for text in process.stderr:
            seen.append(text)
            if text.startswith("toolguards serve: listening on http://127.0.0.1:"):
                threading.Thread(target=process.stderr.read, daemon=True).start()  # keep the pipe drained
                yield int(text.split("127.0.0.1:", 1)[1].split(" ", 1)[0])
                return
        yield f"toolguards serve did not start (pip install -e '.[serve]' installs it): {''.join(seen).strip()}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--baseline", metavar="SCRIPT", type=Path,
                        help="another installation's toolguards script (a checkout of the code before a change): its "
                             "counted and ignored events run interleaved with the rest, for a before/after in one run")
    options = parser.parse_args()
    runs = options.runs
    script = Path(sys.executable).parent / ("toolguards.exe" if os.name == "nt" else "toolguards")
    if not script.is_file():
        raise SystemExit(f"no installed toolguards script at {script}: pip install -e . first")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as cache, served(env) as port:
        env["XDG_CACHE_HOME"] = cache
        hook = [str(script), "hook", "claude"]
        floor = [sys.executable, "-c", "import json, sqlite3"]
        counter = iter(range(10**9))

        def counted() -> tuple[float, float]:
            n = next(counter)
            return timed(hook, event("PostToolUse", f"c{n}", f"ls -la dir{n}"), env)

        def reminded() -> tuple[float, float]:
            n = next(counter)
            for i in range(2):  # two more identical calls, so that this one is the third: a reminder
                timed(hook, event("PostToolUse", f"r{n}.{i}", f"cat file{n}"), env)
            return timed(hook, event("PostToolUse", f"r{n}.2", f"cat file{n}"), env)

        def ignored() -> tuple[float, float]:
            return timed(hook, event("PreToolUse", "p", "ls"), env)

        def bare() -> tuple[float, float]:
            return timed(floor, b"", env)

        def stdlib() -> tuple[float, float]:
            return timed([sys.executable, "-c", ENGINE_STDLIB], b"", env)

        cases = {"bare": bare, "counted": counted, "ignored": ignored, "reminded": reminded, "stdlib": stdlib}
        if options.baseline is not None:
            base_env = {**env, "XDG_CACHE_HOME": os.path.join(cache, "baseline")}
            base_hook = [str(options.baseline), "hook", "claude"]

            def base_counted() -> tuple[float, float]:
                n = next(counter)
                return timed(base_hook, event("PostToolUse", f"b{n}", f"ls -la base{n}"), base_env)

            def base_ignored() -> tuple[float, float]:
                return timed(base_hook, event("PreToolUse", "p", "ls"), base_env)

            cases |= {"base_counted": base_counted, "base_ignored": base_ignored}
        if isinstance(port, int):
            from toolguards.hooks import curl  # noqa: PLC0415 - absent from a toolguards before it (see served)

            program = str(shutil.which("curl"))
            relay = curl.command(program, f"http://127.0.0.1:{port}/hooks/codex")
            down = curl.command(program, f"http://127.0.0.1:{free_port()}/hooks/codex")

            def relayed() -> tuple[float, float]:
                n = next(counter)
                return timed(["/bin/sh", "-c", relay], event("PostToolUse", f"h{n}", f"ls -la web{n}"), env)

            def relayed_down() -> tuple[float, float]:
                return timed(["/bin/sh", "-c", down], event("PostToolUse", "d", "ls"), env)

            cases |= {"curl": relayed, "curl_down": relayed_down}
        for case in cases.values():  # warm-up: bytecode, the compiled guard file, the state file
            case()
            case()
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for run in range(runs):
            names = list(cases)
            names = names[run % len(names):] + names[:run % len(names)]  # rotate, so no case always runs first
            for name in names:
                times[name].append(cases[name]())
    wall = {name: statistics.median(w for w, _ in values) * 1000 for name, values in times.items()}
    cpu = {name: statistics.median(c for _, c in values) * 1000 for name, values in times.items()}
    print(f"median of {runs} runs each, Python {sys.version.split()[0]}, {os.cpu_count()} cores   wall (CPU)")
    rows: list[tuple[str, str, float | None]] = [
        ("counted", "hook claude, counted PostToolUse", 2.0),
        ("ignored", "hook claude, ignored PreToolUse", 1.3),
        ("reminded", "hook claude, PostToolUse + reminder", None),
        ("stdlib", "bare + the engine's stdlib imports", None),
        ("curl", "curl hook codex, counted (serve)", 0.5),
        ("curl_down", "curl hook codex, service down", None),
        ("base_counted", "baseline: hook claude, counted", None),
        ("base_ignored", "baseline: hook claude, ignored", None),
    ]
    print(f"  bare interpreter (import json, sqlite3)   {wall['bare']:7.1f} ms          ({cpu['bare']:6.1f} ms)")
    for name, label, target in rows:
        if name not in wall:
            if name.startswith("curl"):
                print(f"  {label:40s} left out: {port}")
            continue
        ratio = wall[name] / wall["bare"]
        verdict = "" if target is None else f"  target <= {target:.1f}x: {'met' if ratio <= target else 'MISSED'}"
        print(f"  {label:40s} {wall[name]:7.1f} ms {ratio:5.2f}x  ({cpu[name]:6.1f} ms "
              f"{cpu[name] / cpu['bare']:5.2f}x){verdict}")


if __name__ == "__main__":
    main()
