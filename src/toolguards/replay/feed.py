"""Feed a recorded session's records through an engine, one outcome per tool call, streaming."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from ..engine import Engine
from ..events import ContextEntry, PostToolDecision
from ..guard import Call
from .records import InputError, Record

__all__ = ["Outcome", "Skipped", "replay"]


class Outcome(NamedTuple):
    """What the guards of each engine made of one recorded tool call (one decision per engine, in order).

    ``call`` is the call as the guards saw it: its canonical arguments and result, computed once, are what replay's
    statistics compare too (``guard.call_key``), so there is one definition of an identical call.

    A named tuple rather than a frozen dataclass: a replay makes one per call, and building one costs a quarter as
    much."""

    record: Record
    decisions: tuple[PostToolDecision, ...]
    call: Call

    @property
    def contexts(self) -> tuple[ContextEntry, ...]:
        """The reminders the model would read after this call's step, under the first engine."""
        return self.decisions[0].additional_contexts


class Skipped(NamedTuple):
    """A malformed input line that ``--skip-bad-lines`` passed over."""

    error: InputError


def replay(
    items: Iterable[Record | InputError], engines: Sequence[Engine], *, skip_bad_lines: bool = False
) -> Iterator[Outcome | Record | Skipped]:
    """Run each record through every engine (one, or two to compare): an Outcome per tool call; every other record
    (a step boundary or a forgotten agent, once the engines have seen it; a recorded reminder; a skipped record) passes
    through unchanged, so that whoever follows the chains sees what resets them. A malformed line raises its
    InputError, or is yielded as Skipped with ``skip_bad_lines``.
    """
    first = engines[0].post_execute
    new = tuple.__new__  # Outcome(item, decisions, call) without the named tuple's Python-level __new__
    single = len(engines) == 1
    for item in items:
        if isinstance(item, InputError):
            if not skip_bad_lines:
                raise item
            yield Skipped(item)
            continue
        kind = item.kind
        if kind == "post-execute":
            # A record has every attribute of a ToolEvent (the engine's ToolCall); as a Call it is keyed once for
            # every engine and for the statistics.
            call = Call(item)
            if single:  # the usual case, without a generator per call
                yield new(Outcome, (item, (first(call),), call))
            else:
                yield Outcome(item, tuple(engine.post_execute(call) for engine in engines), call)
        else:
            if kind == "pre-step":
                for engine in engines:
                    engine.pre_step(item.agent, user_prompt=item.user_prompt)
            elif kind == "forget":
                for engine in engines:
                    engine.forget(item.agent)
            yield item
