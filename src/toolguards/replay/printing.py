"""How a replay is printed: each reminder as text, one JSON object per call, a summary, a comparison, a check."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..events import ContextEntry
from .feed import Outcome
from .records import Record
from .stats import UNLABELLED, Totals, advice

__all__ = ["Check", "compare_text", "counted", "jsonl_line", "reminder_text", "summary_text", "totals_line"]


def counted(n: int, thing: str, things: str | None = None) -> str:
    """``n`` and the thing, in the singular for one: ``1 tool call``, ``3 tool calls``."""
    return f"{n} {thing if n == 1 else things or thing + 's'}"


def _label(entry: ContextEntry) -> str:
    facts = entry.reminder
    return f"{facts.guard}/{facts.template}" if facts is not None else UNLABELLED[0]


def _summary(entry: ContextEntry, tool: str) -> str:
    return entry.reminder.summary if entry.reminder is not None else tool


def _where(path: str, record: Record) -> str:
    return f"{path}:{record.line} · agent {record.agent} · {record.tool}"


def reminder_text(path: str, outcome: Outcome) -> str:
    """Each reminder of one call: a header (where, agent, tool and count), then the text as the model reads it."""
    blocks = []
    for entry in outcome.contexts:
        summary = _summary(entry, outcome.record.tool)
        blocks.append(f"── {path}:{outcome.record.line} · agent {outcome.record.agent} · {summary} · {_label(entry)}\n"
                      f"{entry.text}\n")
    return "\n".join(blocks)


_quote = json.encoder.encode_basestring  # what json.dumps(..., ensure_ascii=False) prints a str with
_encode = json.JSONEncoder(ensure_ascii=False, default=str).encode  # json.dumps builds this anew on every call


def jsonl_line(outcome: Outcome, *, compare: bool = False) -> str:
    """The pinned JSON Lines object of one call, with its line break (``other`` holds the second guard file's
    contexts with --compare)."""
    record, contexts = outcome.record, outcome.decisions[0].additional_contexts
    agent, tool = record.agent, record.tool
    if not compare and type(tool) is str and type(record.line) is int and (agent is None or type(agent) is str):
        # The text json.dumps prints, at a fraction of its cost: most calls draw no reminder, and a guard's reminder
        # holds only strings and integers (a context with any other value takes json.dumps below).
        shown = "null" if agent is None else _quote(agent)
        entries = _contexts_text(contexts) if contexts else ""
        if entries is not None:
            return f'{{"line": {record.line}, "agent": {shown}, "tool": {_quote(tool)}, "contexts": [{entries}]}}\n'
    data: dict[str, Any] = {
        "line": record.line,
        "agent": record.agent,
        "tool": record.tool,
        "contexts": [entry.to_json() for entry in contexts],
    }
    if compare:
        data["other"] = [entry.to_json() for entry in outcome.decisions[1].additional_contexts]
    return _encode(data) + "\n"


def _contexts_text(contexts: Sequence[ContextEntry]) -> str | None:
    """Each entry's ``to_json()`` as json.dumps prints it, comma-separated, where their sources and metadata hold only
    plain scalars; else None."""
    texts = []
    for entry in contexts:
        source, metadata = _plain_object(entry.source), _plain_object(entry.metadata)
        if type(entry.text) is not str or source is None or metadata is None:
            return None
        texts.append(f'{{"text": {_quote(entry.text)}, "source": {source}, "metadata": {metadata}}}')
    return ", ".join(texts)


def _plain_object(mapping: Mapping[str, Any]) -> str | None:
    """A mapping of str keys to str, int, bool or None values as json.dumps prints it; None for anything else."""
    members = []
    for key, value in mapping.items():
        kind = type(value)
        if type(key) is not str:
            return None
        if kind is str:
            text = _quote(value)
        elif kind is int:
            text = int.__repr__(value)
        elif kind is bool:
            text = "true" if value else "false"
        elif value is None:
            text = "null"
        else:
            return None
        members.append(f"{_quote(key)}: {text}")
    return "{" + ", ".join(members) + "}"


def compare_text(path: str, outcome: Outcome, names: Sequence[str]) -> str | None:
    """The two guard files' reminders for one call, when they differ."""
    sides = [decision.additional_contexts for decision in outcome.decisions]
    if [e.to_json() for e in sides[0]] == [e.to_json() for e in sides[1]]:
        return None
    lines = [f"── {_where(path, outcome.record)}"]
    for name, entries in zip(names, sides, strict=True):
        if not entries:
            lines.append(f"{name}: (nothing)")
        for entry in entries:
            lines.append(f"{name}: {_label(entry)} · {_summary(entry, outcome.record.tool)}")
            lines.extend(f"    {text}" for text in entry.text.splitlines())
    return "\n".join(lines) + "\n"


def totals_line(totals: Totals, *, hint: bool = True) -> str:
    """One line: sessions, calls, agents, reminders (and records not read, skipped lines and failed inputs, if any)."""
    agents = totals.agent_count
    text = (f"replayed {counted(totals.sessions, 'session')}: {counted(totals.calls, 'tool call')} from "
            f"{counted(agents, 'agent')}; {counted(totals.reminder_count(), 'reminder')}")
    by_threshold: dict[tuple[str, int], int] = {}
    for stats in totals.tools.values():
        for key, n in stats.reminders.items():
            by_threshold[key] = by_threshold.get(key, 0) + n
    if by_threshold:
        text += " (" + ", ".join(f"{guard} at {count}: {n}" for (guard, count), n in sorted(by_threshold.items())) + ")"
    unread = sum(entry.count for entry in totals.unread.values())
    if unread:
        text += f"; {counted(unread, 'record')} not read" + (" (--summary lists them)" if hint else "")
    if totals.skipped:
        text += f"; {counted(totals.skipped, 'malformed line')} skipped"
    if totals.failed:
        text += f"; {counted(totals.failed, 'input')} failed"
    return text


def summary_text(totals: Totals, first_threshold: int | None) -> str:
    """Per tool: calls, runs of identical calls by length, reminders per threshold, and advice (about the first
    threshold of a repeat-tool-reminder guard; none without one)."""
    heading = "per tool (runs = identical consecutive calls of one agent, by length):"
    lines = [totals_line(totals, hint=False), "", heading]
    for tool, stats in sorted(totals.tools.items(), key=lambda item: (-item[1].calls, item[0])):
        runs = ", ".join(f"{length}×{n}" for length, n in sorted(stats.runs.items(), reverse=True) if length > 1)
        reminders = ", ".join(f"at {count}: {n}" for (_, count), n in sorted(stats.reminders.items()))
        lines.append(f"  {tool}: {counted(stats.calls, 'call')}; repeated runs: {runs or 'none'}; "
                     f"reminders: {reminders or 'none'}")
        hint = None if first_threshold is None else advice(tool, stats, first_threshold)
        if hint:
            lines.append(f"    advice: {hint}")
    if totals.unread:
        lines += ["", "records not read (a type or shape the importer does not know; --strict makes them errors):"]
        for (fmt, label), entry in sorted(totals.unread.items(), key=lambda item: (-item[1].count, item[0])):
            lines.append(f"  {entry.count} × {label} ({fmt}), first at {entry.path}:{entry.line}")
    return "\n".join(lines) + "\n"


class Check:
    """The parity check: reminders this guard produces against those recorded in the log, per guard id, in order."""

    def __init__(self, guard_ids: Sequence[str]) -> None:
        self.guard_ids = tuple(guard_ids)
        self.produced: dict[str, list[str]] = {guard: [] for guard in self.guard_ids}
        self.recorded: dict[str, list[str]] = {guard: [] for guard in self.guard_ids}

    @staticmethod
    def _item(summary: object, text: str) -> str:
        return f"[{summary}] {json.dumps(text, ensure_ascii=False)}"

    def outcome(self, outcome: Outcome) -> None:
        """Note what the guards produced for one call."""
        for entry in outcome.contexts:
            facts = entry.reminder
            if facts is not None and facts.guard in self.produced:
                self.produced[facts.guard].append(self._item(facts.summary, entry.text))

    def recorded_reminder(self, record: Record) -> None:
        """Note a reminder the log holds (only those of this file's guard ids are compared): its source is the log's
        own data, as the harness wrote it."""
        guard = str(record.source.get("plugin"))
        if guard in self.recorded:
            self.recorded[guard].append(self._item(record.source.get("summary"), record.text))

    def report(self, path: str) -> tuple[bool, str]:
        """(agree?, a readable report: a count per guard, or a unified diff of recorded vs produced)."""
        lines = []
        agree = True
        for guard in self.guard_ids:
            recorded, produced = self.recorded[guard], self.produced[guard]
            if recorded == produced:
                verb = "agrees" if len(produced) == 1 else "agree"
                lines.append(f"{path}: {guard}: {counted(len(produced), 'reminder')} {verb} with the log")
                continue
            agree = False
            lines.append(f"{path}: {guard}: the reminders differ from the log (- recorded, + produced):")
            lines.extend(
                difflib.unified_diff(recorded, produced, f"{path} (recorded)", f"{guard} (produced)", lineterm="")
            )
        return agree, "\n".join(lines) + "\n"
