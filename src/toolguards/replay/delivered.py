"""After the reminder, in recorded sessions: the reminders really delivered, their outcomes beside the guard's
would-fire points as a control, and what the loops cost in tokens (and money, with a price table).

A ``Followup`` reads one session's feed (``replay.feed``: the calls with the guards' decisions, and the records in
between) and gives its ``Followups``; those of many sessions add up (``merge``). ``toolguards replay --summary`` and
``toolguards report`` both read them, so the two agree.

Delivered reminders are the session's ``recorded-reminder`` records, each after the call it follows:

- a reminder whose text is one this guard file gives at that call (a toolguards hook's context, as Claude Code, Codex
  CLI and Gemini CLI record it; the reference harness's own injected message, byte-identical to ours): it takes that
  reminder's facts (guard, template, tool, count);
- the harness's notice of a plugin this guard file does not give (``source.plugin``, ``source.form: notice``; its
  runtime-context snapshots are not reminders), and a host's own nudge (Gemini
  CLI's "Potential loop detected": ``source.host`` and ``source.nudge``): labelled so, about the call before it;
- any other hook context (another hook's) is not a reminder and is passed over.

Each delivered reminder's outcome follows the definition of ``toolguards.outcomes`` over the calls after it, with the
same ``OutcomeTracker`` the engine uses live. A session with no delivered reminder of a guard gives that guard's
would-fire points (the reminders it gives in replay) as not delivered, with their outcomes: the control. A row is
(guard, template, tool, model, delivered) with its counts; the model is the agent's, from the session's usage
records, where the format names it.

The cost: each ``usage`` record is one model turn, before the calls it made; its tokens go to the run of identical
calls (same tool, same canonical arguments, over the calls the first repeat-tool-reminder guard tracks) that its first
call belongs to. A run at or past the guard's first threshold is a loop: all its turns' tokens are ``in_loops``,
those of its calls after the first threshold (after the first reminder) ``after_reminder``, totalled and per tool, and
priced by the price table where the turn's model has a price.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..engine import Engine
from ..events import OUTCOMES, Reminder, ReminderOutcome
from ..guard import Call, RemindsOfOneCall, call_key
from ..guardfile.prices import NO_PRICES, PriceTable
from ..kinds.repeat_tool_reminder import RepeatToolReminder
from ..outcomes.tracker import OutcomeTracker
from ..stores.memory import MemoryStore
from .feed import Outcome
from .records import Record

__all__ = ["Followup", "Followups", "RowKey", "Tokens"]

#: (guard, template, tool, model, delivered)
RowKey = tuple[str, str, str, "str | None", bool]


@dataclass
class Tokens:
    """Input and output tokens, and what the priced ones cost (``priced``: the tokens a price applied to)."""

    input: int = 0
    output: int = 0
    dollars: float = 0.0
    priced: int = 0

    def add(self, other: Tokens) -> None:
        self.input += other.input
        self.output += other.output
        self.dollars += other.dollars
        self.priced += other.priced

    def to_json(self) -> dict[str, Any]:
        return {"input": self.input, "output": self.output}


@dataclass
class Row:
    """The counts behind one row: reminders, each outcome, and the identical calls that followed in all."""

    reminders: int = 0
    changed: int = 0
    repeated: int = 0
    ended: int = 0
    followed: int = 0

    def add(self, other: Row) -> None:
        for name in ("reminders", *OUTCOMES, "followed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Followups:
    """What followed the reminders of some sessions, and what their loops cost."""

    rows: defaultdict[RowKey, Row] = field(default_factory=lambda: defaultdict(Row))
    #: every turn's tokens (the session's usage records), whether in a loop or not
    tokens: Tokens = field(default_factory=Tokens)
    in_loops: Tokens = field(default_factory=Tokens)
    after_reminder: Tokens = field(default_factory=Tokens)
    tools_in_loops: defaultdict[str, Tokens] = field(default_factory=lambda: defaultdict(Tokens))
    tools_after_reminder: defaultdict[str, Tokens] = field(default_factory=lambda: defaultdict(Tokens))
    #: whether any usage was recorded at all (a format without usage records shows no cost)
    usage: bool = False

    def merge(self, other: Followups) -> None:
        """Add another session's (or run's) figures to these."""
        for key, row in other.rows.items():
            self.rows[key].add(row)
        for mine, theirs in ((self.tokens, other.tokens), (self.in_loops, other.in_loops),
                             (self.after_reminder, other.after_reminder)):
            mine.add(theirs)
        for mine_by, theirs_by in ((self.tools_in_loops, other.tools_in_loops),
                                   (self.tools_after_reminder, other.tools_after_reminder)):
            for tool, tokens in theirs_by.items():
                mine_by[tool].add(tokens)
        self.usage = self.usage or other.usage


@dataclass
class _Run:
    """A run of identical calls of one agent, and the tokens of its turns."""

    tool: str
    key: tuple[str, str]
    length: int = 1
    all: Tokens = field(default_factory=Tokens)
    after: Tokens = field(default_factory=Tokens)


class Followup:
    """Reads one session's feed (``item`` for each, then ``finish``) into its ``Followups``."""

    def __init__(self, engine: Engine, prices: PriceTable = NO_PRICES) -> None:
        self.prices = prices
        first = next((guard for guard in engine.guards if isinstance(guard, RepeatToolReminder)), None)
        self.threshold = first.settings.thresholds[0] if first is not None else None
        self._tracked = first.tracks if first is not None else None
        self._guards = {guard.id: guard for guard in engine.guards if isinstance(guard, RemindsOfOneCall)}
        self.found = Followups()
        self._would: dict[str, OutcomeTracker] = {}
        self._delivered: dict[str, OutcomeTracker] = {}
        self._delivered_rows: defaultdict[RowKey, Row] = defaultdict(Row)
        self._control_rows: defaultdict[RowKey, Row] = defaultdict(Row)
        self._delivered_labels: set[str] = set()
        self._model: dict[str | None, str | None] = {}
        self._turn: dict[str | None, Tokens] = {}
        self._runs: dict[str | None, _Run] = {}
        #: per agent: its last call not yet shown to the delivered trackers, and the reminders recorded after it
        self._last: dict[str | None, tuple[Call, list[Reminder]]] = {}
        self._contexts: dict[str | None, tuple[Any, ...]] = {}

    def item(self, item: Any) -> None:
        """One item of the feed: an Outcome, or a record passed through."""
        if type(item) is Outcome:
            self._call(item)
        elif isinstance(item, Record):
            if item.kind == "recorded-reminder":
                self._recorded(item)
            elif item.kind == "usage":
                self._usage(item)
            elif item.kind == "forget" or (item.kind == "pre-step" and item.user_prompt):
                self._end(item.agent)

    def finish(self) -> Followups:
        """The session is over: every run ends, every waiting reminder is resolved."""
        for agent in list({*self._runs, *self._last, *self._model}):
            self._end(agent)
        for key, row in self._delivered_rows.items():
            self.found.rows[key].add(row)
        for key, row in self._control_rows.items():
            if key[0] not in self._delivered_labels:
                self.found.rows[key].add(row)
        return self.found

    # --- calls and reminders ---------------------------------------------------------------------------------------

    def _call(self, outcome: Outcome) -> None:
        record, decisions, call = outcome
        agent = record.agent
        if agent is None:
            return
        self._flush(agent)
        facts = [entry.reminder for entry in decisions[0].additional_contexts if entry.reminder is not None]
        for guard_id, guard in self._guards.items():
            mine = [reminder for reminder in facts if reminder.guard == guard_id]
            tracker = self._would.get(guard_id)
            if tracker is None:
                tracker = self._would[guard_id] = OutcomeTracker(guard_id, MemoryStore(), guard.tracks)
            self._count(self._control_rows, tracker.observe(call, mine, delivered=False))
        self._last[agent] = (call, [])
        self._contexts[agent] = decisions[0].additional_contexts
        self._spend(agent, call)

    def _recorded(self, record: Record) -> None:
        last = self._last.get(record.agent)
        if last is None:
            return  # a reminder before any call: nothing it could be about
        call, found = last
        ours = [entry.reminder for entry in self._contexts.get(record.agent, ())
                if entry.reminder is not None and entry.text and entry.text in record.text]
        if ours:
            found.extend(ours)
            return
        source = record.source
        run = self._runs.get(record.agent)
        count = run.length if run is not None else 1
        if source.get("kind") == "plugin" and source.get("form") == "notice" and isinstance(source.get("plugin"), str):
            label, template = str(source["plugin"]), "recorded"
        elif source.get("kind") == "host" and isinstance(source.get("host"), str):
            label, template = str(source["host"]), str(source.get("nudge", "nudge"))
        else:
            return  # another hook's context: not a reminder
        found.append(Reminder(label, label, call.tool, count, template, f"{call.tool} × {count}"))

    def _flush(self, agent: str | None) -> None:
        """Show the agent's last call, with the reminders recorded after it, to the delivered trackers."""
        last = self._last.pop(agent, None)
        if last is None:
            return
        call, reminders = last
        for reminder in reminders:
            self._delivered_labels.add(reminder.guard)
            if reminder.guard not in self._delivered:
                guard = self._guards.get(reminder.guard)
                tracks = guard.tracks if guard is not None else None
                self._delivered[reminder.guard] = OutcomeTracker(reminder.guard, MemoryStore(), tracks)
        for label, tracker in self._delivered.items():
            mine = [reminder for reminder in reminders if reminder.guard == label]
            self._count(self._delivered_rows, tracker.observe(call, mine, delivered=True))

    def _end(self, agent: str | None) -> None:
        self._flush(agent)
        for tracker in self._would.values():
            self._count(self._control_rows, tracker.end(agent))
        for tracker in self._delivered.values():
            self._count(self._delivered_rows, tracker.end(agent))
        run = self._runs.pop(agent, None)
        if run is not None:
            self._close(run)
        self._turn.pop(agent, None)

    def _count(self, rows: defaultdict[RowKey, Row], outcomes: list[ReminderOutcome]) -> None:
        for outcome in outcomes:
            facts = outcome.reminder
            row = rows[(facts.guard, facts.template, facts.tool, self._model.get(outcome.agent), outcome.delivered)]
            row.reminders += 1
            setattr(row, outcome.outcome, getattr(row, outcome.outcome) + 1)
            row.followed += outcome.followed

    # --- tokens ----------------------------------------------------------------------------------------------------

    def _usage(self, record: Record) -> None:
        found = self.found
        found.usage = True
        tokens = Tokens(record.input_tokens, record.output_tokens)
        price = self.prices.price(record.model)
        if price is not None:
            tokens.dollars = price.cost(tokens.input, tokens.output)
            tokens.priced = tokens.input + tokens.output
        found.tokens.add(tokens)
        if record.model is not None:
            self._model[record.agent] = record.model
        self._turn[record.agent] = tokens  # a turn that made no call before the next one is in no run

    def _spend(self, agent: str | None, call: Call) -> None:
        """Follow the agent's run over this call, and give it the tokens of the turn that made the call."""
        turn = self._turn.pop(agent, None)
        run = self._runs.get(agent)
        if self._tracked is None or self._tracked(call.tool):
            key = call_key(call)
            if run is not None and run.key == key:
                run.length += 1
            else:
                if run is not None:
                    self._close(run)
                run = self._runs[agent] = _Run(call.tool, key)
        if run is None or turn is None:
            return
        run.all.add(turn)
        if self.threshold is not None and run.length > self.threshold:
            run.after.add(turn)

    def _close(self, run: _Run) -> None:
        if self.threshold is None or run.length < self.threshold:
            return
        found = self.found
        found.in_loops.add(run.all)
        found.after_reminder.add(run.after)
        found.tools_in_loops[run.tool].add(run.all)
        found.tools_after_reminder[run.tool].add(run.after)
