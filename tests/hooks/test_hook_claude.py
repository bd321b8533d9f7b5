"""``toolguards hook claude``: real-shaped Claude Code hook events piped through the installed command, one process
each (the events and fields are those of ``toolguards.hooks.claude``)."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import FIRST, FIRST_ZH, detailed
from support.hooks import TOOLGUARDS, concurrently, twice_file
from support.hooks import hook as run_hook
from toolguards.hooks import HookError, driver
from toolguards.hooks import command as invocation
from toolguards.stores.sqlite import SqliteStore

LS = '{"command":"ls -la","description":"List files"}'


def envelope(event: str, session: str = "sess-1", agent_id: str | None = None, **fields: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "session_id": session,
        "transcript_path": f"/home/u/.claude/projects/p/{session}.jsonl",
        "cwd": "/home/u/p",
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if agent_id is not None:
        found |= {"agent_id": agent_id, "agent_type": "general-purpose"}
    return found | fields


def bash(call_id: str, command: str = "ls -la", **kwargs: Any) -> dict[str, Any]:
    return envelope(
        "PostToolUse", tool_name="Bash", tool_input={"command": command, "description": "List files"},
        tool_response={"stdout": "total 0", "stderr": "", "interrupted": False, "isImage": False},
        tool_use_id=call_id, **kwargs,
    )


def failed(call_id: str) -> dict[str, Any]:
    return envelope("PostToolUseFailure", tool_name="Bash", tool_input={"command": "ls -la", "description": "List files"},
                    tool_use_id=call_id, error="Exit code 2\nls: cannot access 'x': No such file", is_interrupt=False)


def prompt(text: str = "try again") -> dict[str, Any]:
    return envelope("UserPromptSubmit", prompt=text)


def hook(state_dir: Path, event: dict[str, Any] | str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_hook("claude", state_dir, event, *args)


def answer(event: str, text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}},
                      ensure_ascii=False) + "\n"  # UTF-8 as is: Claude Code decodes the whole stdout


def outputs(state_dir: Path, events: list[dict[str, Any]], *args: str) -> list[str]:
    """Each event in its own process, in turn; every run must exit 0 with nothing on stderr."""
    found = []
    for event in events:
        done = hook(state_dir, event, *args)
        assert (done.returncode, done.stderr) == (0, "")
        found.append(done.stdout)
    return found


@pytest.fixture
def twice(tmp_path) -> str:
    return twice_file(tmp_path)


def test_reminders_at_3_and_5_and_a_new_prompt_resets(tmp_path):
    events = [bash(f"toolu_{i}") for i in range(1, 6)] + [prompt()] + [bash(f"toolu_{i}") for i in range(6, 9)]
    got = outputs(tmp_path, events)
    assert got == [
        "", "", answer("PostToolUse", FIRST), "", answer("PostToolUse", detailed("Bash", 5, LS)),
        "",  # the prompt: nothing to say, and the main chain starts afresh
        "", "", answer("PostToolUse", FIRST),
    ]


def test_64_concurrent_processes_count_one_session_exactly(tmp_path):
    outputs(tmp_path, [bash("warm", command="pwd")])  # compiles the guard file once, as a first call would
    results = concurrently("claude", tmp_path, [bash(f"toolu_{i:02}") for i in range(64)])
    assert [(code, err) for code, _, err in results] == [(0, "")] * 64
    said = sorted(out for _, out, _ in results if out)
    assert said == sorted([
        answer("PostToolUse", FIRST),
        answer("PostToolUse", detailed("Bash", 5, LS)),
        answer("PostToolUse", detailed("Bash", 8, LS)),
    ])


def test_a_call_delivered_twice_counts_once(tmp_path, twice):
    got = outputs(tmp_path, [bash("toolu_a"), bash("toolu_a"), bash("toolu_b")], "--config", twice)
    assert got == ["", "", answer("PostToolUse", FIRST)]


def test_a_subagent_keeps_its_own_chain(tmp_path, twice):
    events = [bash("m1"), bash("s1", agent_id="a7f3"), bash("m2"), bash("s2", agent_id="a7f3"), bash("o1", agent_id="b2")]
    got = outputs(tmp_path, events, "--config", twice)
    assert got == ["", "", answer("PostToolUse", FIRST), answer("PostToolUse", FIRST), ""]


def test_sessions_keep_their_own_chains(tmp_path, twice):
    got = outputs(tmp_path, [bash("x1"), bash("x2", session="sess-2"), bash("x3")], "--config", twice)
    assert got == ["", "", answer("PostToolUse", FIRST)]


def test_failures_count_with_the_successes(tmp_path, twice):
    got = outputs(tmp_path, [bash("f1"), failed("f2"), failed("f3")], "--config", twice)
    assert got == ["", answer("PostToolUseFailure", FIRST), answer("PostToolUseFailure", detailed("Bash", 3, LS))]


def test_a_batch_counts_its_calls_in_order_and_answers_once(tmp_path, twice):
    def call(call_id: str, command: str) -> dict[str, Any]:
        return {"tool_name": "Bash", "tool_input": {"command": command, "description": "List files"},
                "tool_use_id": call_id, "tool_response": {"stdout": ""}}

    batch = envelope("PostToolBatch", tool_calls=[call("b1", "ls -la"), call("b2", "ls -la"), call("b3", "pwd"),
                                                  call("b4", "ls -la"), call("b5", "ls -la"), call("b6", "ls -la")])
    (got,) = outputs(tmp_path, [batch], "--config", twice)
    assert got == answer("PostToolBatch", FIRST + "\n\n" + FIRST + "\n\n" + detailed("Bash", 3, LS))


def test_the_locale_option(tmp_path, twice):
    got = outputs(tmp_path, [bash("l1"), bash("l2")], "--config", twice, "--locale", "zh")
    assert got == ["", answer("PostToolUse", FIRST_ZH)]


def test_other_events_are_ignored_without_touching_the_state(tmp_path):
    for event in (envelope("PreToolUse", tool_name="Bash", tool_input={}, tool_use_id="p"), envelope("Stop")):
        done = hook(tmp_path / "state", event)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not (tmp_path / "state").exists()


@pytest.mark.parametrize(("stdin", "message"), [
    ("", "stdin is not a JSON event (Expecting value: line 1 column 1 (char 0))"),
    ("{'session_id': 1}", "stdin is not a JSON event (Expecting property name enclosed in double quotes: line 1 column 2 "
                          "(char 1))"),
    ("[]", "stdin holds a JSON list, not an event object"),
    ('{"hook_event_name": "PostToolUse"}', "the event has no `session_id` string"),
    ('{"hook_event_name": "PostToolUse", "session_id": "s", "tool_input": {}}', "the event has no `tool_name` string"),
    ('{"hook_event_name": "PostToolBatch", "session_id": "s", "tool_calls": [{"tool_name": 3}]}',
     "tool_calls[0] has no `tool_name` string"),
])
def test_malformed_events_exit_0_with_one_line(tmp_path, stdin, message):
    done = hook(tmp_path, stdin)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", f"toolguards hook: {message}\n")


def test_a_bad_config_exits_0_with_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: []\n      nope: 1\n")
    done = hook(tmp_path, bash("c1"), "--config", str(bad))
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == (f"toolguards hook: {bad}:4:19: guards[0].config.thresholds: `thresholds` must not be empty "
                           "(and 1 more)\n")
    done = hook(tmp_path, bash("c1"), "--config", str(tmp_path / "missing.yaml"))
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == f"toolguards hook: {tmp_path / 'missing.yaml'}:1:1: cannot read the file: No such file or directory\n"


def test_an_unusable_state_dir_exits_0_with_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = hook(blocker / "state", bash("c1"))
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.startswith(f"toolguards hook: cannot open the state file in {blocker / 'state'}: ")
    assert done.stderr.count("\n") == 1


def test_a_damaged_state_file_is_moved_aside_and_the_session_starts_afresh(tmp_path, twice):
    state = tmp_path / "claude-code.sqlite3"
    state.write_text("not a database")
    done = hook(tmp_path, bash("d1"), "--config", twice)
    (moved,) = tmp_path.glob("claude-code.sqlite3.damaged-*")
    assert re.fullmatch(r"claude-code\.sqlite3\.damaged-\d{8}T\d{6}-\d+", moved.name)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == (f"toolguards hook: the state file {state} was damaged (file is not a database); "
                           f"moved it to {moved} and started afresh\n")
    assert moved.read_text() == "not a database"
    assert outputs(tmp_path, [bash("d2")], "--config", twice) == [answer("PostToolUse", FIRST)]


@pytest.mark.parametrize(("args", "message"), [
    ([], "the following arguments are required: host"),
    (["claude", "--bogus"], "unrecognized arguments: --bogus"),
    (["claud"], "argument host: invalid choice: 'claud' (choose from 'claude', 'codex', 'gemini', 'cursor')"),
    (["claude", "--config"], "argument --config: expected one argument"),
    (["claude", "--state-dir", ""], "argument --state-dir: expected a path, not an empty string"),
    (["claude", "--config="], "argument --config: expected a path, not an empty string"),
])
def test_usage_errors_exit_0_with_one_line(args, message):
    done = subprocess.run([str(TOOLGUARDS), "hook", *args], input="{}", capture_output=True, text=True, timeout=60)
    usage = ("usage: toolguards hook {claude,codex,gemini,cursor} [--config PATH] [--locale LOC] [--state-dir DIR] "
             "[--outcome-log FILE]")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", f"toolguards hook: {message} ({usage})\n")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG rules are Linux's; platformdirs has the others")
@pytest.mark.parametrize(("environ", "expected"), [
    ({"XDG_CACHE_HOME": "/var/cache/me"}, "/var/cache/me/toolguards"),
    ({}, "~/.cache/toolguards"),
])
def test_default_state_dir(monkeypatch, tmp_path, environ, expected):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert Path(invocation.default_state_dir()) == Path(expected.replace("~", str(tmp_path)))


def test_a_batch_in_the_tool_results_shape_is_read_too():
    event = envelope("PostToolBatch", tool_results=[
        {"tool_name": "Read", "tool_input": {"file_path": "a"}, "tool_use_id": "r1", "tool_result": "text"},
        {"tool_name": "Read", "tool_input": {"file_path": "b"}, "tool_use_id": "r2", "error_message": "missing"},
    ])
    calls = driver.parse("claude", json.dumps(event)).calls
    got = [(e.tool, e.arguments, e.agent, e.call_id, e.result, e.error) for e in calls]
    assert got == [
        ("Read", {"file_path": "a"}, "main", "r1", "text", None),
        ("Read", {"file_path": "b"}, "main", "r2", None, "missing"),
    ]


def test_a_store_failure_inside_the_engine_is_one_line_and_no_output(tmp_path, monkeypatch):
    def locked(self, agent, step):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(SqliteStore, "update", locked)
    with pytest.raises(HookError) as error:
        invocation.run("claude", json.dumps(bash("c1")), state_dir=tmp_path)
    assert str(error.value) == "repeat-tool-reminder.observe failed and was skipped (OperationalError: database is locked)"


def test_vs_code_camel_case_envelope_counts_too(tmp_path, twice):
    def vscode(call_id: str) -> dict[str, Any]:
        return {"timestamp": "2026-05-01T10:00:00.000Z", "cwd": "/home/u/p", "sessionId": "vs-1",
                "hookEventName": "PostToolUse", "transcript_path": "/home/u/.vscode/t.json", "tool_name": "replace_string_in_file",
                "tool_input": {"filePath": "a.py", "oldString": "x", "newString": "y"}, "tool_use_id": call_id,
                "tool_response": "ok"}

    got = outputs(tmp_path, [vscode("v1"), vscode("v2")], "--config", twice)
    assert got == ["", answer("PostToolUse", FIRST)]


def test_a_subagent_is_not_reset_by_a_prompt_of_the_main_thread(tmp_path, twice):
    events = [bash("s1", agent_id="a7"), prompt(), bash("s2", agent_id="a7"), bash("m1"), bash("m2")]
    got = outputs(tmp_path, events, "--config", twice)
    assert got == ["", "", answer("PostToolUse", FIRST), "", answer("PostToolUse", FIRST)]


def test_concurrent_processes_move_a_damaged_state_file_aside_once(tmp_path):
    outputs(tmp_path, [bash("w1", session="another")])  # compiles the guard file once
    (tmp_path / "claude-code.sqlite3").write_bytes(b"\x00" * 4096)
    results = concurrently("claude", tmp_path, [bash(f"toolu_{i:02}") for i in range(12)])
    assert [code for code, _, _ in results] == [0] * 12
    assert len(list(tmp_path.glob("claude-code.sqlite3.damaged-*"))) == 1
    notices = [err for _, _, err in results if err]
    assert len(notices) == 1 and "was damaged (file is not a database)" in notices[0]
    said = sorted(out for _, out, _ in results if out)
    assert said == sorted([answer("PostToolUse", FIRST), answer("PostToolUse", detailed("Bash", 5, LS)),
                           answer("PostToolUse", detailed("Bash", 8, LS))])
