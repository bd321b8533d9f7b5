"""One input's analysis: its records through the guard files' engines, and its figures as a ``SessionReport``.

The records go through the engines as ``toolguards replay`` sends them (``replay.feed``: each tool call one ``Call``, so
the canonical form of its arguments and result is computed once for the guards and the statistics alike); the reminders
are read from each context's typed ``reminder``; the runs are followed by ``Chains`` with the first
``repeat-tool-reminder`` guard's include/exclude patterns and comparisons of each guard file, and by ``Progress`` with
its first ``no-progress-reminder`` guard. An ``Analyser`` holds the engines of one
process and is reused from input to input: after each input it makes the engines forget every agent the input had, so
each input is its own session, as in ``toolguards replay``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from ..engine import Engine
from ..guardfile.prices import NO_PRICES, PriceTable
from ..kinds.no_progress_reminder import NoProgressReminder
from ..kinds.repeat_tool_reminder import RepeatToolReminder
from ..patterns import ToolFilter
from ..replay.chains import Chains, Loose, Run, compares_of
from ..replay.delivered import Followup
from ..replay.feed import Outcome, Skipped, replay
from ..replay.records import InputError, Record
from ..replay.session import Reading, reset
from ..volatile import format_path
from .analysis import LONGEST, GuardView, LongRun, SessionReport, Side, ToolTally
from .progress import Progress
from .timeline import TimelineBuilder

__all__ = ["Analyser", "guard_view"]


def guard_view(name: str, engine: Engine) -> GuardView:
    """What the report reads of a loaded guard file (``name`` is how the page names it)."""
    progress = _first(engine, NoProgressReminder)
    stalled = {} if progress is None else {"no_progress": progress.id,
                                          "no_progress_thresholds": progress.settings.thresholds}
    guard = _first(engine, RepeatToolReminder)
    if guard is None:
        return GuardView(name, **stalled)
    settings = guard.settings
    overrides = tuple((o.tools, o.rules.result_aware) for o in settings.overrides)
    volatile = tuple(
        (tools, rules.ignore_arguments.texts, tuple((n.pattern, n.replacement) for n in rules.result_normalizers.items))
        for tools, rules in [*((o.tools, o.rules) for o in settings.overrides), (("*",), settings)]
    )
    return GuardView(name, guard.id, tuple(settings.thresholds), tuple(settings.include), tuple(settings.exclude),
                     settings.result_aware, overrides, volatile, **stalled)


def _first(engine: Engine, kind: type[Any]) -> Any:
    return next((guard for guard in engine.guards if isinstance(guard, kind)), None)


class Analyser:
    """The engines of the guard files (the first is ``--config``, a second ``--compare``), reused for every input,
    and how the inputs are read."""

    def __init__(self, engines: Sequence[Engine], names: Sequence[str], reading: Reading | None = None,
                 prices: PriceTable = NO_PRICES) -> None:
        self.engines = tuple(engines)
        self.prices = prices
        self.views = tuple(guard_view(name, engine) for name, engine in zip(names, self.engines, strict=True))
        self.reading = Reading() if reading is None else reading
        self.compares = tuple(compares_of(engine) for engine in self.engines)
        self.progress: tuple[NoProgressReminder | None, ...] = tuple(
            _first(engine, NoProgressReminder) for engine in self.engines)

    def analyse(
        self, path: str, fmt: str | None, records: Iterable[Record | InputError], *,
        bad_line: Callable[[UnicodeDecodeError], InputError] | None = None,
    ) -> SessionReport:
        """The figures of one input's records (``path`` names it on the page). A malformed line is counted and
        passed over with ``skip_bad_lines``; otherwise it ends the input, which keeps its figures so far and the
        problem as ``failed`` (as replay counts it). ``bad_line`` turns a line found not UTF-8 into that problem."""
        session = _Session(path, self)
        failed = None
        try:
            session.read(self.engines, records, self.reading.skip_bad_lines, fmt or "?")
        except InputError as exc:
            failed = str(exc)
        except UnicodeDecodeError as exc:  # a line let through by an importer that iterates the lines itself
            if bad_line is None:
                raise
            failed = str(bad_line(exc))
        finally:
            reset(self.engines, session.agents)
        return session.finish(fmt, failed)


class _Session:
    """The figures of one input while it is read."""

    def __init__(self, path: str, analyser: Analyser) -> None:
        self.path = path
        self.followup = Followup(analyser.engines[0], analyser.prices)
        self.views = views = analyser.views
        self.sides = len(views)
        self.tools: dict[str, ToolTally] = {}
        self.agents: set[str] = set()
        self.calls = 0
        self.skipped: list[str] = []
        #: (format, type label) → (records of that type the importer does not read, path and line of the first)
        self.unread: dict[tuple[str, str], tuple[int, str, int]] = {}
        self.reminders = [0] * self.sides
        self.timeline = TimelineBuilder()
        self._longest: list[tuple[int, int, int]] = []  # a heap of (length, -index, id): the shortest kept on top
        self._runs: dict[int, Run] = {}
        self.chains = [Chains(ToolFilter(views[0].include, views[0].exclude), self._finished_first,
                              analyser.compares[0], self._finished_loose)]
        # The second file's chain is followed only when it tracks or compares otherwise; else its runs are the first's.
        self._shared = self.sides < 2 or (views[1].include, views[1].exclude, views[1].volatile) == (
            views[0].include, views[0].exclude, views[0].volatile)
        if not self._shared:
            self.chains.append(Chains(ToolFilter(views[1].include, views[1].exclude), self._finished_second,
                                      analyser.compares[1]))
        self.progress = [
            Progress(guard, partial(self._stalled, side)) for side, guard in enumerate(analyser.progress)
            if guard is not None
        ]

    def tally(self, tool: str) -> ToolTally:
        found = self.tools.get(tool)
        if found is None:
            found = self.tools[tool] = ToolTally(sides=[Side() for _ in range(self.sides)])
        return found

    def read(
        self, engines: tuple[Engine, ...], records: Iterable[Record | InputError], skip_bad_lines: bool, fmt: str
    ) -> None:
        for item in replay(records, engines, skip_bad_lines=skip_bad_lines):
            self.followup.item(item)
            if isinstance(item, Outcome):
                self.call(item)
            elif isinstance(item, Skipped):
                self.skipped.append(str(item.error))
            elif item.kind == "pre-step":
                if item.user_prompt:
                    self._end(item.agent)
            elif item.kind == "forget":
                self._end(item.agent)
            elif item.kind == "skipped":
                key = (fmt, item.text)
                found = self.unread.get(key)
                self.unread[key] = (1, self.path, item.line) if found is None else (found[0] + 1, found[1], found[2])

    def call(self, outcome: Outcome) -> None:
        record, decisions, call = outcome
        agent = record.agent
        if agent is not None:
            self.agents.add(agent)
        self.calls += 1
        index = self.timeline.call(agent)
        tally = self.tally(call.tool)
        tally.calls += 1
        for side, decision in enumerate(decisions):
            contexts = decision.additional_contexts
            if not contexts:
                continue
            reminders = tally.sides[side].reminders
            self.reminders[side] += len(contexts)
            for entry in contexts:
                facts = entry.reminder
                if facts is None:  # not a guard's: counted as replay counts it, under no guard
                    reminders[("?", "", 0)] += 1
                    continue
                reminders[(facts.guard, facts.template, facts.count)] += 1
                if side == 0:
                    self.timeline.reminder(agent, index, facts.tool, facts.count, f"{facts.guard}/{facts.template}")
        for chains in self.chains:
            chains.call(call, record.line, index)
        for progress in self.progress:
            progress.call(call)

    def _end(self, agent: str | None) -> None:
        for chains in self.chains:
            chains.end(agent)
        for progress in self.progress:
            progress.end(agent)

    def _stalled(self, side: int, tool: str, length: int) -> None:
        self.tally(tool).sides[side].stalled[length] += 1

    def _finished_loose(self, loose: Loose) -> None:
        if not loose.changed and loose.results >= 2:
            paths = tuple(sorted(format_path(path) for path in loose.paths))
            self.tally(loose.tool).loose[(paths, loose.length)] += 1

    def _finished_first(self, run: Run) -> None:
        tally = self.tally(run.tool)
        tally.sides[0].plain[run.length] += 1
        if run.changed:
            tally.changing[run.length] += 1
        if run.volatile:
            tally.volatile[(run.volatile, run.length)] += 1
        if run.length < 2:
            return
        self.timeline.run(run)
        item = (run.length, -run.index, run.index)
        if len(self._longest) < LONGEST:
            heapq.heappush(self._longest, item)
        elif item > self._longest[0]:
            del self._runs[heapq.heapreplace(self._longest, item)[2]]
        else:
            return
        self._runs[run.index] = run

    def _finished_second(self, run: Run) -> None:
        self.tally(run.tool).sides[1].plain[run.length] += 1

    def finish(self, fmt: str | None, failed: str | None) -> SessionReport:
        for chains in self.chains:
            chains.finish()
        for progress in self.progress:
            progress.finish()
        for side, chains in enumerate(self.chains):
            for tool, lengths in chains.aware.items():
                self.tally(tool).sides[side].aware.update(lengths)
        if self.sides > 1 and self._shared:
            for tally in self.tools.values():
                tally.sides[1].plain.update(tally.sides[0].plain)
                tally.sides[1].aware.update(tally.sides[0].aware)
        longest = sorted((LongRun.of(self.path, run) for run in self._runs.values()),
                         key=LongRun.order)
        return SessionReport(
            self.path, fmt, self.calls, frozenset(self.agents), self.tools, tuple(longest),
            self.timeline.finish(), tuple(self.reminders), tuple(self.skipped), self.unread, failed,
            self.followup.finish(),
        )

