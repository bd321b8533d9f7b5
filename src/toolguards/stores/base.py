"""What every state store provides, and what a guard's per-agent state must say of itself to be persisted.

The chain logic lives in the guards as pure functions from an agent's old state to its new one (a ``Step``); a store
only keeps the states and makes each update atomic. A store that outlives the process (SQLite, Redis) writes each
state as JSON under its kind's name and state version, through the kind's ``StateType``: a state written by another
version, or one that fails to decode, is discarded with one logged warning and the agent's chain starts afresh —
never misread, never an exception into the host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

__all__ = ["StateStore", "StateType", "Step", "StoreError", "StoreFactory", "discarded_state"]

R = TypeVar("R")
S = TypeVar("S")

#: A guard's chain step: the agent's current state (None: none yet) → (its new state or None, the step's result).
Step = Callable[[Any], tuple[Any, R]]


class StoreError(Exception):
    """A store could not read or write a state (its server is unreachable, say); the message names no secret.

    The engine treats it like any guard failure (the guard adds nothing to that call); a service counts it apart.
    """


class StateType(Protocol[S]):
    """A kind's per-agent state as it crosses into a persistent store: a name, a version, and its JSON form."""

    #: the kind's name; a persisted state of another kind is never read as this one
    name: str
    #: raised whenever the JSON form changes: a persisted state of another version is discarded, not misread
    version: int

    def to_json(self, state: S) -> Any:
        """The state as a JSON value (dicts with string keys, lists, strings, numbers, booleans, None)."""
        ...

    def from_json(self, data: Any) -> S:
        """The state back from ``to_json``'s value; raises ValueError (or TypeError) for anything else."""
        ...


class StateStore(Protocol):
    """Where one guard keeps its per-agent state."""

    #: True when digests must be stable across processes (a persistent store); in memory, Python's hash suffices.
    stable_digests: bool

    def bind(self, state: StateType[Any]) -> StateStore:
        """This store, for a guard whose states have this type (a persistent store encodes and versions with it)."""
        ...

    def update(self, agent: Any, step: Step[R]) -> R:
        """Atomically replace the agent's state by ``step(state)[0]`` (None: no state) and return ``step(state)[1]``."""
        ...

    def reset(self, agent: Any) -> None:
        """Drop the agent's state (a new user prompt)."""
        ...

    def forget(self, agent: Any) -> None:
        """Drop the agent's state (the host disposed of the agent)."""
        ...


#: Makes the state store of one guard, given its id.
StoreFactory = Callable[[str], StateStore]


def discarded_state(state: StateType[Any], found: str) -> str:
    """The warning a persistent store logs, once, when it drops a state it must not read."""
    return (f"toolguards: a stored {state.name} state {found} was discarded (this version reads version "
            f"{state.version}); that chain starts afresh")
