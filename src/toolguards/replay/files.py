"""``toolguards replay``'s work on one input file: its outcomes printed (each reminder as the model reads it, one
JSON object per call, where two guard files differ, or the parity check of a dsh log) and counted into its totals.

``replay_file`` replays one file, in this process (its output written straight to stdout and stderr) or in a worker
process of ``batch.run_each`` (its output kept in spills that the parent copies out in input order); a ``Worker`` holds
one process's engines, loaded once and reset between files (``session.reset``), so each file is its own session.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from ..engine import Engine
from ..guardfile.loader import load
from ..guardfile.prices import NO_PRICES, PriceTable
from ..resources import default_guard_file
from .batch import Spill
from .chains import Chains, compares_of, tracked
from .delivered import Followup, Followups
from .feed import Outcome, Skipped
from .printing import Check, compare_text, jsonl_line, reminder_text
from .records import InputError, Record
from .session import Input, Reading, outcomes, reset
from .stats import Totals

__all__ = ["Result", "Settings", "Worker", "direct_worker", "replay_file"]


@dataclass(frozen=True)
class Settings:
    """Everything a worker needs to replay a file (picklable)."""

    config: str | None
    compare: str | None
    locale: str | None
    reading: Reading
    jsonl: bool
    check: bool
    summary: bool
    prices: PriceTable = NO_PRICES
    #: --format json: nothing printed per call, only the summary document at the end
    document: bool = False

    def engines(self) -> list[Engine]:
        engines = [load(self.config or default_guard_file(), locale=self.locale)]
        if self.compare:
            engines.append(load(self.compare, locale=self.locale))
        for engine in engines:  # replay shows what each guard would say, in shadow or not
            engine.deliver_all()
        return engines


@dataclass
class Result:
    """What replaying one file gave: its output (None: written already), its totals, and 1 if it failed."""

    out: Spill | None
    err: Spill | None
    totals: Totals
    status: int = 0
    other_reminders: int = 0
    differ: int = 0
    followups: Followups = field(default_factory=Followups)


class Worker:
    """One process's engines, loaded once and reset between files, and where its output goes."""

    def __init__(self, settings: Settings, direct: bool, engines: list[Engine] | None = None) -> None:
        self.settings = settings
        #: output goes straight to stdout and stderr (one process), not into the result
        self.direct = direct
        #: a bar over the bytes of the one input (a run of several has one bar over its files)
        self.bytes_bar = False
        self.engines = engines if engines is not None else settings.engines()


class FileReplay:
    """Replays one file into its result: output straight to stdout and stderr (one process) or into the result's
    spills (a worker)."""

    def __init__(self, worker: Worker, result: Result) -> None:
        self.worker = worker
        self.result = result
        self.check: Check | None = None
        self.followup: Followup | None = None
        self.write: Callable[[str], object] = sys.stdout.write if result.out is None else result.out.write

    def problem(self, text: str) -> None:
        if self.result.err is None:
            sys.stdout.flush()  # what was printed before the problem comes before it on a terminal
            sys.stderr.write(text)
        else:
            self.result.err.write(text)

    def replay(self, path: str) -> None:
        settings, engines, totals = self.worker.settings, self.worker.engines, self.result.totals
        try:
            opened = Input(path, settings.reading, progress=self.worker.bytes_bar)
        except InputError as exc:
            self.fail(exc)
            return
        try:
            with opened:
                if settings.check:
                    if opened.format not in ("dsh", None):
                        raise InputError(opened.display, 1, f"--check needs a dsh session log, not {opened.format}")
                    self.check = Check([guard.id for guard in engines[0].guards])
                self.show(opened, engines)
            if self.check is not None:
                agree, report = self.check.report(opened.display)
                self.write(report)
                self.result.status = 0 if agree else 1
        except InputError as exc:
            self.fail(exc)
        finally:
            reset(engines, totals.agents)
            if self.followup is not None:
                self.result.followups.merge(self.followup.finish())
            totals.end_session()

    def fail(self, error: InputError) -> None:
        self.result.totals.failed += 1
        self.result.status = 1
        self.problem(f"{error}\n")

    def show(self, opened: Input, engines: list[Engine]) -> None:
        settings, totals, display, check = self.worker.settings, self.result.totals, opened.display, self.check
        jsonl, compare, write = settings.jsonl, bool(settings.compare), self.write
        followup = self.followup = Followup(engines[0], settings.prices) if settings.summary else None
        # --summary: the runs of the first guard file's chain, as the report follows them
        chains = Chains(tracked(engines[0]), totals.run, compares_of(engines[0])) if settings.summary else None
        try:
            for item in outcomes(opened, engines):
                if followup is not None:
                    followup.item(item)
                if type(item) is Outcome:  # by far the commonest: test it first
                    totals.add(item)
                    if chains is not None:  # the index of the call in its input: this file's count so far
                        chains.call(item.call, item.record.line, totals.calls)
                    if check is not None:
                        check.outcome(item)
                    elif jsonl:
                        write(jsonl_line(item, compare=True) if compare else jsonl_line(item))
                    elif compare:
                        self.result.other_reminders += len(item.decisions[1].additional_contexts)
                        text = compare_text(display, item, ["A", "B"])
                        if text:
                            self.result.differ += 1
                            write(text + "\n")
                    elif item.contexts and not settings.document:
                        write(reminder_text(display, item) + "\n")
                elif isinstance(item, Skipped):
                    totals.skipped += 1
                    self.problem(f"{item.error} (skipped)\n")
                elif isinstance(item, Record) and item.kind == "skipped":
                    totals.not_read(opened.format or "?", item.text, display, item.line)
                elif check is not None and isinstance(item, Record) and item.kind == "recorded-reminder":
                    check.recorded_reminder(item)
                elif chains is not None and isinstance(item, Record) and (item.kind == "forget" or item.user_prompt):
                    chains.end(item.agent)  # a new prompt (a pre-step with one) or a forgotten agent ends its runs
        finally:
            if chains is not None:
                chains.finish()


def direct_worker(settings: Settings, engines: list[Engine], one_input: bool) -> Worker:
    worker = Worker(settings, True, engines)
    worker.bytes_bar = one_input
    return worker


def replay_file(worker: Worker, path: str) -> Result:
    """Replay one file (in a worker process, or here with --jobs 1, writing straight to stdout)."""
    spill = None if worker.direct else Spill
    result = Result(spill() if spill else None, spill() if spill else None, Totals())
    FileReplay(worker, result).replay(path)
    return result
