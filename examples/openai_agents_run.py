"""An OpenAI Agents SDK run with the toolguards filter, runnable offline: a scripted model repeats the same search.

    pip install 'toolguards[openai-agents]' && python examples/openai_agents_run.py

With a real model, leave out `model=` (the SDK's default OpenAI model) or pass a model name instead.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents import Agent, ModelResponse, RunConfig, Runner, Usage, function_tool
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from toolguards.integrations.openai_agents import GuardFilter


class LoopingModel(Model):
    """Stands in for a real model: searches for the same thing three times, then gives up; prints what it sees."""

    def __init__(self) -> None:
        self.turn = 0

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.turn += 1
        if self.turn <= 3:
            call = ResponseFunctionToolCall(type="function_call", name="search", call_id=f"call_{self.turn}",
                                            arguments=json.dumps({"query": "retry policy"}))
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        for item in input:  # the last model call sees the whole run, the reminder included
            text = item.get("content") or item.get("arguments") or item.get("output")
            print(f"{item.get('type') or item['role']:>20} {text}")
        text = ResponseOutputText(type="output_text", text="The docs do not say.", annotations=[])
        answer = ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed", content=[text])
        return ModelResponse(output=[answer], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this example does not stream")


@function_tool
def search(query: str) -> str:
    """Search the docs."""
    return "no results"


async def main() -> None:
    guard = GuardFilter()
    agent = Agent(name="assistant", model=LoopingModel(), tools=[search])
    config = guard.run_config(RunConfig(tracing_disabled=True))
    result = await Runner.run(agent, "Find the retry policy", run_config=config)
    print(f"{'answer':>20} {result.final_output}")


if __name__ == "__main__":
    asyncio.run(main())
