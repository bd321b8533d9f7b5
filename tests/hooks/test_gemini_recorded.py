"""The hook inputs a real Gemini CLI 0.61 run sent (``tests/fixtures/gemini/hook-inputs.jsonl``, see its README)
through ``toolguards hook gemini`` as install registers it, one process each: the reminders the live run gave."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import FIRST, detailed
from support.hooks import outputs
from toolguards.resources import default_guard_file, shipped_guard_file

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "gemini" / "hook-inputs.jsonl"
LOOP = '{"command":"echo smoke check failed","description":"Run the smoke check."}'


def answer(text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": text}}) + "\n"


@pytest.mark.parametrize(
    ("guard_file", "expected"),
    [
        (shipped_guard_file("gemini-cli.yaml"), ["", "", "", "", answer(FIRST), answer(detailed("run_shell_command", 4, LOOP))]),
        (default_guard_file(), ["", "", "", "", answer(FIRST), ""]),
    ],
    ids=["the guard install registers for Gemini CLI", "the shipped default, whose 5 Gemini CLI never lets happen"],
)
def test_the_recorded_inputs_draw_the_live_runs_reminders(tmp_path, guard_file, expected):
    events = [json.loads(line) for line in INPUTS.read_text(encoding="utf-8").splitlines()]
    assert [event["hook_event_name"] for event in events] == ["BeforeAgent"] + ["AfterTool"] * 5
    assert outputs("gemini", tmp_path, events, "--config", str(guard_file)) == expected


def test_the_fixtures_hold_no_machine_path():
    for path in INPUTS.parent.glob("*.jsonl"):
        text = path.read_text(encoding="utf-8")
        tops = set(re.findall(r"(?<![\w.~-])/[A-Za-z][\w.-]*/[\w.-]+", text))  # the first two folders of each path
        assert tops == {"/home/user"}, path.name
