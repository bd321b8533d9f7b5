"""repeated-error-reminder: the same tool failing the same way again and again, whatever its arguments."""

from __future__ import annotations

from typing import Any

import pytest

import toolguards as tg
from conftest import SHARED_FIXTURES
from toolguards.guardfile.loader import check_file
from toolguards.kinds.repeated_error_reminder import error_key
from toolguards.replay.importers import read_records
from toolguards.replay.records import Record


def engine(locale: str | None = None, **config: Any) -> tg.Engine:
    return tg.from_mapping({"guards": [{"id": "repeated-error-reminder", "config": config}]}, locale=locale)


def fail(eng: tg.Engine, n: int, error: str | None = "Error: flight HAT030 not available", tool: str = "update",
         agent: str = "a") -> list[tg.PostToolDecision]:
    # the arguments change on every retry: only the error repeats
    return [eng.post_execute(tg.ToolEvent(tool, {"try": i}, agent=agent, error=error)) for i in range(n)]


def fired(decisions: list[tg.PostToolDecision]) -> list[int]:
    return [i for i, d in enumerate(decisions, 1) if d.additional_contexts]


def test_same_error_with_different_arguments():
    decisions = fail(engine(), 5)
    assert fired(decisions) == [3, 5]
    first, detailed = decisions[2].additional_contexts[0], decisions[4].additional_contexts[0]
    assert first.text == (
        "The tool `update` has failed 3 times in a row with the same error. Changing its arguments slightly has not "
        "helped: read the error carefully and try a different approach instead of calling it again the same way."
    )
    assert detailed.text == (
        "Repeated tool failure detected:\n- tool: update\n- consecutive_failures: 5\n"
        "- error: Error: flight HAT030 not available\n"
        "The retries are not making progress. Do not call this tool again until you have changed what causes the "
        "error. Inspect the error, gather the information you are missing, choose a different action, or tell the "
        "user what is blocking you."
    )
    assert dict(first.source) == {
        "kind": "plugin", "plugin": "repeated-error-reminder", "form": "notice", "summary": "update failed × 3"}
    assert first.metadata["error"] == "Error: flight HAT030 not available"


def test_chinese():
    decisions = fail(engine(locale="zh"), 3)
    assert decisions[2].additional_contexts[0].text.startswith("工具 `update` 已经连续 3 次因同样的错误而失败。")


@pytest.mark.parametrize(
    ("errors", "positions"),
    [
        (["E", "E", None, "E", "E", "E"], [6]),  # a success ends the run
        (["E", "E", "F", "E", "E"], []),  # another error ends it
        (["E", "  E\n", "E\t"], [3]),  # whitespace collapses
        (["x" * 200 + "1", "x" * 200 + "2", "x" * 200 + "3"], [3]),  # only the first 200 characters count
    ],
)
def test_what_makes_a_run(errors, positions):
    eng = engine()
    decisions = [eng.post_execute(tg.ToolEvent("t", {"i": i}, agent="a", error=e)) for i, e in enumerate(errors)]
    assert fired(decisions) == positions


def test_another_tool_ends_the_run_unless_untracked():
    eng = engine()
    decisions = [*fail(eng, 2), eng.post_execute(tg.ToolEvent("search", {}, agent="a")), *fail(eng, 2)]
    assert fired(decisions) == []
    eng = engine(exclude=["search"])
    decisions = [*fail(eng, 2), eng.post_execute(tg.ToolEvent("search", {}, agent="a")), *fail(eng, 1)]
    assert fired(decisions) == [4]


def test_per_agent_and_reset():
    eng = engine()
    fail(eng, 2, agent="one")
    fail(eng, 2, agent="two")
    eng.pre_step("one", user_prompt=True)
    assert fired(fail(eng, 1, agent="one")) == []
    assert fired(fail(eng, 1, agent="two")) == [1]


def test_error_key():
    assert error_key("  a \n\t b  ") == "a b"
    assert len(error_key("y" * 500)) == 200


def test_bad_config(write_guard_file):
    text = "guards:\n  - id: repeated-error-reminder\n    config:\n      thresholds: [1]\n      exclude: x\n"
    assert [str(d) for d in check_file(write_guard_file(text))] == [
        "g.yaml:4:20: guards[0].config.thresholds[0]: invalid threshold 1 — every threshold must be an integer >= 2",
        'g.yaml:5:16: guards[0].config.exclude: must be a list, not the string "x"',
    ]


@pytest.mark.needs_shared
def test_the_tau_bench_run_where_exact_matching_sees_runs_of_two():
    """The real GPT-4o session: update_reservation_flights fails five times with slightly different arguments.

    OpenAI messages carry no error flag, so the failing tool results (text starting with "Error:", tau-bench's
    convention) are made errors here, and the user turns between the retries are left out to look at the tool calls
    alone: the guard fires at the third and fifth failure, where the exact-repeat guard fires at none.
    """
    path = SHARED_FIXTURES / "transcripts" / "openai-tau-bench-airline-13.json"
    with path.open(encoding="utf-8") as stream:
        records = [r for r in read_records("openai", path.name, stream) if isinstance(r, Record)]
    errors = tg.from_mapping({"guards": [{"id": "repeated-error-reminder", "config": {"exclude": ["search_*", "think"]}}]})
    repeats = tg.load_default()
    fired_errors, fired_repeats = [], []
    for record in records:
        if record.kind != "post-execute":
            continue
        result = record.result if isinstance(record.result, str) else ""
        event = tg.ToolEvent(record.tool, record.arguments, agent="main", call_id=record.call_id,
                             error=result if result.startswith("Error:") else None)
        fired_errors += [c.metadata["count"] for c in errors.post_execute(event).additional_contexts]
        fired_repeats += [c.metadata["count"] for c in repeats.post_execute(event).additional_contexts]
    assert fired_errors == [3, 5]
    assert fired_repeats == []
