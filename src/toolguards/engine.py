"""The engine a host calls: it runs the guards of one file as a waterfall around the host's own post-execute chain.

Guards chain in file order, the first outermost: each counts the call, then the rest of the chain runs (the host's
``next``), then each guard prepends its reminders to the decision that came back — so the first guard's reminder comes
first. The engine never raises into the host for anything a guard does: a failure is logged once per guard and kind
of error through ``logging.getLogger("toolguards")``, reported to the ``on_failure`` callback every time, and that
guard adds nothing. (An exception raised by the host's own ``next`` is the host's and propagates unchanged.)

Two things more, both off unless asked for. A guard in shadow (``shadow`` of ``build_engine``: the share of agents,
``toolguards.outcomes.split``) counts and decides as ever, but its reminders and blocks are withheld from those agents.
With ``on_outcome``, the engine follows each reminder of a guard that reminds of one call (``RemindsOfOneCall``) to
its outcome (``toolguards.outcomes``), keeping the waiting reminders in the same stores as the chains, and calls
``on_outcome`` with each resolved ``ReminderOutcome``, withheld ones included (``delivered`` False). A failing
``on_outcome`` loses that outcome, logged once, and never the host's call.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .events import PostToolDecision, Reminder, ReminderOutcome, ToolCall
from .guard import Call, Effect, Guard, GuardKind, RemindsOfOneCall
from .values import replace
from .warnings_once import WarnOnce

if TYPE_CHECKING:
    from jinja2 import Template

    from .outcomes.tracker import OutcomeCallback, OutcomeTracker
    from .stores import StoreFactory

__all__ = ["Engine", "FailureCallback", "Next", "build_engine", "outcome_callback"]

Next = Callable[[], Any]
#: Told of every failure the engine swallows: (the guard's id, or None for the engine itself; what failed; the error).
FailureCallback = Callable[[str | None, str, BaseException], None]

# What a call with nothing downstream decides. The decision is frozen, so every such call can share one: building a
# fresh one (a frozen dataclass with a __post_init__) used to cost a quarter of the guard's time per call.
_ACCEPT = PostToolDecision()


class Engine:
    """The configured guards of one guard file, ready for a host's post-execute events."""

    def __init__(
        self,
        guards: Sequence[Guard],
        *,
        source: str = "<guards>",
        locale: str = "en",
        on_failure: FailureCallback | None = None,
        shadow: Sequence[float] = (),
        trackers: Sequence[OutcomeTracker | None] = (),
        on_outcome: OutcomeCallback | None = None,
        split_prefix: str = "",
    ) -> None:
        self.guards: tuple[Guard, ...] = tuple(guards)
        self.source = source
        self.locale = locale
        self.on_failure = on_failure
        #: each guard's share of agents in shadow (0: none), in guard order
        self.shadow: tuple[float, ...] = tuple(shadow) or (0.0,) * len(self.guards)
        self.on_outcome = on_outcome
        #: what goes before an agent's key when the shadow split hashes it (a hook's ``<host>:<session>:``)
        self.split_prefix = split_prefix
        self._trackers: tuple[OutcomeTracker | None, ...] = (
            tuple(trackers) if on_outcome is not None and trackers else (None,) * len(self.guards))
        self._followed = any(self.shadow) or any(tracker is not None for tracker in self._trackers)
        self._warn_once = WarnOnce()

    def deliver_all(self) -> None:
        """Take every guard out of shadow (``replay`` and ``report`` show what a delivering guard would say)."""
        self.shadow = (0.0,) * len(self.guards)
        self._followed = any(tracker is not None for tracker in self._trackers)

    def __repr__(self) -> str:
        ids = ", ".join(guard.id for guard in self.guards)
        return f"<Engine {self.source} locale={self.locale} guards=[{ids}]>"

    def post_execute(self, event: ToolCall | Call, next: Next | None = None) -> Any:
        """Count ``event`` in every guard, run ``next``, and fold the guards' reminders into its decision."""
        effects = self._observe(event)
        decision = _ACCEPT if next is None else next()
        return decision if effects is None else self._fold(decision, effects)

    async def apost_execute(self, event: ToolCall | Call, next: Next | None = None) -> Any:
        """As ``post_execute``, for hosts whose ``next`` may return an awaitable."""
        effects = self._observe(event)
        decision = _ACCEPT if next is None else next()
        import inspect  # noqa: PLC0415 - only a host that awaits pays for it (a hook process never does)

        if inspect.isawaitable(decision):
            decision = await decision
        return decision if effects is None else self._fold(decision, effects)

    def pre_step(self, agent: Any, user_prompt: bool = False) -> None:
        """A step boundary; a step that carries a new user prompt resets that agent's chains."""
        try:
            resets = agent is not None and bool(user_prompt)
        except Exception as exc:  # a host's value whose truth cannot be told: no reset, never an error
            self._failed(None, "pre_step", exc)
            return
        if resets:
            for guard, tracker in zip(self.guards, self._trackers, strict=True):
                self._safely(guard, "reset", guard.reset, agent)
                if tracker is not None:
                    self._tell(self._safely(guard, "outcomes", tracker.end, agent))

    def forget(self, agent: Any) -> None:
        """The host disposed of ``agent``: drop its state in every guard (its waiting reminders are resolved)."""
        if agent is None:
            return
        for guard, tracker in zip(self.guards, self._trackers, strict=True):
            self._safely(guard, "forget", guard.forget, agent)
            if tracker is not None:
                self._tell(self._safely(guard, "outcomes", tracker.end, agent))

    def _observe(self, event: ToolCall | Call) -> list[Effect] | None:
        """Every guard's effect on this call, in guard order; None when there is none (most calls).

        ``event`` may be a ``Call`` already (replay builds one, so that its statistics share the canonical form).
        """
        try:
            if isinstance(event, Call):
                call = event
                if call.agent is None or not self.guards:
                    return None
            else:
                if event.agent is None or not self.guards:
                    return None
                call = Call(event)
        except Exception as exc:  # a tool name whose str() fails, an event missing attributes
            self._failed(None, "post_execute", exc)
            return None
        if self._followed:
            return self._observe_followed(call)
        effects = None
        for guard in self.guards:
            # _safely inlined: this loop runs on every call of every agent.
            try:
                effect = guard.observe(call)
            except Exception as exc:  # the guard is advisory: a failure loses one nudge, never the host's call
                self._failed(guard.id, "observe", exc)
                continue
            if effect is not None:
                if effects is None:
                    effects = [effect]
                else:
                    effects.append(effect)
        return effects

    def _observe_followed(self, call: Call) -> list[Effect] | None:
        """``_observe`` for an engine with a guard in shadow or outcomes to follow."""
        effects = None
        for guard, share, tracker in zip(self.guards, self.shadow, self._trackers, strict=True):
            try:
                effect = guard.observe(call)
            except Exception as exc:  # the guard is advisory: a failure loses one nudge, never the host's call
                self._failed(guard.id, "observe", exc)
                continue
            withheld = effect is not None and share > 0.0 and self._in_shadow(call.agent, share)
            if tracker is not None:
                reminders = () if effect is None else _facts(effect)
                try:
                    self._tell(tracker.observe(call, reminders, delivered=not withheld))
                except Exception as exc:
                    self._failed(guard.id, "outcomes", exc)
            if effect is not None and not withheld:
                effects = [effect] if effects is None else [*effects, effect]
        return effects

    def _in_shadow(self, agent: Any, share: float) -> bool:
        from .outcomes.split import in_share  # noqa: PLC0415 - only for a guard in shadow, only on a reminder

        return in_share(agent, share, self.split_prefix)

    def _tell(self, outcomes: list[ReminderOutcome] | None) -> None:
        if not outcomes or self.on_outcome is None:
            return
        for outcome in outcomes:
            try:
                self.on_outcome(outcome)
            except Exception as exc:  # an outcome log that cannot be written loses its line, never the host's call
                self._warn_once("on_outcome", exc)

    def _fold(self, decision: Any, effects: list[Effect]) -> Any:
        if not effects:
            return decision
        if not isinstance(decision, PostToolDecision):
            problem = TypeError(f"next() returned {type(decision).__name__}, not a PostToolDecision")
            self._failed(None, "post_execute", problem)
            return decision
        contexts = tuple(entry for effect in effects for entry in effect.contexts)
        feedback = next((effect.block_feedback for effect in effects if effect.block_feedback is not None), None)
        if feedback is None:
            if type(decision) is PostToolDecision:  # as replace() does, without its per-call introspection
                return PostToolDecision(decision.kind, contexts + decision.additional_contexts, decision.feedback,
                                        decision.value, decision.content)
            return replace(decision, additional_contexts=contexts + decision.additional_contexts)
        return replace(
            decision,
            kind="block",
            feedback=feedback if decision.kind != "block" or decision.feedback is None else decision.feedback,
            additional_contexts=contexts + decision.additional_contexts,
        )

    def _safely(self, guard: Guard, what: str, method: Callable[[Any], Any], argument: Any) -> Any:
        try:
            return method(argument)
        except Exception as exc:  # the guard is advisory: a failure loses one nudge, never the host's call
            self._failed(guard.id, what, exc)
            return None

    def _failed(self, guard_id: str | None, what: str, exc: Exception) -> None:
        """Log the failure once per place and kind, and tell the host's callback every time."""
        self._warn_once("engine" if guard_id is None else f"{guard_id}.{what}", exc)
        if self.on_failure is not None:
            try:
                self.on_failure(guard_id, what, exc)
            except Exception as callback_error:  # the host's own callback must not break its call either
                self._warn_once("on_failure", callback_error)


def outcome_callback(
    log: str | os.PathLike[str] | None, callback: OutcomeCallback | None
) -> OutcomeCallback | None:
    """What to tell of each outcome: the guard file's outcome log (``outcomes.log``, or a flag's), then ``callback``;
    None when neither is given (the engine then follows no outcome at all)."""
    if log is None:
        return callback
    from .outcomes.log import OutcomeLog  # noqa: PLC0415

    written = OutcomeLog(log)
    if callback is None:
        return written

    def both(outcome: ReminderOutcome) -> None:
        try:
            written(outcome)
        finally:  # a log that cannot be written does not keep the outcome from the host
            callback(outcome)

    return both


def _facts(effect: Effect) -> tuple[Reminder, ...]:
    return tuple(entry.reminder for entry in effect.contexts if entry.reminder is not None)


def build_engine(
    source: str,
    locale: str,
    guards: Sequence[tuple[GuardKind, str, Any, Mapping[str, Template]]],
    stores: StoreFactory,
    on_failure: FailureCallback | None = None,
    *,
    shadow: Sequence[float] = (),
    on_outcome: OutcomeCallback | None = None,
    split_prefix: str = "",
) -> Engine:
    """The engine of (kind, guard id, settings, templates by key) guards, each with its store from ``stores``; with
    ``on_outcome``, each guard that reminds of one call also keeps its waiting reminders in ``stores``."""
    built = [kind.create(guard_id, settings, slots, stores(guard_id).bind(kind.state))
             for kind, guard_id, settings, slots in guards]
    trackers: list[OutcomeTracker | None] = []
    if on_outcome is not None:
        from .outcomes.tracker import OutcomeTracker, pending_store_id  # noqa: PLC0415 - only when outcomes are wanted

        trackers = [OutcomeTracker(guard.id, stores(pending_store_id(guard.id)), guard.tracks)
                    if isinstance(guard, RemindsOfOneCall) else None for guard in built]
    return Engine(built, source=source, locale=locale, on_failure=on_failure, shadow=shadow, trackers=trackers,
                  on_outcome=on_outcome, split_prefix=split_prefix)
