"""LangChain v1 agents: ``GuardMiddleware`` counts each tool step and appends the reminders as one user message.

Install with ``pip install 'toolguards[langchain]'`` and pass the middleware to ``create_agent``::

    from langchain.agents import create_agent
    from toolguards.integrations.langchain import GuardMiddleware

    agent = create_agent(model, tools=tools, middleware=[GuardMiddleware()])

How it hooks in (sync and async agents alike):

- ``before_agent`` (once per ``invoke``: a new user prompt) resets the agent's chains;
- ``before_model`` counts the step that just finished: when the last AIMessage's tool calls have been answered by the
  ToolMessages that follow it, each call goes to the engine in the order the model emitted it (not the order the tools
  completed), once per call id, with the ToolMessage's content as its result (and as its error when its status is
  ``error``). The reminders of the step become ONE ``HumanMessage`` appended after the tool results, named
  ``toolguards`` and carrying ``additional_kwargs["toolguards"]`` (the sources and metadata of its reminders);
  existing messages are never changed or reordered, so the model's cached prompt prefix stays valid;
- ``after_agent`` forgets the chains of the finished run (the next ``invoke`` would reset them anyway).

Where the chains live: in the graph state. The middleware declares a private state field, ``toolguards`` (not in the
agent's input or output), holding the agent's state of each guard as JSON, ``{<guard id>: {"kind", "version",
"state"}}`` — the envelope of the ``mapping`` store (``toolguards.stores.mapping``), versioned like every persisted
guard state. The hooks read it from the state and write it back through their return values, so the checkpointer
saves it with the messages at every step: a thread resumed after an interrupt, a crash or a deploy, in another
process or on another worker, with a new middleware, goes on counting where it stopped, and two workers serving one
thread agree. Nothing is kept in process memory. Without a checkpointer the graph still carries the field from step
to step within the ``invoke`` — all a chain needs, since each ``invoke`` starts it afresh. An engine passed in
already built keeps its chains in the stores it was loaded with (memory, unless it was loaded with
``stores="mapping"``, which puts them in the graph state as above).

An agent is keyed by ``runtime.execution_info``: its ``thread_id`` (else the ``run_id`` of the config, else the id of
the first message of the run) plus ``checkpoint_ns`` less its last ``|``-segment, which names the current node and
changes at every step. A sub-agent invoked inside a tool runs its own graph under the tool's namespace, with its own
state, so it keeps its own chains. Tested with langchain 1.2.11–1.5, langgraph 1.1.5–1.2 and langchain-core
1.2.10–1.8.

The middleware never raises into the agent: a failure is logged once per kind (through the ``toolguards`` logger) and
the step goes on without a reminder.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Annotated, Any

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState
    from langchain.agents.middleware.types import PrivateStateAttr
    from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
    from langgraph.runtime import Runtime
    from typing_extensions import NotRequired  # typing has it from Python 3.11 only
except ImportError as exc:  # pragma: no cover - depends on what is installed
    hint = "GuardMiddleware needs the langchain extra: pip install 'toolguards[langchain]'"
    raise ImportError(f"{hint} ({exc})") from exc

from ..engine import Engine
from ..events import ContextEntry, ToolEvent
from ..guardfile.loader import load, load_default
from ..stores.mapping import holding
from ..warnings_once import WarnOnce

__all__ = ["MESSAGE_NAME", "STATE_KEY", "GuardMiddleware", "GuardState", "agent_key"]

#: The ``name`` of the messages the middleware appends, and the ``additional_kwargs`` key of their sources.
MESSAGE_NAME = "toolguards"
#: The private graph-state field that holds the agent's guard states.
STATE_KEY = "toolguards"


class GuardState(AgentState[Any]):
    """The agent state with the guards' per-agent states: ``{<guard id>: {"kind", "version", "state"}}``."""

    toolguards: NotRequired[Annotated[dict[str, Any], PrivateStateAttr]]


def agent_key(runtime: Runtime[Any], messages: Sequence[AnyMessage] = ()) -> str:
    """The key of the agent that runs under ``runtime``: its thread plus its place among nested agents."""
    info = runtime.execution_info
    if info is None:
        raise RuntimeError("the runtime has no execution_info (langgraph < 1.1?)")
    thread = info.thread_id or info.run_id or (messages[0].id if messages else None) or ""
    namespace = info.checkpoint_ns.rpartition("|")[0]
    return f"{thread}|{namespace}" if namespace else str(thread)


def _finished_step(messages: Sequence[AnyMessage]) -> tuple[AIMessage, dict[str, ToolMessage]] | None:
    """The last model turn and its answers, if the messages end with the tool results of that turn."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], AIMessage):
            break
    else:
        return None
    turn = messages[index]
    answers = messages[index + 1 :]
    if not isinstance(turn, AIMessage) or not turn.tool_calls or not answers:
        return None
    if not all(isinstance(answer, ToolMessage) for answer in answers):
        return None  # something came after the results (our own reminder, say): this step was handled already
    return turn, {answer.tool_call_id: answer for answer in answers if isinstance(answer, ToolMessage)}


def _reminder(contexts: Sequence[ContextEntry]) -> HumanMessage:
    marks = {
        "sources": [dict(entry.source) for entry in contexts],
        "metadata": [dict(entry.metadata) for entry in contexts],
    }
    return HumanMessage(
        content="\n\n".join(entry.text for entry in contexts),
        name=MESSAGE_NAME,
        additional_kwargs={MESSAGE_NAME: marks},
    )


class GuardMiddleware(AgentMiddleware[GuardState, Any]):
    """Runs a toolguards engine inside a LangChain agent: counts tool steps, appends reminders, never raises.

    With no ``engine``, the guards of ``path`` (default: the shipped repeat-tool-reminder) are loaded in ``locale``,
    their chains kept in the graph state.
    """

    state_schema = GuardState

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        locale: str | None = None,
    ) -> None:
        super().__init__()
        if engine is not None and (path is not None or locale is not None):
            raise TypeError("GuardMiddleware takes an engine, or a guard file path and locale, not both")
        if engine is None:
            engine = (load_default(locale=locale, stores="mapping") if path is None
                      else load(path, locale=locale, stores="mapping"))
        self.engine = engine
        self._warn = WarnOnce()

    def __repr__(self) -> str:
        return f"GuardMiddleware({self.engine!r})"

    def before_agent(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """A new invoke is a new user prompt: reset the agent's chains."""
        try:
            agent = agent_key(runtime, state["messages"])
            with holding(agent, _held(state)) as held:
                self.engine.pre_step(agent, user_prompt=True)
            return _changed(state, held, {})
        except Exception as exc:
            self._warn("GuardMiddleware.before_agent", exc)
            return None

    def before_model(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Count the tool step that just finished; append its reminders as one user message."""
        try:
            return self._count_step(state, runtime)
        except Exception as exc:
            self._warn("GuardMiddleware.before_model", exc)
            return None

    def after_agent(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The run is over: drop the agent's chains (the next invoke would reset them anyway)."""
        try:
            agent = agent_key(runtime, state["messages"])
            with holding(agent, _held(state)) as held:
                self.engine.forget(agent)
            return _changed(state, held, {})
        except Exception as exc:
            self._warn("GuardMiddleware.after_agent", exc)
            return None

    async def abefore_agent(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """As ``before_agent``: counting is quick and awaits nothing."""
        return self.before_agent(state, runtime)

    async def abefore_model(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """As ``before_model``."""
        return self.before_model(state, runtime)

    async def aafter_agent(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """As ``after_agent``."""
        return self.after_agent(state, runtime)

    def _count_step(self, state: GuardState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        messages = state["messages"]
        step = _finished_step(messages)
        if step is None:
            return None
        turn, answers = step
        agent = agent_key(runtime, messages)
        contexts: list[ContextEntry] = []
        with holding(agent, _held(state)) as held:
            for call in turn.tool_calls:
                answer = answers.get(call["id"] or "")
                if answer is None:
                    continue  # never executed (no result), so never counted, as in the reference's post-execute hook
                error = answer.content if answer.status == "error" else None
                event = ToolEvent(
                    tool=call["name"], arguments=call["args"], agent=agent, call_id=call["id"], result=answer.content,
                    error=None if error is None else error if isinstance(error, str) else str(error),
                )
                contexts.extend(self.engine.post_execute(event).additional_contexts)
        return _changed(state, held, {"messages": [_reminder(contexts)]} if contexts else {})


def _held(state: GuardState) -> dict[str, Any]:
    """A copy of the guard states in the graph state, for the engine to change (the state itself is never mutated)."""
    found = state.get(STATE_KEY)
    if found is None:
        return {}
    if not isinstance(found, dict):
        raise TypeError(f"the graph state's `{STATE_KEY}` is a {type(found).__name__}, not a dict")
    return dict(found)


def _changed(state: GuardState, held: dict[str, Any], update: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's state update: ``update``, and the guard states when the engine changed them."""
    if held != (state.get(STATE_KEY) or {}):
        update[STATE_KEY] = held
    return update or None
