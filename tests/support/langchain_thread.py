"""One LangChain agent thread on a SQLite checkpointer, for the resume tests: the test process and the processes it
starts build the same agent from here.

    python tests/support/langchain_thread.py DB STEPS    # run a new thread "t" for STEPS tool steps, then exit

Each model turn asks for `lookup(q="x")` with call ids c1, c2, …; the agent stops before each tool step
(``interrupt_before=["tools"]``) so that a step can be run by another process or another middleware.
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver

from toolguards.integrations.langchain import GuardMiddleware

CALLS = 6
THREAD = {"configurable": {"thread_id": "t"}}
PROMPT = {"messages": [HumanMessage("find x", id="prompt")]}


class ScriptedModel(GenericFakeChatModel):
    """Answers with the scripted messages in turn; binding tools changes nothing."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


@tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"no match for {q}"


def script(start: int = 1) -> list[AIMessage]:
    """The model's turns from the one that makes call ``start`` on: CALLS identical calls, then an answer."""
    calls = [AIMessage("", id=f"m{i}", tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": f"c{i}"}])
             for i in range(start, CALLS + 1)]
    return [*calls, AIMessage("done", id="answer")]


def agent(checkpointer: Any, model: ScriptedModel, middleware: GuardMiddleware | None = None,
          interrupt: bool = True) -> Any:
    return create_agent(model, tools=[lookup], middleware=[middleware or GuardMiddleware()],
                        checkpointer=checkpointer, interrupt_before=["tools"] if interrupt else None)


def saver(path: str) -> SqliteSaver:
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))


def main(path: str, steps: int) -> None:
    """Start thread "t" and run ``steps`` tool steps; the next tool step is pending when this returns."""
    graph = agent(saver(path), ScriptedModel(messages=iter(script())))
    graph.invoke(PROMPT, THREAD)
    for _ in range(steps):
        graph.invoke(None, THREAD)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
