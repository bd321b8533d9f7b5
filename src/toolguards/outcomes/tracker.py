"""One guard's reminders waiting for their outcome, per agent, in a state store (defined in ``toolguards.outcomes``).

An agent with reminders waiting has one ``Waiting`` state: the digest of the reminded call's key, its tool, how many
identical calls have come since the first waiting reminder (``seen``), the recent call ids (a re-delivered call counts
once), and each waiting reminder with the ``seen`` it came at. Every tracked call steps it: the identical call adds
one to ``seen``; another call resolves every waiting reminder (``repeated`` with ``followed = seen - at`` when any
identical call followed it, else ``changed``); the end of the run (``end``) resolves them as ``repeated`` or
``ended``. A state of an agent with nothing waiting is no state at all, so an agent that never drew a reminder costs a
store read per call and nothing more.

At most ``WAITING_LIMIT`` reminders of one run wait (a guard with ``repeatEvery`` on a run of thousands of calls would
otherwise grow its state without end): past that the oldest is resolved at once as ``repeated``, with the identical
calls counted up to then.

The persisted form (``PENDING_STATE``, named ``reminder-outcomes``, version 1) is
``{"digest", "tool", "seen", "callIds", "reminders": [[at, kind, count, template, summary, delivered], …]}``, kept
under the store id ``pending_store_id(guard id)`` beside the guard's own chains.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple, cast

from ..events import OutcomeKind, Reminder, ReminderOutcome
from ..guard import Call, CallIds, call_ids_from_json, call_key, digest_function, remember_call_id, seen_call_id
from ..stores.base import StateStore

__all__ = ["PENDING_STATE", "WAITING_LIMIT", "OutcomeCallback", "OutcomeTracker", "Waiting", "pending_store_id"]

#: Told of every resolved outcome.
OutcomeCallback = Callable[[ReminderOutcome], None]

WAITING_LIMIT = 64


def pending_store_id(guard_id: str) -> str:
    """The store id under which a guard's waiting reminders are kept (beside its chains, under ``guard_id``)."""
    return f"{guard_id}#outcomes"  # the loader refuses a guard id that would be another guard's (OUTCOMES_SUFFIX)


class _Reminded(NamedTuple):
    at: int
    kind: str
    run: int  # the reminder's count (``count`` is a tuple's method)
    template: str
    summary: str
    delivered: bool


class Waiting(NamedTuple):
    """An agent's reminders waiting for their outcome (see the module docstring)."""

    digest: int
    tool: str
    seen: int
    call_ids: CallIds
    reminders: tuple[_Reminded, ...]


#: A resolved reminder, before the guard id and agent are added: (its facts, its tool, outcome, followed).
_Resolved = tuple[_Reminded, str, OutcomeKind, int]


class _PendingState:
    name = "reminder-outcomes"
    version = 1

    def to_json(self, state: Waiting) -> dict[str, Any]:
        return {"digest": state.digest, "tool": state.tool, "seen": state.seen,
                "callIds": None if state.call_ids is None else list(state.call_ids),
                "reminders": [list(reminder) for reminder in state.reminders]}

    def from_json(self, data: Any) -> Waiting:
        if not isinstance(data, dict) or set(data) != {"digest", "tool", "seen", "callIds", "reminders"}:
            raise ValueError("not a reminder-outcomes state")
        digest, tool, seen, reminders = data["digest"], data["tool"], data["seen"], data["reminders"]
        if not (type(digest) is int and isinstance(tool, str) and type(seen) is int and seen >= 0
                and isinstance(reminders, list) and reminders):
            raise ValueError("a reminder-outcomes state needs `digest`, `tool`, `seen` and `reminders`")
        return Waiting(digest, tool, seen, call_ids_from_json(data["callIds"]), tuple(map(_reminded, reminders)))


def _reminded(data: Any) -> _Reminded:
    if not (isinstance(data, list) and len(data) == 6 and type(data[0]) is int and isinstance(data[1], str)
            and type(data[2]) is int and isinstance(data[3], str) and isinstance(data[4], str)
            and isinstance(data[5], bool)):
        raise ValueError("a waiting reminder is [at, kind, count, template, summary, delivered]")
    return _Reminded(*data)


PENDING_STATE = _PendingState()


def _resolve(state: Waiting, ending: OutcomeKind) -> list[_Resolved]:
    """Every waiting reminder of ``state`` resolved: ``repeated`` if an identical call followed it, else ``ending``."""
    return [(item, state.tool, "repeated" if state.seen > item.at else ending, state.seen - item.at)
            for item in state.reminders]


def _step(
    digest: int, tool: str, call_id: str | None, reminded: tuple[_Reminded, ...], state: Waiting | None
) -> tuple[Waiting | None, list[_Resolved]]:
    """One tracked call (``reminded``: the reminders it drew, their ``at`` still to be set)."""
    resolved: list[_Resolved] = []
    seen, ids, kept = 0, None, cast("tuple[_Reminded, ...]", ())
    if state is not None:
        if seen_call_id(state.call_ids, call_id):
            return state, resolved  # a re-delivered call: not counted again
        if state.digest == digest:
            seen, ids, kept = state.seen + 1, state.call_ids, state.reminders
        else:
            resolved = _resolve(state, "changed")
    waiting = kept + tuple(item._replace(at=seen) for item in reminded)
    if not waiting:
        return None, resolved
    if len(waiting) > WAITING_LIMIT:
        early = waiting[: len(waiting) - WAITING_LIMIT]
        resolved += [(item, tool, "repeated", seen - item.at) for item in early]
        waiting = waiting[len(early):]
    return Waiting(digest, tool, seen, remember_call_id(ids, call_id), waiting), resolved


def _end(state: Waiting | None) -> tuple[None, list[_Resolved]]:
    return None, [] if state is None else _resolve(state, "ended")


class OutcomeTracker:
    """Follows one guard's reminders to their outcomes, per agent, in ``store`` (bound to ``PENDING_STATE`` here);
    ``tracks(tool)`` says which calls the guard's chain counts (None: every call)."""

    def __init__(self, guard_id: str, store: StateStore, tracks: Callable[[str], bool] | None = None) -> None:
        self.guard_id = guard_id
        self._store = store.bind(PENDING_STATE)
        self._digest = digest_function(store)
        self._tracks = tracks

    def observe(self, call: Call, reminders: Sequence[Reminder] = (), delivered: bool = True) -> list[ReminderOutcome]:
        """One call of ``call.agent`` and the reminders it drew from this guard; the outcomes it resolves."""
        if self._tracks is not None and not self._tracks(call.tool):
            return []
        reminded = tuple(_Reminded(0, r.kind, r.count, r.template, r.summary, delivered) for r in reminders)
        digest = self._digest(*call_key(call))
        step = partial(_step, digest, call.tool, call.event.call_id, reminded)
        return self._outcomes(call.agent, self._store.update(call.agent, step))

    def end(self, agent: Any) -> list[ReminderOutcome]:
        """The agent's run is over (a new user prompt, the agent forgotten, the session ended): resolve its waiting
        reminders."""
        return self._outcomes(agent, self._store.update(agent, _end))

    def _outcomes(self, agent: Any, resolved: list[_Resolved]) -> list[ReminderOutcome]:
        label = agent if isinstance(agent, str) else None
        return [ReminderOutcome(Reminder(self.guard_id, item.kind, tool, item.run, item.template, item.summary),
                                outcome, followed, item.delivered, label)
                for item, tool, outcome, followed in resolved]
