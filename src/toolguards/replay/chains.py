"""Runs of identical calls exactly as a ``repeat-tool-reminder`` chain counts them, followed for the replay summary
(``stats``) and the report (``toolguards.report.analyser``), so that both find the runs the guard counts.

A run is what the guard's chain counts (see ``toolguards.kinds.repeat_tool_reminder``): per agent, over the calls its
include/exclude patterns track, consecutive calls with the same ``call_key``; an untracked call neither counts nor
breaks a run; a call id seen among the agent's last 64 counted calls is not counted again; a new user prompt or a
forgotten agent ends the run. A call without an agent is never counted (the engine skips it).

Each call is followed two ways at once: *plain* (identical calls continue the run, whatever their results; the run
notes whether its result changed) and *result-aware* (``resultAware: true``: a repeated call whose result differs from
the last one known in the run starts a new run). A guard whose only threshold is ``t`` draws one reminder per run of
length ``t`` or more, which is what the report's what-if counts from these runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..engine import Engine
from ..guard import Call, CallIds, call_key, remember_call_id, seen_call_id
from ..kinds.repeat_tool_reminder import RepeatToolReminder
from ..patterns import ToolFilter

__all__ = ["Chains", "Run", "tracked"]


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


class _Open:
    """An agent's open runs: the plain one in full, the result-aware one by its length and last result."""

    __slots__ = ("aware", "aware_result", "changed", "index", "key", "last", "length", "line", "result")

    def __init__(self, key: tuple[str, str], line: int, index: int, result: str | None) -> None:
        self.key = key
        self.line = line
        self.index = index
        self.last = index
        self.length = 1
        self.result = result
        self.changed = False
        self.aware = 1
        self.aware_result = result


class Chains:
    """Follows every agent's chain of one session; each finished plain run goes to ``finished``, and the
    result-aware runs are counted by tool and length in ``aware``."""

    def __init__(self, tracked: ToolFilter, finished: Callable[[Run], None]) -> None:
        self._tracked = tracked
        self._finished = finished
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
        key = call_key(call)
        result = call.canonical_result()
        run = self._open.get(agent)
        if run is None or run.key != key:
            if run is not None:
                self._close(agent, run)
            self._open[agent] = _Open(key, line, index, result)
            return
        run.length += 1
        run.last = index
        if result is not None:
            known = run.result
            if known is not None and result != known:
                run.changed = True
            run.result = result
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

    def finish(self) -> None:
        """The session is over: every open run ends."""
        for agent in list(self._open):
            self.end(agent)
        self._ids.clear()

    def _close(self, agent: str, run: _Open) -> None:
        tool, arguments = run.key
        self._count_aware(tool, run.aware)
        self._finished(Run(agent, tool, run.length, run.changed, run.line, run.index, run.last, arguments))

    def _count_aware(self, tool: str, length: int) -> None:
        counts = self.aware.get(tool)
        if counts is None:
            counts = self.aware[tool] = Counter()
        counts[length] += 1
