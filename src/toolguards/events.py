"""The values a host and the guards exchange: a tool event in, a post-tool decision out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol

__all__ = ["ContextEntry", "PostToolDecision", "ToolCall", "ToolEvent"]

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


@dataclass(frozen=True)
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


@dataclass(frozen=True, eq=True)
class ContextEntry:
    """Model-visible text a host appends after the step's tool results, with where it came from."""

    text: str
    source: Mapping[str, Any]
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", MappingProxyType(dict(self.source)))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    __hash__ = None  # type: ignore[assignment]  # the mappings inside are not hashable

    def to_json(self) -> dict[str, Any]:
        """A plain-dict copy, ready for json.dumps."""
        return {"text": self.text, "source": dict(self.source), "metadata": dict(self.metadata)}


@dataclass(frozen=True)
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
