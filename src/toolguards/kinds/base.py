"""What every guard kind provides, and what a guard sees of a call."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from jinja2 import Template

from ..canonical import canonicalize
from ..events import ContextEntry, ToolCall
from ..store import StateStore

__all__ = [
    "CALL_ID_WINDOW",
    "Call",
    "Effect",
    "Guard",
    "GuardKind",
    "TemplateSlot",
    "TemplateUse",
    "digest_function",
    "notice",
    "remember_call_id",
    "seen_call_id",
]

#: How many recent call ids per agent a guard remembers to count a re-delivered call once.
CALL_ID_WINDOW = 64


class Call:
    """A tool event as guards see it: the tool name as text, and canonical arguments computed once for all guards."""

    __slots__ = ("_canonical", "event", "tool")

    def __init__(self, event: ToolCall) -> None:
        self.event = event
        self.tool = event.tool if type(event.tool) is str else str(event.tool)
        self._canonical: str | None = None

    @property
    def agent(self) -> Any:
        """The agent key (never None here: the engine skips calls without an agent)."""
        return self.event.agent

    def canonical_arguments(self) -> str:
        """The arguments' canonical text (byte-identical to the reference's key-sorted JSON.stringify)."""
        if self._canonical is None:
            self._canonical = canonicalize(self.event.arguments)
        return self._canonical


@dataclass(frozen=True)
class Effect:
    """What one guard adds to the decision: contexts to prepend and, only where configured, a block."""

    contexts: tuple[ContextEntry, ...] = ()
    block_feedback: str | None = None


@runtime_checkable
class Guard(Protocol):
    """A configured guard: observes each call of an agent and keeps per-agent state in its store."""

    id: str

    def observe(self, call: Call) -> Effect | None:
        """Count the call; return what to add to the decision, if anything."""
        ...

    def reset(self, agent: Any) -> None:
        """A new user prompt: start the agent's chain afresh."""
        ...

    def forget(self, agent: Any) -> None:
        """The host disposed of the agent."""
        ...


@dataclass(frozen=True)
class TemplateSlot:
    """A kind of template a guard kind renders: its default file name and sample variables to check it at load."""

    default: str
    sample: Mapping[str, Any]


@dataclass(frozen=True)
class TemplateUse:
    """One template a configured guard renders: the guard finds it by ``key``; ``slot`` names its TemplateSlot."""

    key: str
    slot: str
    name: str
    #: where in the guard's ``config`` the name was given (None: the slot's default)
    configured_at: tuple[str | int, ...] | None = None


@runtime_checkable
class GuardKind(Protocol):
    """A kind of guard, registered by name (built in, or through the ``toolguards.kinds`` entry-point group)."""

    name: str
    #: every kind of template the kind can render (``first``, ``detailed``, …), with defaults and samples
    slots: Mapping[str, TemplateSlot]
    #: JSON Schema of the ``config`` mapping; built-in kinds keep theirs in schemas/toolguards.schema.json
    config_schema: Mapping[str, Any] | None

    def parse(self, config: Mapping[str, Any]) -> Any:
        """Turn a schema-valid ``config`` mapping into the kind's frozen settings (defaults applied)."""
        ...

    def problems(self, settings: Any) -> Sequence[tuple[tuple[str | int, ...], str]]:
        """What the schema cannot check (one option against another): (path inside ``config``, message) pairs."""
        ...

    def templates(self, settings: Any) -> Sequence[TemplateUse]:
        """The templates a guard with these settings renders."""
        ...

    def create(self, guard_id: str, settings: Any, templates: Mapping[str, Template], store: StateStore) -> Guard:
        """A guard with its checked templates (by TemplateUse key) and its state store."""
        ...


CallIds = tuple[str, ...] | None


def seen_call_id(ids: CallIds, call_id: str | None) -> bool:
    """Whether this call id was delivered before (a host may deliver a call twice; it counts once)."""
    return call_id is not None and ids is not None and call_id in ids


def remember_call_id(ids: CallIds, call_id: str | None) -> CallIds:
    """The window of recent call ids with ``call_id`` added (the last CALL_ID_WINDOW; None until ids are used)."""
    if call_id is None:
        return ids
    return (*ids[1 - CALL_ID_WINDOW :], call_id) if ids else (call_id,)


def notice(guard_id: str, summary: str) -> dict[str, str]:
    """The source of a guard's reminder, the same shape for every kind."""
    return {"kind": "plugin", "plugin": guard_id, "form": "notice", "summary": summary}


def _memory_digest(*parts: str) -> int:
    # Python's own keyed 64-bit string hash: for an advisory nudge in one process, a false match has odds of 2**-64.
    return hash(parts)


def _stable_digest(*parts: str) -> int:
    digest = hashlib.blake2b(digest_size=8)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return int.from_bytes(digest.digest(), "big", signed=True)


def digest_function(store: StateStore) -> Any:
    """How a guard should reduce key text to the int kept in state: stable across processes when the store persists."""
    return _stable_digest if store.stable_digests else _memory_digest
