"""``repeated-error-reminder``: remind an agent whose tool keeps failing with the same error, whatever the arguments.

A loop the exact-match guard cannot see: the model changes an argument a little on every retry, and the tool fails
the same way each time. Each agent's tracked calls form a chain keyed by (tool name, error), where the error is the
first 200 characters of ``ToolEvent.error`` after collapsing whitespace (runs of spaces, tabs and line breaks become
one space; ends trimmed). A failing call with the same key as the agent's previous tracked call adds one to the run;
any other tracked call — a success, another tool, another error — ends it (a failure starts a new run at 1). When the
run's length equals a threshold, the guard adds a reminder: ``first`` at the first threshold, ``detailed`` later.

An error that carries a volatile part (a request id, a timestamp, a temporary path) would start a new run on every
retry: ``resultNormalizers`` rewrite the error text before it is keyed (docs/volatile.md), while the reminder quotes
the latest error as it came (whitespace collapsed, cut to 200 characters).

Untracked calls (include/exclude) neither count nor reset; denied calls count; a re-delivered ``call_id`` counts once;
a new user prompt resets the agent. The guard never blocks.

Options (all optional, shown with their defaults)::

    thresholds: [3, 5]           # integers >= 2, no duplicates, not empty; normalized ascending
    include: []                  # tool-name patterns to track (`*` wildcard); empty: every tool
    exclude: []                  # tool-name patterns the chain ignores
    resultNormalizers: []        # [{pattern, replacement}] RE2 patterns replaced, in order, in the error text
                                 # before it is keyed
    templates:                   # file names under templates/<locale>/
      first: repeated-error-reminder/first.j2        # variables: tool, count, error
      detailed: repeated-error-reminder/detailed.j2  # variables: tool, count, error

Valid::

    guards:
      - id: repeated-error-reminder
        config:
          thresholds: [3, 5]
          resultNormalizers:
            - pattern: 'request [0-9a-f-]{36}'
              replacement: 'request <id>'

Invalid::

    guards:
      - id: repeated-error-reminder
        config:
          thresholds: [1]
          exclude: update_reservation
      - id: errors
        kind: repeated-error-reminder
        config:
          resultNormalizers: [{pattern: 'id=(?=x)'}]

Diagnostics (the file named ``g.yaml``)::

    g.yaml:4:20: guards[0].config.thresholds[0]: invalid threshold 1 — every threshold must be an integer >= 2
    g.yaml:5:16: guards[0].config.exclude: must be a list, not the string "update_reservation"
    g.yaml:9:37: guards[1].config.resultNormalizers[0].pattern: not an RE2 pattern: invalid perl operator: (?=
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from ..events import ContextEntry, Reminder
from ..guard import (
    Call,
    CallIds,
    ChainGuard,
    Effect,
    PlainKind,
    TemplateSlot,
    call_ids_from_json,
    remember_call_id,
    seen_call_id,
)
from ..stores.base import StateStore, StateType
from ..values import field, frozen
from ..volatile import NO_NORMALIZERS, Normalizers, error_text_of, normalizers_of
from .fragments import (
    normalizer_problems,
    result_normalizers_schema,
    templates_schema,
    thresholds_schema,
    tool_patterns_schema,
)

if TYPE_CHECKING:
    from jinja2 import Template

__all__ = ["ERROR_KEY_CHARS", "KIND", "ErrorFacts", "ErrorRun", "ErrorSettings", "RepeatedErrorReminder", "error_key"]

NAME = "repeated-error-reminder"
#: How much of an error message keys the chain.
ERROR_KEY_CHARS = 200
_SAMPLE = {"tool": "update_reservation", "count": 3, "error": "Error: flight HAT030 not available on date 2024-05-13"}


def error_key(error: str) -> str:
    """The error as the chain compares it: whitespace collapsed, then the first 200 characters."""
    return " ".join(error.split())[:ERROR_KEY_CHARS]


@frozen
class ErrorSettings:
    """The validated options of one repeated-error-reminder guard, defaults applied."""

    thresholds: tuple[int, ...] = (3, 5)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: applied to the error text before it is keyed (``resultNormalizers``)
    result_normalizers: Normalizers = NO_NORMALIZERS
    templates: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@frozen
class ErrorFacts(Reminder):
    """A repeated-error-reminder's facts, with the error as the chain compares it."""

    error: str = ""

    def metadata(self) -> dict[str, Any]:
        """The common facts and the error."""
        return {**super().metadata(), "error": self.error}


class ErrorRun(NamedTuple):
    """An agent's chain: the digest of the last failure's key (None after a success), the run's length, and the
    recent call ids."""

    digest: int | None
    length: int
    call_ids: CallIds


class _ErrorStateType:
    """The persisted form: ``{"digest": int | null, "count": int, "callIds": [...] | null}``."""

    name = NAME
    version = 1

    def to_json(self, state: ErrorRun) -> dict[str, Any]:
        ids = None if state.call_ids is None else list(state.call_ids)
        return {"digest": state.digest, "count": state.length, "callIds": ids}

    def from_json(self, data: Any) -> ErrorRun:
        if not isinstance(data, dict) or set(data) != {"digest", "count", "callIds"}:
            raise ValueError("not a repeated-error-reminder state")
        digest, count = data["digest"], data["count"]
        if not ((digest is None or type(digest) is int) and type(count) is int and count >= 0):
            raise ValueError("a repeated-error-reminder state needs an integer `count`")
        return ErrorRun(digest, count, call_ids_from_json(data["callIds"]))


def _advance(state: ErrorRun | None, digest: int | None, call_id: str | None) -> tuple[ErrorRun | None, int | None]:
    """The chain step; ``digest`` None is a success. Returns the failure run's length (None: not a counted failure)."""
    last, count, ids = state if state is not None else (None, 0, None)
    if seen_call_id(ids, call_id):
        return state, None
    count = 0 if digest is None else count + 1 if last == digest else 1
    return ErrorRun(digest, count, remember_call_id(ids, call_id)), count or None


class RepeatedErrorReminder(ChainGuard):
    """One configured repeated-error-reminder guard."""

    settings: ErrorSettings

    def __init__(
        self, guard_id: str, settings: ErrorSettings, templates: Mapping[str, Template], store: StateStore
    ) -> None:
        super().__init__(guard_id, settings, templates, store)
        self._compared = error_text_of(settings.result_normalizers)

    def observe(self, call: Call) -> Effect | None:
        """Count a failure (or end the run on anything else); a reminder when the run's length is a threshold."""
        tool = call.tool
        if not self._tracked(tool):
            return None
        error = call.event.error
        key = error_key(self._compared(error)) if isinstance(error, str) else None
        digest = self._digest(tool, key) if key is not None else None
        call_id = call.event.call_id
        count = self._store.update(call.agent, lambda state: _advance(state, digest, call_id))
        if count is None or key is None or count not in self.settings.thresholds:
            return None
        slot = "first" if count == self.settings.thresholds[0] else "detailed"
        shown = error_key(error) if isinstance(error, str) else key  # the error as it came, not as it was keyed
        text = self._templates[slot].render(tool=tool, count=count, error=shown)
        facts = ErrorFacts(self.id, NAME, tool, count, slot, f"{tool} failed × {count}", error=shown)
        return Effect((ContextEntry.of(facts, text),))


_DEFAULTS = ErrorSettings()
CONFIG_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "thresholds": thresholds_schema(_DEFAULTS.thresholds),
        "include": tool_patterns_schema("Tool-name patterns to track; empty: every tool."),
        "exclude": tool_patterns_schema("Tool-name patterns the chain ignores."),
        "resultNormalizers": result_normalizers_schema("error text"),
        "templates": templates_schema({slot: f"{NAME}/{slot}.j2" for slot in ("first", "detailed")}),
    },
}


class RepeatedErrorReminderKind(PlainKind):
    """The registry entry for repeated-error-reminder."""

    name = NAME
    guard = RepeatedErrorReminder
    config_schema = CONFIG_SCHEMA
    state: StateType[Any] = _ErrorStateType()
    slots: Mapping[str, TemplateSlot] = MappingProxyType(
        {"first": TemplateSlot(f"{NAME}/first.j2", _SAMPLE), "detailed": TemplateSlot(f"{NAME}/detailed.j2", _SAMPLE)}
    )

    def parse(self, config: Mapping[str, Any]) -> ErrorSettings:
        """Settings from a schema-valid config mapping."""
        return ErrorSettings(
            thresholds=tuple(sorted(int(t) for t in config.get("thresholds", _DEFAULTS.thresholds))),
            include=tuple(config.get("include", ())),
            exclude=tuple(config.get("exclude", ())),
            result_normalizers=normalizers_of(config.get("resultNormalizers", ())),
            templates=MappingProxyType(dict(config.get("templates", {}))),
        )

    def problems(self, settings: ErrorSettings) -> Sequence[tuple[tuple[str | int, ...], str]]:
        """Every normalizer's pattern must be one RE2 accepts."""
        return normalizer_problems(settings.result_normalizers)


KIND = RepeatedErrorReminderKind()
