"""``toolguards replay``: the main job, its outputs, and the parity check against the reference's own logs."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIRST, REPO, SHARED_FIXTURES
from toolguards.cli import main
from toolguards.replay.batch import Spill, expand_inputs, run_each

EXAMPLE = REPO / "examples" / "looping-session.jsonl"
DSH = SHARED_FIXTURES / "dsh-sessions"
needs_dsh = pytest.mark.needs_shared



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


@pytest.mark.parametrize(("extra", "last"), [
    ([], "replayed 1 session: 3 tool calls from 1 agent; 1 reminder (repeat-tool-reminder at 3: 1)"),
    (["--summary"], "  grep: 3 calls; repeated runs: 3×1; reminders: at 3: 1"),
])
def test_with_jsonl_the_objects_are_stdout_and_the_totals_stderr(tmp_path, capsys, extra, last):
    path = events(tmp_path, [call()] * 3)
    assert main(["replay", "--format", "jsonl", *extra, path]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["line"] for line in out.splitlines()] == [1, 2, 3]
    assert last in err.splitlines()  # (with --summary, what followed each reminder comes after it)


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


def test_the_summary_shares_the_guards_canonical_form(tmp_path, capsys, monkeypatch):
    # One definition of an identical call: the statistics read the canonical text the guards made, never a second.
    import toolguards.canonical as canonical_module

    made: list[object] = []
    real = canonical_module.fast_text

    def counting(value: object) -> str | None:  # every canonical form, whoever asks for it, starts here
        made.append(value)
        return real(value)

    monkeypatch.setattr(canonical_module, "fast_text", counting)
    lines = [call(tool="status", arguments={"job": 1}, result={"state": n // 2}) for n in range(6)]
    path = events(tmp_path, lines)
    assert main(["replay", "--jobs", "1", "--summary", path]) == 0
    assert len(made) == 12  # each call's arguments and result, once each
    out = capsys.readouterr().out
    assert "  status: 6 calls; repeated runs: 6×1; reminders: at 3: 1, at 5: 1\n" in out
    assert "its result changed during 1 of them" in out


@pytest.mark.parametrize("fmt", ["codex", "claude-code", "dsh"])
def test_a_format_named_that_reads_nothing_of_the_input_is_an_error(capsys, fmt):
    assert main(["replay", "--input-format", fmt, str(EXAMPLE)]) == 1
    out, err = capsys.readouterr()
    assert err == (f"{EXAMPLE}:1: nothing here reads as {fmt}: 31 records not read and none read (another format? "
                   "without --input-format it is detected)\n")
    assert out.endswith("; 31 records not read (--summary lists them); 1 input failed\n")


def test_a_format_named_that_reads_something_is_no_error(tmp_path, capsys):
    path = events(tmp_path, [{"type": "something-else"}, call()])
    assert main(["replay", "--input-format", "events", path]) == 0
    assert capsys.readouterr().out.endswith("; 1 record not read (--summary lists them)\n")


@pytest.mark.parametrize(("calls", "totals", "per_tool"), [
    (1, "replayed 1 session: 1 tool call from 1 agent; 0 reminders", "  grep: 1 call; repeated runs: none; "),
    (3, "replayed 1 session: 3 tool calls from 1 agent; 1 reminder (repeat-tool-reminder at 3: 1)",
     "  grep: 3 calls; repeated runs: 3×1; "),
])
def test_one_of_a_thing_is_said_in_the_singular(tmp_path, capsys, calls, totals, per_tool):
    path = events(tmp_path, [call()] * calls)
    assert main(["replay", path]) == 0
    assert capsys.readouterr().out.endswith(totals + "\n")
    assert main(["replay", "--summary", path]) == 0
    assert per_tool in capsys.readouterr().out


def test_the_comparison_and_the_check_say_one_reminder_in_the_singular(tmp_path, capsys):
    other = tmp_path / "other.yaml"
    other.write_text("guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [4]}\n", encoding="utf-8")
    path = events(tmp_path, [call()] * 4)
    assert main(["replay", "--compare", str(other), path]) == 0
    assert capsys.readouterr().out.endswith(
        f"compare: A (repeat-tool-reminder.yaml) fired 1 reminder, B ({other}) fired 1; they differ at 2 of 4 tool "
        "calls\n")
    log = tmp_path / "session.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in [
        {"type": "session", "id": "s1"},
        *({"type": "tool/call", "data": {"callId": f"c{n}", "name": "grep", "arguments": "{}"}} for n in range(3)),
        {"type": "user/message", "data": {"source": {"kind": "plugin", "plugin": "repeat-tool-reminder",
                                                     "summary": "grep × 3"}, "content": [{"type": "text", "text": FIRST}]}},
    ]), encoding="utf-8")
    assert main(["replay", "--check", "--config", str(REPO / "examples" / "reference-mount.yaml"), str(log)]) == 0
    assert capsys.readouterr().out == f"{log}: repeat-tool-reminder: 1 reminder agrees with the log\n"


def test_the_summary_counts_the_runs_the_guards_chain_counts(capsys):
    # The shipped guard file excludes todo_write: the guard's run of run_tests goes on through it, to 6 (the report's
    # longest run), and an excluded tool has no runs at all.
    assert main(["replay", "--summary", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "  run_tests: 7 calls; repeated runs: 6×1; reminders: at 3: 1, at 5: 1\n" in out
    assert "  todo_write: 3 calls; repeated runs: none; reminders: none\n" in out


@pytest.mark.parametrize(("between", "runs"), [
    ({"type": "pre-step", "agent": "main", "userPrompt": True}, "3×2"),  # a new prompt ends the run
    ({"type": "pre-step", "agent": "main"}, "6×1"),  # a plain step boundary does not
    ({"type": "forget", "agent": "main"}, "3×2"),  # nor does anything but forgetting the agent
    (call(tool="other", agent="sub"), "6×1"),  # another agent's call is another chain
])
def test_the_summary_ends_a_run_where_the_guard_does(tmp_path, capsys, between, runs):
    path = events(tmp_path, [call(tool="status")] * 3 + [between] + [call(tool="status")] * 3)
    assert main(["replay", "--summary", path]) == 0
    assert f"  status: 6 calls; repeated runs: {runs}; " in capsys.readouterr().out


def test_a_call_delivered_twice_is_one_call_of_the_run(tmp_path, capsys):
    lines = [call(tool="status", callId=f"c{n}") for n in (1, 2, 2, 3)]
    path = events(tmp_path, lines)
    assert main(["replay", "--summary", path]) == 0
    assert "  status: 4 calls; repeated runs: 3×1; reminders: at 3: 1\n" in capsys.readouterr().out


@pytest.mark.parametrize("example", ["looping-session.jsonl", "openai-polling-session.json"])
def test_the_summary_and_the_report_find_the_same_runs(example):
    from toolguards.replay.files import Settings, direct_worker, replay_file
    from toolguards.replay.session import Reading
    from toolguards.report import Job, setup, work

    path = str(REPO / "examples" / example)
    settings = Settings(None, None, None, Reading(), jsonl=False, check=False, summary=True)
    with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink):
        totals = replay_file(direct_worker(settings, settings.engines(), True), path).totals
    session = work(setup(Job()), path)
    summary = {tool: dict(stats.runs) for tool, stats in totals.tools.items() if stats.runs}
    report = {tool: dict(tally.sides[0].plain) for tool, tally in session.tools.items() if tally.sides[0].plain}
    assert summary == report
    assert any(length > 1 for runs in summary.values() for length in runs)


def test_without_a_repeat_guard_the_summary_gives_no_advice(tmp_path, capsys):
    config = tmp_path / "cycles.yaml"
    config.write_text("guards:\n  - id: cycle-reminder\n", encoding="utf-8")
    lines = []
    for _ in range(3):  # three long runs: what the repeat guard's advice would call polling
        lines += [call(tool="status", arguments={"job": 1})] * 4 + [call(tool="other", arguments={})]
    path = events(tmp_path, lines)
    assert main(["replay", "--summary", "--config", str(config), path]) == 0
    out = capsys.readouterr().out
    assert "  status: 12 calls; repeated runs: 4×3; reminders: none\n" in out
    assert "advice" not in out


def test_compare_shows_the_difference(tmp_path, capsys):
    other = tmp_path / "other.yaml"
    other.write_text("guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [2]}\n", encoding="utf-8")
    path = events(tmp_path, [call()] * 3)
    assert main(["replay", "--compare", str(other), path]) == 0
    out = capsys.readouterr().out
    assert f"── {path}:2 · agent main · grep\nA: (nothing)\nB: repeat-tool-reminder/first · grep × 2\n" in out
    assert out.endswith("fired 1 reminder, B (" + str(other) + ") fired 1; they differ at 2 of 3 tool calls\n")


def test_bad_config_is_reported_with_positions(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: []}\n", encoding="utf-8")
    assert main(["replay", "--config", str(bad), events(tmp_path, [call()])]) == 1
    assert capsys.readouterr().err == f"{bad}:3:26: guards[0].config.thresholds: `thresholds` must not be empty\n"


def test_an_input_of_no_format_is_reported_and_fails(tmp_path, capsys):
    text, json_lines = tmp_path / "x.txt", tmp_path / "y.jsonl"
    text.write_text("hello\n", encoding="utf-8")
    json_lines.write_text('{"foo": 1}\n', encoding="utf-8")
    assert main(["replay", str(text), str(json_lines)]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"{text}:1: not JSON: Expecting value at column 1\n"
        f"{json_lines}:1: cannot tell the input format; give --input-format\n"
    )
    assert captured.out == "replayed 0 sessions: 0 tool calls from 0 agents; 0 reminders; 2 inputs failed\n"


def test_missing_input(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 1
    assert capsys.readouterr().err == f"{tmp_path / 'nope.jsonl'}:1: cannot read the input: No such file or directory\n"


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
    path = events(tmp_path, [call()])
    assert main(["replay", "--check", path]) == 1
    assert capsys.readouterr().err == f"{path}:1: --check needs a dsh session log, not events\n"


# --- several inputs, folders, --jobs ---


def test_an_empty_file_is_a_session_with_no_calls(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.json"
    blank.write_text("\n \n", encoding="utf-8")
    assert main(["replay", str(empty), str(blank)]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("replayed 2 sessions: 0 tool calls from 0 agents; 0 reminders\n", "")


def test_a_file_that_fails_is_reported_and_the_run_goes_on(tmp_path, capsys):
    first = events(tmp_path, [call()] * 3, name="a.jsonl")
    broken = events(tmp_path, [call(), "{not json", call()], name="b.jsonl")
    last = events(tmp_path, [call(tool="ls")] * 3, name="c.jsonl")
    assert main(["replay", first, broken, last]) == 1
    captured = capsys.readouterr()
    assert [line for line in captured.out.splitlines() if line.startswith("── ")] == [
        f"── {first}:3 · agent main · grep × 3 · repeat-tool-reminder/first",
        f"── {last}:3 · agent main · ls × 3 · repeat-tool-reminder/first",
    ]
    assert captured.err == f"{broken}:2: not JSON: Expecting property name enclosed in double quotes at column 2\n"
    assert captured.out.endswith(
        "replayed 3 sessions: 7 tool calls from 3 agents; 2 reminders (repeat-tool-reminder at 3: 2); 1 input failed\n"
    )


def test_each_file_starts_with_fresh_chains(tmp_path, capsys):
    # two calls in each file: no run of three across the two
    paths = [events(tmp_path, [call()] * 2, name=f"{n}.jsonl") for n in range(2)]
    assert main(["replay", "--jobs", "1", *paths]) == 0
    assert capsys.readouterr().out == "replayed 2 sessions: 4 tool calls from 2 agents; 0 reminders\n"


def folder_of_sessions(root: Path) -> Path:
    (root / "projects" / "b").mkdir(parents=True)
    (root / "projects" / "a-c").mkdir()
    events(root / "projects" / "b", [call()] * 3, name="z.jsonl")
    events(root / "projects" / "a-c", [call(tool="ls")] * 4, name="s.json")
    events(root / "projects", [call(tool="cat")] * 3, name="top.jsonl")
    (root / "projects" / "README.md").write_text("# not a session\n", encoding="utf-8")
    (root / "projects" / "notes.txt").write_text("nor this\n", encoding="utf-8")
    (root / "projects" / "b" / "empty.jsonl").write_bytes(b"")
    (root / "projects" / "b" / "garbage.json").write_bytes(b"\x00\x01 garbage\n")
    (root / "projects" / "b" / "unknown.jsonl").write_text('{"type": "new", "x": 1}\n' + json.dumps(call()) + "\n",
                                                           encoding="utf-8")
    return root / "projects"


def test_a_folder_stands_for_its_session_files_in_sorted_order(tmp_path, capsys):
    folder = folder_of_sessions(tmp_path)
    assert main(["replay", "--summary", str(folder)]) == 1
    captured = capsys.readouterr()
    assert [line.split(" · ")[0] for line in captured.out.splitlines() if line.startswith("── ")] == [
        f"── {folder}/a-c/s.json:3",
        f"── {folder}/b/z.jsonl:3",
        f"── {folder}/top.jsonl:3",
    ]
    assert captured.err == f"{folder}/b/garbage.json:1: not JSON: Expecting value at column 1\n"
    assert (
        "replayed 5 sessions: 11 tool calls from 4 agents; 3 reminders (repeat-tool-reminder at 3: 3); "
        "1 record not read; 1 input failed\n" in captured.out
    )
    assert (
        "records not read (a type or shape the importer does not know; --strict makes them errors):\n"
        f"  1 × new (events), first at {folder}/b/unknown.jsonl:1\n"
    ) in captured.out


def run_captured(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("extra", [[], ["--format", "jsonl", "--summary"], ["--skip-bad-lines", "--strict"]])
def test_jobs_give_the_same_output_as_one_process(tmp_path, capsys, extra):
    folder = folder_of_sessions(tmp_path)
    if DSH.is_dir():
        for log in sorted(DSH.glob("*.jsonl")):
            (folder / log.name).write_bytes(log.read_bytes())
    one = run_captured(["replay", *extra, "--jobs", "1", str(folder)], capsys)
    two = run_captured(["replay", *extra, "--jobs", "2", str(folder)], capsys)
    assert two == one
    assert one[2]  # the garbage file at least: stderr is compared too


def test_strict_makes_a_record_not_read_an_error(tmp_path, capsys):
    path = events(tmp_path, [call(), {"type": "session-start", "agent": "main"}, call()])
    assert main(["replay", "--strict", path]) == 1
    assert capsys.readouterr().err == f"{path}:2: events record not read (--strict): session-start\n"
    assert main(["replay", path]) == 0
    assert capsys.readouterr().out.endswith("; 1 record not read (--summary lists them)\n")


def test_count_polls_reaches_every_importer(tmp_path, monkeypatch, capsys):
    from toolguards.replay import session

    seen = []

    def spy(fmt, path, stream, options):
        seen.append((fmt, options.count_polls))
        return iter(())

    monkeypatch.setattr(session, "read_records", spy)
    path = events(tmp_path, [call()])
    assert main(["replay", path]) == 0
    assert main(["replay", "--count-polls", path]) == 0
    assert seen == [("events", False), ("events", True)]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--jobs", "0"], "argument --jobs: must be 1 or more, not 0"),
        (["--jobs", "two"], "argument --jobs: expected a whole number, not 'two'"),
    ],
)
def test_bad_jobs_are_a_usage_error(argv, expected, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", *argv, "x.jsonl"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.endswith(f"toolguards replay: {expected}\n")


def test_the_help_gives_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "exit codes: 0 every input replayed (with --check: and every log agrees) 1 an input could not be read, a "
        "problem in the guard file, or a --check disagreement 2 a usage error" in out
    )


# --- the reusable parts: input expansion, the ordered per-file runner, spilled output ---


def test_folders_expand_to_their_session_files_in_sorted_path_order(tmp_path):
    for name in ["b/z.jsonl", "b/a/y.json", "a-c/x.jsonl", "top.json", "README.md", "b/notes.JSON", "b/c.jsonl.bak"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    found, problems = expand_inputs([str(tmp_path), "-", str(tmp_path / "missing.jsonl"), str(tmp_path / "top.json")])
    assert [path.replace(str(tmp_path), "T") for path in found] == [
        "T/a-c/x.jsonl", "T/b/a/y.json", "T/b/z.jsonl", "T/top.json", "-", "T/missing.jsonl", "T/top.json",
    ]
    assert problems == []


def _where(state: str, path: str) -> str:
    if path == "boom":
        raise ValueError("boom")
    return f"{state}:{path}"


def _state() -> str:
    return "ready"


def _no_state() -> str:
    raise RuntimeError("no guard file")


@pytest.mark.parametrize("jobs", [1, 2])
def test_run_each_keeps_the_input_order(jobs):
    paths = [f"p{n}" for n in range(12)]
    assert list(run_each(_where, _state, paths, jobs)) == [f"ready:{path}" for path in paths]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failure_in_a_worker_ends_the_run_here(jobs):
    with pytest.raises(ValueError, match="boom"):
        list(run_each(_where, _state, ["a", "boom", "c"], jobs))
    with pytest.raises(RuntimeError, match="no guard file"):  # a failing setup fails the run, never hangs it
        list(run_each(_where, _no_state, ["a", "b"], jobs))


@pytest.mark.parametrize(("method", "expected"), [("fork", "made here"), ("forkserver", "ready")])
def test_forked_workers_start_from_the_state_made_here(monkeypatch, method, expected):
    from toolguards.replay import batch

    made_here = {"state": "made here"}
    monkeypatch.setattr(batch, "_start_method", lambda: method)
    # A lambda cannot be pickled: only a forked worker, which inherits this process's memory, can call it.
    results = list(run_each(_where, _state, ["a", "b", "c"], 2, inherited=lambda: made_here["state"]))
    assert results == [f"{expected}:{path}" for path in "abc"]


def test_spilled_output_comes_back_whole_and_in_order():
    spill = Spill(limit=10)
    parts = [f"line {n}\n" for n in range(50)]
    for part in parts:
        spill.write(part)
    carried = pickle.loads(pickle.dumps(spill))  # as it crosses from a worker
    file = carried._file
    assert file is not None and Path(file).is_file()
    written: list[str] = []
    carried.copy_to(written.append)
    assert "".join(written) == "".join(parts)
    assert not Path(file).exists()


def test_a_bad_byte_an_importer_lets_through_ends_the_input_at_its_line(tmp_path, monkeypatch, capsys):
    from toolguards.replay import session

    def raw_lines(fmt, path, stream, options):  # an importer that iterates the lines itself and forgets the contract
        for _line in stream:
            pass
        return iter(())

    monkeypatch.setattr(session, "read_records", raw_lines)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type": "forget", "agent": "a"}\n{"type": "forget", "agent": "b\xff"}\n{"type": "forget"}\n')
    assert main(["replay", "--input-format", "events", str(path)]) == 1
    assert capsys.readouterr().err == f"{path}:2: not UTF-8 text: byte 0xff at column 31\n"


def test_a_lone_surrogate_in_a_tool_name_prints_as_its_json_escape(tmp_path, capsys):
    path = events(tmp_path, [call(tool="\ud800x")] * 3)
    assert main(["replay", path]) == 0
    assert f"── {path}:3 · agent main · \\ud800x × 3 · repeat-tool-reminder/first\n" in capsys.readouterr().out
    assert main(["replay", "--format", "jsonl", path]) == 0
    assert [json.loads(line)["tool"] for line in capsys.readouterr().out.splitlines()] == ["\ud800x"] * 3
