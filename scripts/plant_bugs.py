"""Plant plausible bugs in the public API, one at a time, and check that the test suite fails on each.

    python scripts/plant_bugs.py            # every bug, the whole suite each time (stops at the first failure)
    python scripts/plant_bugs.py --list     # the bugs, without running anything
    python scripts/plant_bugs.py --bug 7    # the 7th bug of the list only

Each bug is a small text change in one source file, undone afterwards whatever happens. A bug the suite does not
catch ("survived") is a hole in the tests: the script exits 1. This is a check for developers, not part of the suite
(it runs the suite once per bug).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "toolguards"


@dataclass(frozen=True)
class Bug:
    name: str
    file: str
    old: str
    new: str


BUGS = [
    Bug("a reset that does nothing", "guard.py",
        '        """A new user prompt: start the agent\'s chain afresh."""\n        self._store.reset(agent)',
        '        """A new user prompt: start the agent\'s chain afresh."""'),
    Bug("denied calls skipped", "engine.py",
        "                call = Call(event)\n",
        "                call = Call(event)\n                if event.denied:\n                    return None\n"),
    Bug("reminders one call early", "kinds/repeat_tool_reminder.py",
        "        if count in self.thresholds:", "        if count + 1 in self.thresholds:"),
    Bug("reminders after the downstream contexts", "engine.py",
        "contexts + decision.additional_contexts", "decision.additional_contexts + contexts"),
    Bug("a downstream block turned into an accept", "engine.py",
        "return PostToolDecision(decision.kind, contexts", 'return PostToolDecision("accept", contexts'),
    Bug("calls without an agent counted", "engine.py",
        "                if event.agent is None or not self.guards:", "                if not self.guards:"),
    Bug("a config error replaced by the default", "guardfile/loader.py",
        "    return engine_of(check_bytes(display, read_guard_file(display, path), Path(path).resolve().parent, "
        "locale),\n                     stores=stores, on_failure=on_failure, on_outcome=on_outcome)\n",
        "    try:\n"
        "        checked = check_bytes(display, read_guard_file(display, path), Path(path).resolve().parent, locale)\n"
        "    except ConfigError:\n"
        "        return load_default(locale=locale, stores=stores, on_failure=on_failure, on_outcome=on_outcome)\n"
        "    return engine_of(checked, stores=stores, on_failure=on_failure, on_outcome=on_outcome)\n"),
]


def plant(bug: Bug) -> tuple[bool, str]:
    """Run the suite with ``bug`` planted: (caught?, the first failing test or the summary line)."""
    path = SRC / bug.file
    original = path.read_text(encoding="utf-8")
    if original.count(bug.old) < 1:
        raise SystemExit(f"{bug.name}: the text to change is not in {bug.file} any more; update this script")
    path.write_text(original.replace(bug.old, bug.new), encoding="utf-8")
    try:
        run = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"], cwd=ROOT,
                             capture_output=True, text=True, check=False)
    finally:
        path.write_text(original, encoding="utf-8")
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAILED ")]
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr.strip()
    if run.returncode not in (0, 1):  # 1: tests failed; anything else means the suite did not run
        raise SystemExit(f"{bug.name}: the suite did not run (pytest exit {run.returncode}): {summary}")
    return run.returncode == 1, (failed[0] if failed else summary)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the bugs and stop")
    parser.add_argument("--bug", type=int, choices=range(1, len(BUGS) + 1), metavar="N",
                        help=f"plant only the N-th bug of --list (1 to {len(BUGS)})")
    args = parser.parse_args()
    survived = 0
    for bug in BUGS if args.bug is None else [BUGS[args.bug - 1]]:
        if args.list:
            print(f"{bug.name} ({bug.file})")
            continue
        caught, detail = plant(bug)
        survived += not caught
        print(f"{'caught  ' if caught else 'SURVIVED'} {bug.name}: {detail}", flush=True)
    return 1 if survived else 0


if __name__ == "__main__":
    raise SystemExit(main())
