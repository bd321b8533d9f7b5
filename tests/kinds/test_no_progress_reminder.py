"""no-progress-reminder: the same result again and again while the arguments change (a paging agent on a blocked page,
a search reworded in vain)."""

from __future__ import annotations

from typing import Any

import pytest

import toolguards as tg
from toolguards.kinds.no_progress_reminder import KIND, NoProgressRun, advance

BLOCKED = "<html><body>Access denied: please enable cookies.</body></html>"
URL = "https://example.com/report"


def engine(locale: str | None = None, **config: Any) -> tg.Engine:
    return tg.from_mapping({"guards": [{"id": "no-progress-reminder", "config": config}]}, locale=locale)


def page(offset: int, result: Any = BLOCKED, tool: str = "read_page", **event: Any) -> tg.ToolEvent:
    return tg.ToolEvent(tool, {"url": URL, "offset": offset}, agent=event.pop("agent", "a"), result=result, **event)


def fired(decisions: list[tg.PostToolDecision]) -> list[int]:
    return [i for i, d in enumerate(decisions, 1) if d.additional_contexts]


def feed(eng: tg.Engine, events: list[tg.ToolEvent]) -> list[tg.PostToolDecision]:
    return [eng.post_execute(event) for event in events]


def test_a_paging_agent_with_the_same_result_under_new_offsets_is_reminded_at_the_thresholds():
    decisions = feed(engine(), [page(10 * i) for i in range(9)])
    assert fired(decisions) == [3, 5, 8]
    first, detailed = decisions[2].additional_contexts[0], decisions[4].additional_contexts[0]
    assert first.text == (
        "You have made 3 calls in a row (the latest to `read_page`) that returned the same result although their "
        "arguments changed. Changing the arguments this way is not making progress: read that result carefully (it "
        "may be an error, an empty answer or the end of the data) and try a different approach instead of another "
        "variation of the same call."
    )
    assert detailed.text == (
        "No progress detected:\n- tool: read_page\n- calls_with_the_same_result: 5\n"
        '- latest_arguments: {"offset":40,"url":"https://example.com/report"}\n'
        "The result has stayed the same while the arguments changed, so these calls are not making progress. Do not "
        "call this tool again with merely different arguments. Inspect the result: it may be an error, an empty "
        "answer or the end of the data. Choose a different action, or finish the task if enough evidence has been "
        "gathered."
    )
    assert dict(first.source) == {"kind": "plugin", "plugin": "no-progress-reminder", "form": "notice",
                                  "summary": "read_page same result × 3"}
    assert dict(first.metadata) == {"guard": "no-progress-reminder", "kind": "no-progress-reminder",
                                    "tool": "read_page", "count": 3, "template": "first"}


def test_chinese():
    decisions = feed(engine(locale="zh", thresholds=[2, 3]), [page(i) for i in range(3)])
    assert decisions[1].additional_contexts[0].text.startswith("你已经连续 2 次调用工具（最近一次是 `read_page`）")
    assert decisions[2].additional_contexts[0].text.startswith("检测到没有进展的调用：\n- 工具：read_page\n")


@pytest.mark.parametrize(
    ("events", "positions"),
    [
        # a call without a result never counts, and changes nothing
        ([page(0), page(1, None), page(2), page(3, None), page(4)], [5]),
        # another result starts a new run at 1
        ([page(0), page(1), page(2, "page 3 of 9"), page(3, "page 3 of 9"), page(4, "page 3 of 9")], [5]),
        # the same arguments and result again is the repeat guard's case: it neither adds nor ends the run
        ([page(0), page(0), page(0), page(1), page(2)], [5]),
        # alternating arguments are still no progress
        ([page(0), page(10), page(0)], [3]),
        # another tool with a result ends the run; its own calls start a run of their own
        ([page(0), page(1), page(2, tool="search"), page(3), page(4)], []),
        # denied calls count with their result
        ([page(0, denied=True), page(1, denied=True), page(2, denied=True)], [3]),
        # an error alone is no result
        ([page(0), page(1, None, error="boom"), page(2), page(3)], [4]),
        # a re-delivered call id counts once
        ([page(0, call_id="c1"), page(0, call_id="c1"), page(1, call_id="c2"), page(2, call_id="c3")], [4]),
    ],
)
def test_what_makes_a_run(events, positions):
    assert fired(feed(engine(thresholds=[3]), events)) == positions


def test_untracked_calls_neither_count_nor_reset():
    eng = engine(thresholds=[3], exclude=["todo_write"])
    events = [page(0), page(1), tg.ToolEvent("todo_write", {"x": 1}, agent="a", result="ok"), page(2)]
    assert fired(feed(eng, events)) == [4]
    eng = engine(thresholds=[3], include=["search_*"])
    assert fired(feed(eng, [page(i) for i in range(3)])) == []


def test_the_tools_of_a_group_chain_together():
    events = [page(0), page(1, tool="web_fetch"), page(2), page(3, tool="browser_open")]
    assert fired(feed(engine(thresholds=[3]), events)) == []
    eng = engine(thresholds=[3, 4], groups=[{"tools": ["read_page", "web_fetch", "browser_*"]}])
    decisions = feed(eng, events)
    assert fired(decisions) == [3, 4]
    assert decisions[3].additional_contexts[0].reminder.tool == "browser_open"
    # the same arguments under another tool of the group are other arguments
    eng = engine(thresholds=[3], groups=[{"tools": ["read_page", "web_fetch"]}])
    assert fired(feed(eng, [page(0), page(0, tool="web_fetch"), page(0)])) == [3]


def test_the_first_group_a_tool_matches_is_its_group():
    eng = engine(thresholds=[3], groups=[{"tools": ["read_*"]}, {"tools": ["read_page", "fetch"]}])
    assert fired(feed(eng, [page(0), page(1, tool="fetch"), page(2)])) == []
    assert fired(feed(eng, [page(0, agent="b"), page(1, tool="read_file", agent="b"), page(2, agent="b")])) == [3]


def test_results_compare_after_the_normalizers_and_arguments_without_the_ignored_paths():
    stamped = [f"fetched at 10:00:0{i}\n{BLOCKED}" for i in range(3)]
    assert fired(feed(engine(thresholds=[3]), [page(i, r) for i, r in enumerate(stamped)])) == []
    eng = engine(thresholds=[3], resultNormalizers=[{"pattern": r"\d\d:\d\d:\d\d"}])
    assert fired(feed(eng, [page(i, r) for i, r in enumerate(stamped)])) == [3]
    # calls that differ only in an ignored argument have the same arguments: they are the repeat guard's
    eng = engine(thresholds=[3], ignoreArguments=["offset"])
    assert fired(feed(eng, [page(i) for i in range(5)])) == []


def test_the_preview_is_cut_and_quotes_the_full_arguments():
    eng = engine(thresholds=[2, 3], argumentsPreviewChars=12, ignoreArguments=["offset"])
    events = [tg.ToolEvent("search", {"q": f"q{i}", "offset": i}, agent="a", result="none") for i in range(3)]
    text = feed(eng, events)[2].additional_contexts[0].text
    assert '- latest_arguments: {"offset":2,… (+9 more chars)\n' in text


def test_agents_keep_their_own_chains_and_a_new_prompt_resets():
    eng = engine(thresholds=[3])
    feed(eng, [page(0), page(1), page(0, agent="b")])
    eng.pre_step("a", user_prompt=True)
    assert fired(feed(eng, [page(2), page(3), page(1, agent="b"), page(2, agent="b")])) == [4]


def test_the_state_is_named_versioned_and_round_trips():
    state = KIND.state
    assert (state.name, state.version) == ("no-progress-reminder", 1)
    run = NoProgressRun(11, -22, 33, 4, ("c1", "c2"))
    assert state.from_json(state.to_json(run)) == run
    assert state.to_json(NoProgressRun(1, 2, 3, 1, None)) == {"chain": 1, "arguments": 2, "result": 3, "count": 1,
                                                                "callIds": None}


@pytest.mark.parametrize(
    "data",
    [
        None, [], {"chain": 1}, {"chain": 1, "arguments": 2, "result": 3, "count": 0, "callIds": None},
        {"chain": 1.5, "arguments": 2, "result": 3, "count": 1, "callIds": None},
        {"chain": True, "arguments": 2, "result": 3, "count": 1, "callIds": None},
        {"chain": 1, "arguments": 2, "result": 3, "count": 1, "callIds": [1]},
        {"chain": 1, "arguments": 2, "result": 3, "count": 1, "callIds": None, "extra": 0},
    ],
)
def test_a_state_of_another_shape_is_refused(data):
    with pytest.raises(ValueError):
        KIND.state.from_json(data)


def test_the_step():
    start, count = advance(1, 2, 3, None, None)
    assert (start, count) == (NoProgressRun(1, 2, 3, 1, None), 1)
    assert advance(1, 2, 3, None, start) == (start, None)
    assert advance(1, 5, 3, "c", start) == (NoProgressRun(1, 5, 3, 2, ("c",)), 2)
    assert advance(9, 5, 3, None, start) == (NoProgressRun(9, 5, 3, 1, None), 1)


def test_chains_survive_a_process_in_a_persistent_store(tmp_path):
    url = f"sqlite:///{tmp_path / 'state.db'}"
    for offset in range(2):
        eng = tg.from_mapping({"guards": [{"id": "no-progress-reminder", "config": {"thresholds": [3]}}]}, stores=url)
        assert fired(feed(eng, [page(offset)])) == []
    eng = tg.from_mapping({"guards": [{"id": "no-progress-reminder", "config": {"thresholds": [3]}}]}, stores=url)
    assert fired(feed(eng, [page(2)])) == [1]
