"""The replay's fast paths agree with the careful ones they skip: decoding a line, checking an event, printing a call
that drew no reminder."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguards.events import PostToolDecision
from toolguards.replay.importers import _json
from toolguards.replay.importers import events as events_format
from toolguards.replay.records import InputError, Record
from toolguards.replay.report import jsonl_line
from toolguards.replay.runner import Outcome


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
        if events_format._problems(event):
            assert isinstance(fast, InputError) and not events_format._plain_post_execute(event)
        else:
            assert fast == events_format._record(1, event)


@settings(max_examples=200, deadline=None)
@given(agent=st.none() | st.text(), tool=st.text(min_size=1), line=st.integers(min_value=1))
def test_a_call_without_reminders_prints_as_json_dumps_prints_it(agent: str | None, tool: str, line: int) -> None:
    outcome = Outcome(Record("post-execute", line, agent=agent, tool=tool, arguments={}), (PostToolDecision(),))
    expected = json.dumps({"line": line, "agent": agent, "tool": tool, "contexts": []}, ensure_ascii=False)
    assert jsonl_line(outcome) == expected
