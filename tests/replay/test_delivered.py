"""After the reminder, in sessions recorded by the real hosts under a toolguards hook: the delivered reminders found
where each host records them, their outcomes, the control of would-fire points, and the loops' tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO, SHARED_FIXTURES
from support.after_reminder import figures, shown
from toolguards.cli import main

FIXTURES = REPO / "tests" / "fixtures"
CLAUDE = FIXTURES / "claude-code" / "outcomes.jsonl"  # Claude Code 2.1.197: Bash A×4, B, A×3, then text
CODEX = FIXTURES / "codex" / "outcomes-rollout.jsonl"  # Codex 0.171: the same script, exec_command (replayed as Bash, the name its hook sees)
CLAUDE_BATCH = FIXTURES / "claude-code" / "outcomes-batch.jsonl"  # Claude Code 2.1.197: Write ×3 refused, a failing Bash
GEMINI = FIXTURES / "gemini" / "chat.jsonl"  # Gemini CLI 0.61: a failing call, then one call ×4, then its loop note


def guard_file(folder: Path, thresholds: str, exclude: str = "[]") -> str:
    path = folder / "g.yaml"
    path.write_text(f"guards:\n  - id: repeat-tool-reminder\n    config: {{thresholds: {thresholds}, exclude: {exclude}}}\n",
                    encoding="utf-8")
    return str(path)


def document(capsys, *argv: str) -> dict:
    assert main(["replay", "--format", "json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def row(guard, template, tool, model, delivered, reminders, changed, repeated, ended, followed):
    return {"guard": guard, "template": template, "tool": tool, "model": model, "delivered": delivered,
            "reminders": reminders, "changed": changed, "repeated": repeated, "ended": ended, "followed": followed}


@pytest.mark.parametrize(("path", "tool", "model", "tokens"), [
    (CLAUDE, "Bash", "claude-opus-4-8", {"input": 1, "output": 1}),
    (CODEX, "Bash", "scripted-model", {"input": 10, "output": 5}),
], ids=["claude-code", "codex"])
def test_the_reminders_a_real_host_delivered_and_what_followed(tmp_path, capsys, path, tool, model, tokens):
    found = document(capsys, "--config", guard_file(tmp_path, "[3, 5]"), str(path))
    # the reminder after the 3rd call: the model repeated once, then changed; the one after the 2nd run's 3rd call:
    # the session ended
    assert found["outcomes"] == [row("repeat-tool-reminder", "first", tool, model, True, 2, 0, 1, 1, 1)]
    per_turn = tokens
    # 9 turns; the 4 of the first run and the 3 of the second are in loops; one of them (the 4th call) after the reminder
    assert found["cost"]["tokens"] == {key: 9 * value for key, value in per_turn.items()}
    assert found["cost"]["tokens_in_loops"] == {key: 7 * value for key, value in per_turn.items()}
    assert found["cost"]["tokens_after_reminder"] == per_turn
    assert found["cost"]["tools"][tool]["tokens_in_loops"] == found["cost"]["tokens_in_loops"]
    assert found["cost"]["dollars_in_loops"] is None


def test_a_reminder_claude_code_delivered_through_the_batch_hook(tmp_path, capsys):
    """A ``PostToolBatch`` hook's context is recorded under an id of its own (``hook-<uuid>``), not the call's: it is
    still the reminder after the call before it."""
    found = document(capsys, "--config", guard_file(tmp_path, "[3, 5, 8]", "[TodoWrite]"), str(CLAUDE_BATCH))
    # after the 3rd refused Write the model's next call was the Bash: another call
    assert found["outcomes"] == [row("repeat-tool-reminder", "first", "Write", "claude-opus-4-8", True, 1, 1, 0, 0, 0)]
    assert found["cost"]["tokens_in_loops"] == {"input": 3, "output": 3}


def test_gemini_clis_hook_contexts_and_its_own_loop_note(tmp_path, capsys):
    found = document(capsys, "--config", guard_file(tmp_path, "[3, 4]", "[write_todos]"), str(GEMINI))
    assert found["outcomes"] == [
        row("gemini-cli", "loop-detected", "run_shell_command", "gemini-3.8-flash", True, 1, 0, 0, 1, 0),
        row("repeat-tool-reminder", "detailed", "run_shell_command", "gemini-3.8-flash", True, 1, 0, 0, 1, 0),
        row("repeat-tool-reminder", "first", "run_shell_command", "gemini-3.8-flash", True, 1, 0, 1, 0, 1),
    ]
    assert (found["cost"]["tokens"], found["cost"]["tokens_in_loops"], found["cost"]["tokens_after_reminder"]) == (
        {"input": 500, "output": 50}, {"input": 400, "output": 40}, {"input": 100, "output": 10})


def test_a_session_that_delivered_nothing_gives_the_would_fire_points_as_the_control(tmp_path, capsys):
    """The same Claude Code session under a guard file whose reminders it never received."""
    found = document(capsys, "--config", guard_file(tmp_path, "[2, 4]"), str(CLAUDE))
    assert found["outcomes"] == [
        row("repeat-tool-reminder", "detailed", "Bash", "claude-opus-4-8", False, 1, 1, 0, 0, 0),
        row("repeat-tool-reminder", "first", "Bash", "claude-opus-4-8", False, 2, 0, 2, 0, 3),
    ]


def test_prices_turn_the_tokens_into_money(tmp_path, capsys):
    prices = tmp_path / "prices.yaml"
    prices.write_text("scripted-*: {input: 2, output: 8}\n", encoding="utf-8")
    found = document(capsys, "--config", guard_file(tmp_path, "[3, 5]"), "--prices", str(prices), str(CODEX))
    assert found["cost"]["dollars_in_loops"] == pytest.approx((70 * 2 + 35 * 8) / 1e6)
    assert found["cost"]["dollars_after_reminder"] == pytest.approx((10 * 2 + 5 * 8) / 1e6)


def test_a_bad_prices_file_is_a_config_problem(tmp_path, capsys):
    prices = tmp_path / "prices.yaml"
    prices.write_text("gpt: {input: 1}\n", encoding="utf-8")
    assert main(["replay", "--format", "json", "--prices", str(prices), str(CODEX)]) == 1
    assert capsys.readouterr().err == f"{prices}:1:6: gpt: missing required key `output`\n"


def test_the_text_summary_shows_the_shares_with_their_n(tmp_path, capsys):
    assert main(["replay", "--summary", "--config", guard_file(tmp_path, "[3, 5]"), str(CLAUDE)]) == 0
    out = capsys.readouterr().out
    assert ("  repeat-tool-reminder/first · Bash · claude-opus-4-8 · delivered: changed 0/2 (0%), repeated 1/2 (50%), "
            "ended 1/2 (50%); 1 identical call followed\n") in out
    assert "tokens: 9 in / 9 out in all; in loops 7 in / 7 out; after the first reminder 1 in / 1 out\n" in out


@pytest.mark.needs_shared
def test_the_reference_harness_logs_its_own_reminders(capsys):
    path = SHARED_FIXTURES / "dsh-sessions" / "repeat-tool-reminder.jsonl"
    found = document(capsys, "--config", str(REPO / "examples" / "reference-mount.yaml"), str(path))
    assert found["outcomes"] == [
        row("repeat-tool-reminder", "detailed", "todo_write", None, True, 1, 0, 0, 1, 0),
        row("repeat-tool-reminder", "first", "todo_write", None, True, 1, 0, 1, 0, 2),
    ]
    assert found["cost"] is None


def test_the_reports_section_and_the_json_summary_agree(tmp_path, capsys):
    config = guard_file(tmp_path, "[3, 5]")
    found = document(capsys, "--config", config, str(CLAUDE), str(CODEX), str(GEMINI))
    page = tmp_path / "page.html"
    assert main(["report", "--config", config, "-o", str(page), str(CLAUDE), str(CODEX), str(GEMINI)]) == 0
    assert shown(page.read_text(encoding="utf-8")) == figures(found)
    assert len(found["outcomes"]) == 4 and found["cost"]["tokens_in_loops"]["input"] > 0  # something to compare


def test_the_json_summary_counts_what_the_text_summary_counts(capsys):
    """The JSON document's totals are the text summary's line: 1 session, 21 calls of 2 agents (the main agent and its
    sub-agent), 3 reminders."""
    example = str(REPO / "examples" / "looping-session.jsonl")
    found = document(capsys, "--summary", example)
    assert {key: found[key] for key in ("sessions", "calls", "agents", "reminders")} == {
        "sessions": 1, "calls": 21, "agents": 2, "reminders": 3}
    assert main(["replay", "--summary", example]) == 0
    assert "replayed 1 session: 21 tool calls from 2 agents; 3 reminders" in capsys.readouterr().out
