"""GuardFilter inside real OpenAI Agents SDK runs (offline: a scripted model plays the model's turns)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed: pip install -e '.[openai-agents]'")

from agents import Agent, ModelResponse, RunConfig, Runner, Usage, function_tool
from agents.models.interface import Model
from agents.run import CallModelData, ModelInputData
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

import toolguards as tg
from conftest import FIRST, FIRST_ZH, detailed
from toolguards.integrations.openai_agents import GuardFilter

FIFTH = detailed("lookup", 5, '{"q":"x"}')

Call = tuple[str, dict[str, Any], str]


class ScriptedModel(Model):
    """Answers with the scripted turns in order (a list of function calls, or a final text); keeps each input."""

    def __init__(self, *turns: list[Call] | str) -> None:
        self.turns: Iterator[list[Call] | str] = iter(turns)
        self.inputs: list[list[Any]] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(list(input))
        turn = next(self.turns)
        if isinstance(turn, str):
            text = ResponseOutputText(type="output_text", text=turn, annotations=[])
            output: list[Any] = [ResponseOutputMessage(id="msg", type="message", role="assistant",
                                                       status="completed", content=[text])]
        else:
            output = [ResponseFunctionToolCall(type="function_call", name=name, arguments=json.dumps(args),
                                               call_id=call_id, id=f"fc_{call_id}") for name, args, call_id in turn]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model does not stream")


@function_tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"no match for {q}"


def same(call_id: str) -> list[Call]:
    return [("lookup", {"q": "x"}, call_id)]


@pytest.fixture(autouse=True, scope="module")
def event_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The loop ``Runner.run_sync`` runs on (it keeps the thread's default loop open): closed when the module is done."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()


SIX_SAME = [*(same(f"c{i}") for i in range(1, 7)), "done"]
GUARD = GuardFilter()


def config(guard: GuardFilter = GUARD, base: RunConfig | None = None) -> RunConfig:
    return guard.run_config(base if base is not None else RunConfig(tracing_disabled=True))


def agent(model: ScriptedModel, name: str = "assistant", **kwargs: Any) -> Agent[Any]:
    return Agent(name=name, model=model, tools=kwargs.pop("tools", [lookup]), **kwargs)


def shape(items: list[Any]) -> list[str]:
    """Each input item: Prompt, Call, Output, or Guard for a user message that is a reminder."""
    found = []
    for item in items:
        if item.get("type") == "function_call":
            found.append("Call")
        elif item.get("type") == "function_call_output":
            found.append("Output")
        elif item.get("role") == "user":
            found.append("Guard" if item["content"] in (FIRST, FIFTH, FIRST_ZH) or "\n\n" in item["content"]
                         else "Prompt")
        else:
            found.append(item.get("type", "?"))
    return found


def reminders(items: list[Any]) -> list[str]:
    return [item["content"] for item, kind in zip(items, shape(items), strict=True) if kind == "Guard"]


def test_six_identical_calls_remind_after_the_third_and_the_fifth(caplog):
    model = ScriptedModel(*SIX_SAME)
    with caplog.at_level(logging.DEBUG, logger="toolguards"):
        result = Runner.run_sync(agent(model), "find x", run_config=config())
    assert caplog.records == []
    assert result.final_output == "done"
    last = model.inputs[-1]
    assert shape(last) == ["Prompt"] + ["Call", "Output"] * 3 + ["Guard"] + ["Call", "Output"] * 2 + ["Guard"] + [
        "Call", "Output"]
    assert reminders(last) == [FIRST, FIFTH]
    assert last[6]["call_id"] == "c3"
    assert last[7] == {"role": "user", "content": FIRST}
    # Each model call saw the earlier reminders again, at the same place: the prefix of every input is the last one's.
    for seen in model.inputs:
        assert seen == last[: len(seen)]
    assert [len(reminders(seen)) for seen in model.inputs] == [0, 0, 0, 1, 1, 2, 2]


def test_an_async_run_counts_the_same_way(event_loop):
    model = ScriptedModel(*SIX_SAME)
    result = event_loop.run_until_complete(Runner.run(agent(model), "find x", run_config=config()))
    assert result.final_output == "done"
    assert reminders(model.inputs[-1]) == [FIRST, FIFTH]


def test_a_parallel_step_counts_in_emitted_order_and_adds_one_message():
    parallel = [*(("lookup", {"q": "x"}, f"p{i}") for i in range(2, 6)), ("lookup", {"q": "y"}, "p6")]
    model = ScriptedModel(same("a1"), parallel, "done")
    Runner.run_sync(agent(model), "go", run_config=config())
    assert shape(model.inputs[-1]) == ["Prompt", "Call", "Output"] + ["Call"] * 5 + ["Output"] * 5 + ["Guard"]
    assert reminders(model.inputs[-1]) == [FIRST + "\n\n" + FIFTH]


def test_the_calls_of_a_step_count_in_the_order_the_model_emitted_them():
    # x, x, then [x, y]: in emitted order x is the third; counted y-first it would not be.
    model = ScriptedModel(same("a1"), same("a2"), [("lookup", {"q": "x"}, "a3"), ("lookup", {"q": "y"}, "a4")], "done")
    Runner.run_sync(agent(model), "go", run_config=config())
    assert reminders(model.inputs[-1]) == [FIRST]


def test_a_redelivered_call_id_counts_once(event_loop):
    # The filter is entered twice with the same input (a retried model call, say): counted once, inserted once.
    run = GUARD.run_filter()
    items: list[Any] = [{"role": "user", "content": "go"}]
    for i in (1, 2, 2, 3):
        items += [{"type": "function_call", "name": "lookup", "arguments": '{"q":"x"}', "call_id": f"c{i}"},
                  {"type": "function_call_output", "call_id": f"c{i}", "output": "no match"}]
        data = CallModelData(model_data=ModelInputData(input=list(items), instructions=None),
                             agent=agent(ScriptedModel()), context=None)
        first, again = event_loop.run_until_complete(run(data)), event_loop.run_until_complete(run(data))
        assert first == again
    assert shape(first.input) == ["Prompt"] + ["Call", "Output"] * 4 + ["Guard"]
    assert first.input[-2]["call_id"] == "c3"


def test_each_run_starts_afresh():
    model = ScriptedModel(same("c1"), same("c2"), "first answer", same("c3"), same("c4"), same("c5"), "second answer")
    assistant = agent(model)
    first = Runner.run_sync(assistant, "find x", run_config=config())
    second = Runner.run_sync(assistant, [*first.to_input_list(), {"role": "user", "content": "again"}],
                             run_config=config())
    assert second.final_output == "second answer"
    assert reminders(model.inputs[2]) == []
    # After the third call of this run, not the fifth of the conversation.
    assert shape(model.inputs[-1])[-8:] == ["Prompt"] + ["Call", "Output"] * 3 + ["Guard"]


def test_a_run_config_used_again_starts_afresh_at_the_new_prompt():
    model = ScriptedModel(same("c1"), same("c2"), "first answer", same("c3"), same("c4"), "second answer")
    assistant, reused = agent(model), config()
    first = Runner.run_sync(assistant, "find x", run_config=reused)
    Runner.run_sync(assistant, [*first.to_input_list(), {"role": "user", "content": "again"}], run_config=reused)
    assert reminders(model.inputs[-1]) == []


def test_a_handoff_starts_the_new_agents_own_chains():
    b_model = ScriptedModel(same("b1"), same("b2"), same("b3"), "b done")
    b = agent(b_model, name="B")
    a_model = ScriptedModel(same("a1"), [("transfer_to_b", {}, "h1"), ("lookup", {"q": "x"}, "a2")])
    a = agent(a_model, name="A", handoffs=[b])
    result = Runner.run_sync(a, "find x", run_config=config())
    assert result.final_output == "b done"
    # A's two calls (the second in the turn that handed off) are A's; B's third call is B's third, not the fifth.
    assert [reminders(seen) for seen in b_model.inputs] == [[], [], [], [FIRST]]
    assert b_model.inputs[-1][-2]["call_id"] == "b3"


def test_a_sub_agent_keeps_its_own_chain():
    inner_model = ScriptedModel(same("i1"), same("i2"), same("i3"), "inner done")
    inner = agent(inner_model, name="researcher")
    outer_model = ScriptedModel(same("o1"), same("o2"), [("research", {"input": "find x"}, "d1")], same("o3"),
                                same("o4"), "outer done")
    outer = agent(outer_model, name="lead", tools=[lookup, inner.as_tool("research", "Research a question.")])
    result = Runner.run_sync(outer, "go", run_config=config())
    assert result.final_output == "outer done"
    # The sub-agent's three calls draw its own reminder; the parent's two earlier calls do not add to it.
    assert reminders(inner_model.inputs[-1]) == [FIRST]
    assert shape(inner_model.inputs[-1]) == ["Prompt"] + ["Call", "Output"] * 3 + ["Guard"]
    # The parent's run is broken by `research`: its calls after it do not continue the sub-agent's run either.
    assert reminders(outer_model.inputs[-1]) == []


def test_chinese_templates():
    model = ScriptedModel(*SIX_SAME[:3], "done")
    Runner.run_sync(agent(model), "find x", run_config=config(GuardFilter.from_file(locale="zh")))
    assert reminders(model.inputs[-1]) == [FIRST_ZH]


def test_a_guard_file_of_ones_own(tmp_path):
    (tmp_path / "g.yaml").write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [2]\n",
                                     encoding="utf-8")
    model = ScriptedModel(*SIX_SAME)
    Runner.run_sync(agent(model), "find x", run_config=config(GuardFilter.from_file(tmp_path / "g.yaml")))
    assert shape(model.inputs[-1])[5] == "Guard"
    assert reminders(model.inputs[-1]) == [FIRST]


def test_ones_own_filter_runs_after_the_guard():
    seen: list[list[str]] = []

    async def mine(data: CallModelData[Any]) -> ModelInputData:
        seen.append(shape(data.model_data.input))
        return ModelInputData(input=[*data.model_data.input, {"role": "user", "content": "be brief"}],
                              instructions=data.model_data.instructions)

    model = ScriptedModel(*SIX_SAME[:3], "done")
    Runner.run_sync(agent(model), "find x", run_config=config(base=RunConfig(call_model_input_filter=mine,
                                                                             tracing_disabled=True)))
    assert seen[-1] == ["Prompt"] + ["Call", "Output"] * 3 + ["Guard"]
    assert model.inputs[-1][-1] == {"role": "user", "content": "be brief"}


class BrokenEngine:
    source = "<broken>"

    def pre_step(self, agent: Any, user_prompt: bool = False) -> None:
        raise RuntimeError("pre_step is broken")

    def post_execute(self, event: tg.ToolEvent, next: Any = None) -> Any:
        raise RuntimeError("post_execute is broken")

    def forget(self, agent: Any) -> None:
        pass


def test_a_failing_engine_never_breaks_the_run(caplog):
    model = ScriptedModel(*SIX_SAME)
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        result = Runner.run_sync(agent(model), "find x", run_config=config(GuardFilter(BrokenEngine())))  # type: ignore[arg-type]
    assert result.final_output == "done"
    assert reminders(model.inputs[-1]) == []
    assert [record.getMessage().split(" (")[0] for record in caplog.records] == [
        "toolguards: GuardFilter failed and was skipped"]


def test_a_dropped_run_config_forgets_its_chains():
    forgotten: list[str] = []
    guard = GuardFilter()
    guard.engine.forget = forgotten.append  # type: ignore[method-assign]
    run = config(guard)
    Runner.run_sync(agent(ScriptedModel(same("c1"), "done")), "go", run_config=run)
    key = run.call_model_input_filter.key("assistant")
    del run
    assert forgotten == [key]


@function_tool
def read_page(offset: int) -> str:
    """Read a page of the report."""
    return "Access denied: please enable cookies."


def test_the_function_output_is_the_result_the_guards_compare():
    # new arguments each time and the same answer: the no-progress guard needs the result to see it
    from toolguards import from_mapping

    model = ScriptedModel(*[[("read_page", {"offset": 10 * i}, f"p{i}")] for i in range(3)], "done")
    Runner.run_sync(agent(model, tools=[read_page]), "read the report", run_config=config(GuardFilter(from_mapping({"guards": [{"id": "no-progress-reminder", "config": {"thresholds": [3]}}]}))))
    last = model.inputs[-1]
    assert last[-1]["role"] == "user"
    assert last[-1]["content"].startswith("You have made 3 calls in a row (the latest to `read_page`)")
