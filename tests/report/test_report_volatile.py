"""The report follows the guard's volatile options, learns them where runs break only on a volatile part, and counts
what a no-progress-reminder would draw; replay agrees with it."""

from __future__ import annotations

from typing import Any

import pytest

from toolguards.guardfile.loader import from_mapping, load
from toolguards.replay.records import Record
from toolguards.report import merge, render_page, suggest
from toolguards.report.analyser import Analyser
from toolguards.volatile import Normalizer

PGID = Normalizer(r"Process Group PGID: \d+", "Process Group PGID: <n>")


def shell_result(pgid: int, output: str = "smoke check failed") -> str:
    return f"<untrusted_context>\nOutput: {output}\nProcess Group PGID: {pgid}\n</untrusted_context>"


Call = tuple[str, Any, Any]  # tool, arguments, result


def records(calls: list[Call]) -> list[Record]:
    return [Record("post-execute", line, "main", tool, arguments, result=result)
            for line, (tool, arguments, result) in enumerate(calls, 1)]


def analysed(guards: list[dict[str, Any]], calls: list[Call]):
    engine = from_mapping({"guards": guards})
    analyser = Analyser([engine], ["g.yaml"])
    return merge(analyser.views, [analyser.analyse("s.jsonl", "events", records(calls))]), engine


def drawn(engine, calls: list[Call]) -> int:
    """The reminders replay's engine draws on these calls, in a fresh engine of the same file."""
    return sum(len(engine.post_execute(record).additional_contexts) for record in records(calls))


SHELL = [("run_shell_command", {"command": "make test"}, shell_result(7355 + 8 * i)) for i in range(4)]
PASSED = [("run_shell_command", {"command": "make test"}, shell_result(7400 + i, "passed")) for i in range(2)]
AWARE = [{"id": "repeat-tool-reminder", "config": {"thresholds": [3], "resultAware": True}}]


def test_runs_split_only_by_a_changing_pgid_get_the_normalizer(tmp_path):
    report, engine = analysed(AWARE, [*SHELL, ("other", {}, None), *SHELL, *PASSED])
    assert drawn(engine, SHELL) == 0
    found = suggest(report)
    assert found is not None
    # the second run's result really changed at its end ("passed"): only the first broke on the PGID alone
    assert [(v.tool, v.runs, v.normalizers) for v in found.volatile] == [("run_shell_command", 1, (PGID,))]
    assert found.aware == ()  # the PGID is not progress: no plain resultAware for it
    assert found.yaml == (
        "version: 1\nguards:\n  - id: \"repeat-tool-reminder\"\n    config:\n      thresholds: [3]\n"
        "      overrides:\n        - tools: [\"run_shell_command\"]\n          resultAware: true\n"
        "          resultNormalizers:\n"
        "            - {pattern: \"Process Group PGID: \\\\d+\", replacement: \"Process Group PGID: <n>\"}\n"
    )
    path = tmp_path / "suggested.yaml"
    path.write_text(found.yaml, encoding="utf-8")
    assert drawn(load(path), SHELL) == 1  # it would have reminded
    page = render_page(report, "en")
    assert '<ul id="volatile-results">' in page and "<code>Process Group PGID: \\d+</code>" in page


def test_a_counter_that_is_not_an_id_or_a_time_stays_progress():
    calls = [("job_status", {"id": 7}, f"done {i}") for i in range(4)]
    found = suggest(analysed([{"id": "repeat-tool-reminder", "config": {"thresholds": [3]}}], calls)[0])
    assert found is not None
    assert ([p.tool for p in found.aware], found.volatile) == (["job_status"], ())


def test_the_report_compares_as_the_guard_does():
    guards = [{"id": "repeat-tool-reminder", "config": {"thresholds": [3], "overrides": [
        {"tools": ["run_shell_command"], "resultAware": True, "resultNormalizers": [
            {"pattern": PGID.pattern, "replacement": PGID.replacement}], "ignoreArguments": ["description"]}]}}]
    calls = [(tool, {**arguments, "description": f"try {i}"}, result) for i, (tool, arguments, result) in
             enumerate(SHELL)]
    report, engine = analysed(guards, calls)
    tally = report.tools["run_shell_command"]
    assert dict(tally.runs) == {4: 1}
    assert dict(tally.sides[0].aware) == {4: 1}
    assert report.what_if(0, 3, aware=True) == drawn(engine, calls) == 1
    assert suggest(report) is None  # nothing left to learn


PROGRESS = [("execute_command", {"command": "pytest -q", "task_progress": f"- [x] step {i}"}, "1 failed")
            for i in range(4)]


def test_calls_that_differ_only_in_a_text_argument_get_ignore_arguments(tmp_path):
    guards = [{"id": "repeat-tool-reminder", "config": {"thresholds": [3]}}]
    report, engine = analysed(guards, [*PROGRESS, ("other", {}, None), *PROGRESS])
    assert drawn(engine, PROGRESS) == 0
    found = suggest(report)
    assert found is not None
    assert [(x.tool, x.runs, x.paths) for x in found.loose] == [("execute_command", 2, ("task_progress",))]
    assert found.yaml is not None and '          ignoreArguments: ["task_progress"]\n' in found.yaml
    path = tmp_path / "suggested.yaml"
    path.write_text(found.yaml, encoding="utf-8")
    assert drawn(load(path), PROGRESS) == 1
    assert '<ul id="volatile-arguments">' in render_page(report, "en")


@pytest.mark.parametrize(
    "calls",
    [
        # a number is an argument (an offset), not bookkeeping
        [("read", {"offset": i}, "same") for i in range(4)],
        # the result changed: the text argument made a difference
        [("search", {"q": f"q{i}"}, f"hits {i}") for i in range(4)],
        # no result to tell by
        [("search", {"q": f"q{i}"}, None) for i in range(4)],
        # too short a run
        [("execute_command", {"task_progress": f"{i}"}, "ok") for i in range(2)],
    ],
)
def test_what_is_not_taken_for_a_volatile_argument(calls):
    report, _ = analysed([{"id": "repeat-tool-reminder", "config": {"thresholds": [3]}}], calls)
    found = suggest(report)
    assert found is None or found.loose == ()


PAGING = [("read_page", {"url": "u", "offset": 10 * i}, "Access denied") for i in range(6)]


def test_the_no_progress_what_if_counts_as_the_guard_reminds():
    guards = [{"id": "repeat-tool-reminder"}, {"id": "no-progress-reminder", "config": {"thresholds": [3, 5]}}]
    calls = [*PAGING, ("read_page", {"url": "u", "offset": 0}, "page 1"), *PAGING[:3]]
    report, _engine = analysed(guards, calls)
    # a run of 6, the other page (a run of 1), then a run of 3
    assert dict(report.tools["read_page"].sides[0].stalled) == {6: 1, 1: 1, 3: 1}
    assert [report.stalled_what_if(0, t) for t in (2, 3, 4, 5, 6, 7)] == [2, 2, 1, 1, 1, 0]
    for threshold in (3, 4, 6):
        only = from_mapping({"guards": [{"id": "no-progress-reminder", "config": {"thresholds": [threshold]}}]})
        assert drawn(only, calls) == report.stalled_what_if(0, threshold)
    page = render_page(report, "en")
    assert '<section id="no-progress">' in page and '<a href="#no-progress">' in page
    assert '<tr class="all"><td>all tools</td><td class="num" data-v="2">2</td>' in page
    assert '<section id="no-progress">' in render_page(report, "zh")


def test_without_a_no_progress_guard_the_page_has_no_such_section():
    report, _ = analysed([{"id": "repeat-tool-reminder"}], PAGING)
    assert "no-progress" not in render_page(report, "en")
