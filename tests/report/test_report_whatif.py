"""The report's what-if against the guard itself: for every threshold t from 2 to 10, the reminders it says a first
threshold of t would draw (plain and with resultAware) are the reminders a guard file with ``thresholds: [t]`` does
draw when the same sessions are replayed — on generated sessions and on the recorded ones."""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO, SHARED_FIXTURES
from toolguards.guardfile.loader import from_mapping
from toolguards.replay.feed import Outcome, replay
from toolguards.replay.records import ImportOptions, Record
from toolguards.replay.session import Input, Reading
from toolguards.report import WHAT_IF, Analyser, Report, merge


@functools.cache
def guard(thresholds: tuple[int, ...], *, aware: bool = False, include: tuple[str, ...] = (),
          exclude: tuple[str, ...] = ()) -> Any:
    """An engine of one guard; engines are shared between sessions, each session forgetting its agents after it."""
    config: dict[str, Any] = {"thresholds": list(thresholds), "resultAware": aware}
    if include:
        config["include"] = list(include)
    if exclude:
        config["exclude"] = list(exclude)
    return from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": config}]})


def drawn(sessions: list[list[Record]], threshold: int, aware: bool, include: tuple[str, ...],
          exclude: tuple[str, ...]) -> Counter[str]:
    """Reminders a guard with the single threshold draws, per tool, replaying each session afresh."""
    found: Counter[str] = Counter()
    engine = guard((threshold,), aware=aware, include=include, exclude=exclude)
    for records in sessions:
        for item in replay(records, [engine]):
            if isinstance(item, Outcome):
                for entry in item.contexts:
                    assert entry.reminder is not None and entry.reminder.count == threshold
                    found[item.record.tool] += 1
        for record in records:
            engine.forget(record.agent)
    return found


def analysed(sessions: list[list[Record]], include: tuple[str, ...], exclude: tuple[str, ...],
             first: tuple[tuple[str, ...], tuple[str, ...]] | None = None) -> Report:
    """The report of ``sessions``: under a guard with these patterns, or compared with it (``first``: the patterns of
    the first guard file, the one given being the second)."""
    engines = [guard((3, 5, 8), include=include, exclude=exclude)]
    if first is not None:
        engines.insert(0, guard((3, 5, 8), include=first[0], exclude=first[1]))
    analyser = Analyser(engines, ["a.yaml", "b.yaml"][: len(engines)])
    return merge(analyser.views, [analyser.analyse(f"s{i}", "events", records) for i, records in enumerate(sessions)])


def check(sessions: list[list[Record]], include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
          first: tuple[tuple[str, ...], tuple[str, ...]] | None = None) -> None:
    report = analysed(sessions, include, exclude, first)
    side = 0 if first is None else 1
    for threshold in WHAT_IF:
        for aware in (False, True):
            expected = drawn(sessions, threshold, aware, include, exclude)
            got = Counter({tool: Report.tool_what_if(tally, side, threshold, aware=aware)
                           for tool, tally in report.tools.items()})
            assert +got == +expected, (threshold, aware)
            assert report.what_if(side, threshold, aware=aware) == sum(expected.values())


def call(line: int, agent: str | None, tool: str, argument: int, result: str | None = None,
         call_id: str | None = None) -> Record:
    return Record("post-execute", line, agent, tool, {"q": argument}, call_id=call_id, result=result)


def prompt(line: int, agent: str | None, user_prompt: bool = True) -> Record:
    return Record("pre-step", line, agent, user_prompt=user_prompt)


def forget(line: int, agent: str | None) -> Record:
    return Record("forget", line, agent)


def test_a_long_run_with_changing_results_and_a_reset():
    session = [call(i, "a", "status", 1, result=f"r{i // 3}") for i in range(1, 12)]
    session += [prompt(12, "a"), *(call(i, "a", "status", 1, result="same") for i in range(13, 17))]
    check([session])
    report = analysed([session], (), ())
    tally = report.tools["status"]
    assert dict(tally.runs) == {11: 1, 4: 1}
    assert dict(tally.changing) == {11: 1}
    assert dict(tally.sides[0].aware) == {3: 3, 2: 1, 4: 1}


def test_untracked_calls_neither_count_nor_break_a_run_and_call_ids_count_once():
    session = [
        call(1, "a", "grep", 1, call_id="c1"), call(2, "a", "todo", 9), call(3, "a", "grep", 1, call_id="c1"),
        call(4, "a", "grep", 1, call_id="c2"), call(5, "b", "grep", 1), call(6, "a", "grep", 1),
        call(7, None, "grep", 1), call(8, "a", "grep", 1), forget(9, "a"), call(10, "a", "grep", 1, call_id="c1"),
        prompt(11, "a"), call(12, "a", "grep", 1, call_id="c1"), call(13, "a", "grep", 1, call_id="c1"),
        call(14, "a", "grep", 1),
    ]
    check([session], exclude=("todo",))
    report = analysed([session], (), ("todo",))
    assert dict(report.tools["grep"].runs) == {4: 1, 1: 2, 2: 1}
    assert "todo" in report.tools and not report.tools["todo"].runs


_AGENTS = st.sampled_from(["a", "b", None])
_EVENT = st.one_of(
    st.tuples(st.just("call"), _AGENTS, st.sampled_from(["x", "y", "skip"]), st.integers(0, 1),
              st.sampled_from([None, "r1", "r2"]), st.sampled_from([None, None, "c1", "c2", "c3"])),
    st.tuples(st.just("prompt"), _AGENTS, st.booleans()),
    st.tuples(st.just("forget"), _AGENTS),
)


def records_of(events: list[tuple[Any, ...]]) -> list[Record]:
    found = []
    for line, event in enumerate(events, 1):
        if event[0] == "call":
            _, agent, tool, argument, result, call_id = event
            found.append(call(line, agent, tool, argument, result, call_id))
        elif event[0] == "prompt":
            found.append(prompt(line, event[1], event[2]))
        else:
            found.append(forget(line, event[1]))
    return found


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_EVENT, max_size=40), min_size=1, max_size=3),
       st.sampled_from([((), ()), ((), ("skip",)), (("x", "skip"), ())]))
def test_the_what_if_is_what_the_guard_draws_on_generated_sessions(sessions, patterns):
    check([records_of(events) for events in sessions], *patterns)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(_EVENT, max_size=40), min_size=1, max_size=3),
       st.sampled_from([((), ()), ((), ("skip",)), (("x", "skip"), ())]),
       st.sampled_from([((), ()), ((), ("y",))]))
def test_the_compared_guard_files_what_if_is_what_it_draws(sessions, patterns, first):
    check([records_of(events) for events in sessions], *patterns, first=first)


def recorded() -> list[Path]:
    found = sorted((REPO / "examples").glob("*session*"))
    for folder in ("dsh-sessions", "transcripts", "hosts/sessions"):
        found += sorted(p for p in (SHARED_FIXTURES / folder).rglob("*.json*"))
    return found


@pytest.mark.needs_shared
def test_the_what_if_is_what_the_guard_draws_on_the_recorded_sessions():
    sessions = []
    for path in recorded():
        with Input(str(path), Reading(options=ImportOptions(count_polls=True))) as opened:
            assert opened.format is not None, path
            sessions.append([r for r in opened.records() if isinstance(r, Record)])
    assert sum(1 for records in sessions for r in records if r.kind == "post-execute") >= 250
    check(sessions)
    check(sessions, exclude=("todo_write",))
