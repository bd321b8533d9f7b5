"""``toolguards report``: where the page goes, what it says against ``replay --summary``, exit codes and messages."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from conftest import REPO, SHARED_FIXTURES
from support.docs_blocks import marked
from toolguards.cli import main
from toolguards.commands.report import DEFAULT_OUTPUT

EXAMPLE = REPO / "examples" / "looping-session.jsonl"
POLLING = REPO / "examples" / "openai-polling-session.json"
RESULT_AWARE = REPO / "examples" / "result-aware.yaml"


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def totals(page: str) -> dict[str, int]:
    return {name: int(value) for name, value in re.findall(r'<dd data-total="(\w+)">(\d+)</dd>', page)}


def by_threshold(page: str) -> dict[tuple[str, int], int]:
    """The page's reminders per (guard, count), first guard file."""
    found: dict[tuple[str, int], int] = {}
    for guard, count, drawn in re.findall(
        r'<tr data-guard="([^"]*)" data-count="(\d+)">.*?<td class="num drawn">(\d+)</td>', page
    ):
        found[(guard, int(count))] = found.get((guard, int(count)), 0) + int(drawn)
    return found


def summary_figures(line: str) -> tuple[dict[str, int], dict[tuple[str, int], int]]:
    """The figures of replay's totals line."""
    match = re.fullmatch(
        r"replayed (\d+) sessions?: (\d+) tool calls? from (\d+) agents?; (\d+) reminders?(?: \((.*?)\))?"
        r"(?:; (\d+) records? not read(?: \(--summary lists them\))?)?(?:; (\d+) malformed lines? skipped)?"
        r"(?:; (\d+) inputs? failed)?", line,
    )
    assert match is not None, line
    sessions, calls, agents, reminders, detail, unread, skipped, failed = match.groups()
    figures = {"sessions": int(sessions), "calls": int(calls), "agents": int(agents), "reminders": int(reminders)}
    for name, value in (("unread", unread), ("skipped", skipped), ("failed", failed)):
        if value:
            figures[name] = int(value)
    counts = {}
    for part in detail.split(", ") if detail else []:
        guard, count, n = re.fullmatch(r"(.+) at (\d+): (\d+)", part).groups()  # type: ignore[union-attr]
        counts[(guard, int(count))] = int(n)
    return figures, counts


def replayed(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str]:
    """replay --summary's exit code and totals line."""
    code = main(["replay", "--summary", *args])
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("replayed "))
    return code, line


def recorded_inputs() -> list[str]:
    found = [str(EXAMPLE), str(POLLING)]
    for folder in ("dsh-sessions", "transcripts"):
        found += sorted(str(p) for p in (SHARED_FIXTURES / folder).glob("*.json*"))
    return found


needs_fixtures = pytest.mark.needs_shared


@needs_fixtures
@pytest.mark.parametrize(
    "options",
    [
        [],
        ["--config", str(RESULT_AWARE)],
        # The whole shared folder (its schema files fail, counted), with Codex polls counted, in two processes.
        ["--count-polls", "--jobs", "2", str(SHARED_FIXTURES)],
    ],
)
def test_the_totals_are_replay_summarys(capsys, options):
    inputs = recorded_inputs() if not options or options[0] == "--config" else []
    code, line = replayed(capsys, [*options, *inputs])
    assert main(["report", "-o", "-", *options, *inputs]) == code
    page = capsys.readouterr().out
    figures, counts = summary_figures(line)
    assert totals(page) == figures
    assert by_threshold(page) == counts
    assert figures["reminders"] > 0


def test_skipped_lines_are_counted_as_replay_counts_them(tmp_path, capsys):
    lines = ['{"type": "post-execute", "agent": "a", "tool": "x"}', "{not json", '{"type": "nope"}']
    path = write(tmp_path, "s.jsonl", "\n".join(lines) + "\n")
    assert main(["replay", "--summary", "--skip-bad-lines", path]) == 0
    replay = capsys.readouterr()
    assert main(["report", "-o", "-", "--skip-bad-lines", path]) == 0
    reported = capsys.readouterr()
    assert totals(reported.out) == summary_figures(replay.out.splitlines()[0])[0] == {
        "sessions": 1, "calls": 1, "agents": 1, "reminders": 0, "unread": 1, "skipped": 1}
    assert reported.err.splitlines()[0] == replay.err.splitlines()[0]
    assert reported.err.splitlines()[0].endswith(" (skipped)")


def test_agents_are_counted_per_session(tmp_path, capsys):
    # Each file is its own session: its "main" is not the other file's "main", in replay's totals and the report's.
    line = '{"type": "post-execute", "agent": "main", "tool": "x"}\n'
    paths = [write(tmp_path, "a.jsonl", line), write(tmp_path, "b.jsonl", line + line.replace("main", "sub"))]
    code, replayed_line = replayed(capsys, ["--jobs", "1", *paths])
    assert (code, replayed_line) == (0, "replayed 2 sessions: 3 tool calls from 3 agents; 0 reminders")
    assert main(["report", "-o", "-", "--jobs", "1", *paths]) == 0
    assert totals(capsys.readouterr().out)["agents"] == 3
    assert main(["replay", "--jobs", "2", *paths]) == 0  # merged from worker processes alike
    assert capsys.readouterr().out == "replayed 2 sessions: 3 tool calls from 3 agents; 0 reminders\n"


def test_the_default_page_is_ignored_in_the_checkout():
    # The README runs `toolguards report` in the checkout: the page it leaves there is not a change to commit.
    ignore = REPO / ".gitignore"
    if not ignore.is_file():
        pytest.skip("not a checkout (no .gitignore): an installed copy of the tests")
    assert f"/{DEFAULT_OUTPUT}" in ignore.read_text(encoding="utf-8").splitlines()


def test_the_page_goes_to_the_default_file_and_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(EXAMPLE)]) == 0
    page = (tmp_path / "toolguards-report.html").read_text(encoding="utf-8")
    size = len(page.encode("utf-8"))
    assert capsys.readouterr().err == f"toolguards report: wrote toolguards-report.html (1 session, {size / 1024:.0f} KiB)\n"
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>")


def test_the_longest_runs_of_the_example_session(capsys):
    assert main(["report", "-o", "-", str(EXAMPLE)]) == 0
    page = capsys.readouterr().out
    body = page[page.index('<table id="longest-runs"'):]
    rows = re.findall(
        r'<td class="agent">(.*?)</td>\n<td class="tool"><code>(.*?)</code></td>\n<td class="num length" data-v="(\d+)">'
        r'.*?<td class="where"><code>(.*?)</code></td>', body[: body.index("</table>")], re.S,
    )
    # todo_write is not tracked by the shipped guard file, so the test runner's run goes on across it.
    assert rows == [("main", "run_tests", "6", f"{EXAMPLE}:7"), ("explorer", "grep", "4", f"{EXAMPLE}:22")]


def test_parallel_jobs_write_the_same_page(tmp_path, capsys):
    inputs = [str(EXAMPLE), str(POLLING)]
    inputs += [write(tmp_path, f"s{i}.jsonl", "".join(
        json.dumps({"type": "post-execute", "agent": f"a{i % 2}", "tool": "poll", "arguments": {}, "result": n // 3})
        + "\n" for n in range(10 + i))) for i in range(3)]
    pages = []
    for jobs in ("1", "2"):
        assert main(["report", "-o", "-", "--jobs", jobs, "--compare", str(RESULT_AWARE), *inputs]) == 0
        pages.append(capsys.readouterr().out)
    assert pages[0] == pages[1]
    assert "poll" in pages[0] and "resultAware: true" in pages[0]


def test_compare_shows_both_guard_files(capsys):
    assert main(["report", "-o", "-", "--compare", str(RESULT_AWARE), str(POLLING)]) == 0
    page = capsys.readouterr().out
    assert set(totals(page)) == {"sessions", "agents", "calls", "reminders", "reminders1"}
    assert f"<code>{RESULT_AWARE}</code>" in page
    assert page.count('class="sortable what-if-tools"') == 2


@pytest.mark.parametrize(
    ("files", "args", "expected"),
    [
        ({"s.txt": "hello\n"}, ["s.txt"], ["s.txt:1: not JSON: Expecting value at column 1"]),
        ({}, ["missing.jsonl"], ["missing.jsonl:1: cannot read the input: No such file or directory"]),
        ({"s.jsonl": '{"type": "post-execute", "agent": "a", "tool": 5}\n'}, ["s.jsonl"],
         ['s.jsonl:1: post-execute needs a string "tool"']),
        ({"a.jsonl": '{"type": "post-execute", "agent": "a", "tool": "x"}\n{"type": 1}\n', "b.jsonl": ""},
         ["a.jsonl", "nothing.jsonl", "b.jsonl"],
         ['a.jsonl:2: "type" must be "post-execute", "pre-step" or "forget", not a number',
          "nothing.jsonl:1: cannot read the input: No such file or directory"]),
    ],
)
def test_an_input_that_cannot_be_read_is_named_and_the_page_still_written(write_guard_file, tmp_path, capsys, files,
                                                                          args, expected):
    for name, text in files.items():
        write_guard_file(text, name)
    assert main(["replay", *args]) == 1
    replay = capsys.readouterr()
    assert main(["report", *args]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[:-1] == expected == replay.err.splitlines()
    assert err[-1].startswith("toolguards report: wrote toolguards-report.html (")
    page = (tmp_path / "toolguards-report.html").read_text(encoding="utf-8")
    assert totals(page) == summary_figures(replay.out.splitlines()[-1])[0]
    assert [html.unescape(line) for line in re.findall(r"<li><code>(.*?)</code></li>", page)] == expected


@pytest.mark.parametrize(
    ("files", "args", "expected"),
    [
        ({"g.yaml": "guards:\n  - id: nope\n", "s.jsonl": "{}\n"}, ["--config", "g.yaml", "s.jsonl"],
         'g.yaml:2:9: guards[0].id: the guard has no `kind` and its id "nope" is not a known kind (known kinds: '
         "`repeat-tool-reminder`, `cycle-reminder`, `repeated-error-reminder`, `no-progress-reminder`)"),
        ({"s.jsonl": ""}, ["s.jsonl", "-o", "no/such/folder/r.html"],
         "toolguards report: cannot write no/such/folder/r.html: No such file or directory"),
    ],
)
def test_a_config_problem_or_an_unwritable_page_exits_1(write_guard_file, tmp_path, capsys, files, args, expected):
    for name, text in files.items():
        write_guard_file(text, name)
    assert main(["report", *args]) == 1
    assert capsys.readouterr().err == expected + "\n"
    assert not (tmp_path / "toolguards-report.html").exists()


@pytest.mark.parametrize(("jobs", "message"), [("0", "must be 1 or more, not 0"), ("-1", "must be 1 or more, not -1"),
                                               ("two", "expected a whole number, not 'two'")])
def test_jobs_must_be_a_whole_number_of_processes(capsys, jobs, message):
    with pytest.raises(SystemExit) as stopped:
        main(["report", "--jobs", jobs, str(EXAMPLE)])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.endswith(f"toolguards report: argument --jobs: {message}\n")


def test_the_docs_show_the_command_and_its_picture(tmp_path, capsys, monkeypatch):
    command = marked("docs/report.md", "tested: report:command").text.strip()
    assert command.startswith("toolguards report ") and "\n" not in command
    assert "](report.png)" in (REPO / "docs" / "report.md").read_text(encoding="utf-8")
    assert "docs/report.png" in (REPO / "README.md").read_text(encoding="utf-8")
    assert (REPO / "docs" / "report.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    monkeypatch.chdir(REPO)
    assert main([*command.split()[1:], "-o", str(tmp_path / "r.html")]) == 0
    assert "resultAware: true" in (tmp_path / "r.html").read_text(encoding="utf-8")
