"""pydantic-ai agents: ``GuardCapability`` counts each finished tool step and adds the reminders as one user message.

Install with ``pip install 'toolguards[pydantic-ai]'`` and give the capability to the agent (or to one run)::

    from pydantic_ai import Agent
    from toolguards.integrations.pydantic_ai import GuardCapability

    agent = Agent(model, tools=tools, capabilities=[GuardCapability()])

How it hooks in, through pydantic-ai's capability API (``AbstractCapability``; ``agent.run``, ``run_sync`` and
``iter`` alike, tested, and ``run_stream``, whose requests go through the same hooks):

- ``wrap_run`` starts the run's chains afresh (a run is one user prompt) and forgets them when the run ends, however
  it ends;
- ``before_model_request`` counts the step that just finished: when the last ``ModelResponse`` of the history has
  tool calls answered by the requests after it (a ``ToolReturnPart``, or a retry prompt for a call that failed or was
  rejected, which counts as a call with an error), each call goes to the engine in the order the model emitted it,
  once per call id, with the answer's text as its result. A call with no answer yet (a deferred tool) is not counted.
  The reminders of the step become ONE ``UserPromptPart``, in a ``ModelRequest`` of its own whose ``metadata``
  carries ``{"toolguards": {"sources": [...], "metadata": [...]}}``, handed to ``ctx.enqueue``: pydantic-ai puts it
  after the tool results, in this request and in the run's message history. Earlier messages are never changed.

An agent is keyed by ``ctx.run_id``: a new run is a new key and starts afresh, and an agent run inside a tool (a
sub-agent, with this capability or another instance of it) has its own run id, so it keeps its own chains. The
chains live in the engine's stores for the length of the run (memory, unless the engine was loaded with another
store). Tested with pydantic-ai-slim 2.58 to 2.68; before 2.58, content enqueued in ``before_model_request`` did
not reach the request being prepared.

The capability never raises into the run: a failure is logged once per kind (through the ``toolguards`` logger) and
the step goes on without a reminder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

try:
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        RetryPromptPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.tools import RunContext
except ImportError as exc:  # pragma: no cover - depends on what is installed
    hint = "GuardCapability needs the pydantic-ai extra: pip install 'toolguards[pydantic-ai]'"
    raise ImportError(f"{hint} ({exc})") from exc

from ..engine import Engine
from ..events import ContextEntry, ToolEvent
from ..guardfile.loader import load, load_default
from ..warnings_once import WarnOnce

__all__ = ["METADATA_KEY", "GuardCapability"]

#: The ``ModelRequest.metadata`` key of the reminders' sources.
METADATA_KEY = "toolguards"

#: An answer to a tool call: its result text, and whether it is an error.
_Answer = tuple[str, bool]


def _arguments(call: ToolCallPart) -> Any:
    """The call's arguments as parsed JSON; the raw text when it is not JSON (the model's malformed arguments)."""
    args = call.args
    if args is None or args == "":
        return {}
    if isinstance(args, str):
        try:
            return json.loads(args)
        except ValueError:
            return args
    return args


def _answers(requests: Sequence[ModelRequest]) -> dict[str, _Answer]:
    """The tool-call answers in these requests, by call id."""
    found: dict[str, _Answer] = {}
    for request in requests:
        for part in request.parts:
            if isinstance(part, ToolReturnPart):
                found[part.tool_call_id] = (part.model_response_str(), part.outcome in ("failed", "retried"))
            elif isinstance(part, RetryPromptPart) and part.tool_name is not None:  # a retried call, in older 2.x
                found[part.tool_call_id] = (part.model_response(), True)
    return found


def _finished_step(messages: Sequence[ModelMessage]) -> tuple[ModelResponse, dict[str, _Answer]] | None:
    """The last model turn and its answers, if the history ends with the requests that answer it."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], ModelResponse):
            break
    else:
        return None
    turn = messages[index]
    after = messages[index + 1 :]
    if not isinstance(turn, ModelResponse) or not after:
        return None
    requests = [message for message in after if isinstance(message, ModelRequest)]
    if any(request.metadata and METADATA_KEY in request.metadata for request in requests):
        return None  # our reminder is there: this step was handled already
    return turn, _answers(requests)


def _reminder(contexts: Sequence[ContextEntry]) -> ModelRequest:
    marks = {
        "sources": [dict(entry.source) for entry in contexts],
        "metadata": [dict(entry.metadata) for entry in contexts],
    }
    return ModelRequest(parts=[UserPromptPart("\n\n".join(entry.text for entry in contexts))],
                        metadata={METADATA_KEY: marks})


@dataclass
class GuardCapability(AbstractCapability[Any]):
    """Runs a toolguards engine inside a pydantic-ai agent: counts tool steps, adds reminders, never raises."""

    #: the guards (default: the shipped repeat-tool-reminder; see ``from_file``)
    engine: Engine = field(default_factory=load_default)
    _warn: WarnOnce = field(default_factory=WarnOnce, init=False, repr=False, compare=False)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str] | None = None, *, locale: str | None = None) -> GuardCapability:
        """The capability for a guard file (default: the shipped one), its templates in ``locale``."""
        return cls(load_default(locale=locale) if path is None else load(path, locale=locale))

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """Not built from agent specs: an engine is not a spec value."""
        return None

    async def wrap_run(self, ctx: RunContext[Any], *, handler: Any) -> Any:
        """Start the run's chains afresh, run it, and forget them however it ends."""
        agent = ctx.run_id
        try:
            self.engine.pre_step(agent, user_prompt=True)
        except Exception as exc:
            self._warn("GuardCapability.wrap_run", exc)
        try:
            return await handler()
        finally:
            try:
                self.engine.forget(agent)
            except Exception as exc:
                self._warn("GuardCapability.wrap_run", exc)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """Count the tool step that just finished; enqueue its reminders as one user message."""
        try:
            reminder = self._count_step(ctx)
            if reminder is not None:
                ctx.enqueue(reminder)
        except Exception as exc:
            self._warn("GuardCapability.before_model_request", exc)
        return request_context

    def _count_step(self, ctx: RunContext[Any]) -> ModelRequest | None:
        step = _finished_step(ctx.messages)
        if step is None:
            return None
        turn, answers = step
        contexts: list[ContextEntry] = []
        for call in turn.parts:
            if not isinstance(call, ToolCallPart):
                continue
            answer = answers.get(call.tool_call_id)
            if answer is None:
                continue  # not run (yet): never counted, as in the reference's post-execute hook
            result, failed = answer
            event = ToolEvent(tool=call.tool_name, arguments=_arguments(call), agent=ctx.run_id,
                              call_id=call.tool_call_id, result=result, error=result if failed else None)
            contexts.extend(self.engine.post_execute(event).additional_contexts)
        return _reminder(contexts) if contexts else None
