"""GuardMiddleware keeps its chains in the graph state: checkpointed, resumed in another process, shared by workers."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("langchain", reason="the langchain extra is not installed: pip install -e '.[langchain]'")
pytest.importorskip("langgraph.checkpoint.sqlite", reason="langgraph-checkpoint-sqlite is not installed")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from conftest import FIRST, FIRST_ZH, REPO, detailed
from support.langchain_thread import PROMPT, THREAD, ScriptedModel, agent, saver, script
from toolguards.integrations.langchain import STATE_KEY, GuardMiddleware

FIFTH = detailed("lookup", 5, '{"q":"x"}')


def seen(messages: list[Any]) -> list[tuple[str, str]]:
    """What the model saw, without the ids the graph makes up: (kind, text) per message."""
    found = []
    for m in messages:
        if isinstance(m, ToolMessage):
            found.append(("tool", m.tool_call_id))
        elif isinstance(m, AIMessage):
            found.append(("ai", m.content or m.tool_calls[0]["id"]))
        else:
            found.append(("guard" if m.name == "toolguards" else "human", m.content))
    return found


def uninterrupted() -> list[tuple[str, str]]:
    graph = agent(InMemorySaver(), ScriptedModel(messages=iter(script())), interrupt=False)
    return seen(graph.invoke(PROMPT, THREAD)["messages"])


UNINTERRUPTED = [("human", "find x"), ("ai", "c1"), ("tool", "c1"), ("ai", "c2"), ("tool", "c2"), ("ai", "c3"),
                 ("tool", "c3"), ("guard", FIRST), ("ai", "c4"), ("tool", "c4"), ("ai", "c5"), ("tool", "c5"),
                 ("guard", FIFTH), ("ai", "c6"), ("tool", "c6"), ("ai", "done")]


@pytest.fixture
def savers() -> Iterator[Callable[[str], SqliteSaver]]:
    """saver(path), each checkpointer's connection closed when the test ends (Python 3.13 warns of one left open)."""
    made: list[SqliteSaver] = []

    def make(path: str) -> SqliteSaver:
        made.append(saver(path))
        return made[-1]

    yield make
    for each in made:
        each.conn.close()


def test_an_uninterrupted_run_reminds_at_the_third_and_fifth_calls():
    assert uninterrupted() == UNINTERRUPTED


def test_the_chains_are_in_the_checkpoint_not_in_the_output(tmp_path, savers):
    graph = agent(savers(str(tmp_path / "t.db")), ScriptedModel(messages=iter(script())))
    graph.invoke(PROMPT, THREAD)
    graph.invoke(None, THREAD)
    output = graph.invoke(None, THREAD)
    assert STATE_KEY not in output
    held = graph.get_state(THREAD).values[STATE_KEY]
    assert list(held) == ["repeat-tool-reminder"]
    entry = held["repeat-tool-reminder"]
    assert (entry["kind"], entry["version"]) == ("repeat-tool-reminder", 1)
    assert {key: value for key, value in entry["state"].items() if key != "digest"} == {
        "count": 2, "callIds": ["c1", "c2"], "result": None}
    # The run's end drops them (the next invoke would start afresh anyway).
    for _ in range(4):
        graph.invoke(None, THREAD)
    assert graph.get_state(THREAD).next == ()
    assert graph.get_state(THREAD).values[STATE_KEY] == {}


def test_a_thread_resumed_in_another_process_goes_on_counting(tmp_path, savers, caplog):
    path = str(tmp_path / "t.db")
    done = subprocess.run([sys.executable, "-W", "error", str(REPO / "tests" / "support" / "langchain_thread.py"), path, "2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # This process: a new checkpointer connection, a new middleware, the model's remaining turns.
    graph = agent(savers(path), ScriptedModel(messages=iter(script(start=4))), interrupt=False)
    assert graph.get_state(THREAD).next == ("tools",)
    with caplog.at_level(logging.DEBUG, logger="toolguards"):
        assert seen(graph.invoke(None, THREAD)["messages"]) == UNINTERRUPTED
    assert caplog.records == []


def test_two_middleware_instances_alternating_steps_agree(tmp_path, savers):
    checkpointer = savers(str(tmp_path / "t.db"))
    model = ScriptedModel(messages=iter(script()))
    workers = [agent(checkpointer, model, GuardMiddleware()), agent(checkpointer, model, GuardMiddleware())]
    result = workers[0].invoke(PROMPT, THREAD)
    step = 0
    while workers[0].get_state(THREAD).next:
        step += 1
        result = workers[step % 2].invoke(None, THREAD)
    assert step == 6
    assert seen(result["messages"]) == UNINTERRUPTED


def test_a_state_of_another_version_is_discarded_with_one_warning(tmp_path, savers, caplog):
    graph = agent(savers(str(tmp_path / "t.db")), ScriptedModel(messages=iter(script())))
    graph.invoke(PROMPT, THREAD)
    graph.invoke(None, THREAD)
    graph.invoke(None, THREAD)  # two calls counted; the third is pending
    old = {"repeat-tool-reminder": {"kind": "repeat-tool-reminder", "version": 0, "state": [1, 2]}}
    graph.update_state(THREAD, {STATE_KEY: old})
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        while graph.get_state(THREAD).next:
            result = graph.invoke(None, THREAD)
    assert [record.getMessage() for record in caplog.records] == [
        "toolguards: a stored repeat-tool-reminder state of version 0 was discarded (this version reads version 1); "
        "that chain starts afresh"
    ]
    # The chain starts again at c3: its third call is c5.
    assert [text for kind, text in seen(result["messages"]) if kind == "guard"] == [FIRST]
    assert seen(result["messages"])[10:12] == [("tool", "c5"), ("guard", FIRST)]


def test_chinese_templates():
    graph = agent(None, ScriptedModel(messages=iter(script())), GuardMiddleware(locale="zh"), interrupt=False)
    messages = graph.invoke(PROMPT)["messages"]
    assert next(text for kind, text in seen(messages) if kind == "guard") == FIRST_ZH


def test_a_guard_file_of_ones_own(tmp_path):
    (tmp_path / "g.yaml").write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [2]\n",
                                     encoding="utf-8")
    graph = agent(None, ScriptedModel(messages=iter(script())), GuardMiddleware(path=tmp_path / "g.yaml"),
                  interrupt=False)
    messages = seen(graph.invoke(PROMPT)["messages"])
    assert messages[5] == ("guard", FIRST)
    assert [kind for kind, _ in messages].count("guard") == 1


def test_an_engine_and_a_path_are_not_both_taken():
    with pytest.raises(TypeError, match=r"^GuardMiddleware takes an engine, or a guard file path and locale, not both$"):
        GuardMiddleware(GuardMiddleware().engine, locale="zh")


def test_a_redelivered_call_id_counts_once():
    turns = [AIMessage("", id=f"m{i}", tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": call_id}])
             for i, call_id in enumerate(["c1", "c2", "c2", "c3"])]
    graph = agent(None, ScriptedModel(messages=iter([*turns, AIMessage("done")])), interrupt=False)
    messages = seen(graph.invoke({"messages": [HumanMessage("find x")]})["messages"])
    # c2 came twice: the third distinct call, c3, is the one that draws the reminder.
    assert messages[-3:] == [("tool", "c3"), ("guard", FIRST), ("ai", "done")]
