"""``toolguards replay PATH ...``: run recorded agent sessions through the guards and show what would fire.

Each file is its own session; a folder stands for every ``*.jsonl`` and ``*.json`` file under it. An input that cannot
be read — missing, not a format replay knows, a malformed line (without --skip-bad-lines), a record its importer does
not read (with --strict) — is reported as ``path:line: message`` on stderr and the run goes on with the next.

Exit codes: 0 every input replayed (and, with --check, every log agrees); 1 an input could not be read, a config
problem, or a --check disagreement; 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from functools import partial
from typing import TextIO

from ..engine import Engine
from ..guardfile.diagnostics import ConfigError
from ..guardfile.prices import NO_PRICES
from ..kinds.repeat_tool_reminder import RepeatToolReminder
from ..replay.batch import cores, expand_inputs, run_each
from ..replay.delivered import Followups
from ..replay.files import Settings, Worker, direct_worker, replay_file
from ..replay.printing import counted, summary_text, totals_line
from ..replay.records import ImportOptions
from ..replay.session import Reading
from ..replay.stats import Totals
from ..replay.summary import followup_text, summary_document
from ..resources import default_guard_file
from .options import add_option, exit_codes
from .sessions import UsageError, add_input_arguments, price_table

HELP = "replay recorded agent sessions through the guards and show which reminders would fire"
EPILOG = exit_codes(
    "0 every input replayed (with --check: and every log agrees)",
    "1 an input could not be read, a problem in the guard file, or a --check disagreement",
    "2 a usage error",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register replay's arguments."""
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    add_input_arguments(parser)
    add_option(parser, "--config")
    add_option(parser, "--locale")
    add_option(parser, "--format", choices=("text", "jsonl", "json"), default="text",
               help="text: each reminder as the model reads it, then the totals; jsonl: one object per tool call "
                    "(the totals on stderr); json: the summary (with the outcomes after the reminders and the loops' "
                    "cost) as one JSON document")
    add = parser.add_argument
    add("--summary", action="store_true",
        help="per tool: runs of identical calls, reminders per threshold, advice; and the records not read, by type")
    add_option(parser, "--compare")
    add("--check", action="store_true",
        help="dsh logs: compare the reminders produced with those recorded under the same guard ids (exit 1 if not)")


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
    if args.check and args.format in ("jsonl", "json"):
        raise UsageError(f"--check prints its own report; leave out --format {args.format}")
    if args.compare and args.format == "json":
        raise UsageError("--format json summarizes one guard file; leave out --compare")
    summary = args.summary or args.format == "json"
    prices = price_table(args.prices, args.config) if summary else NO_PRICES
    reading = Reading(args.input_format, ImportOptions(count_polls=args.count_polls), args.strict, args.skip_bad_lines)
    settings = Settings(args.config, args.compare, args.locale, reading, args.format == "jsonl", args.check,
                        summary, prices, args.format == "json")
    engines = settings.engines()  # a bad config fails before any input is opened
    paths, problems = expand_inputs(args.inputs)
    totals = Totals()
    followups = Followups()
    for problem in problems:
        print(problem, file=sys.stderr)
        totals.failed += 1
    jobs = 1 if "-" in paths else min(args.jobs or cores(), max(len(paths), 1))
    one = partial(direct_worker, settings, engines, len(paths) == 1)
    setup = one if jobs == 1 else partial(Worker, settings, False)
    status = 1 if problems else 0
    compared = _Compared()
    # Forked workers start from the engines loaded here (each its own copy); others load the guard files again.
    inherited = partial(Worker, settings, False, engines)
    for result in run_each(replay_file, setup, paths, jobs, progress=len(paths) > 1, inherited=inherited):
        if result.out is not None:
            result.out.copy_to(out.write)
        if result.err is not None:
            out.flush()
            result.err.copy_to(sys.stderr.write)
        totals.merge(result.totals)
        followups.merge(result.followups)
        compared.other += result.other_reminders
        compared.differ += result.differ
        status = status or result.status
    if args.format == "json":
        out.write(json.dumps(summary_document(totals, followups), ensure_ascii=False, indent=2) + "\n")
        return status
    _finish(args, out, totals, compared, _first_threshold(engines[0]), followups)
    return status


@dataclass
class _Compared:
    other: int = 0
    differ: int = 0


def _utf8(stream: TextIO) -> TextIO:
    # Reminders are UTF-8 text (中文 among them) and JSON Lines must be split on "\n" alone, whatever the platform.
    # A lone surrogate (JSON may escape one into a tool name) prints as its JSON escape, \udxxx, never an error.
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(encoding="utf-8", newline="\n", errors="backslashreplace")
    return stream


def _finish(  # noqa: PLR0917 - private, called once
    args: argparse.Namespace, out: TextIO, totals: Totals, compared: _Compared, first_threshold: int | None,
    followups: Followups,
) -> None:
    # With jsonl or --check, stdout belongs to the machine-readable output: the summary goes to stderr.
    sink = sys.stderr if args.format == "jsonl" or args.check else out
    out.flush()
    if args.summary:
        sink.write(summary_text(totals, first_threshold))
        sink.write(followup_text(followups))
    elif not args.check:
        sink.write(totals_line(totals) + "\n")
    if args.compare and args.format == "text":
        name = args.config or default_guard_file().name
        out.write(
            f"compare: A ({name}) fired {counted(totals.reminder_count(), 'reminder')}, B ({args.compare}) fired "
            f"{compared.other}; they differ at {compared.differ} of {counted(totals.calls, 'tool call')}\n"
        )


def _first_threshold(engine: Engine) -> int | None:
    """The first threshold of the file's first repeat-tool-reminder guard, which the summary's advice is about; None
    (no advice) for a file without one."""
    for guard in engine.guards:
        if isinstance(guard, RepeatToolReminder):
            return guard.settings.thresholds[0]
    return None
