"""``cycle-reminder``: remind an agent that goes round a cycle of tool calls (A, B, A, B, … or A, B, C, A, B, C, …).

An alternating loop escapes the exact-repeat guard, since no two consecutive calls are identical. This guard keys calls
exactly as the repeat guard does — (tool name, canonical arguments), with the same include/exclude patterns and
``ignoreArguments`` paths left out of the key (docs/volatile.md) — and keeps
each agent's last ``maxCycleLength`` tracked calls. A cycle is a sequence of 2 to ``maxCycleLength`` calls repeated
back to back; when it has run a number of times listed in ``repetitions``, the guard adds a reminder that names the
calls of the cycle (``first`` at the first repetition count, ``detailed`` later). Only the shortest cycle is reported,
and a run of identical calls is never a cycle here: that is the repeat guard's business.

Untracked calls neither count nor break a cycle; denied calls count; a re-delivered ``call_id`` counts once; a new user
prompt resets the agent. The guard never blocks.

Options (all optional, shown with their defaults)::

    maxCycleLength: 4            # the longest cycle looked for, 2 to 8 calls
    repetitions: [3, 5]          # times a cycle has run when a reminder fires; integers >= 2, no duplicates
    include: []                  # tool-name patterns to track (`*` wildcard); empty: every tool
    exclude: []                  # tool-name patterns the chain ignores
    argumentsPreviewChars: 200   # cap, in code points, on each call's arguments quoted in the reminder
    ignoreArguments: []          # argument paths left out of the key (`task_progress`, `*.requestId`); the
                                 # reminder still quotes the full arguments
    templates:                   # file names under templates/<locale>/
      first: cycle-reminder/first.j2          # variables: calls (each with tool, arguments), length, count
      detailed: cycle-reminder/detailed.j2    # the same variables
      truncated: cycle-reminder/truncated.j2  # variables: head, omitted

Valid::

    guards:
      - id: cycle-reminder
        config:
          maxCycleLength: 3
          exclude: [todo_write]
          ignoreArguments: [task_progress]

Invalid::

    guards:
      - id: cycle-reminder
        config:
          maxCycleLength: 1
          repetitions: []
      - id: cycles
        kind: cycle-reminder
        config:
          ignoreArguments: ['options.\\id']

Diagnostics (the file named ``g.yaml``)::

    g.yaml:4:23: guards[0].config.maxCycleLength: invalid maxCycleLength 1 — must be an integer from 2 to 8
    g.yaml:5:20: guards[0].config.repetitions: `repetitions` must not be empty
    g.yaml:9:25: guards[1].config.ignoreArguments[0]: invalid path `options.\\id`: unknown escape `\\i` at character 9
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
from ..volatile import NO_PATHS, ArgumentPaths, key_of
from .fragments import (
    ignore_arguments_schema,
    integers_schema,
    path_problems,
    preview_chars_schema,
    templates_schema,
    tool_patterns_schema,
)

if TYPE_CHECKING:
    from jinja2 import Template

__all__ = ["KIND", "CycleReminder", "CycleSettings", "CycleState", "Remembered", "cycle_period"]

NAME = "cycle-reminder"
_CALLS = [
    {"tool": "read_file", "arguments": '{"path":"src/app.py"}'},
    {"tool": "run_tests", "arguments": '{"command":"pytest -q"}'},
]
_SAMPLE = {"calls": _CALLS, "length": 2, "count": 3}


@frozen
class CycleSettings:
    """The validated options of one cycle-reminder guard, defaults applied."""

    max_cycle_length: int = 4
    repetitions: tuple[int, ...] = (3, 5)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    arguments_preview_chars: int = 200
    ignore_arguments: ArgumentPaths = NO_PATHS
    templates: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@frozen
class CycleFacts(Reminder):
    """A cycle-reminder's facts: the tools of the cycle in order and its length (``tool`` is the call that closed
    it, ``count`` the times the cycle has run)."""

    tools: tuple[str, ...] = ()
    length: int = 0

    def metadata(self) -> dict[str, Any]:
        """Guard, kind, the cycle's tools and length, the count and the template."""
        return {"guard": self.guard, "kind": self.kind, "tools": list(self.tools), "length": self.length,
                "count": self.count, "template": self.template}


class Remembered(NamedTuple):
    """A remembered call: its key's digest, its tool, the head of its arguments preview, characters cut from it."""

    digest: int
    tool: str
    head: str
    omitted: int


class CycleState(NamedTuple):
    """An agent's last tracked calls (oldest first), for each period p = 2…max how many calls in a row matched the
    call p places before them, and the recent call ids."""

    history: tuple[Remembered, ...]
    matched: tuple[int, ...]
    call_ids: CallIds


class _CycleStateType:
    """The persisted form: ``{"history": [[digest, tool, head, omitted]...], "matched": [...], "callIds": [...]}``."""

    name = NAME
    version = 1

    def to_json(self, state: CycleState) -> dict[str, Any]:
        return {
            "history": [list(entry) for entry in state.history],
            "matched": list(state.matched),
            "callIds": None if state.call_ids is None else list(state.call_ids),
        }

    def from_json(self, data: Any) -> CycleState:
        if not isinstance(data, dict) or set(data) != {"history", "matched", "callIds"}:
            raise ValueError("not a cycle-reminder state")
        history, matched = data["history"], data["matched"]
        if not isinstance(history, list) or not isinstance(matched, list):
            raise ValueError("a cycle-reminder state needs lists `history` and `matched`")
        entries = []
        for entry in history:
            if not (isinstance(entry, list) and len(entry) == 4 and type(entry[0]) is int
                    and isinstance(entry[1], str) and isinstance(entry[2], str) and type(entry[3]) is int):
                raise ValueError("a remembered call is [digest, tool, head, omitted]")
            entries.append(Remembered(*entry))
        if not all(type(n) is int and n >= 0 for n in matched):
            raise ValueError("`matched` holds counts")
        return CycleState(tuple(entries), tuple(matched), call_ids_from_json(data["callIds"]))


def cycle_period(digests: Sequence[int]) -> int:
    """The shortest period of ``digests`` (its own length when it has none shorter)."""
    size = len(digests)
    for period in range(1, size):
        if size % period == 0 and all(digests[i] == digests[i - period] for i in range(period, size)):
            return period
    return size


def _advance(
    state: CycleState | None, entry: Remembered, call_id: str | None, settings: CycleSettings
) -> tuple[CycleState | None, tuple[int, tuple[Remembered, ...]] | None]:
    """The chain step; (repetitions, the cycle's calls) when a cycle just completed a listed number of runs."""
    longest = settings.max_cycle_length
    if state is None or len(state.matched) != longest - 1:
        history: tuple[Remembered, ...] = ()
        matched: tuple[int, ...] = (0,) * (longest - 1)
        ids: CallIds = None
    else:
        history, matched, ids = state
    if seen_call_id(ids, call_id):
        return state, None
    digest = entry.digest
    matched = tuple(
        matched[p - 2] + 1 if len(history) >= p and history[-p].digest == digest else 0 for p in range(2, longest + 1)
    )
    history = (*history, entry)[-longest:]
    new_state = CycleState(history, matched, remember_call_id(ids, call_id))
    for period in range(2, longest + 1):
        run = matched[period - 2]
        completed = run // period + 1
        if (
            run
            and run % period == 0
            and completed in settings.repetitions
            and cycle_period([e.digest for e in history[-period:]]) == period  # the shortest cycle only
        ):
            return new_state, (completed, history[-period:])
    return new_state, None


class CycleReminder(ChainGuard):
    """One configured cycle-reminder guard."""

    settings: CycleSettings

    def __init__(
        self, guard_id: str, settings: CycleSettings, templates: Mapping[str, Template], store: StateStore
    ) -> None:
        super().__init__(guard_id, settings, templates, store)
        self._key = key_of(settings.ignore_arguments)

    def observe(self, call: Call) -> Effect | None:
        """Remember the call; a reminder when the calls just completed a cycle a listed number of times."""
        tool = call.tool
        if not self._tracked(tool):
            return None
        key = self._key(call)
        canonical = call.canonical_arguments()  # the preview quotes the full arguments
        cap = self.settings.arguments_preview_chars
        entry = Remembered(self._digest(*key), tool, canonical[:cap], max(0, len(canonical) - cap))
        call_id = call.event.call_id
        settings = self.settings
        found = self._store.update(call.agent, lambda state: _advance(state, entry, call_id, settings))
        if found is None:
            return None
        count, cycle = found
        length = len(cycle)
        calls = [{"tool": e.tool, "arguments": self._preview(e.head, e.omitted)} for e in cycle]
        slot = "first" if count == settings.repetitions[0] else "detailed"
        text = self._templates[slot].render(calls=calls, length=length, count=count)
        tools = tuple(e.tool for e in cycle)
        facts = CycleFacts(self.id, NAME, tool, count, slot, f"{' → '.join(tools)} × {count}", tools=tools,
                           length=length)
        return Effect((ContextEntry.of(facts, text),))

    def _preview(self, head: str, omitted: int) -> str:
        return self._templates["truncated"].render(head=head, omitted=omitted) if omitted else head


_DEFAULTS = CycleSettings()
CONFIG_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "maxCycleLength": {
            "description": "The longest cycle looked for, in calls (2 to 8).",
            "type": "integer",
            "minimum": 2,
            "maximum": 8,
            "default": _DEFAULTS.max_cycle_length,
            "x-toolguards-message": "invalid maxCycleLength {value} — must be an integer from 2 to 8",
        },
        "repetitions": integers_schema("repetitions", "repetition", _DEFAULTS.repetitions,
                                       "How many times a cycle has run when a reminder fires; normalized ascending."),
        "include": tool_patterns_schema("Tool-name patterns to track; empty: every tool."),
        "exclude": tool_patterns_schema("Tool-name patterns the chain ignores."),
        "argumentsPreviewChars": preview_chars_schema(_DEFAULTS.arguments_preview_chars),
        "ignoreArguments": ignore_arguments_schema(),
        "templates": templates_schema({slot: f"{NAME}/{slot}.j2" for slot in ("first", "detailed", "truncated")}),
    },
}


class CycleReminderKind(PlainKind):
    """The registry entry for cycle-reminder."""

    name = NAME
    guard = CycleReminder
    config_schema = CONFIG_SCHEMA
    state: StateType[Any] = _CycleStateType()
    slots: Mapping[str, TemplateSlot] = MappingProxyType(
        {
            "first": TemplateSlot(f"{NAME}/first.j2", _SAMPLE),
            "detailed": TemplateSlot(f"{NAME}/detailed.j2", _SAMPLE),
            "truncated": TemplateSlot(f"{NAME}/truncated.j2", {"head": '{"path":"src/a', "omitted": 9}),
        }
    )

    def parse(self, config: Mapping[str, Any]) -> CycleSettings:
        """Settings from a schema-valid config mapping."""
        return CycleSettings(
            max_cycle_length=int(config.get("maxCycleLength", _DEFAULTS.max_cycle_length)),
            repetitions=tuple(sorted(int(n) for n in config.get("repetitions", _DEFAULTS.repetitions))),
            include=tuple(config.get("include", ())),
            exclude=tuple(config.get("exclude", ())),
            arguments_preview_chars=int(config.get("argumentsPreviewChars", _DEFAULTS.arguments_preview_chars)),
            ignore_arguments=ArgumentPaths(tuple(config.get("ignoreArguments", ()))),
            templates=MappingProxyType(dict(config.get("templates", {}))),
        )

    def problems(self, settings: CycleSettings) -> Sequence[tuple[tuple[str | int, ...], str]]:
        """Every argument path must be valid."""
        return path_problems(settings.ignore_arguments)


KIND = CycleReminderKind()
