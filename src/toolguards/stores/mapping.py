"""``mapping``: an agent's guard states in a JSON mapping that the host keeps and hands in around each call.

For hosts that already persist an agent's state themselves — a LangGraph checkpoint, a session record — so that the
chains travel with it (to another process, another worker, a resumed thread) and nothing stays in this process:

- the host holds one agent's states while it calls the engine for that agent: ``with holding(agent, states):``;
  ``states`` is a plain dict, changed in place, that the host saves afterwards;
- its layout is ``{<guard id>: {"kind": <kind name>, "version": <state version>, "state": <its JSON form>}}``, the same
  envelope the SQLite store writes, through each kind's ``StateType``: an entry of another kind or version, or one that
  fails to decode, is discarded with one logged warning and that chain starts afresh;
- a call for another agent than the held one, or for any agent while nothing is held, raises ``LookupError``, which
  the engine logs once and treats as a call with no agent (the states of one agent are never written into another's);
- ``stable_digests`` is True: the states are read back in other processes.

Usage::

    engine = toolguards.load(path, stores="mapping")
    states = record.get("toolguards", {})        # whatever the host saved last time
    with holding(agent_id, states):
        decision = engine.post_execute(event)
    record["toolguards"] = states
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from .base import Envelopes, StateType, Step

__all__ = ["MappingStore", "from_url", "holding"]

R = TypeVar("R")
M = TypeVar("M", bound=MutableMapping[str, Any])


#: The agent whose states the current context holds, and those states.
_HELD: ContextVar[tuple[Any, MutableMapping[str, Any]] | None] = ContextVar("toolguards_held_states", default=None)


@contextmanager
def holding(agent: Any, states: M) -> Iterator[M]:
    """Hand ``states`` (one agent's, by guard id) to the mapping stores for the calls made inside the block."""
    token = _HELD.set((agent, states))
    try:
        yield states
    finally:
        _HELD.reset(token)


class MappingStore:
    """A ``StateStore`` over one guard's entry in the states the host holds (see ``holding``)."""

    stable_digests = True

    def __init__(self, guard: str, state: StateType[Any] | None = None) -> None:
        self.guard = guard
        self.state = state
        self._envelopes = Envelopes(self, state)

    def __repr__(self) -> str:
        return f"<MappingStore guard={self.guard!r}>"

    def bind(self, state: StateType[Any]) -> MappingStore:
        """The same entry, read and written as states of this type."""
        return MappingStore(self.guard, state)

    def _held(self, agent: Any) -> MutableMapping[str, Any]:
        held = _HELD.get()
        if held is None:
            raise LookupError(f"{self!r}: no agent's states are held (call the engine inside `holding(agent, states)`)")
        holder, states = held
        if holder != agent:
            raise LookupError(f"{self!r}: the held states are {holder!r}'s, not {agent!r}'s")
        return states

    def update(self, agent: Any, step: Step[R]) -> R:
        """Run ``step`` on the held agent's state and write the new one back into the held mapping."""
        states = self._held(agent)
        entry = states.get(self.guard)
        new_state, result = step(None if entry is None else self._envelopes.unwrap(entry))
        if new_state is None:
            states.pop(self.guard, None)
        else:
            states[self.guard] = self._envelopes.wrap(new_state)
        return result

    def reset(self, agent: Any) -> None:
        """Drop the held agent's state."""
        self._held(agent).pop(self.guard, None)

    forget = reset


def from_url(url: str) -> Callable[[str], MappingStore]:
    """``mapping`` (or ``mapping://``): a store per guard over the states held around each call."""
    if url not in ("mapping", "mapping://"):
        raise ValueError(f"the mapping store takes no location: {url!r} (write `mapping`)")
    return MappingStore
