"""Runs of calls that made no progress, exactly as a ``no-progress-reminder`` guard counts them, followed for a report.

A run is what the guard's chain counts (see ``toolguards.kinds.no_progress_reminder``): per agent, consecutive
counted calls with the same result and changing arguments. The follower asks the guard itself what it compares of
each call (``NoProgressReminder.inputs``) and steps with the guard's own ``advance``, so that the two agree by
construction; a new user prompt or a forgotten agent ends the run. A run is told under the tool of its first call.
A guard whose only threshold is ``t`` draws one reminder per run of ``t`` calls or more: the report's what-if.
"""

from __future__ import annotations

from collections.abc import Callable

from ..guard import Call
from ..kinds.no_progress_reminder import NoProgressReminder, NoProgressRun, advance

__all__ = ["Progress"]


class Progress:
    """Follows every agent's no-progress chain of one session; each finished run goes to ``finished(tool, length)``."""

    def __init__(self, guard: NoProgressReminder, finished: Callable[[str, int], None]) -> None:
        self._guard = guard
        self._finished = finished
        self._open: dict[str, tuple[NoProgressRun, str]] = {}

    def call(self, call: Call) -> None:
        """Follow one call."""
        agent = call.agent
        if agent is None:
            return
        inputs = self._guard.inputs(call)
        if inputs is None:
            return
        found = self._open.get(agent)
        state, count = advance(*inputs, call.event.call_id, found[0] if found else None)
        if count == 1:  # a new run: the open one ends
            if found is not None:
                self._finished(found[1], found[0].length)
            if state is not None:
                self._open[agent] = (state, call.tool)
        elif found is not None and state is not None:
            self._open[agent] = (state, found[1])

    def end(self, agent: str | None) -> None:
        """A new user prompt, or the agent was forgotten: its run ends."""
        found = self._open.pop(agent, None) if agent is not None else None
        if found is not None:
            self._finished(found[1], found[0].length)

    def finish(self) -> None:
        """The session is over: every open run ends."""
        for agent in list(self._open):
            self.end(agent)
