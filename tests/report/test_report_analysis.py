"""The report's aggregates: they survive a trip through a worker process, merge in input order, keep the longest
runs across sessions, and a session's timeline stays bounded however long the session is."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguards.guardfile.loader import from_mapping
from toolguards.replay.records import Record
from toolguards.report import LongRun, Run, SessionReport, merge, render_page, runs_at_least
from toolguards.report.analyser import Analyser
from toolguards.report.analysis import LONGEST, PREVIEW_CHARS
from toolguards.report.timeline import BINS, MAX_MARKS, MAX_ROWS, MAX_RUNS, TimelineBuilder


def analyser(**config) -> Analyser:
    engine = from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": {"thresholds": [3, 5], **config}}]})
    return Analyser([engine], ["g.yaml"])


def session(analyser: Analyser, name: str, calls: list[tuple[str, str, int]]) -> SessionReport:
    records = [Record("post-execute", line, agent, tool, {"n": n}) for line, (agent, tool, n) in enumerate(calls, 1)]
    return analyser.analyse(name, "events", records)


@pytest.mark.parametrize(
    ("lengths", "threshold", "expected"),
    [({1: 5, 3: 2, 7: 1}, 2, 3), ({1: 5, 3: 2, 7: 1}, 3, 3), ({1: 5, 3: 2, 7: 1}, 4, 1), ({}, 2, 0), ({2: 4}, 3, 0)],
)
def test_runs_at_least(lengths, threshold, expected):
    assert runs_at_least(Counter(lengths), threshold) == expected


def test_a_session_report_survives_a_worker_and_merges_in_input_order():
    tool = analyser()
    first = session(tool, "a.jsonl", [("m", "grep", 1)] * 4 + [("m", "ls", 0)])
    second = session(tool, "b.jsonl", [("m", "grep", 1)] * 4 + [("s", "ls", 0)] * 2)
    back = [pickle.loads(pickle.dumps(s)) for s in (first, second)]
    assert back == [first, second]
    report = merge(tool.views, back)
    assert (len(report.sessions), report.calls, report.agents) == (2, 11, 3)  # m, then m and s: per session
    assert dict(report.tools["grep"].runs) == {4: 2}
    assert [(r.path, r.length, r.position) for r in report.longest] == [("a.jsonl", 4, 0), ("b.jsonl", 4, 1),
                                                                      ("b.jsonl", 2, 1)]
    assert render_page(merge(tool.views, back), "en") == render_page(merge(tool.views, [first, second]), "en")


def test_each_input_is_its_own_session_though_the_engines_are_reused():
    tool = analyser()
    sessions = [session(tool, f"{i}.jsonl", [("m", "grep", 1)] * 2) for i in range(3)]
    assert [s.reminders for s in sessions] == [(0,), (0,), (0,)]  # 2 + 2 + 2 identical calls, never 3 in a row
    assert all(dict(s.tools["grep"].runs) == {2: 1} for s in sessions)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=12))
def test_the_longest_runs_are_the_longest_of_all_sessions(lengths):
    tool = analyser()
    sessions = [session(tool, f"{i}.jsonl", [("m", "t", i)] * length) for i, length in enumerate(lengths)]
    report = merge(tool.views, sessions)
    expected = sorted(((-n, i) for i, n in enumerate(lengths) if n >= 2))[:LONGEST]
    assert [(-r.length, r.position) for r in report.longest] == expected


def test_a_listed_run_cuts_its_arguments():
    long = LongRun.of("s", Run("m", "t", 3, False, 1, 0, 2, "x" * (PREVIEW_CHARS + 1)))
    short = LongRun.of("s", Run("m", "t", 3, False, 1, 0, 2, "x" * PREVIEW_CHARS))
    assert (len(long.preview), long.cut, len(short.preview), short.cut) == (PREVIEW_CHARS, True, PREVIEW_CHARS, False)


@pytest.mark.parametrize(("calls", "width"), [(1, 1), (BINS, 1), (BINS + 1, 2), (4 * BINS, 4), (4 * BINS + 1, 8)])
def test_the_timeline_widens_its_bins_as_the_session_grows(calls, width):
    builder = TimelineBuilder()
    for index in range(calls):
        builder.call("a" if index % 3 else "b")
    timeline = builder.finish()
    assert timeline.width == width
    assert all(len(row.bins) <= BINS for row in timeline.rows)
    b_calls = len(range(0, calls, 3))  # the first call is b's, so b has the first row
    assert [(row.agent, sum(row.bins)) for row in timeline.rows] == [("b", b_calls), ("a", calls - b_calls)][
        : 1 if calls == 1 else 2
    ]


def test_the_timeline_keeps_few_rows_the_longest_runs_and_the_first_reminders():
    builder = TimelineBuilder()
    for number in range(MAX_ROWS + 3):
        builder.call(f"agent{number}")
    builder.call(None)
    for length in range(2, MAX_RUNS + 12):
        builder.run(Run("agent0", "t", length, False, length, length, length + 1, "{}"))
    builder.run(Run("agent0", "t", 1, False, 1, 1, 1, "{}"))  # a single call is no run to draw
    for index in range(MAX_MARKS + 5):
        builder.reminder("agent1", index, "t", 3, "g/first")
    timeline = builder.finish()
    assert [row.agent for row in timeline.rows] == [f"agent{n}" for n in range(MAX_ROWS - 1)] + [None]
    assert timeline.rows[-1].others == 4 and sum(timeline.rows[-1].bins) == 5
    assert sorted(span.length for span in timeline.spans) == list(range(12, MAX_RUNS + 12))
    assert [span.first for span in timeline.spans] == sorted(span.first for span in timeline.spans)
    assert (timeline.more_spans, len(timeline.marks), timeline.more_marks) == (10, MAX_MARKS, 5)
    assert [mark.index for mark in timeline.marks] == list(range(MAX_MARKS))
