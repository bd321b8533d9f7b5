"""The service's Prometheus metrics, through prometheus-client (a small, well-kept library), in a registry of its own.

``GET /metrics`` answers them in the Prometheus text format:

- ``toolguards_events_total{type}``: events handled, by type (``post-execute``, ``pre-step``, ``forget``);
- ``toolguards_reminders_total{guard, template}``: reminders handed out, by guard id and template slot;
- ``toolguards_hook_events_total{host, action}``: hook events (``POST /hooks/HOST``), by host and what the event asked
  for (``count``, ``reset``, ``ignore``); their calls count in ``toolguards_reminders_total`` like events do;
- ``toolguards_reminder_outcomes_total{guard, template, outcome, delivered}``: what followed each reminder once its run
  ended (``changed``, ``repeated``, ``ended``: ``toolguards.outcomes``), with ``delivered`` ``false`` for a reminder a
  guard in shadow withheld, so the two arms of an A/B split are told apart;
- ``toolguards_decisions_total{decision}``: post-execute answers, ``accept`` or ``block`` (a guard file may block);
- ``toolguards_store_errors_total{guard}``: store failures (each one a guard that added nothing to a call);
- ``toolguards_guard_failures_total{guard, operation}``: any other failure a guard had (a bug: see the log);
- ``toolguards_requests_total{endpoint, status}`` and ``toolguards_request_duration_seconds{endpoint}``: requests and
  their latency inside the service (from the request's arrival at the application to its answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

from ..events import ContextEntry, PostToolDecision, ReminderOutcome

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    """The counters and the latency histogram of one service process."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.events = Counter("toolguards_events", "Events handled, by type.", ["type"], registry=registry)
        self.reminders = Counter("toolguards_reminders", "Reminders handed out, by guard and template.",
                                 ["guard", "template"], registry=registry)
        self.hook_events = Counter("toolguards_hook_events", "Hook events handled, by host and action.",
                                   ["host", "action"], registry=registry)
        self.outcomes = Counter("toolguards_reminder_outcomes",
                                "Reminders' outcomes once their run ended, by guard, template, outcome and delivery.",
                                ["guard", "template", "outcome", "delivered"], registry=registry)
        self.decisions = Counter("toolguards_decisions", "Post-execute answers, accept or block.", ["decision"],
                                 registry=registry)
        self.store_errors = Counter("toolguards_store_errors", "Store failures, by guard (the guard added nothing).",
                                    ["guard"], registry=registry)
        self.guard_failures = Counter("toolguards_guard_failures", "Other guard failures, by guard and operation.",
                                      ["guard", "operation"], registry=registry)
        self.requests = Counter("toolguards_requests", "Requests answered, by endpoint and status.",
                                ["endpoint", "status"], registry=registry)
        self.latency = Histogram("toolguards_request_duration_seconds", "Time to answer a request, by endpoint.",
                                 ["endpoint"], registry=registry, buckets=_LATENCY_BUCKETS)
        self._post_execute = self.events.labels("post-execute")
        self._accepted = self.decisions.labels("accept")
        # (endpoint, status) → its request counter and its endpoint's histogram: labels() checks and locks each time
        self._answered: dict[tuple[str, int], tuple[Any, Any]] = {}

    def post_execute(self, decision: PostToolDecision) -> None:
        """Count one post-execute event and what the guards added to it."""
        self._post_execute.inc()
        if decision.kind == "accept":
            self._accepted.inc()
        else:
            self.decisions.labels(decision.kind).inc()
        self.reminded(decision.additional_contexts)

    def reminded(self, contexts: Sequence[ContextEntry]) -> None:
        """Count the reminders among these contexts."""
        for entry in contexts:
            reminder = entry.reminder
            if reminder is not None:
                self.reminders.labels(reminder.guard, reminder.template).inc()

    def outcome(self, outcome: ReminderOutcome) -> None:
        """Count one resolved outcome (the engine's ``on_outcome``)."""
        facts = outcome.reminder
        self.outcomes.labels(facts.guard, facts.template, outcome.outcome,
                             "true" if outcome.delivered else "false").inc()

    def hook_event(self, host: str, action: str) -> None:
        """Count one hook event."""
        self.hook_events.labels(host, action).inc()

    def answered(self, endpoint: str, status: int, seconds: float) -> None:
        """Count one answered request and its latency."""
        children = self._answered.get((endpoint, status))
        if children is None:
            children = self.requests.labels(endpoint, str(status)), self.latency.labels(endpoint)
            self._answered[endpoint, status] = children
        children[0].inc()
        children[1].observe(seconds)

    def render(self) -> bytes:
        """Every metric in the Prometheus text format."""
        return generate_latest(self.registry)
