"""Bad input never breaks ``toolguards replay``: real session files, mutated as an adversarial user would, replayed
in process through ``cli.main`` under every importer.

Each case takes a real fixture (its first lines, for the large ones) and applies one mutation — a field's value
swapped for a value of another type, the file cut short, an invalid UTF-8 byte, a field nested ~990 levels deep, an
integer of 5,000 digits — then replays it under auto-detection, under its own format, or under another format. Every
run must end as documented: exit 0 with nothing on stderr, or exit 1 with every problem on stderr as one line
``path:line: message``; never an exception, never a traceback. Seeded, so a failure names a case that can be re-run.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import SHARED_FIXTURES
from toolguards.cli import main
from toolguards.replay import files as replay_files
from toolguards.replay.importers import FORMATS, READERS
from toolguards.replay.importers.detect import detect
from toolguards.replay.source import Source

SEED = 20260801
CASES_PER_FIXTURE = 36
LINES_KEPT = 120  # of a JSON Lines fixture: enough of every record type, and fast
ODD_VALUES: list[Any] = [[], {}, 0, -1, 1.5, None, True, "", "x", "\ud800", [1, "a"], {"type": []}]
DEEP = 990

FOLDERS = ("dsh-sessions", "transcripts", "hosts/sessions")


def fixtures() -> list[Path]:
    found: list[Path] = []
    for folder in FOLDERS:
        root = SHARED_FIXTURES / folder
        if root.is_dir():
            found.extend(sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".json")))
    return found


def own_format(path: Path) -> str | None:
    source = Source(str(path))
    try:
        return detect(str(path), READERS, source.head, source.whole).format
    finally:
        source.close()


def base_text(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        return b"".join(data.splitlines(keepends=True)[:LINES_KEPT])
    return data


# --- mutations: each takes the text and a seeded generator, and returns the bytes to replay ---


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    stack = [(path, value)]
    while stack:
        where, node = stack.pop()
        yield where, node
        if isinstance(node, dict):
            stack.extend(((*where, key), child) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend(((*where, index), child) for index, child in enumerate(node))


def _replaced(value: Any, where: tuple[Any, ...], new: Any) -> Any:
    if not where:
        return new
    parent = value
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = new
    return value


def _mutate_value(value: Any, rnd: random.Random, make: Callable[[random.Random], Any]) -> Any:
    candidates = [where for where, _ in _nodes(value) if where]
    if not candidates:
        return make(rnd)
    return _replaced(value, rnd.choice(candidates), make(rnd))


def _deep(rnd: random.Random) -> Any:
    node: Any = [] if rnd.random() < 0.5 else {}
    for _ in range(DEEP):
        node = [node] if rnd.random() < 0.5 else {"a": node}
    return node


def _huge_int(rnd: random.Random) -> Any:
    return _Raw("9" * 5000)  # past Python's int-string limit: written as text, never made an int


def _odd(rnd: random.Random) -> Any:
    return rnd.choice(ODD_VALUES)


def _dump(value: Any) -> str:
    # Deep values are written by hand: json.dumps would recurse as deep as they go.
    parts: list[str] = []
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, _Raw):
            parts.append(node.text)
        elif isinstance(node, dict):
            stack.append(_Raw("}"))
            items = list(node.items())
            for index, (key, child) in reversed(list(enumerate(items))):
                stack.append(child)
                stack.append(_Raw(("," if index else "") + json.dumps(str(key)) + ":"))
            stack.append(_Raw("{"))
        elif isinstance(node, list):
            stack.append(_Raw("]"))
            for index, child in reversed(list(enumerate(node))):
                stack.append(child)
                if index:
                    stack.append(_Raw(","))
            stack.append(_Raw("["))
        else:
            parts.append(json.dumps(node))  # ASCII: a lone surrogate stays an escape
    return "".join(parts)


class _Raw:
    def __init__(self, text: str) -> None:
        self.text = text


def swap_field(text: bytes, rnd: random.Random, make: Callable[[random.Random], Any] = _odd) -> bytes:
    """One field (or one whole line) of the input gets a value of another type."""
    decoded = text.decode("utf-8")
    if decoded.lstrip()[:1] in "[{" and "\n" in decoded.strip() and not _is_json_lines(decoded):
        return (_dump(_mutate_value(json.loads(decoded), rnd, make)) + "\n").encode()
    lines = decoded.splitlines(keepends=True)
    numbered = [index for index, line in enumerate(lines) if line.strip()]
    if not numbered:
        return text
    index = rnd.choice(numbered)
    try:
        value = json.loads(lines[index])
    except ValueError:
        return text
    lines[index] = _dump(_mutate_value(value, rnd, make)) + "\n"
    return "".join(lines).encode()


def _is_json_lines(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    try:
        json.loads(first)
    except ValueError:
        return False
    return True


def truncate(text: bytes, rnd: random.Random) -> bytes:
    return text[: rnd.randrange(len(text) + 1)]


def invalid_byte(text: bytes, rnd: random.Random) -> bytes:
    at = rnd.randrange(len(text) + 1)
    return text[:at] + rnd.choice([b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80"]) + text[at:]


def deep_field(text: bytes, rnd: random.Random) -> bytes:
    return swap_field(text, rnd, _deep)


def huge_int_field(text: bytes, rnd: random.Random) -> bytes:
    return swap_field(text, rnd, _huge_int)


MUTATIONS: list[tuple[Callable[[bytes, random.Random], bytes], int]] = [
    (swap_field, 12),
    (truncate, 4),
    (invalid_byte, 4),
    (deep_field, 2),
    (huge_int_field, 1),
]


def run(argv: list[str]) -> tuple[int, str, str]:
    # Text streams that encode, as a real stdout does: a lone surrogate in a tool name must not break the output.
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    out.flush()
    err.flush()
    return status, out.buffer.getvalue().decode(), err.buffer.getvalue().decode()  # type: ignore[attr-defined]


@pytest.fixture
def cached_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loading the guard file is not under test here, and costs more than replaying a small input: load it once.
    # Each input's agents are forgotten after it (replay.session.reset), so a cached engine starts every run fresh.
    monkeypatch.setattr(replay_files, "load", functools.cache(replay_files.load))


def cases() -> list[tuple[Path, int]]:
    return [(path, number) for path in fixtures() for number in range(CASES_PER_FIXTURE)]


@pytest.mark.needs_shared
def test_mutated_real_sessions_end_as_documented(tmp_path: Path, cached_guards: None) -> None:
    rnd = random.Random(SEED)
    functions = [function for function, weight in MUTATIONS for _ in range(weight)]
    failures: list[str] = []
    runs = 0
    for path in fixtures():
        fmt = own_format(path)
        base = base_text(path)
        for number in range(CASES_PER_FIXTURE):
            mutate = rnd.choice(functions)
            data = mutate(base, rnd)
            target = tmp_path / f"{number}-{path.name}"
            target.write_bytes(data)
            choice = rnd.random()
            if choice < 0.4 or fmt is None:
                argv = ["replay", str(target)]
            elif choice < 0.8:
                argv = ["replay", "--input-format", fmt, str(target)]
            else:
                argv = ["replay", "--input-format", rnd.choice(FORMATS), str(target)]
            if rnd.random() < 0.3:
                argv.insert(1, rnd.choice(["--skip-bad-lines", "--strict", "--summary", "--format=jsonl"]))
            runs += 1
            problem = _check(argv, target)
            if problem:
                failures.append(f"{path.name} case {number} ({mutate.__name__}, {' '.join(argv[:-1])}): {problem}")
    assert runs >= 500
    assert not failures, f"{len(failures)} of {runs} runs broke:\n" + "\n".join(failures[:20])


def _check(argv: list[str], target: Path) -> str | None:
    try:
        status, _out, err = run(argv)
    except BaseException as exc:  # any exception out of main is the failure we look for
        return f"raised {type(exc).__name__}: {str(exc)[:200]}"
    if "Traceback" in err:
        return "a traceback on stderr"
    if status not in (0, 1):
        return f"exit {status}: {err[:200]!r}"
    lines = err.splitlines()
    if "--format=jsonl" in argv and lines and lines[-1].startswith("replayed "):
        lines.pop()  # the summary line: with jsonl, stdout holds only the objects
    pattern = re.compile(rf"{re.escape(str(target))}:\d+: \S.*")
    wrong = [line for line in lines if not pattern.fullmatch(line)]
    if wrong:
        return f"stderr lines not `path:line: message`: {wrong[:3]!r}"
    if " at at " in err:  # the doubled word of issue 12
        return f"a doubled word: {err[:200]!r}"
    failed = [line for line in lines if not line.endswith(" (skipped)")]
    if (status == 1) != bool(failed):
        return f"exit {status} with stderr {err[:200]!r}"
    return None
