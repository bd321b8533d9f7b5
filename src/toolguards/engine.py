"""The engine a host calls: it runs the guards of one file as a waterfall around the host's own post-execute chain.

Guards chain in file order, the first outermost: each counts the call, then the rest of the chain runs (the host's
``next``), then each guard prepends its reminders to the decision that came back — so the first guard's reminder comes
first. The engine never raises into the host for anything a guard does: a failure is logged once per guard and kind
of error through ``logging.getLogger("toolguards")``, reported to the ``on_failure`` callback every time, and that
guard adds nothing. (An exception raised by the host's own ``next`` is the host's and propagates unchanged.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .events import PostToolDecision, ToolCall
from .guard import Call, Effect, Guard, GuardKind
from .values import replace
from .warnings_once import WarnOnce

if TYPE_CHECKING:
    from jinja2 import Template

    from .stores import StoreFactory

__all__ = ["Engine", "FailureCallback", "Next", "build_engine"]

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
    ) -> None:
        self.guards: tuple[Guard, ...] = tuple(guards)
        self.source = source
        self.locale = locale
        self.on_failure = on_failure
        self._warn_once = WarnOnce()

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
            for guard in self.guards:
                self._safely(guard, "reset", guard.reset, agent)

    def forget(self, agent: Any) -> None:
        """The host disposed of ``agent``: drop its state in every guard."""
        if agent is None:
            return
        for guard in self.guards:
            self._safely(guard, "forget", guard.forget, agent)

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


def build_engine(
    source: str,
    locale: str,
    guards: Sequence[tuple[GuardKind, str, Any, Mapping[str, Template]]],
    stores: StoreFactory,
    on_failure: FailureCallback | None = None,
) -> Engine:
    """The engine of (kind, guard id, settings, templates by key) guards, each with its store from ``stores``."""
    built = [kind.create(guard_id, settings, slots, stores(guard_id).bind(kind.state))
             for kind, guard_id, settings, slots in guards]
    return Engine(built, source=source, locale=locale, on_failure=on_failure)
