"""The repeat-tool-reminder guard through the host API: the reference's chain semantics, case by case."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from typing import Any

import pytest

import toolguards as tg
from conftest import FIRST, detailed


def engine(**config: Any) -> tg.Engine:
    return tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": config}]})


class Agent:
    """A live agent object, keyed weakly like the reference's WeakMap keys."""


def texts(decision: tg.PostToolDecision) -> list[str]:
    return [entry.text for entry in decision.additional_contexts]


def run(eng: tg.Engine, calls: list[tuple[str, Any]], agent: Any = "main") -> list[list[str]]:
    return [texts(eng.post_execute(tg.ToolEvent(tool, args, agent=agent))) for tool, args in calls]


def fired(eng: tg.Engine, calls: list[tuple[str, Any]], agent: Any = "main") -> list[int]:
    """The 1-based positions of the calls that drew a reminder."""
    return [i for i, found in enumerate(run(eng, calls, agent), 1) if found]


def test_gentle_then_detailed_then_silent():
    got = run(engine(), [("grep", {"q": "x"})] * 10)
    assert got[2] == [FIRST]
    assert got[4] == [detailed("grep", 5, '{"q":"x"}')]
    assert got[7] == [detailed("grep", 8, '{"q":"x"}')]
    assert [i for i, t in enumerate(got, 1) if t] == [3, 5, 8]


def test_gentle_at_the_first_threshold_even_when_it_is_not_3():
    got = run(engine(thresholds=[4, 2]), [("shell", {})] * 4)
    assert got[1] == [FIRST]
    assert got[3] == [detailed("shell", 4, "{}")]


def test_a_different_tracked_call_starts_a_new_run():
    calls = [("grep", {"q": "x"})] * 2 + [("grep", {"q": "y"})] + [("grep", {"q": "x"})] * 3
    assert fired(engine(), calls) == [6]
    assert fired(engine(), [("a", {}), ("a", {}), ("b", {}), ("b", {}), ("a", {})]) == []


def test_untracked_calls_are_transparent():
    eng = engine(exclude=["todo_write"])
    calls = [("grep", {"q": "x"}), ("todo_write", {"t": 1}), ("grep", {"q": "x"}), ("todo_write", {}), ("grep", {"q": "x"})]
    assert fired(eng, calls) == [5]


def test_include_wildcard_tracks_only_matching_tools():
    eng = engine(include=["mcp_*"])
    calls = [("mcp_fetch", {})] * 2 + [("grep", {})] * 5 + [("mcp_fetch", {})]
    assert fired(eng, calls) == [8]


@pytest.mark.parametrize(
    ("pattern", "tool", "tracked"),
    [
        ("pr.be", "probe", False),
        ("pr.be", "pr.be", True),
        ("pr?be", "probe", False),
        ("a+b", "aab", False),
        ("a+b", "a+b", True),
        ("(x)", "(x)", True),
        ("[ab]", "a", False),
        ("^x$", "^x$", True),
        ("a\\b", "a\\b", True),
        ("Grep", "grep", False),
        ("grep", "grep_files", False),
        ("*grep", "ripgrep", True),
        ("g*p", "gp", True),
        ("g*p", "g\np", False),
        ("*", "", True),
        ("a*b*c", "a-b-x-c", True),
    ],
)
def test_include_patterns_escape_metacharacters(pattern, tool, tracked):
    eng = engine(include=[pattern], thresholds=[2])
    assert bool(fired(eng, [(tool, {})] * 2)) is tracked


def test_exclude_beats_include():
    assert fired(engine(include=["*"], exclude=["todo_*"]), [("todo_write", {})] * 3) == []


def test_deep_key_order_does_not_matter():
    a = {"b": [{"y": 1, "x": {"q": 2, "p": 3}}], "a": 0}
    b = {"a": 0, "b": [{"x": {"p": 3, "q": 2}, "y": 1}]}
    assert fired(engine(), [("t", a), ("t", b), ("t", a)]) == [3]


def test_chains_are_per_agent():
    eng = engine()
    one, two = Agent(), Agent()
    for _ in range(2):
        assert run(eng, [("grep", {})], agent=one) == [[]]
        assert run(eng, [("grep", {})], agent=two) == [[]]
    assert run(eng, [("grep", {})], agent=one) == [[FIRST]]
    assert run(eng, [("grep", {})], agent=two) == [[FIRST]]


def test_string_agents_are_keyed_by_value():
    eng = engine()
    assert fired(eng, [("grep", {})] * 2, agent="sub") == []
    assert fired(eng, [("grep", {})], agent="s" + "ub") == [1]


def test_user_prompt_resets_the_submitting_agent_only():
    eng = engine()
    me, other = Agent(), Agent()
    run(eng, [("grep", {})] * 2, agent=me)
    run(eng, [("grep", {})] * 2, agent=other)
    eng.pre_step(me, user_prompt=True)
    assert fired(eng, [("grep", {})] * 2, agent=me) == []
    assert fired(eng, [("grep", {})], agent=other) == [1]


def test_a_step_without_a_user_prompt_does_not_reset():
    eng = engine()
    run(eng, [("grep", {})] * 2)
    eng.pre_step("main", user_prompt=False)
    eng.pre_step("main")
    assert fired(eng, [("grep", {})]) == [1]


def test_forget_drops_a_string_agent():
    eng = engine()
    run(eng, [("grep", {})] * 2)
    eng.forget("main")
    assert fired(eng, [("grep", {})] * 2) == []


def test_dropping_an_agent_object_drops_its_chain():
    eng = engine()
    (guard,) = eng.guards
    store = guard._store
    agents = [Agent() for _ in range(50)]
    for agent in agents:
        run(eng, [("grep", {})], agent=agent)
    assert len(store) == 50
    del agents, agent
    gc.collect()
    assert len(store) == 0


def test_the_chain_table_never_keeps_an_agent_alive():
    import weakref

    eng = engine()
    agent = Agent()
    run(eng, [("grep", {})], agent=agent)
    ref = weakref.ref(agent)
    del agent
    assert ref() is None


def test_string_agents_are_bounded_least_recently_used_first():
    store = tg.MemoryStore(max_keyed_agents=3)
    eng = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder"}]}, stores=lambda _id: store)
    for agent in ["a", "b", "c"]:
        run(eng, [("grep", {})] * 2, agent=agent)
    run(eng, [("grep", {})], agent="a")  # a is now the most recent
    run(eng, [("grep", {})], agent="d")  # evicts b
    assert len(store) == 3
    assert fired(eng, [("grep", {})], agent="c") == [1]
    assert fired(eng, [("grep", {})], agent="b") == []


def test_denied_calls_count():
    eng = engine()
    decisions = [eng.post_execute(tg.ToolEvent("rm", {"p": "/"}, agent="a", denied=d)) for d in (True, False, True)]
    assert texts(decisions[2]) == [FIRST]


def test_calls_without_an_agent_are_ignored_and_next_is_returned_as_is():
    eng = engine(thresholds=[2])
    sentinel = object()
    for _ in range(3):
        assert eng.post_execute(tg.ToolEvent("grep", {}, agent=None), next=lambda: sentinel) is sentinel
    fresh = engine(thresholds=[2])
    for _ in range(3):  # not counted, so never a reminder: the decision is the plain accept
        assert fresh.post_execute(tg.ToolEvent("grep", {}, agent=None)) == tg.PostToolDecision()
    assert fired(eng, [("grep", {})]) == []


def test_next_none_means_an_accept_with_no_contexts():
    decision = engine().post_execute(tg.ToolEvent("grep", {}, agent="a"))
    assert decision == tg.PostToolDecision()


def test_the_reminder_is_prepended_and_the_downstream_decision_kept():
    eng = engine(thresholds=[2])
    downstream_entry = tg.ContextEntry("downstream", {"kind": "plugin", "plugin": "other"}, {"k": 1})
    downstream = tg.PostToolDecision(kind="accept", additional_contexts=(downstream_entry,), value={"v": 1}, content="c")
    eng.post_execute(tg.ToolEvent("grep", {}, agent="a"), next=lambda: downstream)
    decision = eng.post_execute(tg.ToolEvent("grep", {}, agent="a"), next=lambda: downstream)
    assert texts(decision) == [FIRST, "downstream"]
    assert decision.additional_contexts[1] is downstream_entry
    assert (decision.kind, decision.value, decision.content, decision.feedback) == ("accept", {"v": 1}, "c", None)


def test_a_downstream_block_keeps_its_feedback_and_gets_the_reminder():
    eng = engine(thresholds=[2])
    block = tg.PostToolDecision(kind="block", feedback="denied by policy")
    eng.post_execute(tg.ToolEvent("grep", {}, agent="a"), next=lambda: block)
    decision = eng.post_execute(tg.ToolEvent("grep", {}, agent="a"), next=lambda: block)
    assert (decision.kind, decision.feedback, texts(decision)) == ("block", "denied by policy", [FIRST])


def test_count_happens_before_next_runs():
    eng = engine(thresholds=[2])
    seen: list[int] = []
    (guard,) = eng.guards

    def downstream() -> tg.PostToolDecision:
        seen.append(guard._store._keyed["a"][1])
        return tg.PostToolDecision()

    eng.post_execute(tg.ToolEvent("grep", {}, agent="a"), next=downstream)
    eng.post_execute(tg.ToolEvent("grep", {}, agent="a"), next=downstream)
    assert seen == [1, 2]


def test_source_and_metadata():
    eng = engine(thresholds=[2, 3])
    decisions = [eng.post_execute(tg.ToolEvent("grep", {"q": 1}, agent="a")) for _ in range(3)]
    first, second = decisions[1].additional_contexts[0], decisions[2].additional_contexts[0]
    assert dict(first.source) == {"kind": "plugin", "plugin": "repeat-tool-reminder", "form": "notice", "summary": "grep × 2"}
    assert dict(second.source)["summary"] == "grep \u00d7 3"
    assert first.metadata["tool"] == "grep" and first.metadata["count"] == 2 and first.metadata["template"] == "first"
    assert second.metadata["template"] == "detailed"


def test_source_names_the_guard_id():
    eng = tg.from_mapping({"guards": [{"id": "loops", "kind": "repeat-tool-reminder", "config": {"thresholds": [2]}}]})
    decision = [eng.post_execute(tg.ToolEvent("x", {}, agent="a")) for _ in range(2)][1]
    assert decision.additional_contexts[0].source["plugin"] == "loops"


def test_preview_cap_keeps_the_full_key():
    eng = engine(thresholds=[2, 3], argumentsPreviewChars=10)
    long_a = {"content": "a" * 100 + "1"}
    long_b = {"content": "a" * 100 + "2"}
    # The two differ only past the preview: they must still be different keys.
    assert fired(eng, [("write", long_a), ("write", long_b), ("write", long_b)]) == [3]
    eng = engine(thresholds=[2, 3], argumentsPreviewChars=10)
    got = run(eng, [("write", long_a)] * 3)
    canonical = tg.canonicalize(long_a)
    assert got[2] == [detailed("write", 3, f"{canonical[:10]}… (+{len(canonical) - 10} more chars)")]


def test_preview_counts_code_points_and_never_splits_one():
    eng = engine(thresholds=[2, 3], argumentsPreviewChars=3)
    got = run(eng, [("t", "😀😀😀😀")] * 3)
    # canonical text is the JSON string literal: 6 code points, cut after 3
    assert got[2] == [detailed("t", 3, '"😀😀… (+3 more chars)')]


def test_preview_at_exactly_the_cap_is_not_cut():
    eng = engine(thresholds=[2, 3], argumentsPreviewChars=9)
    assert run(eng, [("t", {"q": "x"})] * 3)[2] == [detailed("t", 3, '{"q":"x"}')]


def test_argument_text_is_data_not_template_source():
    eng = engine(thresholds=[2, 3])
    args = {"q": "{{ 7 * 7 }} {% raw %}"}
    assert run(eng, [("t", args)] * 3)[2] == [detailed("t", 3, '{"q":"{{ 7 * 7 }} {% raw %}"}')]


def test_chinese_reminders():
    eng = tg.load_default(locale="zh")
    got = run(eng, [("grep", {"q": "x"})] * 5)
    assert got[2] == [
        "你正在用完全相同的参数重复同一个工具调用。再次调用前，请仔细分析上一次的结果：如果任务尚未完成，请换一种方法或使用不同的参数，而不是重复这次调用。"
    ]
    assert got[4] == [
        "检测到重复的工具调用：\n- 工具：grep\n- 连续调用次数：5\n- 参数：{\"q\":\"x\"}\n"
        "这些重复调用没有带来任何进展。不要再用完全相同的参数调用这个工具。请查看最近一次的结果，然后换一种操作或使用不同的参数；"
        "如果已收集到足够的信息，就结束任务。"
    ]


def test_chinese_truncation_marker():
    eng = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": {"argumentsPreviewChars": 4}}]}, locale="zh")
    got = run(eng, [("t", {"q": "xyz"})] * 5)
    assert "- 参数：{\"q\"…（另有 7 个字符未显示）\n" in got[4][0]


def test_a_repeated_call_id_is_counted_once():
    eng = engine()
    events = [tg.ToolEvent("grep", {}, agent="a", call_id=f"c{i}") for i in (1, 2, 3)]
    assert texts(eng.post_execute(events[0])) == []
    assert texts(eng.post_execute(events[1])) == []
    assert texts(eng.post_execute(events[1])) == []  # second delivery: not counted
    assert texts(eng.post_execute(events[2])) == [FIRST]
    assert texts(eng.post_execute(events[2])) == []  # the first delivery's reminder stands, no second one


def test_call_ids_remember_at_least_64():
    eng = engine(thresholds=[100])
    for i in range(64):
        eng.post_execute(tg.ToolEvent("grep", {"i": i}, agent="a", call_id=f"c{i}"))
    # a late re-delivery of the oldest id, with the arguments of the last call: counted, it would make a run of 2
    eng.post_execute(tg.ToolEvent("grep", {"i": 63}, agent="a", call_id="c0"))
    (guard,) = eng.guards
    assert guard._store._keyed["a"][1] == 1
    eng.post_execute(tg.ToolEvent("grep", {"i": 63}, agent="a", call_id="c64"))
    assert guard._store._keyed["a"][1] == 2


def test_call_ids_are_not_allocated_when_unused():
    eng = engine()
    run(eng, [("grep", {})] * 2)
    (guard,) = eng.guards
    assert len(guard._store._keyed["main"]) == 2  # (digest, run length): no window of call ids


def test_async_host_with_awaitable_next():
    eng = engine(thresholds=[2])

    async def downstream() -> tg.PostToolDecision:
        await asyncio.sleep(0)
        return tg.PostToolDecision(feedback=None, value="v")

    async def main() -> list[tg.PostToolDecision]:
        return [await eng.apost_execute(tg.ToolEvent("grep", {}, agent="a"), next=downstream) for _ in range(2)]

    decisions = asyncio.run(main())
    assert texts(decisions[1]) == [FIRST] and decisions[1].value == "v"


def test_async_host_with_plain_next_and_none():
    eng = engine(thresholds=[2])

    async def main() -> list[Any]:
        first = await eng.apost_execute(tg.ToolEvent("grep", {}, agent="a"))
        second = await eng.apost_execute(tg.ToolEvent("grep", {}, agent="a"), next=tg.PostToolDecision)
        return [first, second]

    first, second = asyncio.run(main())
    assert first == tg.PostToolDecision() and texts(second) == [FIRST]


def test_concurrent_calls_for_one_agent_lose_no_counts():
    eng = engine(thresholds=[2, 4001])
    agent = Agent()
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        for _ in range(500):
            eng.post_execute(tg.ToolEvent("grep", {"q": "x"}, agent=agent))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert fired(eng, [("grep", {"q": "x"})], agent=agent) == [1]  # call 4001


def test_guards_chain_first_outermost():
    eng = tg.from_mapping(
        {
            "guards": [
                {"id": "outer", "kind": "repeat-tool-reminder", "config": {"thresholds": [2]}},
                {"id": "inner", "kind": "repeat-tool-reminder", "config": {"thresholds": [2]}},
            ]
        }
    )
    decision = [eng.post_execute(tg.ToolEvent("x", {}, agent="a")) for _ in range(2)][1]
    assert [c.source["plugin"] for c in decision.additional_contexts] == ["outer", "inner"]


class Exploding:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize(
    "arguments",
    [Exploding(), {1: b"\xff", 2.5: {3, 4}}, float("nan"), [[[]]], "x" * 1000],
)
def test_never_raises_for_odd_arguments_and_still_counts(arguments, caplog):
    failed: list[str] = []
    eng = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": {"thresholds": [2]}}]},
                          on_failure=lambda guard, what, exc: failed.append(f"{guard}.{what}: {exc!r}"))
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        decisions = [eng.post_execute(tg.ToolEvent("t", arguments, agent="a")) for _ in range(2)]
    assert [len(d.additional_contexts) for d in decisions] == [0, 1]
    assert failed == []
    assert [r.getMessage() for r in caplog.records if not r.getMessage().startswith("canonical form: ")] == []


def test_a_failing_guard_is_logged_once_and_the_host_gets_its_decision(caplog, monkeypatch):
    eng = engine(thresholds=[2])
    (guard,) = eng.guards

    def broken(call: Any) -> None:
        raise ValueError("boom")

    monkeypatch.setattr(guard, "observe", broken)
    downstream = tg.PostToolDecision(value=1)
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        for _ in range(3):
            assert eng.post_execute(tg.ToolEvent("t", {}, agent="a"), next=lambda: downstream) is downstream
    assert len([r for r in caplog.records if "boom" in r.getMessage()]) == 1


def test_unhashable_agent_is_logged_and_ignored(caplog):
    eng = engine(thresholds=[2])
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        results = [eng.post_execute(tg.ToolEvent("t", {}, agent=["unhashable"])) for _ in range(2)]
    assert results == [tg.PostToolDecision()] * 2
    assert any("TypeError" in r.getMessage() for r in caplog.records)


def test_a_downstream_exception_is_the_hosts_and_propagates():
    eng = engine()

    def downstream() -> tg.PostToolDecision:
        raise KeyError("host")

    with pytest.raises(KeyError):
        eng.post_execute(tg.ToolEvent("t", {}, agent="a"), next=downstream)


def test_decision_kind_is_checked():
    with pytest.raises(ValueError, match="accept' or 'block"):
        tg.PostToolDecision(kind="allow")  # type: ignore[arg-type]
