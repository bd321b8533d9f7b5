"""``toolguards hook gemini``: Gemini CLI hook events piped through the installed command, one process each.

Gemini CLI's events carry no agent id (the session is the agent) and no call id (a call delivered twice counts twice).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import FIRST, detailed
from support.hooks import concurrently, hook, outputs, twice_file

LS = '{"command":"ls -la","description":"List files"}'
SESSION = "5b959dae-0f0e-4d57-9c53-7f4a8d8e2e01"


def envelope(event: str, session: str = SESSION, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/home/u/.gemini/tmp/abc/chats/session-{session}.json",
        "cwd": "/home/u/p",
        "hook_event_name": event,
        "timestamp": "2026-05-11T11:26:55.123Z",
    } | fields


def shell(command: str = "ls -la", error: Any = None, **kwargs: Any) -> dict[str, Any]:
    response: dict[str, Any] = {"llmContent": f"Command: {command}\nOutput: total 0", "returnDisplay": "total 0"}
    if error is not None:
        response["error"] = error
    return envelope("AfterTool", tool_name="run_shell_command",
                    tool_input={"command": command, "description": "List files"}, tool_response=response, **kwargs)


def prompt(text: str = "try again") -> dict[str, Any]:
    return envelope("BeforeAgent", prompt=text)


def answer(text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": text}}) + "\n"


@pytest.fixture
def twice(tmp_path) -> str:
    return twice_file(tmp_path)


def test_reminders_at_3_and_5_and_a_new_prompt_resets(tmp_path):
    events = [shell() for _ in range(5)] + [prompt()] + [shell() for _ in range(3)]
    assert outputs("gemini", tmp_path, events) == [
        "", "", answer(FIRST), "", answer(detailed("run_shell_command", 5, LS)),
        "",
        "", "", answer(FIRST),
    ]


def test_sessions_keep_their_own_chains_and_without_call_ids_each_delivery_counts(tmp_path, twice):
    events = [shell(), shell(session="other"), shell()]
    assert outputs("gemini", tmp_path, events, "--config", twice) == ["", "", answer(FIRST)]


def test_a_failing_call_carries_its_error_to_the_error_guard(tmp_path):
    guards = tmp_path / "errors.yaml"
    guards.write_text("guards:\n  - id: repeated-error-reminder\n    config:\n      thresholds: [2, 3]\n")
    error = {"message": "Command exited with code 2:  make: *** No rule", "type": "shell_execute_error"}
    events = [shell("make a", error=error), shell("make b", error=error), shell("make c", error="exit 2"),
              shell("make d", error="exit 2"), shell("make e", error="exit 2")]
    got = outputs("gemini", tmp_path, events, "--config", str(guards))
    assert got[:2] == ["", answer(
        "The tool `run_shell_command` has failed 2 times in a row with the same error. Changing its arguments slightly "
        "has not helped: read the error carefully and try a different approach instead of calling it again the same "
        "way.")]
    assert got[2:4] == ["", got[1]]  # a string error is read too, and another error starts a new run
    assert json.loads(got[4])["hookSpecificOutput"]["additionalContext"].splitlines()[:4] == [
        "Repeated tool failure detected:", "- tool: run_shell_command", "- consecutive_failures: 3", "- error: exit 2"]


def test_the_result_is_what_the_model_saw(tmp_path):
    guards = tmp_path / "aware.yaml"
    guards.write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [2]\n      resultAware: true\n")

    def status(output: str) -> dict[str, Any]:
        return envelope("AfterTool", tool_name="read_file", tool_input={"absolute_path": "/p/status"},
                        tool_response={"llmContent": output, "returnDisplay": f"read at {len(output)}"})

    # A changed llmContent starts a new run; a changed display alone does not.
    events = [status("pending"), status("running"), status("running")]
    assert outputs("gemini", tmp_path, events, "--config", str(guards)) == ["", "", answer(FIRST)]


def test_events_it_does_not_act_on_print_nothing_and_touch_nothing(tmp_path):
    events = [
        envelope("BeforeTool", tool_name="run_shell_command", tool_input={"command": "ls"}),
        envelope("SessionStart", source="startup"),
        envelope("AfterModel", llm_request={}, llm_response={}),
    ]
    assert outputs("gemini", tmp_path / "state", events) == ["", "", ""]
    assert not (tmp_path / "state").exists()


def test_concurrent_processes_count_one_session_exactly(tmp_path):
    outputs("gemini", tmp_path, [shell("pwd")])  # compiles the guard file once, as a first call would
    # The shared lock is proven with 64 processes once (test_hook_claude); here, the host's answers under it.
    results = concurrently("gemini", tmp_path, [shell() for _ in range(8)])
    assert [(code, err) for code, _, err in results] == [(0, "")] * 8
    said = sorted(out for _, out, _ in results if out)
    assert said == sorted([answer(FIRST), answer(detailed("run_shell_command", 5, LS)),
                           answer(detailed("run_shell_command", 8, LS))])


@pytest.mark.parametrize(("event", "message"), [
    ({"session_id": "s"}, "the event has no `hook_event_name` string"),
    ({"hook_event_name": "AfterTool", "session_id": ""}, "the event has no `session_id` string"),
    ({"hook_event_name": "AfterTool", "session_id": "s", "tool_name": None}, "the event has no `tool_name` string"),
])
def test_malformed_events_exit_0_with_one_line(tmp_path, event, message):
    done = hook("gemini", tmp_path, event)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", f"toolguards hook: {message}\n")
