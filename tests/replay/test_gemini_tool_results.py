"""The gemini importer on Gemini CLI 0.61's chat recordings, which write each tool result twice: in the model message's
``toolCalls`` and as a ``user`` message of only ``functionResponse`` parts. Such a message is a tool result, not a new
prompt, so a loop's calls stay one run; ``tests/fixtures/gemini/chat.jsonl`` is a real recording (see its README)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conftest import FIRST, detailed
from toolguards.guardfile.loader import load
from toolguards.replay.feed import Outcome, replay
from toolguards.replay.importers import gemini
from toolguards.replay.records import InputError, Record
from toolguards.resources import default_guard_file, shipped_guard_file

CHAT = Path(__file__).resolve().parents[1] / "fixtures" / "gemini" / "chat.jsonl"
LOOP_ARGUMENTS = '{"command":"echo smoke check failed","description":"Run the smoke check."}'


def records(text: str, name: str = "session-x.jsonl") -> list[Record]:
    items = list(gemini.read(name, io.StringIO(text)))
    assert not [item for item in items if isinstance(item, InputError)]
    return [item for item in items if isinstance(item, Record)]


def reminders(found: list[Record], guard_file: Path) -> list[tuple[int, list[str]]]:
    """(index of the call, its reminders' texts) for every call that drew one."""
    outcomes = [item for item in replay(found, [load(guard_file)]) if isinstance(item, Outcome)]
    return [(index, [entry.text for entry in outcome.contexts])
            for index, outcome in enumerate(outcomes) if outcome.contexts]


def test_the_real_recording_reads_five_calls_and_only_the_real_prompts():
    found = records(CHAT.read_text(encoding="utf-8"), CHAT.name)
    prompts = [record for record in found if record.kind == "pre-step"]
    calls = [record for record in found if record.kind == "post-execute"]
    # the session context Gemini CLI sends first and the user's prompt; its own "Potential loop detected" turn is its
    # nudge, not a prompt (it runs no BeforeAgent hook for it), and the hook's two reminders were taken off the results
    assert len(prompts) == 2
    notes = [(record.source["kind"], record.text[:32]) for record in found if record.kind == "recorded-reminder"]
    assert notes == [("hook", FIRST[:32]), ("hook", "Repeated tool call detected:\n- t"),
                     ("host", "System: Potential loop detected.")]
    assert not any("<hook_context>" in str(call.result) for call in calls)
    assert [(call.tool, call.arguments["command"]) for call in calls] == [
        ("run_shell_command", "cat smoke-result.txt"), *[("run_shell_command", "echo smoke check failed")] * 4]
    assert calls[0].result.startswith("<untrusted_context>\nOutput: cat: smoke-result.txt: No such file")
    assert "Process Group PGID: " in calls[1].result


@pytest.mark.parametrize(
    ("guard_file", "expected"),
    [
        (shipped_guard_file("gemini-cli.yaml"),
         [(3, [FIRST]), (4, [detailed("run_shell_command", 4, LOOP_ARGUMENTS)])]),
        (default_guard_file(), [(3, [FIRST])]),
    ],
    ids=["the guard install registers for Gemini CLI", "the shipped default"],
)
def test_the_real_recording_replays_the_loop_as_one_run(guard_file, expected):
    assert reminders(records(CHAT.read_text(encoding="utf-8"), CHAT.name), guard_file) == expected


META = {"sessionId": "S", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "kind": "main"}


def lines(*entries: object) -> str:
    return "".join(json.dumps(entry) + "\n" for entry in entries)


def call_message(message_id: str, call_id: str, output: str | None) -> dict[str, object]:
    call: dict[str, object] = {"id": call_id, "name": "ls", "args": {}, "status": "executing"}
    if output is not None:
        call["status"] = "success"
        call["result"] = [{"functionResponse": {"id": call_id, "name": "ls", "response": {"output": output}}}]
    return {"id": message_id, "timestamp": "t", "type": "gemini", "content": "", "toolCalls": [call]}


def result_message(message_id: str, call_id: str, output: str) -> dict[str, object]:
    response = {"functionResponse": {"id": call_id, "name": "ls", "response": {"output": output}}}
    return {"id": message_id, "timestamp": "t", "type": "user", "content": [response]}


def prompt(message_id: str) -> dict[str, object]:
    return {"id": message_id, "timestamp": "t", "type": "user", "content": [{"text": "go on"}]}


def summary(found: list[Record]) -> list[tuple[object, ...]]:
    return [(record.kind, record.line) if record.kind != "post-execute" else (record.kind, record.line, record.result)
            for record in found]


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        pytest.param(
            (prompt("p"), call_message("m1", "c1", "A"), result_message("r1", "c1", "A"),
             call_message("m2", "c2", "A"), result_message("r2", "c2", "A")),
            [("pre-step", 2), ("post-execute", 3, "A"), ("post-execute", 5, "A")],
            id="a user message of function responses is no prompt",
        ),
        pytest.param(
            (call_message("m1", "c1", None), result_message("r1", "c1", "late")),
            [("post-execute", 2, "late")],
            id="it answers a call that is still waiting, in the same step",
        ),
        pytest.param(
            (call_message("m1", "c1", "first"), result_message("r1", "c1", "second")),
            [("post-execute", 2, "first")],
            id="the first result stays the one kept",
        ),
        pytest.param(
            (call_message("m1", "c1", "A"),
             {"id": "u", "timestamp": "t", "type": "user",
              "content": [{"functionResponse": {"id": "c1", "name": "ls", "response": {}}}, {"text": "and this"}]}),
            [("post-execute", 2, "A"), ("pre-step", 3)],
            id="a user message with text beside the responses is a prompt",
        ),
        pytest.param(
            (call_message("m1", "c1", None),
             {"id": "r1", "timestamp": "t", "type": "user",
              "content": [{"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "an image"}}},
                          {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]}),
            [("post-execute", 2, "an image")],
            id="a tool result with the data part of what the tool read",
        ),
        pytest.param(
            (prompt("p"), {"id": "q", "timestamp": "t", "type": "user", "content": "plain text"}),
            [("pre-step", 2), ("pre-step", 3)],
            id="older forms: a prompt of text parts, and one of a string",
        ),
    ],
)
def test_tool_result_messages(entries, expected):
    assert summary(records(lines(META, *entries))) == expected
