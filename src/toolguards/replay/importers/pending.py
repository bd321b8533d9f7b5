"""The one read loop of every importer, and the queue that holds tool calls until their results arrive.

A transcript logs a call before its result, and parallel calls' results may come back in any order. The importers
queue each record as they read it; a call is ready once its result arrives or its agent's step ends (the importer says
when), anything else is ready at once, and records leave from the head of the queue only — so the output stays in
input order (the model's emitted order within a step) and each call carries its outcome.

Memory stays bounded: a queue longer than ``limit`` releases its head even without a result, so one call that never
gets an answer (a subagent's long run behind it, a truncated log) cannot hold back a multi-gigabyte input.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..records import InputError, Record
from ._document import messages
from ._json import Lines

__all__ = ["LIMIT", "Handle", "Pending", "Quick", "read_loop", "read_messages"]

LIMIT = 4096

#: What an importer does with one decoded value at its line: queue its records in ``Pending`` and return None, or
#: return what is wrong with it (the value is not the format at all), which becomes an InputError at that line.
Handle = Callable[[int, Any], "str | None"]
#: An importer's fast path for its commonest record: the record of a value that needs nothing else (no outcome to
#: wait for, no problem to word), or None to leave the value to its Handle.
Quick = Callable[[int, Any], "Record | None"]


class _Slot:
    """A queued post-execute record waiting for its outcome."""

    __slots__ = ("denied", "error", "item", "ready", "result")

    def __init__(self, item: Record) -> None:
        self.item = item
        self.ready = False
        self.result: Any = None
        self.error: str | None = None
        self.denied = False

    def output(self) -> Record:
        return self.item._replace(result=self.result, error=self.error, denied=self.item.denied or self.denied)


class Pending:
    """The records read but not yet released, and the calls of each agent's current step that await a result."""

    def __init__(self, limit: int = LIMIT) -> None:
        # Ready records sit in the queue as they are; only a call awaiting its outcome takes a slot.
        self._queue: deque[Record | InputError | _Slot] = deque()
        self._waiting: dict[str | None, list[_Slot]] = {}
        self._limit = limit
        #: Queue a record that needs nothing more (a step boundary, a recorded reminder, a malformed line).
        self.add: Callable[[Record | InputError], None] = self._queue.append  # the deque's own, without a frame

    def call(self, record: Record) -> None:
        """Queue a post-execute record; it waits for ``resolve`` or the end of its agent's step."""
        slot = _Slot(record)
        self._queue.append(slot)
        self._waiting.setdefault(record.agent, []).append(slot)

    def before_waiting(self, agent: str | None, record: Record) -> None:
        """Queue a record before the calls of ``agent`` still waiting (a turn's usage, logged after the calls it
        made); at the end of the queue when none waits."""
        waiting = self._waiting.get(agent)
        if not waiting:
            self._queue.append(record)
            return
        self._queue.insert(self._queue.index(waiting[0]), record)

    def skip(self, line: int, label: str) -> None:
        """Queue a ``skipped`` record: a record of the format at ``line`` that the importer does not read."""
        self._queue.append(Record("skipped", line, text=label))

    def resolve(self, agent: str | None, call_id: str, result: Any, error: str | None, denied: bool = False) -> bool:
        """Give the waiting call ``call_id`` of ``agent`` its outcome; False when no such call is waiting."""
        waiting = self._waiting.get(agent, [])
        for index, slot in enumerate(waiting):
            if slot.item.call_id == call_id:
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
        while queue:
            head = queue[0]
            if isinstance(head, _Slot):
                if not head.ready:
                    if len(queue) <= self._limit:
                        return
                    self._forget(head)
                queue.popleft()
                yield head.output()
            else:
                queue.popleft()
                yield head

    def finish(self) -> Iterator[Record | InputError]:
        """End of input: every step ends, and everything left is released."""
        for agent in list(self._waiting):
            self.end_step(agent)
        yield from self.release()

    def _forget(self, slot: _Slot) -> None:
        waiting = self._waiting.get(slot.item.agent, [])
        waiting[:] = [other for other in waiting if other is not slot]


def read_loop(
    path: str,
    items: Iterable[tuple[int, Any] | InputError],
    pending: Pending,
    handle: Handle,
    quick: Quick | None = None,
) -> Iterator[Record | InputError]:
    """The records of an input, in input order: ``handle`` queues each decoded value's records in ``pending`` (or
    says what is wrong with it); a line that did not decode is queued as its InputError; at the end every step ends.
    Every importer reads through this loop. ``quick``, when given, is tried first while nothing is queued: its
    record goes out at once, as ``handle`` would have sent it."""
    queue = pending._queue
    for item in items:
        if type(item) is tuple:
            line, value = item
            if quick is not None and not queue:
                record = quick(line, value)
                if record is not None:
                    yield record
                    continue
            problem = handle(line, value)
            if problem is not None:
                queue.append(InputError(path, line, problem))
        else:
            queue.append(item)  # type: ignore[arg-type]  # an InputError: a line that is not JSON
        # Pending.release() inlined for the head that is ready at once, as nearly every record is.
        while queue and type(queue[0]) is not _Slot:
            yield queue.popleft()  # type: ignore[misc]  # not a _Slot
        if queue:
            yield from pending.release()
    yield from pending.finish()


def read_messages(path: str, lines: Lines, pending: Pending, handle: Handle) -> Iterator[Record | InputError]:
    """The records of a message list (OpenAI, Anthropic): a JSON array of messages, a request body, or JSON Lines of
    messages, read through ``read_loop``."""
    return read_loop(path, messages(path, lines), pending, handle)
