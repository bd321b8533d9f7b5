"""The repeat guard's options beyond the reference: repeatEvery, resultAware, block, overrides."""

from __future__ import annotations

from typing import Any

import pytest

import toolguards as tg
from toolguards.guardfile.loader import check_file

BLOCK = (
    "Blocked: this is call {count} of `{tool}` in a row with the exact same arguments, and it was stopped. "
    "The arguments were: {arguments}\n"
    "Repeating it will not give a different result. Choose a different action or different arguments, or finish the "
    "task with the evidence you have."
)


def engine(locale: str | None = None, **config: Any) -> tg.Engine:
    return tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": config}]}, locale=locale)


def decide(eng: tg.Engine, tool: str = "grep", arguments: Any = None, agent: str = "a", **event: Any) -> tg.PostToolDecision:
    return eng.post_execute(tg.ToolEvent(tool, {"q": "x"} if arguments is None else arguments, agent=agent, **event))


def counts_that_fired(decisions: list[tg.PostToolDecision]) -> list[int]:
    return [d.additional_contexts[0].metadata["count"] for d in decisions if d.additional_contexts]


def test_defaults_reproduce_the_reference():
    (guard,) = engine().guards
    s = guard.settings
    assert (s.repeat_every, s.result_aware, s.block, s.overrides) == (None, False, None, ())
    eng = engine()
    assert counts_that_fired([decide(eng) for _ in range(30)]) == [3, 5, 8]


def test_repeat_every_keeps_reminding_past_the_last_threshold_with_the_detailed_template():
    eng = engine(repeatEvery=5)
    decisions = [decide(eng) for _ in range(23)]
    assert counts_that_fired(decisions) == [3, 5, 8, 13, 18, 23]
    assert [d.additional_contexts[0].metadata["template"] for d in decisions if d.additional_contexts] == [
        "first", "detailed", "detailed", "detailed", "detailed", "detailed"]
    assert decisions[12].additional_contexts[0].text.startswith("Repeated tool call detected:\n- tool: grep\n- consecutive_calls: 13\n")


@pytest.mark.parametrize(
    ("results", "fired"),
    [
        (["queued", "running", "running", "running", "done"], [4]),  # a new run starts whenever the answer changes
        (["same"] * 5, [3, 4, 5]),
        ([None, None, None, None, None], [3, 4, 5]),  # a missing result never resets
        (["a", None, "a", None, "a"], [3, 4, 5]),
        (["a", None, "b", "b", "b"], [5]),  # a missing result keeps the last one known: "b" differs from "a"
        ([{"state": 1}, {"state": 1}, {"state": 2}, {"state": 2}, {"state": 2}], [5]),
    ],
)
def test_result_aware(results, fired):
    eng = engine(resultAware=True, thresholds=[3, 4, 5])
    decisions = [decide(eng, result=r) for r in results]
    assert [i for i, d in enumerate(decisions, 1) if d.additional_contexts] == fired


def test_result_aware_off_ignores_results():
    eng = engine()
    decisions = [decide(eng, result=r) for r in ["a", "b", "c"]]
    assert counts_that_fired(decisions) == [3]


def test_result_keys_are_canonical():
    eng = engine(resultAware=True)
    decisions = [decide(eng, result=r) for r in [{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1.0, "b": 2}]]
    assert counts_that_fired(decisions) == [3]


def test_block_from_at_count_on_with_its_feedback_and_the_reminder_riding_along():
    eng = engine(thresholds=[3, 5], block={"atCount": 5})
    decisions = [decide(eng) for _ in range(7)]
    assert [d.kind for d in decisions] == ["accept"] * 4 + ["block"] * 3
    assert decisions[4].feedback == BLOCK.format(count=5, tool="grep", arguments='{"q":"x"}')
    assert decisions[5].feedback == BLOCK.format(count=6, tool="grep", arguments='{"q":"x"}')
    assert decisions[4].additional_contexts[0].metadata["blocked"] is True
    assert decisions[4].additional_contexts[0].text.startswith("Repeated tool call detected:")
    assert decisions[5].additional_contexts == ()


def test_block_keeps_the_downstream_contexts_and_value():
    eng = engine(thresholds=[2], block={"atCount": 3})
    downstream_entry = tg.ContextEntry("downstream", {"kind": "plugin", "plugin": "other"})
    downstream = tg.PostToolDecision(additional_contexts=(downstream_entry,), value=7)
    decisions = [eng.post_execute(tg.ToolEvent("t", {}, agent="a"), next=lambda: downstream) for _ in range(3)]
    assert decisions[2].kind == "block"
    assert decisions[2].additional_contexts == (downstream_entry,)
    assert decisions[2].value == 7


def test_a_new_run_lifts_the_block():
    eng = engine(thresholds=[2], block={"atCount": 3})
    assert [decide(eng).kind for _ in range(3)] == ["accept", "accept", "block"]
    assert decide(eng, arguments={"q": "other"}).kind == "accept"
    eng.pre_step("a", user_prompt=True)
    assert decide(eng, arguments={"q": "other"}).kind == "accept"


def test_a_guard_built_without_the_loader_blocks_below_its_first_threshold_all_the_same():
    # The loader refuses atCount at or below the first threshold; a guard made from such settings by hand still blocks
    # from atCount on (the guard skips a run that is too short to remind or block, and knows a block can be shorter).
    from toolguards.engine import Engine
    from toolguards.kinds.repeat_tool_reminder import KIND, Block
    from toolguards.values import replace

    (loaded,) = engine(thresholds=[4], block={"atCount": 5}).guards
    settings = replace(loaded.settings, block=Block(2, loaded.settings.block.feedback))
    guard = KIND.create("r", settings, loaded._templates, tg.MemoryStore().bind(KIND.state))
    assert [decide(Engine([guard])).kind for _ in range(3)] == ["accept", "block", "block"]


def test_block_feedback_bare_name_resolves_in_the_kind_folder_and_in_chinese():
    eng = engine(locale="zh", thresholds=[2], block={"atCount": 3, "feedback": "block.j2"})
    decisions = [decide(eng) for _ in range(3)]
    assert decisions[2].feedback.startswith("已拦截：这是第 3 次连续用完全相同的参数调用 `grep`")


def test_overrides_first_match_wins_and_inherit_the_rest():
    eng = engine(
        thresholds=[3],
        repeatEvery=2,
        overrides=[
            {"tools": ["bash_output", "*_status"], "thresholds": [10, 20], "resultAware": True},
            {"tools": ["job_status"], "thresholds": [2]},
        ],
    )
    status = [decide(eng, tool="job_status", result="running") for _ in range(22)]
    assert counts_that_fired(status) == [10, 20, 22]  # repeatEvery 2 is inherited from the guard
    eng.forget("a")
    changing = [decide(eng, tool="job_status", result=str(i % 2)) for i in range(12)]
    assert counts_that_fired(changing) == []
    other = [decide(eng, tool="grep", agent="b") for _ in range(5)]
    assert counts_that_fired(other) == [3, 5]


def test_override_preview_cap():
    eng = engine(thresholds=[2, 3], overrides=[{"tools": ["write"], "argumentsPreviewChars": 5}])
    decisions = [decide(eng, tool="write", arguments={"content": "abcdefgh"}) for _ in range(3)]
    assert "- arguments: {\"con… (+17 more chars)\n" in decisions[2].additional_contexts[0].text


def config(line: str) -> str:
    return f"guards:\n  - id: repeat-tool-reminder\n    config:\n      {line}\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (config("repeatEvery: 1"), ["g.yaml:4:20: guards[0].config.repeatEvery: invalid repeatEvery 1 — must be an integer >= 2"]),
        (config("repeatEvery: 2.5"), ["g.yaml:4:20: guards[0].config.repeatEvery: invalid repeatEvery 2.5 — must be an integer >= 2"]),
        (config("resultAware: yes"), ['g.yaml:4:20: guards[0].config.resultAware: must be true or false, not the string "yes"']),
        (config("block: {atCount: 3}"),
         ["g.yaml:4:24: guards[0].config.block.atCount: invalid block.atCount 3 — must be above the first threshold (3)"]),
        (config("block: {atCount: 2}"),
         ["g.yaml:4:24: guards[0].config.block.atCount: invalid block.atCount 2 — must be an integer above the first threshold"]),
        (config("block: {feedback: x.j2}"), ["g.yaml:4:14: guards[0].config.block: missing required key `atCount`"]),
        (config("block: {atCount: 9, feedback: nope.j2}"),
         ["g.yaml:4:37: guards[0].config.block.feedback: template `nope.j2` not found for locale `en` (searched: {shipped}/en); nor as `repeat-tool-reminder/nope.j2`"]),
        (config("overrides: [{thresholds: [4]}]"), ["g.yaml:4:19: guards[0].config.overrides[0]: missing required key `tools`"]),
        (config("overrides: [{tools: []}]"),
         ["g.yaml:4:27: guards[0].config.overrides[0].tools: `tools` must name at least one tool pattern"]),
        (config("overrides: [{tools: [x], include: [y]}]"),
         ["g.yaml:4:32: guards[0].config.overrides[0].include: unknown key `include` (expected one of: `tools`, "
          "`thresholds`, `repeatEvery`, `resultAware`, `block`, `argumentsPreviewChars`, `ignoreArguments`, `resultNormalizers`)"]),
        (config("overrides: [{tools: [x], thresholds: [10], block: {atCount: 6}}]"),
         ["g.yaml:4:67: guards[0].config.overrides[0].block.atCount: invalid block.atCount 6 — must be above the first threshold (10)"]),
        (config("overrides: [{tools: [x], thresholds: [1]}]"),
         ["g.yaml:4:45: guards[0].config.overrides[0].thresholds[0]: invalid threshold 1 — every threshold must be an integer >= 2"]),
    ],
)
def test_bad_options_are_positioned(write_guard_file, text, expected):
    from toolguards.resources import shipped_templates_dir

    got = [str(d) for d in check_file(write_guard_file(text))]
    assert got == [line.format(shipped=shipped_templates_dir()) for line in expected]


def test_an_inherited_block_is_checked_against_the_overrides_thresholds(write_guard_file):
    text = "guards:\n  - id: repeat-tool-reminder\n    config:\n      block: {atCount: 6}\n      overrides:\n        - tools: [x]\n          thresholds: [8]\n"
    assert [str(d) for d in check_file(write_guard_file(text))] == [
        "g.yaml:6:11: guards[0].config.overrides[0].block.atCount: invalid block.atCount 6 — must be above the first threshold (8)"
    ]


def test_a_downstream_block_keeps_its_own_feedback_when_the_guard_blocks_too():
    eng = engine(thresholds=[2], block={"atCount": 3})
    downstream = tg.PostToolDecision(kind="block", feedback="denied by policy")
    decisions = [eng.post_execute(tg.ToolEvent("t", {}, agent="a"), next=lambda: downstream) for _ in range(3)]
    assert (decisions[2].kind, decisions[2].feedback) == ("block", "denied by policy")


def test_the_outermost_blocking_guard_gives_the_feedback():
    config = {"thresholds": [2], "block": {"atCount": 3}}
    eng = tg.from_mapping({"guards": [
        {"id": "outer", "kind": "repeat-tool-reminder", "config": config},
        {"id": "inner", "kind": "repeat-tool-reminder", "config": {**config, "block": {"atCount": 3, "feedback": "first.j2"}}},
    ]})
    decisions = [eng.post_execute(tg.ToolEvent("t", {}, agent="a")) for _ in range(3)]
    assert decisions[2].feedback.startswith("Blocked: this is call 3 of `t`")
