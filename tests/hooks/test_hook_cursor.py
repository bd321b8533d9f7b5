"""``toolguards hook cursor``: Cursor hook events piped through the installed command, one process each."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import FIRST, detailed
from support.hooks import concurrently, hook, outputs, twice_file
from toolguards.hooks import driver

LS = '{"command":"ls -la"}'
CONVERSATION = "6c1b5a7e-2f36-4d0c-9a1e-1f2d3c4b5a69"


def envelope(event: str, conversation: str = CONVERSATION, **fields: Any) -> dict[str, Any]:
    return {
        "conversation_id": conversation,
        "generation_id": "gen-456",
        "model": "claude-4.5-sonnet",
        "hook_event_name": event,
        "cursor_version": "2.1.20",
        "workspace_roots": ["/home/u/p"],
        "user_email": "u@example.com",
        "transcript_path": f"/home/u/.cursor/projects/p/agent-transcripts/{conversation}.txt",
    } | fields


def shell(call_id: str, command: str = "ls -la", **kwargs: Any) -> dict[str, Any]:
    return envelope("postToolUse", tool_name="Shell", tool_input={"command": command}, tool_use_id=call_id,
                    tool_output=json.dumps({"output": "total 0\n", "exitCode": 0}), cwd="/home/u/p", duration=41,
                    **kwargs)


def failed(call_id: str, command: str = "ls -la") -> dict[str, Any]:
    return envelope("postToolUseFailure", tool_name="Shell", tool_input={"command": command}, tool_use_id=call_id,
                    error_message="Command failed with exit code 2", cwd="/home/u/p", duration=12)


def prompt(text: str = "try again") -> dict[str, Any]:
    return envelope("beforeSubmitPrompt", prompt=text, attachments=[])


def answer(text: str) -> str:
    return json.dumps({"additional_context": text}) + "\n"


@pytest.fixture
def twice(tmp_path) -> str:
    return twice_file(tmp_path)


def test_reminders_at_3_and_5_and_a_new_prompt_resets(tmp_path):
    events = [shell(f"tu_{i}") for i in range(1, 6)] + [prompt()] + [shell(f"tu_{i}") for i in range(6, 9)]
    assert outputs("cursor", tmp_path, events) == [
        "", "", answer(FIRST), "", answer(detailed("Shell", 5, LS)),
        "",
        "", "", answer(FIRST),
    ]


def test_a_call_delivered_twice_counts_once(tmp_path, twice):
    assert outputs("cursor", tmp_path, [shell("a"), shell("a"), shell("b")], "--config", twice) == [
        "", "", answer(FIRST)]


def test_failures_count_with_the_successes(tmp_path, twice):
    got = outputs("cursor", tmp_path, [shell("f1"), failed("f2"), failed("f3")], "--config", twice)
    assert got == ["", answer(FIRST), answer(detailed("Shell", 3, LS))]


def test_a_shell_output_string_is_parsed_for_the_result():
    request = driver.parse("cursor", json.dumps(shell("r1")))
    assert [(call.tool, call.arguments, call.agent, call.call_id, call.result, call.error)
            for call in request.calls] == [
        ("Shell", {"command": "ls -la"}, "main", "r1", {"output": "total 0\n", "exitCode": 0}, None)]
    odd = shell("r2") | {"tool_output": "not json"}
    assert driver.parse("cursor", json.dumps(odd)).calls[0].result == "not json"
    read = envelope("postToolUse", tool_name="Read", tool_input={"path": "a"}, tool_use_id="r3", tool_output='{"x": 1}')
    assert driver.parse("cursor", json.dumps(read)).calls[0].result == '{"x": 1}'  # only Shell's output is JSON text
    (failure,) = driver.parse("cursor", json.dumps(failed("r4"))).calls
    assert (failure.result, failure.error) == (None, "Command failed with exit code 2")


def test_events_it_does_not_act_on_print_nothing_and_touch_nothing(tmp_path):
    events = [
        envelope("preToolUse", tool_name="Shell", tool_input={"command": "ls"}, tool_use_id="p"),
        envelope("afterShellExecution", command="ls", output="", duration=3),
        envelope("stop", status="completed", loop_count=0),
    ]
    assert outputs("cursor", tmp_path / "state", events) == ["", "", ""]
    assert not (tmp_path / "state").exists()


def test_concurrent_processes_count_one_conversation_exactly(tmp_path):
    outputs("cursor", tmp_path, [shell("warm", command="pwd")])  # compiles the guard file once
    # The shared lock is proven with 64 processes once (test_hook_claude); here, the host's answers under it.
    results = concurrently("cursor", tmp_path, [shell(f"tu_{i:02}") for i in range(8)])
    assert [(code, err) for code, _, err in results] == [(0, "")] * 8
    said = sorted(out for _, out, _ in results if out)
    assert said == sorted([answer(FIRST), answer(detailed("Shell", 5, LS)), answer(detailed("Shell", 8, LS))])


@pytest.mark.parametrize(("event", "message"), [
    ({"hook_event_name": "postToolUse", "session_id": "s"}, "the event has no `conversation_id` string"),
    ({"hook_event_name": "postToolUse", "conversation_id": "c"}, "the event has no `tool_name` string"),
    ({"hook_event_name": "postToolUse", "conversation_id": "c", "tool_name": "Shell", "tool_use_id": {}},
     "the event: `tool_use_id` is a dict, not a string"),
])
def test_malformed_events_exit_0_with_one_line(tmp_path, event, message):
    done = hook("cursor", tmp_path, event)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", f"toolguards hook: {message}\n")
