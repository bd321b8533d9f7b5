"""GuardMiddleware inside real LangChain agents (create_agent, offline with a scripted fake model)."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("langchain", reason="the langchain extra is not installed: pip install -e '.[langchain]'")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool, ToolException, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import ExecutionInfo

import toolguards as tg
from conftest import FIRST, detailed
from toolguards.integrations.langchain import GuardMiddleware, agent_key


class ScriptedModel(GenericFakeChatModel):
    """Answers with the scripted messages in turn; binding tools changes nothing."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


@tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"no match for {q}"


def _broken(q: str) -> str:
    """Always fails."""
    raise ToolException(f"cannot read {q}")


broken = StructuredTool.from_function(_broken, name="broken", handle_tool_error=True)


def turn(*calls: tuple[str, dict[str, Any], str]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id} for name, args, call_id in calls])


def same(call_id: str) -> AIMessage:
    return turn(("lookup", {"q": "x"}, call_id))


def agent(script: list[AIMessage], middleware: GuardMiddleware, **kwargs: Any) -> Any:
    model = ScriptedModel(messages=iter(script))
    return create_agent(model, tools=[lookup, broken], middleware=[middleware], **kwargs)


def thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def shape(messages: list[Any]) -> list[str]:
    """Each message as Human/AI/Tool, the guard's own as Guard."""
    names = {HumanMessage: "Human", AIMessage: "AI", ToolMessage: "Tool"}
    return ["Guard" if getattr(m, "name", None) == "toolguards" else names[type(m)] for m in messages]


def reminders(messages: list[Any]) -> list[str]:
    return [m.content for m in messages if getattr(m, "name", None) == "toolguards"]


SIX_SAME = [same(f"c{i}") for i in range(1, 7)] + [AIMessage("done")]
SIX_SAME_SHAPE = ["Human"] + ["AI", "Tool"] * 3 + ["Guard"] + ["AI", "Tool"] * 2 + ["Guard"] + ["AI", "Tool", "AI"]


def test_six_identical_calls_remind_after_the_third_and_the_fifth():
    result = agent(SIX_SAME, GuardMiddleware()).invoke({"messages": [HumanMessage("find x")]}, thread("t"))
    messages = result["messages"]
    assert shape(messages) == SIX_SAME_SHAPE
    assert reminders(messages) == [FIRST, detailed("lookup", 5, '{"q":"x"}')]
    # Each reminder follows its step's tool result, and carries where it came from.
    assert messages[6].tool_call_id == "c3"
    assert messages[11].tool_call_id == "c5"
    marks = messages[7].additional_kwargs["toolguards"]
    assert marks["sources"] == [
        {"kind": "plugin", "plugin": "repeat-tool-reminder", "form": "notice", "summary": "lookup × 3"}
    ]
    assert marks["metadata"][0]["count"] == 3


def test_ainvoke_counts_the_same_way():
    graph = agent(SIX_SAME, GuardMiddleware())
    result = asyncio.run(graph.ainvoke({"messages": [HumanMessage("find x")]}, thread("t")))
    assert shape(result["messages"]) == SIX_SAME_SHAPE
    assert reminders(result["messages"]) == [FIRST, detailed("lookup", 5, '{"q":"x"}')]


def test_a_parallel_step_counts_in_emitted_order_and_adds_one_message():
    script = [
        turn(("lookup", {"q": "x"}, "a1")),
        turn(*(("lookup", {"q": "x"}, f"p{i}") for i in range(2, 6)), ("lookup", {"q": "y"}, "p6")),
        AIMessage("done"),
    ]
    messages = agent(script, GuardMiddleware()).invoke({"messages": [HumanMessage("go")]}, thread("t"))["messages"]
    assert shape(messages) == ["Human", "AI", "Tool", "AI", "Tool", "Tool", "Tool", "Tool", "Tool", "Guard", "AI"]
    assert reminders(messages) == [FIRST + "\n\n" + detailed("lookup", 5, '{"q":"x"}')]
    assert len(messages[9].additional_kwargs["toolguards"]["sources"]) == 2


def test_the_step_is_walked_in_emitted_order_whatever_the_order_of_the_results():
    # A host that appends results in completion order: the calls still count in the order the model made them.
    middleware = GuardMiddleware()
    runtime = SimpleNamespace(execution_info=ExecutionInfo("cp", "model:1", "task", thread_id="t"))
    state: dict[str, Any] = {"messages": [HumanMessage("go", id="h")]}

    def step(*added: Any) -> list[Any]:
        """Run before_model on the state with ``added`` messages, apply its update as the graph would; its messages."""
        state["messages"] = [*state["messages"], *added]
        update = middleware.before_model(state, runtime) or {}
        state.update({key: value for key, value in update.items() if key != "messages"})
        state["messages"] = [*state["messages"], *update.get("messages", [])]
        return update.get("messages", [])

    for i in (1, 2):
        assert step(same(f"s{i}"), ToolMessage("r", tool_call_id=f"s{i}")) == []
    history = [turn(("lookup", {"q": "x"}, "s3"), ("lookup", {"q": "y"}, "s4")),
               ToolMessage("r", tool_call_id="s4"), ToolMessage("r", tool_call_id="s3")]
    assert [m.content for m in step(*history)] == [FIRST]
    # Entered again on the same state (a retried node): nothing is counted twice, nothing added.
    assert step() == []
    state["messages"] = state["messages"][:-1]
    assert middleware.before_model(state, runtime) is None


def test_failed_calls_count():
    script = [turn(("broken", {"q": "f"}, f"b{i}")) for i in range(3)] + [AIMessage("done")]
    graph = create_agent(ScriptedModel(messages=iter(script)), tools=[broken], middleware=[GuardMiddleware()])
    messages = graph.invoke({"messages": [HumanMessage("go")]}, thread("t"))["messages"]
    assert [(m.content, m.status) for m in messages if isinstance(m, ToolMessage)] == [("cannot read f", "error")] * 3
    assert reminders(messages) == [FIRST]


def test_a_second_invoke_on_the_thread_starts_afresh():
    script = [same("c1"), same("c2"), AIMessage("first answer"), same("c3"), same("c4"), same("c5"),
              AIMessage("second answer")]
    graph = agent(script, GuardMiddleware(), checkpointer=InMemorySaver())
    first = graph.invoke({"messages": [HumanMessage("find x")]}, thread("t"))["messages"]
    assert reminders(first) == []
    second = graph.invoke({"messages": [HumanMessage("again")]}, thread("t"))["messages"]
    assert len(second) == len(first) + 9  # the history is kept: prompt, 3 × (call, result), reminder, answer
    assert shape(second[len(first):]) == ["Human", "AI", "Tool", "AI", "Tool", "AI", "Tool", "Guard", "AI"]
    assert second[-2].content == FIRST  # after the third call of this prompt, not the first (the fifth overall)


def test_a_sub_agent_keeps_its_own_chain():
    middleware = GuardMiddleware()
    inner_runs: list[list[Any]] = []
    inner_script = [same(f"i{i}") for i in range(1, 4)] + [AIMessage("inner done")]

    @tool
    def delegate(task: str) -> str:
        """Hand a task to a sub-agent."""
        inner = agent(inner_script, middleware)
        messages = inner.invoke({"messages": [HumanMessage(task)]})["messages"]
        inner_runs.append(messages)
        return messages[-1].content

    outer_script = [same("o1"), same("o2"), turn(("delegate", {"task": "find x"}, "d1")), same("o3"), same("o4"),
                    AIMessage("outer done")]
    graph = create_agent(ScriptedModel(messages=iter(outer_script)), tools=[lookup, delegate], middleware=[middleware])
    outer = graph.invoke({"messages": [HumanMessage("go")]}, thread("t"))["messages"]
    # The sub-agent's three calls draw its own first reminder: the parent's two earlier calls do not add to it.
    (inner,) = inner_runs
    assert shape(inner) == ["Human"] + ["AI", "Tool"] * 3 + ["Guard", "AI"]
    # The parent's run is broken by `delegate`; its own calls after it do not continue the sub-agent's run either.
    assert reminders(outer) == []


def test_agent_keys():
    def key(namespace: str, thread_id: str | None = None, run_id: str | None = None, messages: Any = ()) -> str:
        runtime = SimpleNamespace(execution_info=ExecutionInfo("cp", namespace, "t", thread_id, run_id))
        return agent_key(runtime, messages)

    assert key("model:abc", "t1") == "t1"
    assert key("tools:123|model:abc", "t1") == "t1|tools:123"
    assert key("model:abc", None, "run-7") == "run-7"
    assert key("model:abc", None, None, [HumanMessage("hi", id="m1")]) == "m1"


def test_the_default_engine_is_the_shipped_one():
    assert GuardMiddleware().engine.source.endswith("repeat-tool-reminder.yaml")


class BrokenEngine:
    source = "<broken>"

    def pre_step(self, agent: Any, user_prompt: bool = False) -> None:
        raise RuntimeError("pre_step is broken")

    def post_execute(self, event: tg.ToolEvent, next: Any = None) -> Any:
        raise RuntimeError("post_execute is broken")

    def forget(self, agent: Any) -> None:
        raise RuntimeError("forget is broken")


def test_a_failing_engine_never_breaks_the_agent(caplog):
    middleware = GuardMiddleware(BrokenEngine())  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        result = agent(SIX_SAME, middleware).invoke({"messages": [HumanMessage("find x")]}, thread("t"))
    assert result["messages"][-1].content == "done"
    assert reminders(result["messages"]) == []
    logged = [record.getMessage().split(" (")[0] for record in caplog.records]
    assert logged == [
        "toolguards: GuardMiddleware.before_agent failed and was skipped",
        "toolguards: GuardMiddleware.before_model failed and was skipped",
        "toolguards: GuardMiddleware.after_agent failed and was skipped",
    ]


@tool
def read_page(offset: int) -> str:
    """Read a page of the report."""
    return "Access denied: please enable cookies."


def test_the_tool_message_is_the_result_the_guards_compare():
    # new arguments each time and the same answer: the no-progress guard needs the result to see it
    from toolguards import from_mapping

    script = [turn(("read_page", {"offset": 10 * i}, f"p{i}")) for i in range(3)] + [AIMessage("done")]
    graph = create_agent(ScriptedModel(messages=iter(script)), tools=[read_page],
                         middleware=[GuardMiddleware(from_mapping({"guards": [{"id": "no-progress-reminder", "config": {"thresholds": [3]}}]}))])
    messages = graph.invoke({"messages": [HumanMessage("read the report")]}, thread("np"))["messages"]
    assert shape(messages) == ["Human"] + ["AI", "Tool"] * 3 + ["Guard", "AI"]
    assert reminders(messages)[0].startswith("You have made 3 calls in a row (the latest to `read_page`)")
