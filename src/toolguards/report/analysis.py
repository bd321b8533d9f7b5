"""The figures of a report: small per-session aggregates that merge, in input order, into the figures of a folder.

A session's analysis (``session.py``) yields one ``SessionReport``: counts per tool, its own longest runs and its
timeline, never its calls, so that worker processes hand back little and the merged result does not depend on how the
sessions were split among them. ``Report.add`` merges them; everything the page shows is read from a ``Report``.

Runs are counted as the first guard file's ``repeat-tool-reminder`` chain counts them (``chains.py``); with
``--compare`` the second file's chain is followed too, for its own what-if. Each guard file is a *side*: side 0 the
``--config`` file, side 1 the ``--compare`` file. Where a file has a ``no-progress-reminder``, its runs of calls that
made no progress are counted too (``progress.py``), for that guard's what-if.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from ..patterns import ToolFilter
from ..replay.chains import Run
from ..replay.delivered import Followups
from ..volatile import Normalizer
from .timeline import Timeline

__all__ = [
    "LONGEST",
    "PREVIEW_CHARS",
    "WHAT_IF",
    "GuardView",
    "LongRun",
    "Report",
    "SessionReport",
    "Side",
    "ToolTally",
    "merge",
    "runs_at_least",
]

#: the thresholds every what-if shows (a guard file's own thresholds above 10 are added)
WHAT_IF = tuple(range(2, 11))
#: how many of the longest runs the page lists
LONGEST = 20
#: the arguments preview of a listed run, in code points
PREVIEW_CHARS = 160

ReminderKey = tuple[str, str, int]  # (guard id, template slot, count)


@dataclass(frozen=True)
class GuardView:
    """What the report reads of one guard file: its first ``repeat-tool-reminder`` guard (``guard`` None: the file
    has none, and the what-if then follows every tool with no threshold marked)."""

    name: str
    guard: str | None = None
    thresholds: tuple[int, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    result_aware: bool = False
    #: (tool patterns, resultAware) of each override, in order
    overrides: tuple[tuple[tuple[str, ...], bool], ...] = ()
    #: what the guard leaves out of its comparisons: (tool patterns, ignoreArguments, resultNormalizers as (pattern,
    #: replacement)) of each override, then of the guard itself (patterns ``*``)
    volatile: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]], ...] = ()
    #: the file's first ``no-progress-reminder`` guard and its thresholds (None: the file has none)
    no_progress: str | None = None
    no_progress_thresholds: tuple[int, ...] = ()

    def aware_for(self, tool: str) -> bool:
        """Whether the guard compares ``tool``'s results (``resultAware``, from its first matching override)."""
        for patterns, aware in self.overrides:
            if ToolFilter(patterns)(tool):
                return aware
        return self.result_aware

    def ignored_for(self, tool: str) -> tuple[str, ...]:
        """The argument paths the guard leaves out of ``tool``'s key."""
        return next((paths for patterns, paths, _ in self.volatile if ToolFilter(patterns)(tool)), ())

    @property
    def first_threshold(self) -> int:
        """The first threshold (3, the reference's, where the file has no repeat-tool-reminder)."""
        return self.thresholds[0] if self.thresholds else 3


@dataclass
class Side:
    """One tool under one guard file: the reminders it drew, and its runs as that file's chain counts them, plain
    and result-aware (run length → runs)."""

    reminders: Counter[ReminderKey] = field(default_factory=Counter)
    plain: Counter[int] = field(default_factory=Counter)
    aware: Counter[int] = field(default_factory=Counter)
    #: runs of calls that made no progress, as the file's no-progress-reminder counts them (run length → runs)
    stalled: Counter[int] = field(default_factory=Counter)

    def merge(self, other: Side) -> None:
        """Add ``other``'s counts."""
        self.reminders.update(other.reminders)
        self.plain.update(other.plain)
        self.aware.update(other.aware)
        self.stalled.update(other.stalled)


@dataclass
class ToolTally:
    """What one tool did: calls, and per side its reminders and runs; ``changing`` counts the first file's plain runs
    (by length) during which the call's result changed."""

    calls: int = 0
    changing: Counter[int] = field(default_factory=Counter)
    sides: list[Side] = field(default_factory=list)
    #: (the normalizers, run length) → the first file's plain runs whose result changed only in what they replace
    volatile: Counter[tuple[tuple[Normalizer, ...], int]] = field(default_factory=Counter)
    #: (the argument paths, run length) → loose runs of the first file's chain whose arguments differed only at
    #: those paths and whose result, known for two calls or more, never changed
    loose: Counter[tuple[tuple[str, ...], int]] = field(default_factory=Counter)

    @property
    def runs(self) -> Counter[int]:
        """Run length → runs, as the first guard file's chain counts them."""
        return self.sides[0].plain

    def longest(self) -> int:
        """The longest run (0: the tool is not tracked)."""
        return max(self.runs, default=0)

    def merge(self, other: ToolTally) -> None:
        """Add ``other``'s counts."""
        self.calls += other.calls
        self.changing.update(other.changing)
        self.volatile.update(other.volatile)
        self.loose.update(other.loose)
        while len(self.sides) < len(other.sides):
            self.sides.append(Side())
        for mine, theirs in zip(self.sides, other.sides, strict=False):
            mine.merge(theirs)


def runs_at_least(lengths: Mapping[int, int], threshold: int) -> int:
    """Runs of ``threshold`` calls or more: the reminders a guard whose first threshold is ``threshold`` would draw at
    that threshold."""
    return sum(n for length, n in lengths.items() if length >= threshold)


@dataclass(frozen=True)
class LongRun:
    """A run listed among the longest: where it is (``position``: the place of its input among the inputs, set when
    the session is merged), and its arguments cut to ``PREVIEW_CHARS``."""

    path: str
    agent: str
    tool: str
    length: int
    changed: bool
    line: int
    index: int
    preview: str
    cut: bool
    position: int = 0

    @classmethod
    def of(cls, path: str, run: Run) -> LongRun:
        """The listing of ``run``, a run of the input ``path``."""
        text = run.arguments
        return cls(path, run.agent, run.tool, run.length, run.changed, run.line, run.index,
                   text[:PREVIEW_CHARS], len(text) > PREVIEW_CHARS)

    def order(self) -> tuple[int, int, int]:
        """Longest first, then by input and place in it."""
        return (-self.length, self.position, self.index)


@dataclass(frozen=True)
class SessionReport:
    """One input's figures."""

    path: str
    format: str | None
    calls: int
    agents: frozenset[str]
    tools: Mapping[str, ToolTally]
    #: its longest runs, longest first (at most LONGEST)
    longest: tuple[LongRun, ...]
    timeline: Timeline
    #: reminders drawn, per side
    reminders: tuple[int, ...]
    #: malformed lines passed over (with --skip-bad-lines), as ``path:line: message``
    skipped: tuple[str, ...] = ()
    #: (format, type label) → (records of that type its importer does not read, path and line of the first)
    unread: Mapping[tuple[str, str], tuple[int, str, int]] = field(default_factory=dict)
    #: the problem that ended the input before its end (its figures are those up to there)
    failed: str | None = None
    #: what followed its reminders, and its loops' tokens (``replay.delivered``)
    followups: Followups = field(default_factory=Followups)


@dataclass
class Report:
    """The merged figures of every input, for the guard files of ``views`` (one side each)."""

    views: tuple[GuardView, ...]
    sessions: list[SessionReport] = field(default_factory=list)
    calls: int = 0
    skipped: int = 0
    #: agents counted per session: the same name in two sessions is two agents
    agents: int = 0
    tools: dict[str, ToolTally] = field(default_factory=dict)
    longest: list[LongRun] = field(default_factory=list)
    #: every input that failed, as ``path:line: message``, in input order (those never opened are no session)
    failures: list[str] = field(default_factory=list)
    #: (format, type label) → (records not read, path and line of the first)
    unread: dict[tuple[str, str], tuple[int, str, int]] = field(default_factory=dict)
    followups: Followups = field(default_factory=Followups)

    def problem(self, message: str) -> None:
        """An input (or a folder) that could not be opened."""
        self.failures.append(message)

    def add(self, session: SessionReport) -> None:
        """Merge one session's figures (sessions are added in input order)."""
        position = len(self.sessions)
        self.sessions.append(session)
        if session.failed is not None:
            self.failures.append(session.failed)
        for key, (count, path, line) in session.unread.items():
            found = self.unread.get(key)
            self.unread[key] = (count, path, line) if found is None else (found[0] + count, found[1], found[2])
        self.calls += session.calls
        self.skipped += len(session.skipped)
        self.followups.merge(session.followups)
        self.agents += len(session.agents)
        for tool, tally in session.tools.items():
            mine = self.tools.get(tool)
            if mine is None:
                mine = self.tools[tool] = ToolTally(sides=[Side() for _ in self.views])
            mine.merge(tally)
        listed = [replace(run, position=position) for run in session.longest]
        self.longest = sorted([*self.longest, *listed], key=LongRun.order)[:LONGEST]

    def reminders(self, side: int = 0) -> Counter[ReminderKey]:
        """Every reminder drawn under one guard file, by (guard, template, count)."""
        found: Counter[ReminderKey] = Counter()
        for tally in self.tools.values():
            found.update(tally.sides[side].reminders)
        return found

    def by_tool(self) -> list[tuple[str, ToolTally]]:
        """The tools, most called first (then by name)."""
        return sorted(self.tools.items(), key=lambda item: (-item[1].calls, item[0]))

    def thresholds(self) -> tuple[int, ...]:
        """The what-if's thresholds: 2 to 10, and any configured threshold above."""
        configured = {t for view in self.views for t in view.thresholds}
        return tuple(sorted(set(WHAT_IF) | configured))

    def what_if(self, side: int, threshold: int, *, aware: bool) -> int:
        """Reminders a first threshold of ``threshold`` would draw under one guard file's chain, in all."""
        return sum(self.tool_what_if(tally, side, threshold, aware=aware) for tally in self.tools.values())

    @staticmethod
    def tool_what_if(tally: ToolTally, side: int, threshold: int, *, aware: bool) -> int:
        """The same, for one tool."""
        lengths = tally.sides[side].aware if aware else tally.sides[side].plain
        return runs_at_least(lengths, threshold)

    def stalled_thresholds(self) -> tuple[int, ...]:
        """The no-progress what-if's thresholds: 2 to 10, and any configured threshold above."""
        configured = {t for view in self.views for t in view.no_progress_thresholds}
        return tuple(sorted(set(WHAT_IF) | configured))

    def stalled_what_if(self, side: int, threshold: int) -> int:
        """Reminders a no-progress-reminder whose first threshold is ``threshold`` would draw under one guard file."""
        return sum(runs_at_least(tally.sides[side].stalled, threshold) for tally in self.tools.values())


def merge(views: tuple[GuardView, ...], sessions: Iterable[SessionReport]) -> Report:
    """A report of ``sessions``, in the order given."""
    report = Report(views)
    for session in sessions:
        report.add(session)
    return report
