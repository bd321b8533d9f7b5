"""``cycle-reminder``: remind an agent that goes round a cycle of tool calls (A, B, A, B, … or A, B, C, A, B, C, …).

An alternating loop escapes the exact-repeat guard, since no two consecutive calls are identical. This guard keys calls
exactly as the repeat guard does — (tool name, canonical arguments), with the same include/exclude patterns — and keeps
each agent's last ``maxCycleLength`` tracked calls. A cycle is a sequence of 2 to ``maxCycleLength`` calls repeated
back to back; when it has run a number of times listed in ``repetitions``, the guard adds a reminder that names the
calls of the cycle (``first`` at the first repetition count, ``detailed`` later). Only the shortest cycle is reported,
and a run of identical calls is never a cycle here: that is the repeat guard's business.

Untracked calls neither count nor break a cycle; denied calls count; a re-delivered ``call_id`` counts once; a new user
prompt resets the agent. The guard never blocks.

Options (all optional)::

    maxCycleLength: 4            # the longest cycle looked for, 2 to 8 calls
    repetitions: [3, 5]          # times a cycle has run when a reminder fires; integers >= 2, no duplicates
    include: []                  # tool-name patterns to track (`*` wildcard); empty: every tool
    exclude: []                  # tool-name patterns the chain ignores
    argumentsPreviewChars: 200   # cap, in code points, on each call's arguments quoted in the reminder
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

Invalid (``maxCycleLength`` must be 2 to 8; ``repetitions`` must not be empty)::

    guards:
      - id: cycle-reminder
        config:
          maxCycleLength: 1
          repetitions: []
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..events import ContextEntry
from .base import (
    Call,
    CallIds,
    Effect,
    TemplateSlot,
    notice,
    remember_call_id,
    seen_call_id,
)
from .common import ChainGuard, PlainKind

__all__ = ["KIND", "CycleReminder", "CycleSettings", "cycle_period"]

NAME = "cycle-reminder"
_CALLS = [
    {"tool": "read_file", "arguments": '{"path":"src/app.py"}'},
    {"tool": "run_tests", "arguments": '{"command":"pytest -q"}'},
]
_SAMPLE = {"calls": _CALLS, "length": 2, "count": 3}


@dataclass(frozen=True)
class CycleSettings:
    """The validated options of one cycle-reminder guard, defaults applied."""

    max_cycle_length: int = 4
    repetitions: tuple[int, ...] = (3, 5)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    arguments_preview_chars: int = 200
    templates: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


# A remembered call: (key digest, tool name, arguments preview head, characters cut from it).
_Entry = tuple[int, str, str, int]
# State per agent: (the last tracked calls, oldest first; for each period p = 2…max, how many calls in a row matched
# the call p places before them; recent call ids).
_State = tuple[tuple[_Entry, ...], tuple[int, ...], CallIds]


def cycle_period(digests: Sequence[int]) -> int:
    """The shortest period of ``digests`` (its own length when it has none shorter)."""
    size = len(digests)
    for period in range(1, size):
        if size % period == 0 and all(digests[i] == digests[i - period] for i in range(period, size)):
            return period
    return size


def _advance(
    state: _State | None, entry: _Entry, call_id: str | None, settings: CycleSettings
) -> tuple[_State | None, tuple[int, tuple[_Entry, ...]] | None]:
    """The chain step; (repetitions, the cycle's calls) when a cycle just completed a listed number of runs."""
    longest = settings.max_cycle_length
    history, matched, ids = state if state is not None else ((), (0,) * (longest - 1), None)
    if seen_call_id(ids, call_id):
        return state, None
    digest = entry[0]
    matched = tuple(
        matched[p - 2] + 1 if len(history) >= p and history[-p][0] == digest else 0 for p in range(2, longest + 1)
    )
    history = (*history, entry)[-longest:]
    new_state = (history, matched, remember_call_id(ids, call_id))
    for period in range(2, longest + 1):
        run = matched[period - 2]
        completed = run // period + 1
        if (
            run
            and run % period == 0
            and completed in settings.repetitions
            and cycle_period([e[0] for e in history[-period:]]) == period  # the shortest cycle only
        ):
            return new_state, (completed, history[-period:])
    return new_state, None


class CycleReminder(ChainGuard):
    """One configured cycle-reminder guard."""

    settings: CycleSettings

    def observe(self, call: Call) -> Effect | None:
        """Remember the call; a reminder when the calls just completed a cycle a listed number of times."""
        tool = call.tool
        if not self._tracked(tool):
            return None
        canonical = call.canonical_arguments()
        cap = self.settings.arguments_preview_chars
        entry: _Entry = (self._digest(tool, canonical), tool, canonical[:cap], max(0, len(canonical) - cap))
        call_id = call.event.call_id
        settings = self.settings
        found = self._store.update(call.agent, lambda state: _advance(state, entry, call_id, settings))
        if found is None:
            return None
        count, cycle = found
        length = len(cycle)
        calls = [{"tool": name, "arguments": self._preview(head, omitted)} for _, name, head, omitted in cycle]
        slot = "first" if count == settings.repetitions[0] else "detailed"
        text = self._templates[slot].render(calls=calls, length=length, count=count)
        tools = [c["tool"] for c in calls]
        metadata = {"guard": self.id, "kind": NAME, "tools": tools, "length": length, "count": count, "template": slot}
        return Effect((ContextEntry(text, notice(self.id, f"{' → '.join(tools)} × {count}"), metadata),))

    def _preview(self, head: str, omitted: int) -> str:
        return self._templates["truncated"].render(head=head, omitted=omitted) if omitted else head


class CycleReminderKind(PlainKind):
    """The registry entry for cycle-reminder."""

    name = NAME
    guard = CycleReminder
    config_schema: Mapping[str, Any] | None = None  # in schemas/toolguards.schema.json
    slots: Mapping[str, TemplateSlot] = MappingProxyType(
        {
            "first": TemplateSlot(f"{NAME}/first.j2", _SAMPLE),
            "detailed": TemplateSlot(f"{NAME}/detailed.j2", _SAMPLE),
            "truncated": TemplateSlot(f"{NAME}/truncated.j2", {"head": '{"path":"src/a', "omitted": 9}),
        }
    )

    def parse(self, config: Mapping[str, Any]) -> CycleSettings:
        """Settings from a schema-valid config mapping."""
        defaults = CycleSettings()
        return CycleSettings(
            max_cycle_length=int(config.get("maxCycleLength", defaults.max_cycle_length)),
            repetitions=tuple(sorted(int(n) for n in config.get("repetitions", defaults.repetitions))),
            include=tuple(config.get("include", ())),
            exclude=tuple(config.get("exclude", ())),
            arguments_preview_chars=int(config.get("argumentsPreviewChars", defaults.arguments_preview_chars)),
            templates=MappingProxyType(dict(config.get("templates", {}))),
        )


KIND = CycleReminderKind()
