"""Holds tool calls until their results arrive, and releases every record in input order.

A transcript logs a call before its result, and parallel calls' results may come back in any order. The importers
queue each record as they read it; a call is ready once its result arrives or its agent's step ends (the importer says
when), anything else is ready at once, and records leave from the head of the queue only — so the output stays in
input order (the model's emitted order within a step) and each call carries its outcome.

Memory stays bounded: a queue longer than ``limit`` releases its head even without a result, so one call that never
gets an answer (a subagent's long run behind it, a truncated log) cannot hold back a multi-gigabyte input.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from ..records import InputError, Record
from ._json import Lines, messages

__all__ = ["LIMIT", "Pending", "read_messages"]

LIMIT = 4096


@dataclasses.dataclass
class _Slot:
    item: Record | InputError
    ready: bool
    result: Any = None
    error: str | None = None
    denied: bool = False

    def output(self) -> Record | InputError:
        if not isinstance(self.item, Record) or self.item.kind != "post-execute":
            return self.item
        return self.item._replace(result=self.result, error=self.error, denied=self.item.denied or self.denied)


class Pending:
    """The records read but not yet released, and the calls of each agent's current step that await a result."""

    def __init__(self, limit: int = LIMIT) -> None:
        self._queue: deque[_Slot] = deque()
        self._waiting: dict[str | None, list[_Slot]] = {}
        self._limit = limit

    def call(self, record: Record) -> None:
        """Queue a post-execute record; it waits for ``resolve`` or the end of its agent's step."""
        slot = _Slot(record, ready=False)
        self._queue.append(slot)
        self._waiting.setdefault(record.agent, []).append(slot)

    def add(self, item: Record | InputError) -> None:
        """Queue a record that needs nothing more (a step boundary, a recorded reminder, a malformed line)."""
        self._queue.append(_Slot(item, ready=True))

    def resolve(self, agent: str | None, call_id: str, result: Any, error: str | None, denied: bool = False) -> bool:
        """Give the waiting call ``call_id`` of ``agent`` its outcome; False when no such call is waiting."""
        waiting = self._waiting.get(agent, [])
        for index, slot in enumerate(waiting):
            if isinstance(slot.item, Record) and slot.item.call_id == call_id:
                slot.result, slot.error, slot.ready = result, error, True
                slot.denied = slot.denied or denied
                del waiting[index]
                return True
        return False

    def deny_first_waiting(self, agent: str | None) -> bool:
        """Mark denied the oldest call of ``agent`` still waiting for its result and not yet denied."""
        for slot in self._waiting.get(agent, []):
            if not slot.denied:
                slot.denied = True
                return True
        return False

    def end_step(self, agent: str | None) -> None:
        """``agent``'s step ended: its calls still waiting keep no result and are ready."""
        for slot in self._waiting.pop(agent, []):
            slot.ready = True

    def waiting(self, agent: str | None) -> int:
        """How many calls of ``agent`` await their result."""
        return len(self._waiting.get(agent, []))

    def release(self) -> Iterator[Record | InputError]:
        """The records ready at the head of the queue, in input order."""
        queue = self._queue
        while queue and (queue[0].ready or len(queue) > self._limit):
            slot = queue.popleft()
            if not slot.ready:
                self._forget(slot)
            yield slot.output()

    def finish(self) -> Iterator[Record | InputError]:
        """End of input: every step ends, and everything left is released."""
        for agent in list(self._waiting):
            self.end_step(agent)
        yield from self.release()

    def _forget(self, slot: _Slot) -> None:
        agent = slot.item.agent if isinstance(slot.item, Record) else None
        waiting = self._waiting.get(agent, [])
        waiting[:] = [other for other in waiting if other is not slot]


def read_messages(
    path: str, lines: Lines, handle: Callable[[Pending, int, Any], str | None]
) -> Iterator[Record | InputError]:
    """The records of a message list (OpenAI, Anthropic): ``handle`` queues each message's records, or says what is
    wrong with it; records leave in input order."""
    pending = Pending()
    for item in messages(path, lines):
        if isinstance(item, InputError):
            pending.add(item)
        else:
            number, message = item
            problem = handle(pending, number, message)
            if problem:
                pending.add(InputError(path, number, problem))
        yield from pending.release()
    yield from pending.finish()
