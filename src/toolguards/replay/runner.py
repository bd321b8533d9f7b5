"""Feed a recorded session's records through an engine, one outcome per tool call, streaming."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..engine import Engine
from ..events import ContextEntry, PostToolDecision
from .records import InputError, Record

__all__ = ["Outcome", "Skipped", "replay"]


@dataclass(frozen=True)
class Outcome:
    """What the guards of each engine made of one recorded tool call (one decision per engine, in order)."""

    record: Record
    decisions: tuple[PostToolDecision, ...]

    @property
    def contexts(self) -> tuple[ContextEntry, ...]:
        """The reminders the model would read after this call's step, under the first engine."""
        return self.decisions[0].additional_contexts


@dataclass(frozen=True)
class Skipped:
    """A malformed input line that ``--skip-bad-lines`` passed over."""

    error: InputError


def replay(
    items: Iterable[Record | InputError], engines: Sequence[Engine], *, skip_bad_lines: bool = False
) -> Iterator[Outcome | Record | Skipped]:
    """Run each record through every engine (one, or two to compare): an Outcome per tool call; recorded reminders
    pass through unchanged. A malformed line raises its InputError, or is yielded as Skipped with ``skip_bad_lines``.
    """
    for item in items:
        if isinstance(item, InputError):
            if not skip_bad_lines:
                raise item
            yield Skipped(item)
        elif item.kind == "post-execute":
            # A record has every attribute of a ToolEvent (the engine's ToolCall): it goes in as it is.
            if len(engines) == 1:  # the usual case, without a generator per call
                yield Outcome(item, (engines[0].post_execute(item),))
            else:
                yield Outcome(item, tuple(engine.post_execute(item) for engine in engines))
        elif item.kind == "pre-step":
            for engine in engines:
                engine.pre_step(item.agent, user_prompt=item.user_prompt)
        elif item.kind == "forget":
            for engine in engines:
                engine.forget(item.agent)
        else:
            yield item
