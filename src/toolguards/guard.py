"""What every guard kind provides and what a guard sees of a call: the interfaces the engine, the loader, the stores
and every kind depend on, and the parts the built-in kinds share.

A kind (``GuardKind``) is registered by name in ``toolguards.kinds``; it parses its ``config`` mapping into frozen
settings, names the templates it renders and its per-agent ``StateType``, and creates ``Guard`` objects. The engine
hands each guard a ``Call`` per post-execute event and folds the ``Effect``s it returns into the host's decision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .canonical import canonicalize
from .events import ContextEntry, ToolCall
from .patterns import ToolFilter
from .stores.base import StateStore, StateType
from .values import frozen

if TYPE_CHECKING:
    from jinja2 import Template  # guards only render templates: Jinja2 is imported where one is compiled

try:  # hashlib's own blake2b, without importing hashlib, which loads OpenSSL: milliseconds in a one-event hook process
    from _blake2 import blake2b
except ImportError:  # an interpreter built without the module: hashlib finds blake2b elsewhere
    from hashlib import blake2b

__all__ = [
    "CALL_ID_WINDOW",
    "Call",
    "CallIds",
    "ChainGuard",
    "Digest",
    "Effect",
    "Guard",
    "GuardKind",
    "PlainKind",
    "RemindsOfOneCall",
    "TemplateSlot",
    "TemplateUse",
    "call_ids_from_json",
    "call_key",
    "configured_templates",
    "digest_function",
    "remember_call_id",
    "seen_call_id",
]

#: How many recent call ids per agent a guard remembers to count a re-delivered call once.
CALL_ID_WINDOW = 64


class Call:
    """A tool event as guards see it: the tool name as text, and the canonical forms of its arguments and result,
    each computed at most once for all guards (and for replay's statistics)."""

    __slots__ = ("_canonical", "_result", "agent", "event", "tool")

    def __init__(self, event: ToolCall) -> None:
        self.event = event
        self.tool = event.tool if type(event.tool) is str else str(event.tool)
        #: the agent key (never None for a guard: the engine skips calls without an agent); an attribute rather than
        #: a property over ``event``, as the engine and every guard read it on each call
        self.agent: Any = event.agent
        self._canonical: str | None = None
        self._result: str | None = None

    def canonical_arguments(self) -> str:
        """The arguments' canonical text (byte-identical to the reference's key-sorted JSON.stringify)."""
        if self._canonical is None:
            self._canonical = canonicalize(self.event.arguments)
        return self._canonical

    def canonical_result(self) -> str | None:
        """The result's canonical text; None when the call has no result."""
        if self._result is None and self.event.result is not None:
            self._result = canonicalize(self.event.result)
        return self._result


def call_key(call: Call) -> tuple[str, str]:
    """What makes two calls identical: the tool name and the canonical arguments (the reference's chain key)."""
    return call.tool, call.canonical_arguments()


@frozen
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


@runtime_checkable
class RemindsOfOneCall(Protocol):
    """A guard whose reminders are about one repeated call (``repeat-tool-reminder``): the engine can follow each to
    its outcome (``toolguards.outcomes``)."""

    id: str

    def tracks(self, tool: str) -> bool:
        """Whether the guard's chain counts calls of this tool (untracked calls are transparent to it)."""
        ...


@frozen
class TemplateSlot:
    """A kind of template a guard kind renders: its default file name and sample variables to check it at load."""

    default: str
    sample: Mapping[str, Any]


@frozen
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
    #: JSON Schema of the ``config`` mapping (the top-level schema is built from these)
    config_schema: Mapping[str, Any]
    #: the per-agent state of its guards, as persistent stores write it
    state: StateType[Any]

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
        """A guard with its checked templates (by TemplateUse key) and its state store (bound to ``state``)."""
        ...


CallIds = tuple[str, ...] | None


def seen_call_id(ids: CallIds, call_id: str | None) -> bool:
    """Whether this call id was delivered before (a host may deliver a call twice; it counts once)."""
    return call_id is not None and ids is not None and call_id in ids


def remember_call_id(ids: CallIds, call_id: str | None) -> CallIds:
    """The window of recent call ids with ``call_id`` added (the last CALL_ID_WINDOW; None until ids are used)."""
    if call_id is None:
        return ids
    # A concatenation rather than (*ids[...], call_id), which builds a list first: this runs on every call with an id.
    return ids[1 - CALL_ID_WINDOW :] + (call_id,) if ids else (call_id,)  # noqa: RUF005


def call_ids_from_json(data: Any) -> CallIds:
    """A call-id window back from its JSON form (a list of strings, or null); ValueError for anything else."""
    if data is None:
        return None
    if not isinstance(data, list) or len(data) > CALL_ID_WINDOW or not all(isinstance(i, str) for i in data):
        raise ValueError("call ids must be a list of at most 64 strings")
    return tuple(data) or None


#: Reduces key text to the int kept in state.
Digest = Callable[..., int]


def _memory_digest(*parts: str) -> int:
    # Python's own keyed 64-bit string hash: for an advisory nudge in one process, a false match has odds of 2**-64.
    return hash(parts)


def _stable_digest(*parts: str) -> int:
    digest = blake2b(digest_size=8)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return int.from_bytes(digest.digest(), "big", signed=True)


def digest_function(store: StateStore) -> Digest:
    """How a guard should reduce key text to the int kept in state: stable across processes when the store persists."""
    return _stable_digest if store.stable_digests else _memory_digest


def _stable_key_digest(key: tuple[str, ...]) -> int:
    return _stable_digest(*key)


class ChainGuard:
    """A guard that keeps one chain per agent in its store, over the calls its include/exclude patterns track."""

    def __init__(self, guard_id: str, settings: Any, templates: Mapping[str, Template], store: StateStore) -> None:
        self.id = guard_id
        self.settings = settings
        self._templates = templates
        self._store = store
        self._tracked = ToolFilter(settings.include, settings.exclude)
        self._digest = digest_function(store)
        #: ``_digest(*key)`` of a call key in one call: in memory, ``hash(key)`` is it (no frame of ours per call)
        self._key_digest: Callable[[tuple[str, ...]], int] = (
            _stable_key_digest if store.stable_digests else hash)

    def reset(self, agent: Any) -> None:
        """A new user prompt: start the agent's chain afresh."""
        self._store.reset(agent)

    def forget(self, agent: Any) -> None:
        """The host disposed of the agent: drop its chain."""
        self._store.forget(agent)


def configured_templates(
    slots: Mapping[str, TemplateSlot], configured: Mapping[str, str], names: Sequence[str]
) -> list[TemplateUse]:
    """The uses of ``names`` slots: the file name from the config's ``templates`` mapping, else the slot's default."""
    return [
        TemplateUse(slot, slot, configured.get(slot, slots[slot].default),
                    ("templates", slot) if slot in configured else None)
        for slot in names
    ]


class PlainKind:
    """A kind whose guard renders each of its slots once, has no cross-option checks, and is built from settings."""

    guard: type[ChainGuard]
    slots: Mapping[str, TemplateSlot]

    def problems(self, settings: Any) -> Sequence[tuple[tuple[str | int, ...], str]]:
        """Nothing beyond the schema."""
        return ()

    def templates(self, settings: Any) -> Sequence[TemplateUse]:
        """Every slot, as configured or by default."""
        return configured_templates(self.slots, settings.templates, list(self.slots))

    def create(self, guard_id: str, settings: Any, templates: Mapping[str, Template], store: StateStore) -> Any:
        """A guard instance."""
        return self.guard(guard_id, settings, templates, store)
