"""The mapping store: one agent's guard states in a mapping the host holds around each call."""

from __future__ import annotations

import logging

import pytest

import toolguards as tg
from conftest import FIRST
from toolguards.stores import MappingStore, holding, open_stores


def engine() -> tg.Engine:
    return tg.load_default(stores="mapping")


def call(agent: str, call_id: str | None = None) -> tg.ToolEvent:
    return tg.ToolEvent("grep", {"q": "x"}, agent=agent, call_id=call_id)


def texts(decision: tg.PostToolDecision) -> list[str]:
    return [entry.text for entry in decision.additional_contexts]


def test_the_states_are_the_hosts_and_travel_with_it(caplog):
    states: dict = {}
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        for i in range(2):
            with holding("a", states):
                assert texts(engine().post_execute(call("a", f"c{i}"))) == []  # a new engine every call
        assert states == {"repeat-tool-reminder": {
            "kind": "repeat-tool-reminder", "version": 1,
            "state": {"digest": states["repeat-tool-reminder"]["state"]["digest"], "count": 2,
                      "callIds": ["c0", "c1"], "result": None}}}
        with holding("a", dict(states)) as copy:
            assert texts(engine().post_execute(call("a", "c2"))) == [FIRST]
        assert copy["repeat-tool-reminder"]["state"]["count"] == 3
        assert states["repeat-tool-reminder"]["state"]["count"] == 2  # the host's own mapping is only what it held
    assert caplog.records == []


def test_a_reset_drops_the_entry():
    states: dict = {}
    guards = engine()
    with holding("a", states):
        guards.post_execute(call("a"))
        assert "repeat-tool-reminder" in states
        guards.pre_step("a", user_prompt=True)
    assert states == {}


@pytest.mark.parametrize(("held", "expected"), [
    (None, "<MappingStore guard='repeat-tool-reminder'>: no agent's states are held "
           "(call the engine inside `holding(agent, states)`)"),
    ("b", "<MappingStore guard='repeat-tool-reminder'>: the held states are 'b''s, not 'a''s"),
])
def test_a_call_for_an_agent_not_held_is_skipped_and_logged(caplog, held, expected):
    failures = []
    guards = tg.load_default(stores="mapping", on_failure=lambda guard, what, exc: failures.append(str(exc)))
    states: dict = {}
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        if held is None:
            assert texts(guards.post_execute(call("a"))) == []
        else:
            with holding(held, states):
                assert texts(guards.post_execute(call("a"))) == []
    assert failures == [expected]
    assert states == {}
    assert len(caplog.records) == 1


@pytest.mark.parametrize(("entry", "found"), [
    ({"kind": "repeat-tool-reminder", "version": 2, "state": {}}, "of version 2"),
    ({"kind": "cycle-reminder", "version": 1, "state": {}}, "of another kind"),
    ("digest=1", "of another kind"),
    ({"kind": "repeat-tool-reminder", "version": 1, "state": {"digest": "x", "count": 1}}, "that does not decode"),
    ({"kind": "repeat-tool-reminder", "version": 1}, "that does not decode"),
])
def test_an_entry_it_must_not_read_is_discarded_once(caplog, entry, found):
    guards = engine()
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        for i in range(3):
            states = {"repeat-tool-reminder": entry}
            with holding("a", states):
                assert texts(guards.post_execute(call("a", f"c{i}"))) == []
            assert states["repeat-tool-reminder"]["state"]["count"] == 1
    assert [record.getMessage() for record in caplog.records] == [
        f"toolguards: a stored repeat-tool-reminder state {found} was discarded (this version reads version 1); "
        "that chain starts afresh"
    ]


def test_urls():
    assert open_stores("mapping")("g").guard == "g"
    assert isinstance(open_stores("mapping://")("g"), MappingStore)
    with pytest.raises(ValueError, match=r"^the mapping store takes no location: 'mapping://x' \(write `mapping`\)$"):
        open_stores("mapping://x")
