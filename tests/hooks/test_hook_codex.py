"""``toolguards hook codex``: Codex CLI hook events piped through the installed command, one process each.

Every event these tests send is first checked against Codex's own generated input schema for its event, and every
answer the command prints against ``post-tool-use.command.output.schema.json``: what Codex would accept, exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FIRST, detailed
from support.hooks import codex_problems, concurrently, hook, twice_file

SCHEMA_OF = {
    "PostToolUse": "post-tool-use.command.input",
    "UserPromptSubmit": "user-prompt-submit.command.input",
    "PreToolUse": "pre-tool-use.command.input",
    "SessionStart": "session-start.command.input",
    "Stop": "stop.command.input",
    "SubagentStart": "subagent-start.command.input",
}
OUTPUT = "post-tool-use.command.output"
LS = '{"command":"ls -la"}'


def envelope(event: str, session: str = "019e1625-789d-76c0-80ab-3724b5ddb799", agent: str | None = None,
             **fields: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "session_id": session,
        "transcript_path": f"/home/u/.codex/sessions/2026/05/11/rollout-{session}.jsonl",
        "cwd": "/home/u/p",
        "hook_event_name": event,
        "model": "gpt-5.1-codex",
    }
    if event not in ("SessionStart", "SessionEnd"):
        found["turn_id"] = "turn-7"
    if event in ("PostToolUse", "UserPromptSubmit", "PreToolUse", "Stop", "SessionStart", "SubagentStart"):
        found["permission_mode"] = "default"
    if agent is not None:
        found |= {"agent_id": agent, "agent_type": "worker"}
    return found | fields


def bash(call_id: str, command: str = "ls -la", **kwargs: Any) -> dict[str, Any]:
    return envelope("PostToolUse", tool_name="Bash", tool_input={"command": command}, tool_use_id=call_id,
                    tool_response="total 0\n", **kwargs)


def prompt(text: str = "try again", **kwargs: Any) -> dict[str, Any]:
    return envelope("UserPromptSubmit", prompt=text, **kwargs)


def answer(text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}},
                      ensure_ascii=False) + "\n"  # UTF-8 as is: Codex decodes the whole stdout


def codex(state_dir: Path, events: list[dict[str, Any]], *args: str) -> list[str]:
    """Each event, schema-checked, through the command in turn; each answer schema-checked."""
    found = []
    for event in events:
        assert codex_problems(SCHEMA_OF[event["hook_event_name"]], event) == []
        done = hook("codex", state_dir, event, *args)
        assert (done.returncode, done.stderr) == (0, "")
        if done.stdout:
            assert codex_problems(OUTPUT, json.loads(done.stdout)) == []
        found.append(done.stdout)
    return found


@pytest.fixture
def twice(tmp_path) -> str:
    return twice_file(tmp_path)


def test_reminders_at_3_and_5_and_a_new_prompt_resets(tmp_path):
    events = [bash(f"call_{i}") for i in range(1, 6)] + [prompt()] + [bash(f"call_{i}") for i in range(6, 9)]
    assert codex(tmp_path, events) == [
        "", "", answer(FIRST), "", answer(detailed("Bash", 5, LS)),
        "",
        "", "", answer(FIRST),
    ]


def test_a_call_delivered_twice_counts_once(tmp_path, twice):
    assert codex(tmp_path, [bash("call_a"), bash("call_a"), bash("call_b")], "--config", twice) == ["", "", answer(FIRST)]


def test_a_subagent_keeps_its_own_chain_and_its_own_reset(tmp_path, twice):
    events = [
        bash("m1"), bash("s1", agent="019e-agent-1"), bash("m2"),  # the main thread's second call reminds
        prompt(agent="019e-agent-1"),  # a prompt inside the subagent resets the subagent only
        bash("s2", agent="019e-agent-1"), bash("s3", agent="019e-agent-1"), bash("m3"),
    ]
    assert codex(tmp_path, events, "--config", twice) == [
        "", "", answer(FIRST), "", "", answer(FIRST), answer(detailed("Bash", 3, LS)),
    ]


def test_other_tools_and_mcp_calls_count_by_their_own_names(tmp_path, twice):
    def patch(call_id: str) -> dict[str, Any]:
        return envelope("PostToolUse", tool_name="apply_patch", tool_input={"input": "*** Begin Patch\n*** End Patch"},
                        tool_use_id=call_id, tool_response={"output": "Done!", "metadata": {"exit_code": 0}})

    def mcp(call_id: str) -> dict[str, Any]:
        return envelope("PostToolUse", tool_name="mcp__docs__search", tool_input={"q": "retry"}, tool_use_id=call_id,
                        tool_response={"content": [{"type": "text", "text": "none"}]})

    assert codex(tmp_path, [patch("p1"), mcp("q1"), patch("p2"), patch("p3"), mcp("q2"), mcp("q3")],
                 "--config", twice) == ["", "", "", answer(FIRST), "", answer(FIRST)]


def test_events_it_does_not_act_on_print_nothing_and_touch_nothing(tmp_path):
    events = [
        envelope("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="p1"),
        envelope("SessionStart", source="startup"),
        envelope("Stop", stop_hook_active=False, last_assistant_message="done"),
        envelope("SubagentStart", agent_id="a1", agent_type="worker"),
    ]
    assert codex(tmp_path / "state", events) == ["", "", "", ""]
    assert not (tmp_path / "state").exists()


def test_concurrent_processes_count_one_session_exactly(tmp_path):
    codex(tmp_path, [bash("warm", command="pwd")])  # compiles the guard file once, as a first call would
    events = [bash(f"call_{i:02}") for i in range(8)]
    # The shared lock is proven with 64 processes once (test_hook_claude); here, the host's answers under it.
    results = concurrently("codex", tmp_path, events)
    assert [(code, err) for code, _, err in results] == [(0, "")] * 8
    said = sorted(out for _, out, _ in results if out)
    assert said == sorted([answer(FIRST), answer(detailed("Bash", 5, LS)), answer(detailed("Bash", 8, LS))])
    assert [codex_problems(OUTPUT, json.loads(out)) for out in said] == [[], [], []]


@pytest.mark.parametrize(("event", "message"), [
    ({"hook_event_name": "PostToolUse"}, "the event has no `session_id` string"),
    ({"session_id": "s", "hook_event_name": "PostToolUse", "tool_input": {}}, "the event has no `tool_name` string"),
    ({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": 7},
     "the event: `tool_use_id` is a int, not a string"),
    ({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash", "agent_id": ["a"]},
     "the event: `agent_id` is a list, not a string"),
])
def test_malformed_events_exit_0_with_one_line(tmp_path, event, message):
    assert codex_problems(SCHEMA_OF["PostToolUse"], event) != []  # Codex itself would never send these
    done = hook("codex", tmp_path, event)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", f"toolguards hook: {message}\n")


def test_the_schemas_catch_what_codex_would_reject():
    """The check above is not vacuous: Codex's schemas reject a wrong answer and a wrong event."""
    assert codex_problems(OUTPUT, {"additional_context": "x"}) == [
        ": Additional properties are not allowed ('additional_context' was unexpected)"]
    assert codex_problems(OUTPUT, {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "x"}}) == [
        "hookSpecificOutput/hookEventName: 'PostToolUse' was expected"]
    event = bash("c1")
    del event["turn_id"]
    assert codex_problems(SCHEMA_OF["PostToolUse"], event) == [": 'turn_id' is a required property"]
