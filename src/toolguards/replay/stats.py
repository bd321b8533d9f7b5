"""Counts for the replay summary: calls, agents, reminders per threshold, and runs of identical calls per tool (the
runs the guard's chain counts, followed by ``chains.Chains`` and counted here as each one ends)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .chains import Run
from .feed import Outcome

__all__ = ["ToolStats", "Totals", "Unread", "advice"]

#: How a reminder without its facts (a plugin kind that made a context without ``reminder``) is counted.
UNLABELLED = ("(a context without reminder facts)", 0)

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
    #: run length → runs of that length during which the call's result changed at least once
    changing_runs: Counter[int] = field(default_factory=Counter)


@dataclass
class Unread:
    """Records of one type that an importer does not read: how many, and where the first one was."""

    count: int
    path: str
    line: int


@dataclass
class Totals:
    """Running totals of a replay; feed every outcome, each finished run (``run``), and ``end_session()`` after each
    input. Totals of separate inputs (replayed in other processes) add up with ``merge``."""

    calls: int = 0
    #: malformed lines passed over (--skip-bad-lines)
    skipped: int = 0
    sessions: int = 0
    #: inputs that could not be read to their end
    failed: int = 0
    #: the agents of the input being replayed (``end_session`` counts them)
    agents: set[str] = field(default_factory=set)
    #: agents counted per input: the same name in two inputs is two agents, as each input is its own session
    agent_count: int = 0
    tools: defaultdict[str, ToolStats] = field(default_factory=lambda: defaultdict(ToolStats))
    #: (format, type label) → the records of that type that the importer does not read
    unread: dict[tuple[str, str], Unread] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        """Count one tool call and its reminders."""
        record, decisions, _call = outcome
        agent = record.agent
        self.calls += 1
        if agent is not None:
            self.agents.add(agent)
        stats = self.tools[record.tool]
        stats.calls += 1
        for entry in decisions[0].additional_contexts:
            facts = entry.reminder  # None only for a plugin kind that made a context without its facts
            stats.reminders[(facts.guard, facts.count) if facts is not None else UNLABELLED] += 1

    def run(self, run: Run) -> None:
        """Count a finished run of identical calls."""
        stats = self.tools[run.tool]
        stats.runs[run.length] += 1
        if run.changed:
            stats.changing_runs[run.length] += 1

    def not_read(self, fmt: str, label: str, path: str, line: int) -> None:
        """Count a record of ``fmt`` that its importer does not read."""
        found = self.unread.get((fmt, label))
        if found is None:
            self.unread[(fmt, label)] = Unread(1, path, line)
        else:
            found.count += 1

    def merge(self, other: Totals) -> None:
        """Add the totals of other inputs (whose sessions have ended) to these."""
        self.calls += other.calls
        self.skipped += other.skipped
        self.sessions += other.sessions
        self.failed += other.failed
        self.agent_count += other.agent_count
        for tool, theirs in other.tools.items():
            ours = self.tools[tool]
            ours.calls += theirs.calls
            ours.runs.update(theirs.runs)
            ours.reminders.update(theirs.reminders)
            ours.changing_runs.update(theirs.changing_runs)
        for key, unread in other.unread.items():
            if key in self.unread:
                self.unread[key].count += unread.count
            else:
                self.unread[key] = Unread(unread.count, unread.path, unread.line)

    def end_session(self) -> None:
        """The input just replayed is over: count its agents (forget them in the engines first)."""
        self.sessions += 1
        self.agent_count += len(self.agents)
        self.agents = set()

    def reminder_count(self) -> int:
        """Reminders fired in all."""
        return sum(sum(stats.reminders.values()) for stats in self.tools.values())


def advice(tool: str, stats: ToolStats, first_threshold: int) -> str | None:
    """Plain advice where the data shows a tool that is probably polled, not looped on."""
    long_runs = sum(n for length, n in stats.runs.items() if length >= first_threshold)
    changing = sum(n for length, n in stats.changing_runs.items() if length >= first_threshold)
    if changing:
        # A result that changes while the call stays the same is polling that makes progress, not a loop.
        runs = f"{long_runs} run{'s' if long_runs != 1 else ''}"
        return (
            f"`{tool}` had {runs} of {first_threshold} or more identical calls, and its result changed during "
            f"{changing} of them: it is probably polled; `resultAware: true` (or an override with tools: [{tool}] "
            "and resultAware: true) would stop reminders while the result keeps changing"
        )
    if long_runs >= POLLING_RUNS:
        return (
            f"`{tool}` had {long_runs} runs of {first_threshold} or more identical calls: it is probably polled; "
            f"exclude it (exclude: [{tool}]) or raise its thresholds"
        )
    return None
