"""Counts for the replay summary: calls, agents, reminders per threshold, and runs of identical calls per tool."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ..canonical import canonicalize
from .runner import Outcome

__all__ = ["ToolStats", "Totals", "advice"]

# A tool with this many runs of at least the first threshold looks like polling rather than a loop.
POLLING_RUNS = 3


@dataclass
class ToolStats:
    """What one tool did across the replayed sessions."""

    calls: int = 0
    #: run length → number of runs of identical consecutive calls (per agent) of that length
    runs: Counter[int] = field(default_factory=Counter)
    #: (guard id, count) → reminders fired at that count
    reminders: Counter[tuple[str, int]] = field(default_factory=Counter)


@dataclass
class Totals:
    """Running totals of a replay; feed every outcome, then ``close()`` before reading the runs."""

    calls: int = 0
    skipped: int = 0
    sessions: int = 0
    agents: set[str] = field(default_factory=set)
    tools: defaultdict[str, ToolStats] = field(default_factory=lambda: defaultdict(ToolStats))
    #: agent → (tool, canonical arguments hash, run length) of its current run
    _open: dict[str | None, tuple[str, int, int]] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        """Count one tool call and its reminders."""
        record = outcome.record
        self.calls += 1
        if record.agent is not None:
            self.agents.add(record.agent)
        stats = self.tools[record.tool]
        stats.calls += 1
        for entry in outcome.contexts:
            count = entry.metadata.get("count")
            guard = str(entry.source.get("plugin", "?"))
            stats.reminders[(guard, count if isinstance(count, int) else 0)] += 1
        key = hash(canonicalize(record.arguments))
        current = self._open.get(record.agent)
        if current is not None and current[0] == record.tool and current[1] == key:
            self._open[record.agent] = (record.tool, key, current[2] + 1)
        else:
            if current is not None:
                self.tools[current[0]].runs[current[2]] += 1
            self._open[record.agent] = (record.tool, key, 1)

    def end_session(self) -> None:
        """Close the open runs of the session just replayed."""
        for tool, _key, length in self._open.values():
            self.tools[tool].runs[length] += 1
        self._open.clear()
        self.sessions += 1

    def reminder_count(self) -> int:
        """Reminders fired in all."""
        return sum(sum(stats.reminders.values()) for stats in self.tools.values())


def advice(tool: str, stats: ToolStats, first_threshold: int) -> str | None:
    """Plain advice where the data shows a tool that is probably polled, not looped on."""
    long_runs = sum(n for length, n in stats.runs.items() if length >= first_threshold)
    if long_runs >= POLLING_RUNS:
        return (
            f"`{tool}` had {long_runs} runs of {first_threshold} or more identical calls: it is probably polled; "
            f"exclude it (exclude: [{tool}]) or raise its thresholds"
        )
    return None
