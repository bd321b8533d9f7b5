"""``toolguards replay INPUT ...``: run recorded agent sessions through the guards and show what would fire.

Exit codes: 0 done (and, with --check, the log agrees); 1 a malformed input line, an unreadable input, a config
problem, or a --check disagreement; 2 a usage error (including an input whose format cannot be told: give
--input-format).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import TextIO

from ..diagnostics import ConfigError
from ..engine import Engine
from ..loader import load
from ..replay.importers import FORMATS, detect_format, read_records
from ..replay.records import InputError, Record
from ..replay.report import Check, compare_text, jsonl_line, reminder_text, summary_text, totals_line
from ..replay.runner import Outcome, Skipped, replay
from ..replay.source import Source
from ..replay.stats import Totals
from ..resources import default_guard_file

HELP = "replay recorded agent sessions through the guards and show which reminders would fire"


class UsageError(Exception):
    """A problem with how the command was called (exit 2)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register replay's arguments."""
    add = parser.add_argument
    add("inputs", nargs="+", metavar="INPUT", help="session files (- for stdin); each is its own session")
    add("--config", metavar="PATH", help="guard file (default: the shipped guards/repeat-tool-reminder.yaml)")
    add("--locale", metavar="LOC", help="reminder locale (default: the guard file's, else en)")
    add("--input-format", choices=("auto", *FORMATS), default="auto", help="format of the inputs (default: detected)")
    add("--format", choices=("text", "jsonl"), default="text",
        help="text: each reminder as the model reads it, then a summary; jsonl: one object per tool call")
    add("--summary", action="store_true", help="per tool: runs of identical calls, reminders per threshold, advice")
    add("--compare", metavar="OTHER", help="replay under a second guard file too and show where the two differ")
    add("--check", action="store_true",
        help="dsh logs: compare the reminders produced with those recorded under the same guard ids (exit 1 if not)")
    add("--skip-bad-lines", action="store_true", help="skip malformed input lines (counted) instead of stopping")


def run(args: argparse.Namespace) -> int:
    """Replay every input; see the module docstring for exit codes."""
    out = _utf8(sys.stdout)
    try:
        return _Replay(args, out).run()
    except UsageError as exc:
        print(f"toolguards replay: {exc}", file=sys.stderr)
        return 2
    except (ConfigError, InputError) as exc:
        print(exc, file=sys.stderr)
        return 1


def _utf8(stream: TextIO) -> TextIO:
    # Reminders are UTF-8 text (中文 among them) and JSON Lines must be split on "\n" alone, whatever the platform.
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(encoding="utf-8", newline="\n")
    return stream


@dataclass
class _Replay:
    args: argparse.Namespace
    out: TextIO
    totals: Totals = field(default_factory=Totals)
    differ: int = 0
    other_reminders: int = 0
    status: int = 0

    def engines(self) -> list[Engine]:
        """Fresh engines for one input (each input is its own session)."""
        engines = [load(self.args.config or default_guard_file(), locale=self.args.locale)]
        if self.args.compare:
            engines.append(load(self.args.compare, locale=self.args.locale))
        return engines

    def run(self) -> int:
        args = self.args
        self.totals.runs = bool(args.summary)
        if args.check and args.compare:
            raise UsageError("--check and --compare do not go together")
        if args.check and args.format == "jsonl":
            raise UsageError("--check prints its own report; leave out --format jsonl")
        engines = self.engines()  # a bad config fails before any input is opened
        for number, path in enumerate(args.inputs):
            self.replay_input(path, engines if number == 0 else self.engines())
        self.finish(_first_threshold(engines[0]))
        return self.status

    def replay_input(self, path: str, engines: list[Engine]) -> None:
        try:
            source = Source(path)
        except OSError as exc:
            raise InputError(path, 1, f"cannot read the input: {exc.strerror or exc}") from None
        try:
            fmt = self.args.input_format
            if fmt == "auto":
                fmt = detect_format(source.display, source.head)
            if fmt is None:
                raise UsageError(f"{source.display}: cannot tell the input format; give --input-format")
            if self.args.check and fmt != "dsh":
                raise UsageError(f"{source.display}: --check needs a dsh session log, not {fmt}")
            check = Check([guard.id for guard in engines[0].guards]) if self.args.check else None
            records = read_records(fmt, source.display, source)
            for item in replay(records, engines, skip_bad_lines=self.args.skip_bad_lines):
                self.show(source.display, item, check)
            self.totals.end_session()
        finally:
            source.close()
        if check is not None:
            agree, report = check.report(source.display)
            self.out.write(report)
            self.status = self.status or (0 if agree else 1)

    def show(self, display: str, item: Outcome | Record | Skipped, check: Check | None) -> None:
        if isinstance(item, Outcome):  # by far the commonest: test it first
            self.totals.add(item)
            if check is not None:
                check.outcome(item)
            elif self.args.format == "jsonl":
                self.out.write(jsonl_line(item, compare=bool(self.args.compare)) + "\n")
            elif self.args.compare:
                self.other_reminders += len(item.decisions[1].additional_contexts)
                text = compare_text(display, item, ["A", "B"])
                if text:
                    self.differ += 1
                    self.out.write(text + "\n")
            elif item.contexts:
                self.out.write(reminder_text(display, item) + "\n")
        elif isinstance(item, Skipped):
            self.totals.skipped += 1
            print(f"{item.error} (skipped)", file=sys.stderr)
        elif check is not None:
            check.recorded_reminder(item)

    def finish(self, first_threshold: int) -> None:
        args = self.args
        # With jsonl or --check, stdout belongs to the machine-readable output: the summary goes to stderr.
        sink = sys.stderr if args.format == "jsonl" or args.check else self.out
        if args.summary:
            sink.write(summary_text(self.totals, first_threshold))
        elif args.format == "text" and not args.check:
            sink.write(totals_line(self.totals) + "\n")
        if args.compare and args.format == "text":
            name = args.config or default_guard_file().name
            self.out.write(
                f"compare: A ({name}) fired {self.totals.reminder_count()} reminders, B ({args.compare}) fired "
                f"{self.other_reminders}; they differ at {self.differ} of {self.totals.calls} tool calls\n"
            )


def _first_threshold(engine: Engine) -> int:
    for guard in engine.guards:
        thresholds = getattr(getattr(guard, "settings", None), "thresholds", None)
        if thresholds:
            return int(thresholds[0])
    return 3
