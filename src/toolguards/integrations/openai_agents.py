"""OpenAI Agents SDK: ``GuardFilter`` counts the function calls of each model turn and inserts the reminders as one
user message, through ``RunConfig(call_model_input_filter=...)``.

Install with ``pip install 'toolguards[openai-agents]'`` and give each run a run config from the guard::

    from agents import Runner
    from toolguards.integrations.openai_agents import GuardFilter

    guard = GuardFilter()
    result = await Runner.run(agent, "...", run_config=guard.run_config())      # or Runner.run_sync
    result = await Runner.run(agent, "...", run_config=guard.run_config(my_config))  # keeps my_config's filter

How it hooks in: the SDK calls the run's filter before every model call with the whole input of that call (the run's
input and the items generated since). The filter

- counts the last model turn: when the input ends with function calls and their ``function_call_output`` items, each
  call goes to the engine in the order the model emitted it, once per call id, with its output as the result (other
  tool kinds — hosted, computer, shell — are not counted; a call without an output is not counted);
- inserts the reminders of that step as ONE user message (``{"role": "user", "content": ...}``) right after the
  step's outputs. The SDK does not keep what a filter returns, so on every later call of the run the filter inserts
  each earlier reminder again at its place, after the outputs of the step that drew it (keyed by the step's call
  ids): the model sees the same history each time, and its cached prompt prefix stays valid. Items are never changed
  or reordered;
- hands the result to the filter of the run config it was given, if any (that filter sees the reminders);
- treats an input that ends with a user message as a new prompt: that agent's chains start afresh.

An agent is the run plus the agent's name: each ``run_config()`` is a new run, with new chains. A handoff starts the
new agent's own chains; the turn that handed off is counted for the agent that made it (the agent of the model call
whose input that turn follows). A sub-agent run as a tool (``Agent.as_tool``) shares the parent's run config unless
given its own (openai-agents 0.9 and later; before, pass it ``run_config=guard.run_config()``), and keeps its own
chains by its name. The chains live in the engine's stores (memory, unless the
engine was loaded with another store) until the run config is dropped. With a server-side conversation
(``previous_response_id``, ``conversation_id``) the SDK sends only new items, without the calls, so nothing is
counted. Tested with openai-agents 0.9, 0.10 and 0.24.

The filter never raises into the run: a failure is logged once per kind (through the ``toolguards`` logger) and the
model call goes on with its input unchanged.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import uuid
import weakref
from collections.abc import Sequence
from typing import Any

try:
    from agents import RunConfig
    from agents.run import CallModelData, CallModelInputFilter, ModelInputData  # where every tested version has them
except ImportError as exc:  # pragma: no cover - depends on what is installed
    hint = "GuardFilter needs the openai-agents extra: pip install 'toolguards[openai-agents]'"
    raise ImportError(f"{hint} ({exc})") from exc

from ..canonical import canonicalize
from ..engine import Engine
from ..events import ContextEntry, ToolEvent
from ..guardfile.loader import load, load_default
from ..warnings_once import WarnOnce

__all__ = ["GuardFilter", "RunFilter"]

#: How many recent model calls of a run are remembered to tell which agent made the turn that follows each.
_OWNERS_KEPT = 256


def _field(item: Any, name: str) -> Any:
    """A field of an input item: a TypedDict from the SDK, or a pydantic model a user put in the input."""
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _fingerprint(items: Sequence[Any]) -> tuple[int, str]:
    """What identifies an input by its end: its length and its last item (by call id where it has one)."""
    if not items:
        return 0, ""
    last = items[-1]
    call_id = _field(last, "call_id")
    if isinstance(call_id, str):
        return len(items), call_id
    return len(items), canonicalize(last) if isinstance(last, dict) else repr(last)


def _last_turn(items: Sequence[Any]) -> tuple[int, list[Any], dict[str, Any]] | None:
    """Where the last model turn starts, its function calls in emitted order, and their outputs by call id."""
    end = len(items)
    while end > 0 and _field(items[end - 1], "type") == "function_call_output":
        end -= 1
    if end == len(items):
        return None  # the input does not end with tool outputs: no step has just finished
    outputs = {_field(item, "call_id"): item for item in items[end:]}
    start = end
    while start > 0 and _field(items[start - 1], "role") in (None, "assistant") and (
            _field(items[start - 1], "type") not in ("function_call_output", None)):
        start -= 1  # the turn's items: function calls, reasoning, the assistant's message
    calls = [item for item in items[start:end] if _field(item, "type") == "function_call"]
    return start, calls, outputs


def _arguments(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return text


class RunFilter:
    """The ``call_model_input_filter`` of one run (made by ``GuardFilter.run_filter``)."""

    def __init__(self, guard: GuardFilter, then: CallModelInputFilter | None = None) -> None:
        self.guard = guard
        self.then = then
        self.run = uuid.uuid4().hex
        #: the reminders of the run: the call ids of the step that drew each, and its message
        self.reminders: list[tuple[frozenset[str], dict[str, str]]] = []
        self._owners: dict[tuple[int, str], str] = {}
        keys: set[str] = set()
        self._keys = keys
        weakref.finalize(self, _forget_all, guard.engine, keys)

    def __repr__(self) -> str:
        return f"<RunFilter run={self.run}>"

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """Count the step that just finished, insert every reminder of the run, then run the next filter."""
        model_data = data.model_data
        try:
            model_data = dataclasses.replace(model_data, input=self._filter(list(model_data.input), data.agent.name))
        except Exception as exc:
            self.guard._warn("GuardFilter", exc)
        if self.then is None:
            return model_data
        updated = self.then(dataclasses.replace(data, model_data=model_data))
        return await updated if inspect.isawaitable(updated) else updated

    def key(self, agent_name: str) -> str:
        """The engine's key of an agent of this run."""
        key = f"{self.run}:{agent_name}"
        self._keys.add(key)
        return key

    def _filter(self, items: list[Any], agent_name: str) -> list[Any]:
        engine = self.guard.engine
        if items and _field(items[-1], "role") == "user":
            engine.pre_step(self.key(agent_name), user_prompt=True)
        turn = _last_turn(items)
        if turn is not None:
            start, calls, outputs = turn
            owner = self._owners.get(_fingerprint(items[:start]), agent_name)
            self._count(self.key(owner), calls, outputs)
        self._owners[_fingerprint(items)] = agent_name
        if len(self._owners) > _OWNERS_KEPT:
            del self._owners[next(iter(self._owners))]
        return self._insert(items)

    def _count(self, agent: str, calls: list[Any], outputs: dict[str, Any]) -> None:
        contexts: list[ContextEntry] = []
        answered = []
        for call in calls:
            call_id = _field(call, "call_id")
            output = outputs.get(call_id)
            if output is None:
                continue  # never executed (no output), so never counted, as in the reference's post-execute hook
            answered.append(call_id)
            event = ToolEvent(tool=_field(call, "name"), arguments=_arguments(_field(call, "arguments")), agent=agent,
                              call_id=call_id, result=_field(output, "output"))
            contexts.extend(self.guard.engine.post_execute(event).additional_contexts)
        if contexts:
            message = {"role": "user", "content": "\n\n".join(entry.text for entry in contexts)}
            self.reminders.append((frozenset(answered), message))

    def _insert(self, items: list[Any]) -> list[Any]:
        """The items with each reminder after the last output of its step (where that step is in the input)."""
        places = []
        for call_ids, message in self.reminders:
            at = max((i for i, item in enumerate(items) if _field(item, "type") == "function_call_output"
                      and _field(item, "call_id") in call_ids), default=None)
            if at is not None:
                places.append((at, message))
        for at, message in sorted(places, key=lambda place: place[0], reverse=True):
            if at + 1 >= len(items) or items[at + 1] != message:  # already there: a host kept it
                items.insert(at + 1, message)
        return items


def _forget_all(engine: Engine, keys: set[str]) -> None:
    """The run config is gone: drop its agents' chains."""
    for key in keys:
        engine.forget(key)


class GuardFilter:
    """Runs a toolguards engine inside OpenAI Agents SDK runs; ``run_config()`` gives each run its filter."""

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine if engine is not None else load_default()
        self._warn = WarnOnce()

    def __repr__(self) -> str:
        return f"GuardFilter({self.engine!r})"

    @classmethod
    def from_file(cls, path: str | os.PathLike[str] | None = None, *, locale: str | None = None) -> GuardFilter:
        """The guard of a guard file (default: the shipped one), its templates in ``locale``."""
        return cls(load_default(locale=locale) if path is None else load(path, locale=locale))

    def run_filter(self, then: CallModelInputFilter | None = None) -> RunFilter:
        """The filter of a new run; ``then`` (a filter of one's own) runs on its result."""
        return RunFilter(self, then)

    def run_config(self, config: RunConfig | None = None) -> RunConfig:
        """``config`` (default: a new ``RunConfig``) for a new run, its own input filter running after the guard's."""
        base = config if config is not None else RunConfig()
        return dataclasses.replace(base, call_model_input_filter=self.run_filter(base.call_model_input_filter))
