"""What followed each reminder: the definition (changed / repeated / ended, the identical calls that followed), the
engine's ``on_outcome``, shadow mode, the outcome log, and the waiting reminders kept in a persistent store."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolguards as tg
from toolguards.events import ReminderOutcome
from toolguards.outcomes import in_share
from toolguards.outcomes.tracker import PENDING_STATE, WAITING_LIMIT
from toolguards.stores.sqlite import SqliteDatabase

GREP = ("grep", {"q": "x"})
LS = ("ls", {"path": "."})
TODO = ("todo_write", {"items": []})


def engine(outcomes: list[ReminderOutcome], *, shadow: Any = None, stores: Any = None, **config: Any) -> tg.Engine:
    guard: dict[str, Any] = {"id": "repeat-tool-reminder", "config": config}
    if shadow is not None:
        guard["shadow"] = shadow
    return tg.from_mapping({"guards": [guard]}, on_outcome=outcomes.append, stores=stores)


def play(eng: tg.Engine, steps: list[Any], agent: str = "main") -> list[list[int]]:
    """Each call (a (tool, arguments) pair, or "prompt" for a new user prompt, "forget" for the end), and the counts
    of the reminders each call drew."""
    drawn = []
    for number, step in enumerate(steps):
        if step == "prompt":
            eng.pre_step(agent, user_prompt=True)
        elif step == "forget":
            eng.forget(agent)
        else:
            tool, arguments = step
            decision = eng.post_execute(tg.ToolEvent(tool, arguments, agent=agent, call_id=f"c{number}"))
            drawn.append([entry.reminder.count for entry in decision.additional_contexts if entry.reminder])
    return drawn


def rows(outcomes: list[ReminderOutcome]) -> list[tuple[int, str, str, int, bool]]:
    return [(o.reminder.count, o.reminder.template, o.outcome, o.followed, o.delivered) for o in outcomes]


@pytest.mark.parametrize(("steps", "expected"), [
    # the model changes its call right after the reminder
    ([GREP] * 3 + [LS, "forget"], [(3, "first", "changed", 0, True)]),
    # it repeats twice more, then changes: the reminder at 3 was repeated, followed by 2 identical calls
    ([GREP] * 5 + [LS, "forget"], [(3, "first", "repeated", 2, True), (5, "detailed", "changed", 0, True)]),
    # no further call before the session ends
    ([GREP] * 3 + ["forget"], [(3, "first", "ended", 0, True)]),
    # a new user prompt ends the run
    ([GREP] * 4 + ["prompt", GREP, "forget"], [(3, "first", "repeated", 1, True)]),
    # an untracked call is transparent: the identical call after it is still a repeat
    ([GREP] * 3 + [TODO, GREP, LS, "forget"], [(3, "first", "repeated", 1, True)]),
    # eight in a row: three reminders, each with the identical calls after it
    ([GREP] * 9 + ["forget"],
     [(3, "first", "repeated", 6, True), (5, "detailed", "repeated", 4, True), (8, "detailed", "repeated", 1, True)]),
    # no reminder, no outcome
    ([GREP, GREP, LS, "forget"], []),
])
def test_the_outcome_of_each_reminder(steps, expected):
    outcomes: list[ReminderOutcome] = []
    play(engine(outcomes, exclude=["todo_write"]), steps)
    assert rows(outcomes) == expected
    assert all(o.reminder.tool == "grep" and o.agent == "main" for o in outcomes)


def test_an_identical_call_whose_result_changed_is_still_repeated():
    """resultAware starts a new run for the guard, but the model did send the identical call again."""
    outcomes: list[ReminderOutcome] = []
    eng = engine(outcomes, resultAware=True)
    for result in ("a", "a", "a", "b"):
        eng.post_execute(tg.ToolEvent("poll", {}, agent="main", result=result))
    eng.forget("main")
    assert rows(outcomes) == [(3, "first", "repeated", 1, True)]


def test_a_redelivered_call_is_not_counted_again():
    outcomes: list[ReminderOutcome] = []
    eng = engine(outcomes)
    for number in (1, 2, 3, 3, 3):
        eng.post_execute(tg.ToolEvent("grep", {"q": "x"}, agent="main", call_id=f"c{number}"))
    eng.forget("main")
    assert rows(outcomes) == [(3, "first", "ended", 0, True)]


def test_agents_are_followed_apart():
    outcomes: list[ReminderOutcome] = []
    eng = engine(outcomes)
    play(eng, [GREP] * 3, agent="a")
    play(eng, [GREP] * 3 + [LS], agent="b")
    play(eng, [GREP, "forget"], agent="a")
    assert [(o.agent, o.outcome, o.followed) for o in outcomes] == [("b", "changed", 0), ("a", "repeated", 1)]


def test_without_on_outcome_the_engine_follows_nothing():
    eng = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder"}]})
    assert play(eng, [GREP] * 3) == [[], [], [3]]
    assert all(tracker is None for tracker in eng._trackers)


def test_a_failing_callback_loses_the_outcome_never_the_call(caplog):
    def broken(outcome: ReminderOutcome) -> None:
        raise OSError("disk full")

    eng = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder"}]}, on_outcome=broken)
    assert play(eng, [GREP] * 3 + [LS]) == [[], [], [3], []]
    assert "disk full" in caplog.text


def test_past_the_waiting_limit_the_oldest_reminder_is_resolved_as_repeated():
    outcomes: list[ReminderOutcome] = []
    eng = engine(outcomes, thresholds=[2], repeatEvery=2)
    calls = 2 * (WAITING_LIMIT + 1)
    play(eng, [GREP] * calls)
    assert rows(outcomes) == [(2, "first", "repeated", WAITING_LIMIT * 2, True)]
    eng.forget("main")
    assert len(outcomes) == WAITING_LIMIT + 1
    assert rows(outcomes)[-1] == (calls, "detailed", "ended", 0, True)


# --- shadow mode --------------------------------------------------------------------------------------------------


LOOP = [GREP] * 6 + [LS] + [GREP] * 3 + ["prompt"] + [GREP] * 4 + ["forget"]


def test_a_shadow_guard_injects_nothing_and_logs_the_points_its_twin_reminds_at(tmp_path):
    delivering: list[ReminderOutcome] = []
    shadowed: list[ReminderOutcome] = []
    drawn = play(engine(delivering), LOOP)
    assert [counts for counts in drawn if counts] == [[3], [5], [3], [3]]
    assert play(engine(shadowed, shadow=True), LOOP) == [[] for _ in drawn]
    assert [(o.reminder, o.outcome, o.followed) for o in shadowed] == [
        (o.reminder, o.outcome, o.followed) for o in delivering]
    assert {o.delivered for o in delivering} == {True}
    assert {o.delivered for o in shadowed} == {False}


def test_a_shadow_guard_withholds_its_block_too():
    outcomes: list[ReminderOutcome] = []
    eng = engine(outcomes, shadow=True, block={"atCount": 4})
    decisions = [eng.post_execute(tg.ToolEvent("grep", {}, agent="main")) for _ in range(5)]
    assert {(d.kind, d.additional_contexts) for d in decisions} == {("accept", ())}


def test_a_share_splits_agents_by_a_stable_hash():
    agents = [f"claude:session-{n}:main" for n in range(400)]
    shadowed = [agent for agent in agents if in_share(agent, 0.25)]
    assert 60 < len(shadowed) < 140
    assert shadowed == [agent for agent in agents if in_share(agent, 0.25)]  # the same every time
    assert set(shadowed) <= {agent for agent in agents if in_share(agent, 0.5)}  # a smaller share nests
    assert (in_share("x", 0.0), in_share("x", 1.0)) == (False, True)
    outcomes: list[ReminderOutcome] = []
    eng = engine(outcomes, shadow=0.25)
    for agent in agents[:40]:
        play(eng, [GREP] * 3 + ["forget"], agent=agent)
    assert [(o.agent, o.delivered) for o in outcomes] == [(agent, not in_share(agent, 0.25)) for agent in agents[:40]]


def test_the_split_of_a_hook_agent_is_the_service_key():
    outcomes: list[ReminderOutcome] = []
    eng = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "shadow": 0.5}]}, on_outcome=outcomes.append)
    eng.split_prefix = "claude:s1:"
    play(eng, [GREP] * 3 + ["forget"])
    assert [o.delivered for o in outcomes] == [not in_share("claude:s1:main", 0.5)]


# --- the outcome log and persistence -------------------------------------------------------------------------------


def test_the_guard_files_outcome_log_gets_one_line_per_outcome(tmp_path):
    (tmp_path / "g.yaml").write_text("outcomes: {log: logs/outcomes.jsonl}\nguards:\n  - id: repeat-tool-reminder\n",
                                     encoding="utf-8")
    (tmp_path / "logs").mkdir()
    told: list[ReminderOutcome] = []
    eng = tg.load(tmp_path / "g.yaml", on_outcome=told.append)
    play(eng, [GREP] * 5 + [LS])
    lines = [json.loads(line) for line in (tmp_path / "logs" / "outcomes.jsonl").read_text("utf-8").splitlines()]
    assert [{key: value for key, value in line.items() if key != "time"} for line in lines] == [
        {"guard": "repeat-tool-reminder", "kind": "repeat-tool-reminder", "tool": "grep", "count": 3,
         "template": "first", "outcome": "repeated", "followed": 2, "delivered": True, "agent": "main"},
        {"guard": "repeat-tool-reminder", "kind": "repeat-tool-reminder", "tool": "grep", "count": 5,
         "template": "detailed", "outcome": "changed", "followed": 0, "delivered": True, "agent": "main"}]
    assert all(len(line["time"]) == 20 and line["time"].endswith("Z") for line in lines)
    assert [o.to_json() for o in told] == [{k: v for k, v in line.items() if k != "time"} for line in lines]


def test_waiting_reminders_outlive_the_process_in_a_sqlite_store(tmp_path):
    """Each engine stands for one hook process: the reminder drawn in one is resolved by a later one."""
    outcomes: list[ReminderOutcome] = []
    for number, (tool, arguments) in enumerate([GREP] * 4 + [LS]):
        with SqliteDatabase(tmp_path / "state.db") as database:
            eng = engine(outcomes, stores=database.stores("session"))
            eng.post_execute(tg.ToolEvent(tool, arguments, agent="main", call_id=f"c{number}"))
    assert rows(outcomes) == [(3, "first", "repeated", 1, True)]
    with SqliteDatabase(tmp_path / "state.db") as database:
        assert database.sessions() == ["session"]  # the guard's chain of `ls` is left, nothing waits


@pytest.mark.parametrize("data", [
    {"digest": 1, "tool": "grep", "seen": 0, "callIds": None, "reminders": [[0, "k", 3, "first", "grep × 3", True]]},
    {"digest": -5, "tool": "t", "seen": 2, "callIds": ["a", "b"],
     "reminders": [[0, "k", 3, "first", "t × 3", False], [2, "k", 5, "detailed", "t × 5", False]]},
])
def test_the_waiting_state_round_trips_through_json(data):
    assert PENDING_STATE.to_json(PENDING_STATE.from_json(data)) == data


@pytest.mark.parametrize("data", [
    None, [], {"digest": 1}, {"digest": 1, "tool": "t", "seen": 0, "callIds": None, "reminders": []},
    {"digest": 1, "tool": "t", "seen": -1, "callIds": None, "reminders": [[0, "k", 3, "first", "s", True]]},
    {"digest": 1, "tool": "t", "seen": 0, "callIds": None, "reminders": [[0, "k", 3, "first", "s"]]},
    {"digest": "1", "tool": "t", "seen": 0, "callIds": None, "reminders": [[0, "k", 3, "first", "s", True]]},
])
def test_a_waiting_state_of_another_shape_is_refused(data):
    with pytest.raises(ValueError):
        PENDING_STATE.from_json(data)
