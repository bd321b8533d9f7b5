"""``toolguards replay``: the main job, its outputs, and the parity check against the reference's own logs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIRST, REPO, SHARED_FIXTURES
from toolguards.cli import main

EXAMPLE = REPO / "examples" / "looping-session.jsonl"
DSH = SHARED_FIXTURES / "dsh-sessions"
needs_dsh = pytest.mark.skipif(not DSH.is_dir(), reason=f"the shared dsh fixtures are not here ({DSH})")



def events(tmp_path: Path, lines: list[dict | str], name: str = "s.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def call(tool: str = "grep", agent: str | None = "main", **extra) -> dict:
    return {"type": "post-execute", "agent": agent, "tool": tool, "arguments": extra.pop("arguments", {"q": "x"}), **extra}


def test_main_job_shows_the_reminders_of_the_shipped_example(capsys):
    assert main(["replay", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("── ")]
    assert headers == [
        f"── {EXAMPLE}:12 · agent main · run_tests × 3 · repeat-tool-reminder/first",
        f"── {EXAMPLE}:17 · agent main · run_tests × 5 · repeat-tool-reminder/detailed",
        f"── {EXAMPLE}:24 · agent explorer · grep × 3 · repeat-tool-reminder/first",
    ]
    assert FIRST in out
    assert (
        "- arguments: {\"command\":\"pytest tests/test_pricing.py -q\",\"timeout\":120}\n"
        "The repeated calls are not making progress." in out
    )
    assert out.endswith(
        "replayed 1 session: 21 tool calls from 2 agents; 3 reminders "
        "(repeat-tool-reminder at 3: 2, repeat-tool-reminder at 5: 1)\n"
    )


def test_jsonl_has_the_pinned_shape_one_object_per_call(tmp_path, capsys):
    path = events(tmp_path, [call(), {"type": "pre-step", "agent": "main"}, call(), call(tool="ls"), call(), call(), call()])
    assert main(["replay", "--format", "jsonl", "--config", str(REPO / "examples" / "reference-mount.yaml"), path]) == 0
    out = capsys.readouterr().out
    assert "\r" not in out and out.endswith("\n")
    objects = [json.loads(line) for line in out.split("\n")[:-1]]
    assert [(o["line"], o["agent"], o["tool"], len(o["contexts"])) for o in objects] == [
        (1, "main", "grep", 0), (3, "main", "grep", 0), (4, "main", "ls", 0), (5, "main", "grep", 0),
        (6, "main", "grep", 0), (7, "main", "grep", 1),
    ]
    assert set(objects[0]) == {"line", "agent", "tool", "contexts"}
    (context,) = objects[5]["contexts"]
    assert context["text"] == FIRST
    assert context["source"] == {"kind": "plugin", "plugin": "repeat-tool-reminder", "form": "notice", "summary": "grep × 3"}
    assert context["metadata"]["count"] == 3


def test_jsonl_is_utf8_and_leaves_non_ascii_unescaped(tmp_path, capsysbinary):
    args = {"q": "中文\u2028x"}
    path = events(tmp_path, [call(arguments=args)] * 5)
    assert main(["replay", "--format", "jsonl", "--locale", "zh", path]) == 0
    raw = capsysbinary.readouterr().out
    text = raw.decode("utf-8")
    lines = text.split("\n")[:-1]
    assert len(lines) == 5
    assert "检测到重复的工具调用" in lines[4] and "\u2028" in lines[4]


def test_a_malformed_line_stops_with_path_and_line(tmp_path, capsys):
    path = events(tmp_path, [call(), "{not json", call()])
    assert main(["replay", path]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:2: ")
    assert "Traceback" not in err


def test_skip_bad_lines_counts_them(tmp_path, capsys):
    path = events(tmp_path, [call(), "{not json", call(), call()])
    assert main(["replay", "--skip-bad-lines", path]) == 0
    captured = capsys.readouterr()
    assert f"{path}:2: " in captured.err and "(skipped)" in captured.err
    assert captured.out.endswith("; 1 malformed line skipped\n")
    assert "grep × 3" in captured.out


def test_stdin_input(tmp_path):
    text = "".join(json.dumps(call()) + "\n" for _ in range(3))
    done = subprocess.run(
        [sys.executable, "-m", "toolguards", "replay", "-"], input=text.encode(), capture_output=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "── -:3 · agent main · grep × 3" in done.stdout.decode()


def test_summary_reports_runs_and_advice(tmp_path, capsys):
    lines = []
    for _ in range(3):
        lines += [call(tool="status", arguments={"job": 1})] * 4 + [call(tool="other", arguments={})]
    path = events(tmp_path, lines)
    assert main(["replay", "--summary", path]) == 0
    out = capsys.readouterr().out
    assert "  status: 12 calls; repeated runs: 4×3; reminders: at 3: 3\n" in out
    assert "advice: `status` had 3 runs of 3 or more identical calls: it is probably polled" in out


def test_compare_shows_the_difference(tmp_path, capsys):
    other = tmp_path / "other.yaml"
    other.write_text("guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [2]}\n", encoding="utf-8")
    path = events(tmp_path, [call()] * 3)
    assert main(["replay", "--compare", str(other), path]) == 0
    out = capsys.readouterr().out
    assert f"── {path}:2 · agent main · grep\nA: (nothing)\nB: repeat-tool-reminder/first · grep × 2\n" in out
    assert out.endswith("fired 1 reminders, B (" + str(other) + ") fired 1; they differ at 2 of 3 tool calls\n")


def test_bad_config_is_reported_with_positions(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: []}\n", encoding="utf-8")
    assert main(["replay", "--config", str(bad), events(tmp_path, [call()])]) == 1
    assert capsys.readouterr().err == f"{bad}:3:26: guards[0].config.thresholds: `thresholds` must not be empty\n"


def test_unknown_format_is_a_usage_error(tmp_path, capsys):
    path = tmp_path / "x.txt"
    path.write_text("hello\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "cannot tell the input format; give --input-format" in capsys.readouterr().err


def test_missing_input(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 1
    assert "cannot read the input: No such file or directory" in capsys.readouterr().err


@needs_dsh
@pytest.mark.parametrize("name", ["repeat-tool-reminder", "parallel-tool-calls", "multi-turn", "hook-cc-pretool-deny"])
def test_dsh_fixtures_pass_the_check_under_the_reference_mount(name, capsys):
    config = REPO / "examples" / "reference-mount.yaml"
    assert main(["replay", "--check", "--config", str(config), str(DSH / f"{name}.jsonl")]) == 0
    out = capsys.readouterr().out
    expected = 2 if name == "repeat-tool-reminder" else 0
    assert out == f"{DSH / f'{name}.jsonl'}: repeat-tool-reminder: {expected} reminders agree with the log\n"


@needs_dsh
def test_check_fails_with_a_diff_when_the_guard_disagrees(tmp_path, capsys):
    four = tmp_path / "four.yaml"
    four.write_text("guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [3, 4]}\n", encoding="utf-8")
    assert main(["replay", "--check", "--config", str(four), str(DSH / "repeat-tool-reminder.jsonl")]) == 1
    out = capsys.readouterr().out
    assert "the reminders differ from the log (- recorded, + produced):" in out
    assert '-[todo_write × 5] "Repeated tool call detected:' in out
    assert '+[todo_write × 4] "Repeated tool call detected:' in out


@needs_dsh
def test_the_shipped_default_excludes_todo_write_so_the_log_disagrees(capsys):
    assert main(["replay", "--check", str(DSH / "repeat-tool-reminder.jsonl")]) == 1


def test_check_needs_a_dsh_log(tmp_path, capsys):
    assert main(["replay", "--check", events(tmp_path, [call()])]) == 2
    assert "--check needs a dsh session log, not events" in capsys.readouterr().err
