"""What every guard kind provides, and what a guard sees of a call."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from jinja2 import Template

from ..canonical import canonicalize
from ..events import ContextEntry, ToolEvent
from ..store import StateStore

__all__ = ["Call", "Effect", "Guard", "GuardKind", "TemplateSlot", "digest_function"]


class Call:
    """A tool event as guards see it: the tool name as text, and canonical arguments computed once for all guards."""

    __slots__ = ("_canonical", "event", "tool")

    def __init__(self, event: ToolEvent) -> None:
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
    """A template a kind renders: its default file name and sample variables used to check it at load."""

    default: str
    sample: Mapping[str, Any]


@runtime_checkable
class GuardKind(Protocol):
    """A kind of guard, registered by name (built in, or through the ``toolguards.kinds`` entry-point group)."""

    name: str
    #: template slots by name (``first``, ``detailed``, …)
    slots: Mapping[str, TemplateSlot]
    #: JSON Schema of the ``config`` mapping; built-in kinds keep theirs in schemas/toolguards.schema.json
    config_schema: Mapping[str, Any] | None

    def parse(self, config: Mapping[str, Any]) -> Any:
        """Turn a schema-valid ``config`` mapping into the kind's frozen settings (defaults applied)."""
        ...

    def template_names(self, settings: Any) -> Mapping[str, str]:
        """The template file name for each slot under these settings."""
        ...

    def create(self, guard_id: str, settings: Any, templates: Mapping[str, Template], store: StateStore) -> Guard:
        """A guard with its checked templates and its state store."""
        ...


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
