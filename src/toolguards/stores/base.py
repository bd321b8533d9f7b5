"""What every state store provides, and what a guard's per-agent state must say of itself to be persisted.

The chain logic lives in the guards as pure functions from an agent's old state to its new one (a ``Step``); a store
only keeps the states and makes each update atomic. A store that outlives the process (SQLite, Redis) writes each
state as JSON under its kind's name and state version, through the kind's ``StateType``: a state written by another
version, or one that fails to decode, is discarded with one logged warning and the agent's chain starts afresh —
never misread, never an exception into the host.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ..warnings_once import warn

__all__ = [
    "Envelopes", "StateStore", "StateType", "Step", "StoreError", "StoreFactory", "discarded_state",
]

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


#: Compact JSON, made once: ``json.dumps`` with any option but the defaults builds a new encoder on every call.
_ENCODE = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode

#: Makes the state store of one guard, given its id.
StoreFactory = Callable[[str], StateStore]


def discarded_state(state: StateType[Any], found: str) -> str:
    """The warning a persistent store logs, once, when it drops a state it must not read."""
    return (f"toolguards: a stored {state.name} state {found} was discarded (this version reads version "
            f"{state.version}); that chain starts afresh")


class Envelopes:
    """How every persistent store writes one guard's states and reads them back: ``{"kind": <kind name>, "version":
    <state version>, "state": <the StateType's JSON form>}``. A value of another kind or version, or one that does not
    decode, reads as None (a fresh chain), with one logged warning per kind of mismatch."""

    def __init__(self, owner: object, state: StateType[Any] | None) -> None:
        self._owner = owner  # named in the error of a store used before the loader bound it
        self.state = state
        self._discarded: set[str] = set()

    def _type(self) -> StateType[Any]:
        if self.state is None:
            raise RuntimeError(f"{self._owner!r} was not bound to a state type (StateStore.bind)")
        return self.state

    def wrap(self, state: Any) -> dict[str, Any]:
        """The envelope of a state, a JSON value."""
        kind = self._type()
        return {"kind": kind.name, "version": kind.version, "state": kind.to_json(state)}

    def dumps(self, state: Any) -> str:
        """The envelope of a state as compact JSON text."""
        return _ENCODE(self.wrap(state))

    def unwrap(self, envelope: Any) -> Any:
        """The state in an envelope, or None for one this version must not read."""
        kind = self._type()
        try:
            if not isinstance(envelope, dict) or envelope.get("kind") != kind.name:
                found = "of another kind"
            elif envelope.get("version") != kind.version:
                found = f"of version {envelope.get('version')!r}"
            else:
                return kind.from_json(envelope["state"])
        except (ValueError, TypeError, KeyError, IndexError):
            found = "that does not decode"
        self._discard(kind, found)
        return None

    def loads(self, text: str | bytes) -> Any:
        """The state in an envelope's JSON text, or None (see ``unwrap``)."""
        try:
            envelope = json.loads(text)
        except ValueError:  # not JSON, or not UTF-8
            self._discard(self._type(), "that does not decode")
            return None
        return self.unwrap(envelope)

    def _discard(self, kind: StateType[Any], found: str) -> None:
        if found not in self._discarded:
            self._discarded.add(found)
            warn("%s", discarded_state(kind, found))
