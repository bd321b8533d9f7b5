"""The replay's fast paths agree with the careful ones they skip: decoding a line, checking an event, printing a call
with or without reminders."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SHARED_FIXTURES
from toolguards.cli import main
from toolguards.events import ContextEntry, PostToolDecision
from toolguards.guard import Call
from toolguards.replay.feed import Outcome
from toolguards.replay.importers import _json
from toolguards.replay.importers import toolguards_events as events_format
from toolguards.replay.printing import jsonl_line
from toolguards.replay.records import InputError, Record


def decoded(text: str) -> tuple[str, Any]:
    try:
        return "value", _json.loads(text)
    except ValueError as error:
        return "error", str(error)


def no_fast_path(_text: str, _index: int) -> tuple[Any, int]:
    raise StopIteration(0)  # what the scanner raises where no value starts


LINES = [
    '{"a": 1}\n', '{"a": 1}\r\n', '{"a": 1}  \n', ' {"a": 1}\n', '{"a": 1} x\n', '{"a": 1}{"b": 2}\n', "[1, 2]",
    '"text"', "1e5", "NaN", '{"a": NaN}', '{"a": Infinity}', "-Infinity", "{", '{"a": }', "", "\n", "  \t\n",
    '{"a": 1}\u2028', '{"a": "\\ud800"}', "nul\x00", '{"a": 1}\x0c\n', "tru", "true false",
]


@pytest.mark.parametrize("text", LINES)
def test_loads_agrees_with_the_careful_path(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = decoded(text)
    monkeypatch.setattr(_json, "_SCAN", no_fast_path)
    assert fast == decoded(text)


POST = {"type": "post-execute", "agent": "main", "tool": "grep", "arguments": {"q": 1}, "denied": False,
        "callId": "c1", "result": "ok", "error": None}
ODD_VALUES = [None, True, False, 0, 1.5, "", "x", [], {}, ["x"], {"a": 1}]


def mutated_events(seed: int, count: int) -> list[Any]:
    rnd = random.Random(seed)
    found: list[Any] = []
    for _ in range(count):
        event: dict[str, Any] = dict(POST)
        for _ in range(rnd.randint(0, 3)):
            roll = rnd.random()
            if roll < 0.3 and event:
                del event[rnd.choice(list(event))]
            elif roll < 0.7:
                event[rnd.choice([*POST, "userPrompt", "args", "type"])] = rnd.choice(ODD_VALUES)
            else:
                event["type"] = rnd.choice(["post-execute", "pre-step", "forget", "post_execute", 1])
        found.append(event if rnd.random() < 0.95 else rnd.choice(ODD_VALUES))
    return found


@pytest.mark.parametrize("seed", range(4))
def test_the_quick_event_check_agrees_with_the_careful_one(seed: int) -> None:
    for event in mutated_events(seed, 500):
        text = json.dumps(event)
        [fast] = list(events_format.read("e.jsonl", [text]))
        if isinstance(event, dict) and isinstance(event.get("type"), str) and event["type"] not in events_format.KEYS:
            assert fast == Record("skipped", 1, text=event["type"])
        elif events_format._problems(event):
            assert isinstance(fast, InputError) and events_format._plain_post_execute(1, event) is None
        else:
            assert fast == events_format._record(1, event)


@settings(max_examples=200, deadline=None)
@given(agent=st.none() | st.text(), tool=st.text(min_size=1), line=st.integers(min_value=1))
def test_a_call_without_reminders_prints_as_json_dumps_prints_it(agent: str | None, tool: str, line: int) -> None:
    record = Record("post-execute", line, agent=agent, tool=tool, arguments={})
    outcome = Outcome(record, (PostToolDecision(),), Call(record))
    expected = json.dumps({"line": line, "agent": agent, "tool": tool, "contexts": []}, ensure_ascii=False) + "\n"
    assert jsonl_line(outcome) == expected


SCALARS = st.none() | st.booleans() | st.integers() | st.text()
VALUES = SCALARS | st.floats() | st.lists(SCALARS, max_size=2) | st.dictionaries(st.text(), SCALARS, max_size=2)
MAPPINGS = st.dictionaries(st.text(), SCALARS, max_size=5) | st.dictionaries(st.text(), VALUES, max_size=3)


@settings(max_examples=300, deadline=None)
@given(agent=st.none() | st.text(), tool=st.text(min_size=1),
       contexts=st.lists(st.builds(ContextEntry, st.text(), MAPPINGS, MAPPINGS), min_size=1, max_size=3))
def test_a_call_with_reminders_prints_as_json_dumps_prints_it(
    agent: str | None, tool: str, contexts: list[ContextEntry]
) -> None:
    record = Record("post-execute", 7, agent=agent, tool=tool, arguments={})
    outcome = Outcome(record, (PostToolDecision(additional_contexts=tuple(contexts)),), Call(record))
    data = {"line": 7, "agent": agent, "tool": tool, "contexts": [entry.to_json() for entry in contexts]}
    assert jsonl_line(outcome) == json.dumps(data, ensure_ascii=False, default=str) + "\n"


# --- issue 12: each input that once ended in a traceback or a wrong answer, with the exact message it now gets ---

ANTHROPIC = SHARED_FIXTURES / "transcripts" / "anthropic-llm-anthropic-test-tools.json"
PREFIX = '{"type":"post-execute","agent":"a","tool":"t","arguments":'
GOOD = '{"type":"post-execute","agent":"a","tool":"t","arguments":{}}\n'


def _deep_line(depth: int) -> str:
    return PREFIX + "[" * depth + "]" * depth + "}\n"


def _with_ff(data: bytes) -> bytes:
    at = data.index(b"Charles")
    return data[:at] + b"\xff" + data[at:]


@pytest.mark.parametrize(
    ("argv", "data", "status", "err"),
    [
        # deep nesting: a line too deep for Python's scanner is reported instead of raising RecursionError, with or
        # without --skip-bad-lines. The issue's line (990 levels) is too deep on 3.10 and 3.11 and read from 3.12
        # on, whose scanner goes deeper; 100,000 levels are too deep everywhere.
        *(
            [
                ([], (GOOD + _deep_line(990)).encode(), 1,
                 "{path}:2: nested too deeply to read (991 levels) at column " f"{len(PREFIX) + 990}\n"),
                ([], _deep_line(990).encode(), 1,
                 "{path}:1: nested too deeply to read (991 levels) at column " f"{len(PREFIX) + 990}\n"),
            ]
            if sys.version_info < (3, 12)
            else [([], (GOOD + _deep_line(990)).encode(), 0, "")]
        ),
        ([], (GOOD + _deep_line(100_000)).encode(), 1,
         "{path}:2: nested too deeply to read (100001 levels) at column " f"{len(PREFIX) + 100_000}\n"),
        (["--skip-bad-lines"], (GOOD + _deep_line(100_000)).encode(), 0,
         "{path}:2: nested too deeply to read (100001 levels) at column " f"{len(PREFIX) + 100_000} (skipped)\n"),
        (["--input-format", "openai"], b"[" + b"[" * 100_000 + b"]" * 100_000 + b"]", 1,
         "{path}:1: nested too deeply to read (100000 levels) at column 100001\n"),
        # wrong types are checked before they are looked up
        ([], b'{"type":"session","id":"s"}\n{"type":{}}\n', 1, '{path}:2: an event needs a string "type", not an object\n'),
        ([], b'[{"role":[]}]', 1, "{path}:1: cannot tell the input format; give --input-format\n"),
        (["--input-format", "anthropic"], b'[{"role":[]}]', 1, '{path}:1: a message needs a string "role"\n'),
        ([], b'[{"content":[{"type":[]}]}]', 1, "{path}:1: cannot tell the input format; give --input-format\n"),
        # one doubled word
        (["--input-format", "events"], b'{"type": "forget", "agent": "a\n', 1,
         "{path}:1: not JSON: Unterminated string starting at column 29\n"),
    ],
)
def test_issue_12_reproducers(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], data: bytes,
                              status: int, err: str) -> None:
    path = tmp_path / "input.jsonl"
    path.write_bytes(data)
    assert main(["replay", *argv, str(path)]) == status
    assert capsys.readouterr().err == err.format(path=path)


@pytest.mark.needs_shared
def test_a_real_transcript_with_a_byte_that_is_not_utf8_names_its_position(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    data = _with_ff(ANTHROPIC.read_bytes())
    line = data[: data.index(b"\xff")].count(b"\n") + 1
    column = data.index(b"\xff") - data.rfind(b"\n", 0, data.index(b"\xff"))
    path = tmp_path / "transcript.json"
    path.write_bytes(data)
    for argv in ([], ["--input-format", "anthropic"]):
        assert main(["replay", *argv, str(path)]) == 1
        assert capsys.readouterr().err == f"{path}:{line}: not UTF-8 text: byte 0xff at column {column}\n"


def test_an_integer_past_the_int_string_limit_is_read_as_a_double(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    line = '{"type":"post-execute","agent":"a","tool":"t","arguments":{"n":' + "9" * 5000 + "}}\n"
    path = tmp_path / "big.jsonl"
    path.write_text(line * 5, encoding="utf-8")
    assert main(["replay", "--format", "jsonl", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("replayed 1 session: 5 tool calls")  # the totals only: no problem with the line
    assert captured.err.count("\n") == 1
    objects = [json.loads(text) for text in captured.out.splitlines()]
    assert [len(o["contexts"]) for o in objects] == [0, 0, 1, 0, 1]
    # JavaScript reads the number as Infinity, which its JSON.stringify prints as null
    assert "- arguments: {\"n\":null}" in objects[4]["contexts"][0]["text"]
    assert _json.loads('{"n": -' + "1" * 4400 + "}") == {"n": float("-inf")}


def test_how_deep_a_line_may_nest_does_not_depend_on_the_process(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # Every depth where the scanners of 3.10 and 3.11 (the recursion limit, less what is on the stack: under 990
    # levels) and 3.12 (about 1,495) stop, and one past any
    for depth in [*range(700, 1000, 3), *range(1470, 1510, 3), 100_000]:
        (tmp_path / f"{depth}.jsonl").write_text(GOOD + _deep_line(depth), encoding="utf-8")
    outputs = []
    for jobs in ("1", "2"):
        status = main(["replay", "--jobs", jobs, str(tmp_path)])
        outputs.append((status, capsys.readouterr()))
    assert outputs[0] == outputs[1]
    assert "100000.jsonl:2: nested too deeply to read (100001 levels)" in outputs[0][1].err


def test_a_line_nested_within_the_bound_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(_deep_line(900) * 3, encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.endswith("replayed 1 session: 3 tool calls from 1 agent; 1 reminder "
                                             "(repeat-tool-reminder at 3: 1)\n")
