"""Guard states have names and versions: each kind's state goes to JSON and back unchanged, and anything else is
refused (a persistent store then starts that chain afresh); the engine tells its host of every failure it swallows."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import toolguards as tg
from toolguards.kinds import BUILTIN_KINDS
from toolguards.kinds.cycle_reminder import CycleState, Remembered
from toolguards.kinds.no_progress_reminder import NoProgressRun
from toolguards.kinds.repeat_tool_reminder import TrackedRun
from toolguards.kinds.repeated_error_reminder import ErrorRun

STATES: list[tuple[str, Any]] = [
    ("repeat-tool-reminder", (-5, 2)),  # a Run
    ("repeat-tool-reminder", TrackedRun(7, 3, ("c1", "c2"), None)),
    ("repeat-tool-reminder", TrackedRun(7, 1, None, -99)),
    ("cycle-reminder", CycleState((Remembered(1, "read", '{"p":1}', 0), Remembered(2, "run", "{}", 4)), (1, 0, 0),
                                  ("c9",))),
    ("cycle-reminder", CycleState((), (0, 0), None)),
    ("repeated-error-reminder", ErrorRun(None, 0, ("c1",))),
    ("repeated-error-reminder", ErrorRun(42, 3, None)),
    ("no-progress-reminder", NoProgressRun(-1, 2, 3, 4, ("c1",))),
    ("no-progress-reminder", NoProgressRun(1, 2, 3, 1, None)),
]


@pytest.mark.parametrize(("kind", "state"), STATES)
def test_a_state_goes_to_json_and_back_unchanged(kind, state):
    import json

    state_type = BUILTIN_KINDS[kind].state
    text = json.dumps(state_type.to_json(state))
    back = state_type.from_json(json.loads(text))
    assert back == state and type(back) is type(state)


@pytest.mark.parametrize(("kind", "data"), [
    ("repeat-tool-reminder", None),
    ("repeat-tool-reminder", [1, 2]),
    ("repeat-tool-reminder", {"digest": 1}),
    ("repeat-tool-reminder", {"digest": 1, "count": "2"}),
    ("repeat-tool-reminder", {"digest": 1, "count": 0}),
    ("repeat-tool-reminder", {"digest": True, "count": 2}),
    ("repeat-tool-reminder", {"digest": 1, "count": 2, "extra": 1}),
    ("repeat-tool-reminder", {"digest": 1, "count": 2, "callIds": "c1", "result": None}),
    ("repeat-tool-reminder", {"digest": 1, "count": 2, "callIds": [1], "result": None}),
    ("cycle-reminder", {"history": [], "matched": []}),
    ("cycle-reminder", {"history": [[1, "t", "h"]], "matched": [], "callIds": None}),
    ("cycle-reminder", {"history": [], "matched": [-1], "callIds": None}),
    ("repeated-error-reminder", {"digest": "x", "count": 1, "callIds": None}),
    ("repeated-error-reminder", {"digest": None, "count": 1}),
    ("no-progress-reminder", {"chain": 1, "arguments": 2, "result": 3, "count": 1}),
    ("no-progress-reminder", {"chain": 1, "arguments": 2, "result": None, "count": 1, "callIds": None}),
])
def test_anything_else_is_refused(kind, data):
    with pytest.raises((ValueError, TypeError, KeyError)):
        BUILTIN_KINDS[kind].state.from_json(data)


def test_each_kind_names_its_state_and_its_version():
    for name, kind in BUILTIN_KINDS.items():
        assert (kind.state.name, kind.state.version) == (name, 1)


class Broken(tg.MemoryStore[Any]):
    def update(self, agent: Any, step: Any) -> Any:
        raise OSError("disk full")


def test_on_failure_hears_of_every_failure_and_the_log_of_the_first(caplog):
    heard: list[tuple[str | None, str, str]] = []
    engine = tg.load_default(stores=lambda _guard_id: Broken(),
                             on_failure=lambda guard, what, exc: heard.append((guard, what, repr(exc))))
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        for _ in range(3):
            assert engine.post_execute(tg.ToolEvent("grep", {}, agent="a")).additional_contexts == ()
    assert heard == [("repeat-tool-reminder", "observe", "OSError('disk full')")] * 3
    assert [r.getMessage() for r in caplog.records] == [
        "toolguards: repeat-tool-reminder.observe failed and was skipped (OSError: disk full); later failures like it "
        "are not logged"
    ]


class Untrue:
    def __bool__(self) -> bool:
        raise RuntimeError("no truth here")


def test_a_user_prompt_whose_truth_cannot_be_told_resets_nothing_and_raises_nothing(caplog):
    heard: list[tuple[str | None, str]] = []
    engine = tg.load_default(on_failure=lambda guard, what, exc: heard.append((guard, what)))
    event = tg.ToolEvent("grep", {}, agent="a")
    for _ in range(2):
        engine.post_execute(event)
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        engine.pre_step("a", user_prompt=Untrue())  # type: ignore[arg-type]
    assert heard == [(None, "pre_step")]
    assert [r.getMessage() for r in caplog.records] == [
        "toolguards: engine failed and was skipped (RuntimeError: no truth here); later failures like it are not "
        "logged"
    ]
    assert [entry.reminder.count for entry in engine.post_execute(event).additional_contexts] == [3]


def test_a_failing_callback_is_logged_and_swallowed(caplog):
    def shout(guard: str | None, what: str, exc: BaseException) -> None:
        raise ValueError("callback broke")

    engine = tg.load_default(stores=lambda _guard_id: Broken(), on_failure=shout)
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        engine.post_execute(tg.ToolEvent("grep", {}, agent="a"))
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "toolguards: repeat-tool-reminder.observe failed and was skipped",
        "toolguards: on_failure failed and was skipped",
    ]


def test_a_reminder_carries_its_facts_typed():
    engine = tg.load_default()
    for _ in range(4):
        engine.post_execute(tg.ToolEvent("grep", {"q": 1}, agent="a"))
    (entry,) = engine.post_execute(tg.ToolEvent("grep", {"q": 1}, agent="a")).additional_contexts
    facts = entry.reminder
    assert facts is not None
    assert (facts.guard, facts.kind, facts.tool, facts.count, facts.template, facts.summary) == (
        "repeat-tool-reminder", "repeat-tool-reminder", "grep", 5, "detailed", "grep × 5")
    assert dict(entry.source) == facts.source() and dict(entry.metadata) == facts.metadata()
