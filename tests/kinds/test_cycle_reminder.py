"""cycle-reminder: alternating loops (A, B, A, B, …) that the exact-repeat guard cannot see."""

from __future__ import annotations

from typing import Any

import pytest

import toolguards as tg
from toolguards.guardfile.loader import check_file
from toolguards.kinds.cycle_reminder import cycle_period


def engine(locale: str | None = None, **config: Any) -> tg.Engine:
    return tg.from_mapping({"guards": [{"id": "cycle-reminder", "config": config}]}, locale=locale)


CALLS = {
    "A": ("read_file", {"path": "src/app.py"}),
    "B": ("run_tests", {"command": "pytest -q"}),
    "C": ("grep", {"q": "x"}),
    "D": ("edit_file", {"path": "src/app.py", "old": "a", "new": "b"}),
    "E": ("bash", {"command": "git status"}),
    "T": ("todo_write", {"todos": []}),
}


def play(eng: tg.Engine, sequence: str, agent: Any = "a") -> list[tg.PostToolDecision]:
    return [eng.post_execute(tg.ToolEvent(*CALLS[c], agent=agent)) for c in sequence]


def fired(decisions: list[tg.PostToolDecision]) -> list[int]:
    return [i for i, d in enumerate(decisions, 1) if d.additional_contexts]


@pytest.mark.parametrize(
    ("sequence", "positions"),
    [
        ("ABABAB", [6]),  # the third run of the two-call cycle completes at call 6
        ("ABABABABAB", [6, 10]),  # and the fifth at call 10
        ("ABCABCABC", [9]),
        ("ABCDABCDABCD", [12]),
        ("ABCDEABCDEABCDE", []),  # longer than maxCycleLength 4
        ("AAAAAAAA", []),  # identical calls are the repeat guard's business
        ("AABBAABBAABB", [12]),  # a cycle of four calls, two of them identical
        ("ABABACABAB", []),  # C broke the cycle; it has run only twice since
        ("CABABAB", [7]),
    ],
)
def test_cycles_fire_when_they_have_run_a_listed_number_of_times(sequence, positions):
    assert fired(play(engine(), sequence)) == positions


def test_the_reminder_names_the_calls_of_the_cycle():
    decisions = play(engine(), "ABABABABAB")
    first = decisions[5].additional_contexts[0]
    assert first.text == (
        "You are going around in a cycle: the same 2 tool calls (read_file → run_tests) keep repeating in the same "
        "order, 3 times so far. Carefully analyze the previous results before calling again: if the task is not "
        "complete, try a different approach instead of repeating the cycle."
    )
    assert dict(first.source) == {
        "kind": "plugin", "plugin": "cycle-reminder", "form": "notice", "summary": "read_file → run_tests × 3"}
    assert first.metadata["tools"] == ["read_file", "run_tests"] and first.metadata["count"] == 3
    detailed = decisions[9].additional_contexts[0]
    assert detailed.text == (
        "Repeated cycle of tool calls detected:\n"
        "- cycle_length: 2\n"
        "- repetitions: 5\n"
        "- calls:\n"
        '  1. read_file {"path":"src/app.py"}\n'
        '  2. run_tests {"command":"pytest -q"}\n'
        "The cycle is not making progress. Do not repeat these calls in the same order again. Inspect the latest "
        "results and choose a different action, or finish the task if enough evidence has been gathered."
    )


def test_chinese_reminder_and_preview_cap():
    eng = engine(locale="zh", argumentsPreviewChars=8, repetitions=[2])
    decisions = play(eng, "ABAB")
    assert decisions[3].additional_contexts[0].text.startswith("你正在循环往复：同样的 2 个工具调用（read_file → run_tests）")
    eng = engine(argumentsPreviewChars=8, repetitions=[2, 3])
    text = play(eng, "ABABAB")[5].additional_contexts[0].text
    assert '  1. read_file {"path":… (+13 more chars)\n' in text


def test_untracked_calls_are_transparent():
    assert fired(play(engine(exclude=["todo_write"]), "ABTABTAB")) == [8]
    assert fired(play(engine(), "ABTABTAB")) == []  # tracked, T makes the cycle ABT, which has run twice plus two


def test_per_agent_and_reset_by_a_user_prompt():
    eng = engine()
    play(eng, "ABAB", agent="one")
    play(eng, "ABAB", agent="two")
    eng.pre_step("two", user_prompt=True)
    assert fired(play(eng, "AB", agent="one")) == [2]
    assert fired(play(eng, "AB", agent="two")) == []


def test_a_repeated_call_id_is_counted_once():
    eng = engine()
    events = [tg.ToolEvent(*CALLS[c], agent="a", call_id=f"c{i}") for i, c in enumerate("ABABAB")]
    decisions = [eng.post_execute(e) for e in events[:5]] + [eng.post_execute(events[4])] + [eng.post_execute(events[5])]
    assert fired(decisions) == [7]


@pytest.mark.parametrize(("digests", "period"), [([1, 2, 1, 2], 2), ([1, 1], 1), ([1, 2, 3], 3), ([1, 2, 1, 3], 4)])
def test_cycle_period(digests, period):
    assert cycle_period(digests) == period


def config(line: str) -> str:
    return f"guards:\n  - id: cycle-reminder\n    config:\n      {line}\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (config("maxCycleLength: 1"),
         ["g.yaml:4:23: guards[0].config.maxCycleLength: invalid maxCycleLength 1 — must be an integer from 2 to 8"]),
        (config("maxCycleLength: 9"),
         ["g.yaml:4:23: guards[0].config.maxCycleLength: invalid maxCycleLength 9 — must be an integer from 2 to 8"]),
        (config("repetitions: []"), ["g.yaml:4:20: guards[0].config.repetitions: `repetitions` must not be empty"]),
        (config("repetitions: [1]"),
         ["g.yaml:4:21: guards[0].config.repetitions[0]: invalid repetition 1 — every repetition must be an integer >= 2"]),
        (config("thresholds: [3]"),
         ["g.yaml:4:7: guards[0].config.thresholds: unknown key `thresholds` (expected one of: `maxCycleLength`, "
          "`repetitions`, `include`, `exclude`, `argumentsPreviewChars`, `ignoreArguments`, `templates`)"]),
    ],
)
def test_bad_config_is_positioned(write_guard_file, text, expected):
    assert [str(d) for d in check_file(write_guard_file(text))] == expected
