"""``memory``: the default store — per-agent states in this process's memory, thread-safe, one store per guard.

States are kept as the guards make them (never encoded), and digests need not be stable across processes. A host that
runs a new process per tool call (a command hook) or many replicas uses a persistent store instead (``sqlite``,
``redis``), with the same guards.

Agent keys in memory:

- an agent object that supports weak references is keyed by identity and held weakly, like the reference's
  ``WeakMap``: dropping the agent drops its state, and the table never keeps an agent alive;
- any other hashable key (a string id, an int, a tuple) is keyed by value, removed by ``forget()``, and bounded: past
  ``max_keyed_agents`` (default 10,000) the least recently used one is evicted first;
- an unhashable key that cannot be weakly referenced cannot be keyed at all: ``update`` raises ``TypeError``, which the
  engine logs once and treats as a call with no agent.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from .base import StateType, Step

__all__ = ["DEFAULT_MAX_KEYED_AGENTS", "MemoryStore", "from_url"]

S = TypeVar("S")
R = TypeVar("R")

DEFAULT_MAX_KEYED_AGENTS = 10_000


class _WeakSlot(weakref.ref):  # type: ignore[type-arg]
    """A weak reference to the agent that also carries its state: one object per tracked agent."""

    __slots__ = ("key", "state")

    def __new__(cls, agent: Any, callback: Callable[[Any], None], key: int) -> _WeakSlot:
        return super().__new__(cls, agent, callback)

    def __init__(self, agent: Any, callback: Callable[[Any], None], key: int) -> None:
        super().__init__(agent, callback)  # type: ignore[call-arg]  # typeshed omits weakref.ref.__init__
        self.key = key
        self.state: Any = None


class MemoryStore(Generic[S]):
    """In-memory per-agent state; weak for agent objects, LRU-bounded for keys such as string ids."""

    stable_digests = False

    def __init__(self, max_keyed_agents: int = DEFAULT_MAX_KEYED_AGENTS) -> None:
        if max_keyed_agents < 1:
            raise ValueError("max_keyed_agents must be >= 1")
        self.max_keyed_agents = max_keyed_agents
        self._lock = threading.Lock()
        self._acquire, self._release = self._lock.acquire, self._lock.release
        self._weak: dict[int, _WeakSlot] = {}
        self._keyed: dict[Hashable, Any] = {}
        table = self._weak

        def dropped(slot: Any) -> None:
            # Runs when an agent dies, possibly inside another update of this thread: no lock, one atomic dict op.
            key = slot.key
            if table.get(key) is slot:
                table.pop(key, None)

        self._dropped = dropped

    def __len__(self) -> int:
        return len(self._weak) + len(self._keyed)

    def bind(self, state: StateType[Any]) -> MemoryStore[S]:
        """Itself: states in memory are kept as they are, whatever their type."""
        return self

    def update(self, agent: Any, step: Step[R]) -> R:
        """Run ``step`` on the agent's state under the store's lock."""
        if type(agent).__weakrefoffset__:
            return self._update_weak(agent, step)
        keyed = self._keyed
        # acquire/release rather than `with`: half the cost, and this runs on every call.
        self._acquire()
        try:
            state = keyed.get(agent)  # an unhashable agent raises TypeError here, before any state changes
            new_state, result = step(state)
            if state is not None:
                del keyed[agent]
            if new_state is not None:
                keyed[agent] = new_state  # re-inserted last: dict order is the LRU order
                if len(keyed) > self.max_keyed_agents:
                    del keyed[next(iter(keyed))]
            return result
        finally:
            self._release()

    def _update_weak(self, agent: Any, step: Step[R]) -> R:
        key = id(agent)
        self._acquire()
        try:
            slot = self._weak.get(key)
            if slot is not None and slot() is not agent:
                slot = None  # cannot happen while callbacks run; kept so a stale slot never leaks state
            new_state, result = step(None if slot is None else slot.state)
            if new_state is None:
                if slot is not None:
                    self._weak.pop(key, None)
            else:
                if slot is None:
                    slot = _WeakSlot(agent, self._dropped, key)
                    self._weak[key] = slot
                slot.state = new_state
            return result
        finally:
            self._release()

    def reset(self, agent: Any) -> None:
        """Drop the agent's state."""
        with self._lock:
            if type(agent).__weakrefoffset__:
                slot = self._weak.get(id(agent))
                if slot is not None and slot() is agent:
                    del self._weak[id(agent)]
            else:
                with contextlib.suppress(TypeError):  # an unhashable agent never had state
                    self._keyed.pop(agent, None)

    forget = reset


def from_url(url: str) -> Callable[[str], MemoryStore[Any]]:
    """``memory`` (or ``memory://``): a fresh in-memory store for each guard."""
    if url not in ("memory", "memory://"):
        raise ValueError(f"the memory store takes no location: {url!r} (write `memory`)")
    return lambda _guard_id: MemoryStore()
