"""The values a host and the guards exchange: a tool event in, a post-tool decision out.

They are frozen dataclasses to every reader (``dataclasses.fields``, ``replace`` and ``asdict`` take them), made with
``toolguards.values.frozen``: a hook process that builds them never imports ``dataclasses``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, Protocol

from .values import field, frozen

__all__ = ["OUTCOMES", "ContextEntry", "OutcomeKind", "PostToolDecision", "Reminder", "ReminderOutcome", "ToolCall",
           "ToolEvent"]


class ToolCall(Protocol):
    """What the engine reads of an event: ToolEvent, or any object with these attributes (replay's records)."""

    @property
    def tool(self) -> str: ...
    @property
    def arguments(self) -> Any: ...
    @property
    def agent(self) -> Any: ...
    @property
    def denied(self) -> bool: ...
    @property
    def call_id(self) -> str | None: ...
    @property
    def result(self) -> Any: ...
    @property
    def error(self) -> str | None: ...


@frozen
class ToolEvent:
    """One executed (or denied) tool call, as the host saw it after execution.

    ``arguments`` is the parsed argument value (or the raw string when the model's JSON was malformed); ``agent`` is the
    live agent object or a string id (None: a call with no agent, which guards ignore); ``call_id`` lets a guard count
    a call once even when a host delivers it twice; ``result`` and ``error`` are the tool's outcome where known.
    """

    tool: str
    arguments: Any = None
    agent: Any = None
    denied: bool = False
    call_id: str | None = None
    result: Any = None
    error: str | None = None


@frozen
class Reminder:
    """The facts of one reminder a guard made: which guard, of which kind, about which tool, at which count.

    Every context a guard adds carries one (``ContextEntry.reminder``); the ``source`` and ``metadata`` mappings that
    hosts see are derived from it. A kind that has more to say subclasses it and extends ``metadata()``.
    """

    guard: str
    kind: str
    tool: str
    count: int
    #: the template slot that rendered the text (``first``, ``detailed``...)
    template: str
    #: a short label for people, e.g. ``grep × 3``
    summary: str

    def source(self) -> dict[str, Any]:
        """Where the text comes from, the same shape for every kind (the reference's plugin source, plus a summary)."""
        return {"kind": "plugin", "plugin": self.guard, "form": "notice", "summary": self.summary}

    def metadata(self) -> dict[str, Any]:
        """The facts as a JSON-ready mapping, in a fixed key order."""
        return {"guard": self.guard, "kind": self.kind, "tool": self.tool, "count": self.count,
                "template": self.template}


#: What an agent did after a reminder: its next tracked call was ``changed`` (another call: the run ended) or
#: ``repeated`` (the identical call again), or the run ``ended`` with no further tracked call (a new user prompt, the
#: agent forgotten, the session over).
OutcomeKind = Literal["changed", "repeated", "ended"]
OUTCOMES: tuple[OutcomeKind, ...] = ("changed", "repeated", "ended")


@frozen
class ReminderOutcome:
    """What followed one reminder, known once the run it belongs to has ended (``toolguards.outcomes``).

    ``followed`` counts the identical calls that came after the reminder before the run ended (0 unless
    ``repeated``); ``delivered`` is False for a reminder a guard in shadow withheld; ``agent`` is the agent's key
    where it is a string (None for a live agent object).
    """

    reminder: Reminder
    outcome: OutcomeKind
    followed: int
    delivered: bool
    agent: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The outcome as a JSON-ready mapping, in a fixed key order (one line of an outcome log)."""
        return {**self.reminder.metadata(), "outcome": self.outcome, "followed": self.followed,
                "delivered": self.delivered, "agent": self.agent}


@frozen
class ContextEntry:
    """Model-visible text a host appends after the step's tool results, with where it came from.

    ``reminder`` holds the typed facts when a guard made the entry (None for a host's own entries); ``source`` and
    ``metadata`` are the JSON-ready mappings hosts read, and for a guard's entry they are derived from ``reminder``.
    """

    text: str
    source: Mapping[str, Any]
    metadata: Mapping[str, Any] = field(default_factory=dict)
    reminder: Reminder | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", MappingProxyType(dict(self.source)))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    @classmethod
    def of(cls, reminder: Reminder, text: str) -> ContextEntry:
        """A guard's context: its text, with the source and metadata derived from its facts."""
        return cls(text, reminder.source(), reminder.metadata(), reminder)

    __hash__ = None  # type: ignore[assignment]  # the mappings inside are not hashable

    def to_json(self) -> dict[str, Any]:
        """A plain-dict copy, ready for json.dumps."""
        return {"text": self.text, "source": dict(self.source), "metadata": dict(self.metadata)}


@frozen
class PostToolDecision:
    """What the post-execute chain decided: accept (the default) or block, plus contexts for the model.

    ``feedback`` is a block's explanation; ``value`` and ``content`` are a downstream replacement of the tool's result,
    which guards pass through untouched.
    """

    kind: Literal["accept", "block"] = "accept"
    additional_contexts: tuple[ContextEntry, ...] = ()
    feedback: str | None = None
    value: Any = None
    content: Any = None

    def __post_init__(self) -> None:
        if self.kind not in ("accept", "block"):
            raise ValueError(f"PostToolDecision.kind must be 'accept' or 'block', not {self.kind!r}")
        if not isinstance(self.additional_contexts, tuple):
            object.__setattr__(self, "additional_contexts", tuple(self.additional_contexts))
