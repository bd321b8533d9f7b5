"""A session's timeline in bounded space, whatever its length: calls counted in at most ``BINS`` bins per agent row,
the longest runs and the first reminders kept, everything else counted.

The bins start one call wide and double in width (pairs merged) whenever the session outgrows them, so a session of
any length ends with between ``BINS / 2`` and ``BINS`` bins and nothing is decided before its length is known.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ..replay.chains import Run

__all__ = ["BINS", "MAX_MARKS", "MAX_ROWS", "MAX_RUNS", "Mark", "Row", "Span", "Timeline", "TimelineBuilder"]

BINS = 240
#: agents beyond these share one last row
MAX_ROWS = 6
#: runs (of two calls or more) drawn per session: the longest
MAX_RUNS = 40
#: reminders drawn per session: the first
MAX_MARKS = 40


@dataclass(frozen=True)
class Row:
    """One agent's calls: ``bins[i]`` calls fell into bin ``i`` (``Timeline.width`` calls wide); ``agent`` None is the
    shared row of the agents past ``MAX_ROWS - 1`` (``others`` of them) and of calls without an agent."""

    agent: str | None
    bins: tuple[int, ...]
    others: int = 0


@dataclass(frozen=True)
class Span:
    """A run drawn on its agent's row, from call ``first`` to call ``last`` of the session."""

    row: int
    first: int
    last: int
    length: int
    tool: str
    line: int


@dataclass(frozen=True)
class Mark:
    """A reminder after the ``index``-th call of the session."""

    row: int
    index: int
    tool: str
    count: int
    label: str


@dataclass(frozen=True)
class Timeline:
    """What the page draws of one session."""

    calls: int
    width: int
    rows: tuple[Row, ...]
    spans: tuple[Span, ...]
    marks: tuple[Mark, ...]
    #: runs of two or more calls, and reminders, that were not kept
    more_spans: int
    more_marks: int


class TimelineBuilder:
    """Fed every call, run and reminder of one session, in order."""

    def __init__(self) -> None:
        self.calls = 0
        self._width = 1
        self._keys: list[str | None] = []
        self._bins: list[list[int]] = []
        self._rows: dict[str | None, int] = {}  # agent → its row
        self._others: set[str] = set()
        self._longest: list[tuple[int, int]] = []  # a heap of (length, -first): the shortest kept run on top
        self._runs: dict[int, Run] = {}  # the kept runs by their first call
        self._seen_runs = 0
        self._marks: list[Mark] = []
        self._seen_marks = 0

    def row(self, agent: str | None) -> int:
        """The row of ``agent``'s calls."""
        found = self._rows.get(agent)
        if found is None:
            key = agent if agent is not None and len(self._keys) < MAX_ROWS - 1 else None
            if agent is not None and key is None:
                self._others.add(agent)
            if key in self._keys:
                found = self._keys.index(key)
            else:
                found = len(self._keys)
                self._keys.append(key)
                self._bins.append([])
            self._rows[agent] = found
        return found

    def call(self, agent: str | None) -> int:
        """Count one call; returns its index in the session."""
        index = self.calls
        self.calls += 1
        slot = index // self._width
        if slot >= BINS:
            self._width *= 2
            self._bins = [[sum(bins[i : i + 2]) for i in range(0, len(bins), 2)] for bins in self._bins]
            slot = index // self._width
        bins = self._bins[self.row(agent)]
        if len(bins) <= slot:
            bins.extend([0] * (slot + 1 - len(bins)))
        bins[slot] += 1
        return index

    def run(self, run: Run) -> None:
        """A finished run (only runs of two calls or more are drawn)."""
        if run.length < 2:
            return
        self._seen_runs += 1
        item = (run.length, -run.index)
        if len(self._longest) < MAX_RUNS:
            heapq.heappush(self._longest, item)
        elif item > self._longest[0]:
            dropped = heapq.heapreplace(self._longest, item)
            del self._runs[-dropped[1]]
        else:
            return
        self._runs[run.index] = run

    def reminder(self, agent: str | None, index: int, tool: str, count: int, label: str) -> None:
        """A reminder drawn after call ``index``."""
        self._seen_marks += 1
        if len(self._marks) < MAX_MARKS:
            self._marks.append(Mark(self.row(agent), index, tool, count, label))

    def finish(self) -> Timeline:
        """The timeline of the session."""
        rows = tuple(
            Row(key, tuple(bins), len(self._others) if key is None else 0)
            for key, bins in zip(self._keys, self._bins, strict=True)
        )
        spans = tuple(
            Span(self._rows[run.agent], run.index, run.last, run.length, run.tool, run.line)
            for _, run in sorted(self._runs.items())
        )
        return Timeline(
            self.calls, self._width, rows, spans, tuple(self._marks),
            self._seen_runs - len(spans), self._seen_marks - len(self._marks),
        )
