"""GuardCapability inside real pydantic-ai agents (offline: a FunctionModel plays the model's turns)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import PYDANTIC_AI_MISSING

pytest.importorskip("pydantic_ai", reason=PYDANTIC_AI_MISSING)

from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import toolguards as tg
from conftest import FIRST, FIRST_ZH, detailed
from toolguards.integrations.pydantic_ai import GuardCapability

FIFTH = detailed("lookup", 5, '{"q":"x"}')

Call = tuple[str, dict[str, Any], str]


def scripted(*turns: list[Call] | str) -> FunctionModel:
    """A model that answers with these turns in order: a list of tool calls, or a final text."""
    remaining: Iterator[list[Call] | str] = iter(turns)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = next(remaining)
        if isinstance(turn, str):
            return ModelResponse(parts=[TextPart(turn)])
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=call_id) for name, args, call_id in turn])

    return FunctionModel(respond)


def same(call_id: str) -> list[Call]:
    return [("lookup", {"q": "x"}, call_id)]


@pytest.fixture(autouse=True, scope="module")
def event_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The loop ``run_sync`` runs on (pydantic-ai leaves the thread's loop open): closed when the module is done."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()


SIX_SAME = [*(same(f"c{i}") for i in range(1, 7)), "done"]
GUARD = GuardCapability()
AGENT = Agent(capabilities=[GUARD])


@AGENT.tool_plain
def lookup(q: str) -> str:
    """Look something up."""
    return f"no match for {q}"


@AGENT.tool_plain(retries=5)
def broken(q: str) -> str:
    """Always fails."""
    raise ModelRetry(f"cannot read {q}")


def shape(messages: list[ModelMessage]) -> list[str]:
    """Each part of each message: Prompt, Call, Return, Retry, Text, and Guard for the guard's reminder."""
    names = {UserPromptPart: "Prompt", ToolCallPart: "Call", ToolReturnPart: "Return", TextPart: "Text"}
    found = []
    for message in messages:
        if isinstance(message, ModelRequest) and message.metadata and "toolguards" in message.metadata:
            found.append("Guard")
        else:
            found.extend(names.get(type(part), type(part).__name__) for part in message.parts)
    return found


def reminders(messages: list[ModelMessage]) -> list[str]:
    return [message.parts[0].content for message in messages
            if isinstance(message, ModelRequest) and message.metadata and "toolguards" in message.metadata]


SIX_SAME_SHAPE = ["Prompt"] + ["Call", "Return"] * 3 + ["Guard"] + ["Call", "Return"] * 2 + ["Guard"] + [
    "Call", "Return", "Text"]


def test_six_identical_calls_remind_after_the_third_and_the_fifth(caplog):
    with caplog.at_level(logging.DEBUG, logger="toolguards"):
        result = AGENT.run_sync("find x", model=scripted(*SIX_SAME))
    assert caplog.records == []
    messages = result.all_messages()
    assert shape(messages) == SIX_SAME_SHAPE
    assert reminders(messages) == [FIRST, FIFTH]
    # The reminder follows its step's tool result, as one user prompt part, and carries where it came from.
    assert messages[6].parts[0].tool_call_id == "c3"
    (part,) = messages[7].parts
    assert isinstance(part, UserPromptPart)
    marks = messages[7].metadata["toolguards"]
    assert marks["sources"] == [
        {"kind": "plugin", "plugin": "repeat-tool-reminder", "form": "notice", "summary": "lookup × 3"}
    ]
    assert marks["metadata"][0]["count"] == 3
    assert result.output == "done"


def test_the_model_sees_the_reminder_before_its_next_turn():
    seen: list[list[str]] = []
    turns = iter([*SIX_SAME[:4], "done"])

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(shape(messages))
        turn = next(turns)
        if isinstance(turn, str):
            return ModelResponse(parts=[TextPart(turn)])
        return ModelResponse(parts=[ToolCallPart(*turn[0][:2], tool_call_id=turn[0][2])])

    AGENT.run_sync("find x", model=FunctionModel(respond))
    assert seen[3] == ["Prompt"] + ["Call", "Return"] * 3 + ["Prompt"]
    assert seen[2] == ["Prompt"] + ["Call", "Return"] * 2


def test_an_async_run_counts_the_same_way(event_loop):
    result = event_loop.run_until_complete(AGENT.run("find x", model=scripted(*SIX_SAME)))
    assert shape(result.all_messages()) == SIX_SAME_SHAPE
    assert reminders(result.all_messages()) == [FIRST, FIFTH]


def test_a_run_driven_node_by_node_counts_the_same_way(event_loop):
    async def drive() -> list[ModelMessage]:
        async with AGENT.iter("find x", model=scripted(*SIX_SAME)) as run:
            async for _node in run:
                pass
        assert run.result is not None
        return run.result.all_messages()

    assert reminders(event_loop.run_until_complete(drive())) == [FIRST, FIFTH]


def test_a_parallel_step_counts_in_emitted_order_and_adds_one_message():
    parallel = [*(("lookup", {"q": "x"}, f"p{i}") for i in range(2, 6)), ("lookup", {"q": "y"}, "p6")]
    messages = AGENT.run_sync("go", model=scripted(same("a1"), parallel, "done")).all_messages()
    assert shape(messages) == ["Prompt", "Call", "Return"] + ["Call"] * 5 + ["Return"] * 5 + ["Guard", "Text"]
    assert reminders(messages) == [FIRST + "\n\n" + FIFTH]
    assert len(messages[-2].metadata["toolguards"]["sources"]) == 2


def test_the_calls_of_a_step_count_in_the_order_the_model_emitted_them():
    # x, x, then [x, y]: in emitted order x is the third; counted y-first it would not be.
    messages = AGENT.run_sync("go", model=scripted(
        same("a1"), same("a2"), [("lookup", {"q": "x"}, "a3"), ("lookup", {"q": "y"}, "a4")], "done",
    )).all_messages()
    assert reminders(messages) == [FIRST]


def test_a_redelivered_call_id_counts_once():
    messages = AGENT.run_sync("go", model=scripted(same("c1"), same("c2"), same("c2"), same("c3"), "done"))
    assert shape(messages.all_messages())[-3:] == ["Return", "Guard", "Text"]
    assert [m.parts[0].tool_call_id for m in messages.all_messages()[-4:-3]] == ["c3"]


def test_failed_calls_count():
    turns = [[("broken", {"q": "f"}, f"b{i}")] for i in range(3)]
    messages = AGENT.run_sync("go", model=scripted(*turns, "done")).all_messages()
    assert reminders(messages) == [FIRST]


def test_each_run_starts_afresh():
    first = AGENT.run_sync("find x", model=scripted(same("c1"), same("c2"), "first answer"))
    second = AGENT.run_sync("again", model=scripted(same("c3"), same("c4"), same("c5"), "second answer"),
                            message_history=first.all_messages())
    assert reminders(first.all_messages()) == []
    new = second.new_messages()
    # After the third call of this run, not the fifth of the conversation.
    assert shape(new) == ["Prompt"] + ["Call", "Return"] * 3 + ["Guard", "Text"]


def test_a_sub_agent_keeps_its_own_chain():
    inner_runs: list[list[ModelMessage]] = []
    outer = Agent(capabilities=[GUARD])
    outer.tool_plain(lookup)

    @outer.tool_plain
    async def delegate(task: str) -> str:
        """Hand a task to a sub-agent."""
        inner = await AGENT.run(task, model=scripted(same("i1"), same("i2"), same("i3"), "inner done"))
        inner_runs.append(inner.all_messages())
        return inner.output

    result = outer.run_sync("go", model=scripted(
        same("o1"), same("o2"), [("delegate", {"task": "find x"}, "d1")], same("o3"), same("o4"), "outer done",
    ))
    # The sub-agent's three calls draw its own reminder; the parent's two earlier calls do not add to it.
    (inner,) = inner_runs
    assert shape(inner) == ["Prompt"] + ["Call", "Return"] * 3 + ["Guard", "Text"]
    # The parent's run is broken by `delegate`: its calls after it do not continue the sub-agent's run either.
    assert reminders(result.all_messages()) == []


def test_chinese_templates():
    agent = Agent(capabilities=[GuardCapability.from_file(locale="zh")])
    agent.tool_plain(lookup)
    assert reminders(agent.run_sync("find x", model=scripted(*SIX_SAME[:3], "done")).all_messages()) == [FIRST_ZH]


def test_a_guard_file_of_ones_own(tmp_path):
    (tmp_path / "g.yaml").write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [2]\n",
                                     encoding="utf-8")
    agent = Agent(capabilities=[GuardCapability.from_file(tmp_path / "g.yaml")])
    agent.tool_plain(lookup)
    messages = agent.run_sync("find x", model=scripted(*SIX_SAME)).all_messages()
    assert shape(messages)[5] == "Guard"
    assert reminders(messages) == [FIRST]


class BrokenEngine:
    source = "<broken>"

    def pre_step(self, agent: Any, user_prompt: bool = False) -> None:
        raise RuntimeError("pre_step is broken")

    def post_execute(self, event: tg.ToolEvent, next: Any = None) -> Any:
        raise RuntimeError("post_execute is broken")

    def forget(self, agent: Any) -> None:
        raise TypeError("forget is broken")


def test_a_failing_engine_never_breaks_the_agent(caplog):
    agent = Agent(capabilities=[GuardCapability(BrokenEngine())])  # type: ignore[arg-type]
    agent.tool_plain(lookup)
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        result = agent.run_sync("find x", model=scripted(*SIX_SAME))
    assert result.output == "done"
    assert reminders(result.all_messages()) == []
    logged = [record.getMessage().split(" (")[0] for record in caplog.records]
    assert logged == [
        "toolguards: GuardCapability.wrap_run failed and was skipped",
        "toolguards: GuardCapability.before_model_request failed and was skipped",
        "toolguards: GuardCapability.wrap_run failed and was skipped",
    ]


def test_a_failing_run_still_forgets_its_chains():
    forgotten: list[Any] = []

    class Watched(GuardCapability):
        pass

    guard = Watched()
    real_forget = guard.engine.forget
    guard.engine.forget = lambda agent: (forgotten.append(agent), real_forget(agent))  # type: ignore[method-assign]
    agent = Agent(capabilities=[guard])

    @agent.tool_plain
    def explode(q: str) -> str:
        """Fails the run."""
        raise KeyError(q)

    with pytest.raises(KeyError):
        agent.run_sync("go", model=scripted([("explode", {"q": "x"}, "e1")], "never"))
    assert len(forgotten) == 1 and isinstance(forgotten[0], str)


def test_the_run_context_is_the_key(monkeypatch):
    keys: list[Any] = []
    real = GUARD.engine.post_execute
    monkeypatch.setattr(GUARD.engine, "post_execute", lambda event, next=None: (keys.append(event.agent), real(event))[1])

    @AGENT.tool
    def whoami(ctx: RunContext[None]) -> str:
        """The run's id."""
        return str(ctx.run_id)

    try:
        result = AGENT.run_sync("go", model=scripted([("whoami", {}, "w1")], "done"))
    finally:
        AGENT._function_toolset.tools.pop("whoami")
    returned = [part.content for m in result.all_messages() for part in m.parts if isinstance(part, ToolReturnPart)]
    assert keys == returned


def test_the_tool_return_is_the_result_the_guards_compare():
    # new arguments each time and the same answer: the no-progress guard needs the result to see it
    from toolguards import from_mapping

    agent = Agent(capabilities=[GuardCapability(from_mapping({"guards": [{"id": "no-progress-reminder", "config": {"thresholds": [3]}}]}))])

    @agent.tool_plain
    def read_page(offset: int) -> str:
        """Read a page of the report."""
        return "Access denied: please enable cookies."

    turns = [[("read_page", {"offset": 10 * i}, f"p{i}")] for i in range(3)]
    messages = agent.run_sync("read the report", model=scripted(*turns, "done")).all_messages()
    assert [text[:62] for text in reminders(messages)] == [
        "You have made 3 calls in a row (the latest to `read_page`) tha"]
