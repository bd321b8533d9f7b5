"""The hooks hand the guards what the volatile options and the no-progress kind need: every host passes the tool's
result, so the shipped Gemini CLI guard file reminds on shell results whose PGID changes, and replay and the report
draw the same reminders from the same calls."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import FIRST, REPO, detailed
from support.docs_blocks import marked
from support.hooks import outputs
from toolguards.cli import main
from toolguards.hooks import HOSTS
from toolguards.report import Job, setup, work

GEMINI_EXAMPLE = REPO / "examples" / "gemini-cli.yaml"
SESSION = "08202870-5a9b-4927-ae89-63b7dac198b3"
DESCRIPTIONS = ["Run the smoke check.", "Run the smoke check again.", "Re-run the smoke check.", "Check once more.",
                "Run it again."]


def shell_result(pgid: int) -> str:
    """A run_shell_command result as Gemini CLI 0.61 gives it to AfterTool: a new process group on every call."""
    return f"<untrusted_context>\nOutput: smoke check failed\nProcess Group PGID: {pgid}\n</untrusted_context>"


def gemini_shell(i: int) -> dict[str, Any]:
    return {"session_id": SESSION, "transcript_path": f"/home/u/.gemini/tmp/p/chats/session-{SESSION}.jsonl",
            "cwd": "/home/u/p", "hook_event_name": "AfterTool", "timestamp": f"2026-12-01T23:14:1{i}.000Z",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "echo smoke check failed", "description": DESCRIPTIONS[i]},
            "tool_response": {"llmContent": shell_result(7355 + 8 * i), "returnDisplay": "smoke check failed"}}


def gemini_answer(text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": text}}) + "\n"


def readme_gemini_block() -> str:
    """The Gemini CLI guard file the coding agents' page suggests."""
    return marked("docs/coding-agents.md", "tested: coding-agents:gemini").text


def test_the_shipped_gemini_example_reminds_on_changing_pgids(tmp_path):
    events = [gemini_shell(i) for i in range(5)]
    fourth = json.dumps({"command": "echo smoke check failed", "description": DESCRIPTIONS[3]},
                        separators=(",", ":"))
    assert outputs("gemini", tmp_path / "example", events, "--config", str(GEMINI_EXAMPLE)) == [
        "", "", gemini_answer(FIRST), gemini_answer(detailed("run_shell_command", 4, fourth)), ""]


def test_the_readme_gemini_block_reminds_and_resultaware_alone_does_not(tmp_path):
    readme = tmp_path / "readme.yaml"
    readme.write_text(readme_gemini_block(), encoding="utf-8")
    alone = tmp_path / "alone.yaml"
    alone.write_text(readme_gemini_block().split("          resultNormalizers:")[0], encoding="utf-8")
    # the same description every time: the README's block leaves only the PGID out
    events = [gemini_shell(i) | {"tool_input": {"command": "echo smoke check failed"}} for i in range(3)]
    assert outputs("gemini", tmp_path / "a", events, "--config", str(readme))[2] == gemini_answer(FIRST)
    assert outputs("gemini", tmp_path / "b", events, "--config", str(alone)) == ["", "", ""]


def test_replay_and_the_report_agree_with_the_hook(tmp_path, capsys):
    events = tmp_path / "gemini.jsonl"
    events.write_text("".join(
        json.dumps({"type": "post-execute", "agent": "main", "tool": "run_shell_command",
                    "arguments": e["tool_input"], "result": e["tool_response"]["llmContent"]}) + "\n"
        for e in (gemini_shell(i) for i in range(5))), encoding="utf-8")
    assert main(["replay", "--format", "jsonl", "--config", str(GEMINI_EXAMPLE), str(events)]) == 0
    replayed = [[c["metadata"]["count"] for c in json.loads(line)["contexts"]]
                for line in capsys.readouterr().out.splitlines()]
    assert replayed == [[], [], [3], [4], []]
    report = work(setup(Job(config=str(GEMINI_EXAMPLE))), str(events))
    assert dict(report.tools["run_shell_command"].sides[0].reminders) == {
        ("repeat-tool-reminder", "first", 3): 1, ("repeat-tool-reminder", "detailed", 4): 1}


NO_PROGRESS = "guards:\n  - id: no-progress-reminder\n    config:\n      thresholds: [3]\n"
DENIED = "Access denied: please enable cookies."


def paging(host: str, i: int) -> dict[str, Any]:
    """A call of each host with new arguments (a new offset) and the same result."""
    arguments = {"url": "https://example.com/report", "offset": 10 * i}
    if host == "claude":
        return {"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "WebFetch",
                "tool_input": arguments, "tool_response": DENIED, "tool_use_id": f"t{i}"}
    if host == "codex":
        return {"hook_event_name": "PostToolUse", "session_id": "s", "turn_id": "t", "transcript_path": None,
                "cwd": "/p", "model": "gpt-5.1-codex", "permission_mode": "default", "tool_name": "web_fetch",
                "tool_input": arguments, "tool_response": DENIED, "tool_use_id": f"t{i}"}
    if host == "gemini":
        return {"hook_event_name": "AfterTool", "session_id": "s", "tool_name": "web_fetch", "tool_input": arguments,
                "tool_response": {"llmContent": DENIED, "returnDisplay": DENIED}}
    return {"hook_event_name": "postToolUse", "conversation_id": "c", "tool_name": "WebFetch",
            "tool_input": arguments, "tool_output": DENIED, "tool_use_id": f"t{i}"}


@pytest.mark.parametrize("host", HOSTS)
def test_every_host_passes_results_to_the_no_progress_guard(tmp_path, host):
    guards = tmp_path / "g.yaml"
    guards.write_text(NO_PROGRESS, encoding="utf-8")
    said = outputs(host, tmp_path / "state", [paging(host, i) for i in range(3)], "--config", str(guards))
    assert said[:2] == ["", ""]
    answer = json.loads(said[2])
    text = answer["additional_context"] if host == "cursor" else answer["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("You have made 3 calls in a row (the latest to `")
