"""``toolguards replay INPUT ...``: run recorded agent sessions through the guards and show what would fire.

Exit codes: 0 done (and, with --check, the log agrees); 1 a malformed input line, an unreadable input, a config
problem, or a --check disagreement; 2 a usage error (including an input whose format cannot be told: give
--input-format).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
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
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="session files (- for stdin); one session each")
    parser.add_argument("--config", metavar="PATH", help="guard file (default: the shipped guards/repeat-tool-reminder.yaml)")
    parser.add_argument("--locale", metavar="LOC", help="reminder locale (default: the guard file's, else en)")
    parser.add_argument(
        "--input-format", choices=("auto", *FORMATS), default="auto", help="format of the inputs (default: detected)"
    )
    parser.add_argument(
        "--format", choices=("text", "jsonl"), default="text",
        help="text: each reminder as the model reads it, then a summary; jsonl: one object per tool call",
    )
    parser.add_argument("--summary", action="store_true", help="per tool: runs of identical calls, reminders, advice")
    parser.add_argument("--compare", metavar="OTHER", help="replay under a second guard file too and show the difference")
    parser.add_argument(
        "--check", action="store_true",
        help="dsh logs: compare the reminders produced with those recorded under the same guard id (exit 1 if any differ)",
    )
    parser.add_argument("--skip-bad-lines", action="store_true", help="skip malformed input lines (counted) instead of stopping")


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
    except InputError as exc:
        print(exc, file=sys.stderr)
        return 1


def _utf8(stream: TextIO) -> TextIO:
    # Reminders are UTF-8 text (中文 among them) and JSON Lines must be split on "\n" alone, whatever the platform.
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(encoding="utf-8", newline="\n")
    return stream


def _engines(args: argparse.Namespace) -> list[Engine]:
    config = args.config or default_guard_file()
    engines = [load(config, locale=args.locale)]
    if args.compare:
        engines.append(load(args.compare, locale=args.locale))
    return engines


def _first_threshold(engine: Engine) -> int:
    for guard in engine.guards:
        thresholds = getattr(getattr(guard, "settings", None), "thresholds", None)
        if thresholds:
            return int(thresholds[0])
    return 3


def _run(args: argparse.Namespace, out: TextIO) -> int:
    if args.check and args.compare:
        raise UsageError("--check and --compare do not go together")
    if args.check and args.format == "jsonl":
        raise UsageError("--check prints its own report; leave out --format jsonl")
    engines = _engines(args)  # a bad config fails before any input is opened
    names = [str(args.config or default_guard_file().name), str(args.compare)]
    totals = Totals()
    differ = other_reminders = 0
    status = 0
    for number, path in enumerate(args.inputs):
        if number:
            engines = _engines(args)  # each input is its own session: fresh chains
        try:
            source = Source(path)
        except OSError as exc:
            raise InputError(path, 1, f"cannot read the input: {exc.strerror or exc}") from None
        try:
            fmt = args.input_format if args.input_format != "auto" else detect_format(source.display, source.head)
            if fmt is None:
                raise UsageError(f"{source.display}: cannot tell the input format; give --input-format")
            if args.check and fmt != "dsh":
                raise UsageError(f"{source.display}: --check needs a dsh session log, not {fmt}")
            check = Check([guard.id for guard in engines[0].guards]) if args.check else None
            for item in _items(source, fmt, engines, args.skip_bad_lines):
                if isinstance(item, Skipped):
                    totals.skipped += 1
                    print(f"{item.error} (skipped)", file=sys.stderr)
                elif isinstance(item, Record):
                    if check is not None:
                        check.recorded_reminder(item)
                else:
                    totals.add(item)
                    if check is not None:
                        check.outcome(item)
                    elif args.format == "jsonl":
                        out.write(jsonl_line(item, compare=bool(args.compare)) + "\n")
                    elif args.compare:
                        other_reminders += len(item.decisions[1].additional_contexts)
                        text = compare_text(source.display, item, ["A", "B"])
                        if text:
                            differ += 1
                            out.write(text + "\n")
                    elif item.contexts:
                        out.write(reminder_text(source.display, item) + "\n")
            totals.end_session()
        finally:
            source.close()
        if check is not None:
            agree, report = check.report(source.display)
            out.write(report)
            status = status or (0 if agree else 1)
    _finish(args, out, totals, _first_threshold(engines[0]))
    if args.compare and args.format == "text":
        out.write(
            f"compare: A ({names[0]}) fired {totals.reminder_count()} reminders, B ({names[1]}) fired {other_reminders}; "
            f"they differ at {differ} of {totals.calls} tool calls\n"
        )
    return status


def _items(source: Source, fmt: str, engines: list[Engine], skip: bool) -> Iterator[Outcome | Record | Skipped]:
    return replay(read_records(fmt, source.display, source), engines, skip_bad_lines=skip)


def _finish(args: argparse.Namespace, out: TextIO, totals: Totals, first: int) -> None:
    # With jsonl or --check, stdout belongs to the machine-readable output: the summary goes to stderr.
    sink = sys.stderr if args.format == "jsonl" or args.check else out
    if args.summary:
        sink.write(summary_text(totals, first))
    elif args.format == "text" and not args.check:
        sink.write(totals_line(totals) + "\n")
