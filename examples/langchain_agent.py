"""A LangChain agent with the toolguards middleware, runnable offline: a scripted model repeats the same search.

    pip install 'toolguards[langchain]' && python examples/langchain_agent.py

With a real model, pass e.g. "openai:gpt-4.1" (or any chat model that supports tools) to create_agent instead.
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from toolguards.integrations.langchain import GuardMiddleware


@tool
def search(query: str) -> str:
    """Search the docs."""
    return "no results"


class ScriptedModel(GenericFakeChatModel):
    """Stands in for a real chat model: replays the messages it was given."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


def main() -> None:
    looping = [
        AIMessage("", tool_calls=[{"name": "search", "args": {"query": "retry policy"}, "id": f"call_{i}"}])
        for i in range(3)
    ]
    model = ScriptedModel(messages=iter([*looping, AIMessage("The docs do not say.")]))
    agent = create_agent(model, tools=[search], middleware=[GuardMiddleware()], checkpointer=InMemorySaver())
    result = agent.invoke(
        {"messages": [{"role": "user", "content": "Find the retry policy"}]},
        {"configurable": {"thread_id": "demo"}},
    )
    for message in result["messages"]:
        print(f"{message.type:>5} {message.name or '':<10} {message.content or message.tool_calls}")


if __name__ == "__main__":
    main()
