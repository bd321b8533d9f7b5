"""Runs of identical calls exactly as a ``repeat-tool-reminder`` chain counts them, followed for the replay summary
(``stats``) and the report (``toolguards.report.analyser``), so that both find the runs the guard counts.

A run is what the guard's chain counts (see ``toolguards.kinds.repeat_tool_reminder``): per agent, over the calls its
include/exclude patterns track, consecutive calls with the same ``call_key``; an untracked call neither counts nor
breaks a run; a call id seen among the agent's last 64 counted calls is not counted again; a new user prompt or a
forgotten agent ends the run. A call without an agent is never counted (the engine skips it).

Calls are keyed and their results compared as the guard does for their tool (``RepeatToolReminder.compares``: its
``ignoreArguments`` left out, its ``resultNormalizers`` applied), or exactly where the file has no such guard.

Each call is followed two ways at once: *plain* (identical calls continue the run, whatever their results; the run
notes whether its result changed) and *result-aware* (``resultAware: true``: a repeated call whose result differs from
the last one known in the run starts a new run). A guard whose only threshold is ``t`` draws one reminder per run of
length ``t`` or more, which is what the report's what-if counts from these runs.

For the suggestion, a run whose result changed only in volatile numbers keeps the normalizers that would have kept
it the same (``Run.volatile``, see ``volatility``); and a *loose* run is followed beside the plain one: consecutive
calls of one tool whose arguments differ only in volatile strings, reported with those places when it ends
(``Loose``), with whether its result changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine import Engine
from ..guard import Call, CallIds, call_key, remember_call_id, seen_call_id
from ..kinds.repeat_tool_reminder import RepeatToolReminder
from ..patterns import ToolFilter
from ..volatile import NO_NORMALIZERS, KeyOf, Normalizer, Normalizers, ResultOf
from .volatility import MAX_PATHS, Path, argument_differences, result_normalizers

__all__ = ["Chains", "Compares", "Loose", "Run", "compares_of", "tracked"]

#: How the guard compares a tool's calls: its key, its result as compared, and its normalizers.
Compares = Callable[[str], tuple[KeyOf, ResultOf, Normalizers]]


def exactly(_tool: str) -> tuple[KeyOf, ResultOf, Normalizers]:
    """The reference's comparisons, for a guard file without a repeat-tool-reminder."""
    return call_key, Call.canonical_result, NO_NORMALIZERS


def compares_of(engine: Engine) -> Compares:
    """How the engine's first ``repeat-tool-reminder`` compares each tool's calls (exactly, where it has none)."""
    guard = next((guard for guard in engine.guards if isinstance(guard, RepeatToolReminder)), None)
    if guard is None:
        return exactly
    found: RepeatToolReminder = guard

    def compares(tool: str) -> tuple[KeyOf, ResultOf, Normalizers]:
        rules, key, result = found.compares(tool)
        return key, result, rules.result_normalizers

    return compares


def tracked(engine: Engine) -> ToolFilter:
    """The tools the chain of the engine's first ``repeat-tool-reminder`` guard tracks (every tool, without one)."""
    for guard in engine.guards:
        if isinstance(guard, RepeatToolReminder):
            return ToolFilter(guard.settings.include, guard.settings.exclude)
    return ToolFilter()


@dataclass(frozen=True)
class Run:
    """A finished plain run: ``length`` identical tracked calls of one agent, from the call at ``line`` of the input
    (the ``index``-th call of the session) to the ``last``-th; ``changed`` when its result changed at least once."""

    agent: str
    tool: str
    length: int
    changed: bool
    line: int
    index: int
    last: int
    #: the canonical arguments of the run's calls
    arguments: str
    #: where every change of its result was in volatile numbers: the normalizers that would have kept it the same
    volatile: tuple[Normalizer, ...] = ()


@dataclass(frozen=True)
class Loose:
    """A finished loose run: ``length`` consecutive tracked calls of ``tool`` (two or more, of more than one key)
    whose arguments differ only in the strings at ``paths``; ``changed`` when its known results changed, ``results``
    how many of its calls had one."""

    agent: str
    tool: str
    length: int
    paths: frozenset[Path]
    changed: bool
    results: int


class _Near:
    """An agent's open loose run."""

    __slots__ = ("arguments", "changed", "key", "length", "paths", "result", "results", "tool")

    def __init__(self, tool: str, key: str, arguments: Any, result: str | None) -> None:
        self.tool = tool
        self.key = key
        self.arguments = arguments
        self.length = 1
        self.paths: frozenset[Path] = frozenset()
        self.result = result
        self.results = 0 if result is None else 1
        self.changed = False


class _Open:
    """An agent's open runs: the plain one in full, the result-aware one by its length and last result."""

    __slots__ = ("aware", "aware_result", "changed", "index", "key", "last", "length", "line", "raw", "result",
                 "unexplained", "volatile")

    def __init__(self, key: tuple[str, str], line: int, index: int, result: str | None, raw: Any) -> None:
        self.key = key
        self.line = line
        self.index = index
        self.last = index
        self.length = 1
        self.result = result
        self.changed = False
        self.aware = 1
        self.aware_result = result
        self.raw = raw  # the last result as the host gave it, for the volatility of the next change
        self.volatile: dict[Normalizer, None] = {}
        self.unexplained = False


class Chains:
    """Follows every agent's chain of one session; each finished plain run goes to ``finished`` and each finished
    loose run to ``loose``, and the result-aware runs are counted by tool and length in ``aware``."""

    def __init__(self, tracked: ToolFilter, finished: Callable[[Run], None], compares: Compares = exactly,
                 loose: Callable[[Loose], None] | None = None) -> None:
        self._tracked = tracked
        self._finished = finished
        self._compares = compares
        self._loose = loose
        self._near: dict[str, _Near] = {}
        self._open: dict[str, _Open] = {}
        self._ids: dict[str, CallIds] = {}
        #: tool → result-aware run length → runs
        self.aware: dict[str, Counter[int]] = {}

    def call(self, call: Call, line: int, index: int) -> None:
        """Follow one call (the ``index``-th of the session, at ``line`` of its input)."""
        agent = call.agent
        if agent is None or not self._tracked(call.tool):
            return
        call_id = call.event.call_id
        if call_id is not None:
            ids = self._ids.get(agent)
            if seen_call_id(ids, call_id):
                return  # a re-delivered call: the guard does not count it
            self._ids[agent] = remember_call_id(ids, call_id)
        key_of, result_of, normalizers = self._compares(call.tool)
        key = key_of(call)
        result = result_of(call)
        if self._loose is not None:
            self._follow_loose(agent, call, key, result)
        run = self._open.get(agent)
        if run is None or run.key != key:
            if run is not None:
                self._close(agent, run)
            self._open[agent] = _Open(key, line, index, result, call.event.result)
            return
        run.length += 1
        run.last = index
        if result is not None:
            known = run.result
            if known is not None and result != known:
                run.changed = True
                self._explain(run, call.event.result, normalizers)
            run.result = result
            run.raw = call.event.result
            known = run.aware_result
            if known is not None and result != known:
                self._count_aware(key[0], run.aware)
                run.aware = 0
            run.aware_result = result
        run.aware += 1

    def end(self, agent: str | None) -> None:
        """A new user prompt, or the agent was forgotten: its runs end and its call ids are forgotten."""
        if agent is None:
            return
        self._ids.pop(agent, None)
        run = self._open.pop(agent, None)
        if run is not None:
            self._close(agent, run)
        near = self._near.pop(agent, None)
        if near is not None:
            self._close_loose(agent, near)

    def finish(self) -> None:
        """The session is over: every open run ends."""
        for agent in list(self._open) + list(self._near):
            self.end(agent)
        self._ids.clear()

    def _close(self, agent: str, run: _Open) -> None:
        tool, arguments = run.key
        self._count_aware(tool, run.aware)
        volatile = tuple(run.volatile) if run.changed and not run.unexplained else ()
        self._finished(Run(agent, tool, run.length, run.changed, run.line, run.index, run.last, arguments, volatile))

    def _explain(self, run: _Open, raw: Any, normalizers: Normalizers) -> None:
        """Note which normalizers would have kept this change of the run's result away (or that none would)."""
        if run.unexplained:
            return
        found = result_normalizers(run.raw, raw, normalizers) if run.raw is not None else None
        if found is None:
            run.unexplained = True
        else:
            run.volatile.update(dict.fromkeys(found))

    def _follow_loose(self, agent: str, call: Call, key: tuple[str, str], result: str | None) -> None:
        near = self._near.get(agent)
        arguments = call.event.arguments
        if near is not None and near.tool == call.tool:
            paths = frozenset() if near.key == key[1] else argument_differences(near.arguments, arguments)
            if paths is not None and len(near.paths | paths) <= MAX_PATHS:
                near.paths |= paths
                near.length += 1
                near.key, near.arguments = key[1], arguments
                if result is not None:
                    near.changed = near.changed or (near.result is not None and result != near.result)
                    near.result = result
                    near.results += 1
                return
        if near is not None:
            self._close_loose(agent, near)
        self._near[agent] = _Near(call.tool, key[1], arguments, result)

    def _close_loose(self, agent: str, near: _Near) -> None:
        if near.paths and self._loose is not None:
            self._loose(Loose(agent, near.tool, near.length, near.paths, near.changed, near.results))

    def _count_aware(self, tool: str, length: int) -> None:
        counts = self.aware.get(tool)
        if counts is None:
            counts = self.aware[tool] = Counter()
        counts[length] += 1
