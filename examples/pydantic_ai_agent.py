"""A pydantic-ai agent with the toolguards capability, runnable offline: a FunctionModel repeats the same search.

    pip install 'toolguards[pydantic-ai]' && python examples/pydantic_ai_agent.py

With a real model, pass e.g. "openai:gpt-4.1" (or any model that supports tools) to Agent instead.
"""

from __future__ import annotations

import asyncio

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolguards.integrations.pydantic_ai import GuardCapability


def looping_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Stands in for a real model: searches for the same thing three times, then gives up."""
    searches = sum(isinstance(part, ToolCallPart) for message in messages for part in message.parts)
    if searches < 3:
        return ModelResponse(parts=[ToolCallPart("search", {"query": "retry policy"}, tool_call_id=f"call_{searches}")])
    return ModelResponse(parts=[TextPart("The docs do not say.")])


agent = Agent(FunctionModel(looping_model), capabilities=[GuardCapability()])


@agent.tool_plain
def search(query: str) -> str:
    """Search the docs."""
    return "no results"


async def main() -> None:
    result = await agent.run("Find the retry policy")
    for message in result.all_messages():
        guard = "toolguards" if message.kind == "request" and message.metadata else ""
        for part in message.parts:
            text = part.args if isinstance(part, ToolCallPart) else part.content
            print(f"{part.part_kind:>12} {guard:<10} {text}")


if __name__ == "__main__":
    asyncio.run(main())
