"""The hooks follow each reminder to its outcome across processes: the reminder drawn in one hook process waits in
the session's SQLite state, and the process of a later event resolves it and appends its line to the outcome log
(``--outcome-log``, else the guard file's ``outcomes.log``). A guard in shadow answers nothing and logs the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.hooks import outputs
from toolguards.outcomes import in_share


def envelope(event: str, session: str, **fields: Any) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": f"/home/u/.claude/projects/p/{session}.jsonl", "cwd": "/home/u/p",
            "permission_mode": "default", "hook_event_name": event, **fields}


def bash(call_id: str, command: str = "ls -la", session: str = "sess-1") -> dict[str, Any]:
    return envelope("PostToolUse", session, tool_name="Bash", tool_input={"command": command},
                    tool_response={"stdout": "total 0", "stderr": "", "interrupted": False, "isImage": False},
                    tool_use_id=call_id)


def prompt(session: str = "sess-1") -> dict[str, Any]:
    return envelope("UserPromptSubmit", session, prompt="try again")


def guard_file(folder: Path, extra: str = "", log: str | None = None) -> str:
    path = folder / "g.yaml"
    head = f"outcomes: {{log: {log}}}\n" if log else ""
    path.write_text(f"{head}guards:\n  - id: repeat-tool-reminder\n{extra}", encoding="utf-8")
    return str(path)


def logged(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [{key: line[key] for key in ("count", "template", "outcome", "followed", "delivered", "agent")}
            for line in lines]


LOOP = [bash(f"c{n}") for n in range(5)] + [bash("c5", command="ls src"), bash("c6"), bash("c7"), bash("c8"),
                                            prompt()]


def test_each_process_resolves_what_an_earlier_one_left_waiting(tmp_path):
    log = tmp_path / "outcomes.jsonl"
    answers = outputs("claude", tmp_path / "state", LOOP, "--config", guard_file(tmp_path), "--outcome-log", str(log))
    assert [bool(text) for text in answers] == [False, False, True, False, True, False, False, False, True, False]
    assert logged(log) == [
        {"count": 3, "template": "first", "outcome": "repeated", "followed": 2, "delivered": True,
         "agent": "main"},
        {"count": 5, "template": "detailed", "outcome": "changed", "followed": 0, "delivered": True,
         "agent": "main"},
        {"count": 3, "template": "first", "outcome": "ended", "followed": 0, "delivered": True, "agent": "main"},
    ]


def test_the_guard_files_log_is_used_without_the_flag(tmp_path):
    answers = outputs("claude", tmp_path / "state", LOOP[:6], "--config", guard_file(tmp_path, log="o.jsonl"))
    assert [bool(text) for text in answers] == [False, False, True, False, True, False]
    assert [line["outcome"] for line in logged(tmp_path / "o.jsonl")] == ["repeated", "changed"]


def test_without_a_log_the_hook_follows_nothing(tmp_path):
    outputs("claude", tmp_path / "state", LOOP, "--config", guard_file(tmp_path))
    assert list(tmp_path.glob("*.jsonl")) == []


@pytest.mark.parametrize("shadow", ["true", "1.0"])
def test_a_shadow_guard_answers_nothing_and_logs_its_twins_points(tmp_path, shadow):
    twin = tmp_path / "twin"
    twin.mkdir()
    delivered = twin / "outcomes.jsonl"
    outputs("claude", twin / "state", LOOP, "--config", guard_file(twin), "--outcome-log", str(delivered))
    withheld = tmp_path / "outcomes.jsonl"
    answers = outputs("claude", tmp_path / "state", LOOP, "--config", guard_file(tmp_path, f"    shadow: {shadow}\n"),
                      "--outcome-log", str(withheld))
    assert answers == [""] * len(LOOP)
    assert logged(withheld) == [{**line, "delivered": False} for line in logged(delivered)]


def test_a_share_in_shadow_splits_sessions_as_the_service_keys_them(tmp_path):
    log = tmp_path / "outcomes.jsonl"
    sessions = [f"session-{n}" for n in range(4)]
    events = [event for session in sessions
              for event in [bash(f"c{n}", session=session) for n in range(3)] + [prompt(session=session)]]
    answers = outputs("claude", tmp_path / "state", events, "--config", guard_file(tmp_path, "    shadow: 0.5\n"),
                      "--outcome-log", str(log))
    shown = [not in_share(f"claude:{session}:main", 0.5) for session in sessions]
    assert 0 < sum(shown) < len(sessions)
    assert [bool(answers[4 * index + 2]) for index in range(len(sessions))] == shown
    assert [line["delivered"] for line in logged(log)] == shown
