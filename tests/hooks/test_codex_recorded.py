"""The hook stdin the real Codex CLI 0.171 sent, recorded by ``tests/realhosts/test_codex.py`` and kept sanitized in
``tests/fixtures/codex/hook-stdin-0.171.jsonl`` (ids and paths replaced by placeholders; that test checks Codex still sends
exactly this): one prompt, then six identical ``exec_command`` calls, reported as ``Bash`` with the command alone.

Piped through the installed ``toolguards hook codex``, one process an event as Codex runs it, the events must draw
the gentle reminder at the third call and the detailed one at the fifth, each a valid Codex answer.
"""

from __future__ import annotations

import json

from conftest import FIRST, FIXTURES, detailed
from support.hooks import codex_problems, outputs

FIXTURE = FIXTURES / "codex" / "hook-stdin-0.171.jsonl"
SCHEMA = {"UserPromptSubmit": "user-prompt-submit.command.input", "PostToolUse": "post-tool-use.command.input"}


def recorded(session: str = "019ddc1e-5a3b-7c40-9e2f-3d0b6a7c8e91") -> list[dict[str, object]]:
    """The recorded events with concrete values in the placeholders' places."""
    events = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        event |= {"session_id": session, "turn_id": "019ddc1e-5a52-7ab1-8d3e-61f0c2b4a7d5", "cwd": "/home/u/project",
                  "transcript_path": f"/home/u/.codex/sessions/2026/12/01/rollout-2026-12-01T10-00-00-{session}.jsonl"}
        events.append(event)
    return events


def test_the_recorded_events_are_valid_codex_events_of_one_prompt_and_six_calls():
    events = recorded()
    assert [event["hook_event_name"] for event in events] == ["UserPromptSubmit"] + ["PostToolUse"] * 6
    assert [codex_problems(SCHEMA[event["hook_event_name"]], event) for event in events] == [[]] * 7
    assert {json.dumps(event["tool_input"]) for event in events[1:]} == {'{"command": "echo probe"}'}


def test_the_recorded_events_draw_the_reminders_at_the_third_and_fifth_call(tmp_path):
    said = outputs("codex", tmp_path, recorded())
    answers = [json.loads(text) if text else None for text in said]
    expected = {3: FIRST, 5: detailed("Bash", 5, '{"command":"echo probe"}')}
    assert answers == [None] + [
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": expected[n]}} if n in expected
        else None for n in range(1, 7)]
    assert [codex_problems("post-tool-use.command.output", answer) for answer in answers if answer] == [[], []]
