"""``toolguards replay PATH ...``: run recorded agent sessions through the guards and show what would fire.

Each file is its own session; a folder stands for every ``*.jsonl`` and ``*.json`` file under it. An input that cannot
be read — missing, not a format replay knows, a malformed line (without --skip-bad-lines), a record its importer does
not read (with --strict) — is reported as ``path:line: message`` on stderr and the run goes on with the next.

Exit codes: 0 every input replayed (and, with --check, every log agrees); 1 an input could not be read, a config
problem, or a --check disagreement; 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TextIO

from ..engine import Engine
from ..guardfile.diagnostics import ConfigError
from ..guardfile.loader import load
from ..kinds.repeat_tool_reminder import RepeatToolReminder
from ..replay.batch import Spill, cores, expand_inputs, run_each
from ..replay.feed import Outcome, Skipped, replay
from ..replay.printing import Check, compare_text, jsonl_line, reminder_text, summary_text, totals_line
from ..replay.records import ImportOptions, InputError, Record
from ..replay.session import Input, Reading, reset
from ..replay.stats import Totals
from ..resources import default_guard_file
from .sessions import UsageError, add_input_arguments

HELP = "replay recorded agent sessions through the guards and show which reminders would fire"
EPILOG = (
    "exit codes: 0 every input replayed (with --check: and every log agrees); 1 an input could not be read, a config "
    "problem, or a --check disagreement; 2 a usage error"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register replay's arguments."""
    parser.epilog = EPILOG
    add_input_arguments(parser, result="the output", counted="in the summary")
    add = parser.add_argument
    add("--config", metavar="PATH", help="guard file (default: the shipped guards/repeat-tool-reminder.yaml)")
    add("--locale", metavar="LOC", help="reminder locale (default: the guard file's, else en)")
    add("--format", choices=("text", "jsonl"), default="text",
        help="text: each reminder as the model reads it, then a summary; jsonl: one object per tool call")
    add("--summary", action="store_true",
        help="per tool: runs of identical calls, reminders per threshold, advice; and the records not read, by type")
    add("--compare", metavar="OTHER", help="replay under a second guard file too and show where the two differ")
    add("--check", action="store_true",
        help="dsh logs: compare the reminders produced with those recorded under the same guard ids (exit 1 if not)")


@dataclass(frozen=True)
class _Settings:
    """Everything a worker needs to replay a file (picklable)."""

    config: str | None
    compare: str | None
    locale: str | None
    reading: Reading
    jsonl: bool
    check: bool
    summary: bool

    def engines(self) -> list[Engine]:
        engines = [load(self.config or default_guard_file(), locale=self.locale)]
        if self.compare:
            engines.append(load(self.compare, locale=self.locale))
        return engines


def run(args: argparse.Namespace) -> int:
    """Replay every input; see the module docstring for exit codes."""
    out = _utf8(sys.stdout)
    try:
        return _run(args, out)
    except UsageError as exc:
        print(f"toolguards replay: {exc}", file=sys.stderr)
        return 2
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1


def _run(args: argparse.Namespace, out: TextIO) -> int:
    if args.check and args.compare:
        raise UsageError("--check and --compare do not go together")
    if args.check and args.format == "jsonl":
        raise UsageError("--check prints its own report; leave out --format jsonl")
    reading = Reading(args.input_format, ImportOptions(count_polls=args.count_polls), args.strict, args.skip_bad_lines)
    settings = _Settings(args.config, args.compare, args.locale, reading, args.format == "jsonl", args.check,
                         args.summary)
    engines = settings.engines()  # a bad config fails before any input is opened
    paths, problems = expand_inputs(args.inputs)
    totals = Totals(runs=args.summary)
    for problem in problems:
        print(problem, file=sys.stderr)
        totals.failed += 1
    jobs = 1 if "-" in paths else min(args.jobs or cores(), max(len(paths), 1))
    setup = partial(_direct, settings, engines, len(paths) == 1) if jobs == 1 else partial(_Worker, settings, False)
    status = 1 if problems else 0
    compared = _Compared()
    # Forked workers start from the engines loaded here (each its own copy); others load the guard files again.
    inherited = partial(_Worker, settings, False, engines)
    for result in run_each(_replay_file, setup, paths, jobs, progress=len(paths) > 1, inherited=inherited):
        if result.out is not None:
            result.out.copy_to(out.write)
        if result.err is not None:
            out.flush()
            result.err.copy_to(sys.stderr.write)
        totals.merge(result.totals)
        compared.other += result.other_reminders
        compared.differ += result.differ
        status = status or result.status
    _finish(args, out, totals, compared, _first_threshold(engines[0]))
    return status


def _utf8(stream: TextIO) -> TextIO:
    # Reminders are UTF-8 text (中文 among them) and JSON Lines must be split on "\n" alone, whatever the platform.
    # A lone surrogate (JSON may escape one into a tool name) prints as its JSON escape, \udxxx, never an error.
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(encoding="utf-8", newline="\n", errors="backslashreplace")
    return stream


@dataclass
class _Compared:
    other: int = 0
    differ: int = 0


@dataclass
class _Result:
    """What replaying one file gave: its output (None: written already), its totals, and 1 if it failed."""

    out: Spill | None
    err: Spill | None
    totals: Totals
    status: int = 0
    other_reminders: int = 0
    differ: int = 0


class _Worker:
    """One process's engines, loaded once and reset between files, and where its output goes."""

    def __init__(self, settings: _Settings, direct: bool, engines: list[Engine] | None = None) -> None:
        self.settings = settings
        #: output goes straight to stdout and stderr (one process), not into the result
        self.direct = direct
        #: a bar over the bytes of the one input (a run of several has one bar over its files)
        self.bytes_bar = False
        self.engines = engines if engines is not None else settings.engines()


class _FileReplay:
    """Replays one file into its result: output straight to stdout and stderr (one process) or into the result's
    spills (a worker)."""

    def __init__(self, worker: _Worker, result: _Result) -> None:
        self.worker = worker
        self.result = result
        self.check: Check | None = None
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
                try:
                    self.show(opened, engines)
                except UnicodeDecodeError as exc:  # a line not UTF-8, let through by an importer that iterates
                    raise opened.source.bad_line(exc) from None
            if self.check is not None:
                agree, report = self.check.report(opened.display)
                self.write(report)
                self.result.status = 0 if agree else 1
        except InputError as exc:
            self.fail(exc)
        finally:
            totals.end_session()
            reset(engines, totals.agents)

    def fail(self, error: InputError) -> None:
        self.result.totals.failed += 1
        self.result.status = 1
        self.problem(f"{error}\n")

    def show(self, opened: Input, engines: list[Engine]) -> None:
        settings, totals, display, check = self.worker.settings, self.result.totals, opened.display, self.check
        jsonl, compare, write = settings.jsonl, bool(settings.compare), self.write
        for item in replay(opened.records(), engines, skip_bad_lines=settings.reading.skip_bad_lines):
            if type(item) is Outcome:  # by far the commonest: test it first
                totals.add(item)
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
                elif item.contexts:
                    write(reminder_text(display, item) + "\n")
            elif isinstance(item, Skipped):
                totals.skipped += 1
                self.problem(f"{item.error} (skipped)\n")
            elif isinstance(item, Record) and item.kind == "skipped":
                totals.not_read(opened.format or "?", item.text, display, item.line)
            elif check is not None and isinstance(item, Record):
                check.recorded_reminder(item)


def _direct(settings: _Settings, engines: list[Engine], one_input: bool) -> _Worker:
    worker = _Worker(settings, True, engines)
    worker.bytes_bar = one_input
    return worker


def _replay_file(worker: _Worker, path: str) -> _Result:
    """Replay one file (in a worker process, or here with --jobs 1, writing straight to stdout)."""
    settings = worker.settings
    spill = None if worker.direct else Spill
    result = _Result(spill() if spill else None, spill() if spill else None, Totals(runs=settings.summary))
    _FileReplay(worker, result).replay(path)
    return result


def _finish(
    args: argparse.Namespace, out: TextIO, totals: Totals, compared: _Compared, first_threshold: int | None
) -> None:
    # With jsonl or --check, stdout belongs to the machine-readable output: the summary goes to stderr.
    sink = sys.stderr if args.format == "jsonl" or args.check else out
    out.flush()
    if args.summary:
        sink.write(summary_text(totals, first_threshold))
    elif args.format == "text" and not args.check:
        sink.write(totals_line(totals) + "\n")
    if args.compare and args.format == "text":
        name = args.config or default_guard_file().name
        out.write(
            f"compare: A ({name}) fired {totals.reminder_count()} reminders, B ({args.compare}) fired "
            f"{compared.other}; they differ at {compared.differ} of {totals.calls} tool calls\n"
        )


def _first_threshold(engine: Engine) -> int | None:
    """The first threshold of the file's first repeat-tool-reminder guard, which the summary's advice is about; None
    (no advice) for a file without one."""
    for guard in engine.guards:
        if isinstance(guard, RepeatToolReminder):
            return guard.settings.thresholds[0]
    return None
