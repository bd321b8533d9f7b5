"""What the hook tests share: the installed ``toolguards`` command run as a host runs it, and Codex's schemas."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from conftest import REPO

#: The console script pip installed beside this interpreter: what a host's registration runs.
TOOLGUARDS = Path(sys.executable).parent / ("toolguards.exe" if os.name == "nt" else "toolguards")
CODEX_SCHEMAS = REPO / "tests" / "fixtures" / "codex-hook-schemas"

Event = dict[str, Any]


def command(host: str, state_dir: Path | str, *args: str) -> list[str]:
    assert TOOLGUARDS.is_file(), f"no installed toolguards at {TOOLGUARDS}: pip install -e . first"
    return [str(TOOLGUARDS), "hook", host, "--state-dir", str(state_dir), *args]


def hook(host: str, state_dir: Path | str, event: Event | str, *args: str,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One event through the installed command, in its own process."""
    data = event if isinstance(event, str) else json.dumps(event)
    return subprocess.run(command(host, state_dir, *args), input=data, capture_output=True, text=True, timeout=120,
                          env=env)


def outputs(host: str, state_dir: Path | str, events: list[Event], *args: str) -> list[str]:
    """Each event in its own process, in turn; every run must exit 0 with nothing on stderr."""
    found = []
    for event in events:
        done = hook(host, state_dir, event, *args)
        assert (done.returncode, done.stderr) == (0, "")
        found.append(done.stdout)
    return found


def concurrently(host: str, state_dir: Path | str, events: list[Event], *args: str) -> list[tuple[int, str, str]]:
    """Every event in its own process, all started before any is waited for: they race for the state file."""
    processes = [
        subprocess.Popen(command(host, state_dir, *args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in events
    ]
    for process, event in zip(processes, events, strict=True):
        assert process.stdin is not None
        process.stdin.write(json.dumps(event))
        process.stdin.close()
    found = []
    for process in processes:
        with process:  # reads to the end, then waits and closes the pipes
            assert process.stdout is not None and process.stderr is not None
            out, err = process.stdout.read(), process.stderr.read()
        found.append((process.returncode, out, err))
    return found


def twice_file(folder: Path) -> str:
    """A guard file that reminds at 2 (short form) and 3 (detailed): short sequences for the cases below."""
    path = folder / "twice.yaml"
    path.write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [2, 3]\n", encoding="utf-8")
    return str(path)


@cache
def codex_schema(name: str) -> jsonschema.Draft7Validator:
    """A validator of Codex's generated schema ``<name>.command.{input,output}`` (draft-07)."""
    schema = json.loads((CODEX_SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def codex_problems(name: str, value: Any) -> list[str]:
    """Every way ``value`` fails Codex's schema ``name``, as ``path: message`` lines (empty: it is valid)."""
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
            for error in codex_schema(name).iter_errors(value)]
