"""``toolguards report PATH ...``: recorded sessions in, one self-contained HTML page of runs, thresholds and what-ifs
out (``toolguards-report.html``, or ``-o FILE``; ``-o -`` writes it to stdout).

The inputs are read as ``toolguards replay`` reads them, each its own session, analysed in ``--jobs`` processes; the
page is written only once every input has been read. Exit codes: 0 written; 1 an unreadable or malformed input, or a
config problem; 2 a usage error (an input whose format cannot be told: give --input-format; a locale the page has no
labels in).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..diagnostics import ConfigError
from ..replay.importers import FORMATS
from ..report import Job, Problem, SessionReport, locales, merge, render_page, resolve_page_locale, setup, work

HELP = "turn recorded sessions into one self-contained HTML page of runs, thresholds and what-ifs"

DEFAULT_OUTPUT = "toolguards-report.html"


class UsageError(Exception):
    """A problem with how the command was called (exit 2)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register report's arguments."""
    add = parser.add_argument
    add("inputs", nargs="+", metavar="PATH", help="session files (- for stdin); each is its own session")
    add("--config", metavar="PATH", help="guard file (default: the shipped guards/repeat-tool-reminder.yaml)")
    add("--compare", metavar="PATH", help="a second guard file, shown side by side with the first")
    add("-o", "--output", metavar="FILE", default=DEFAULT_OUTPUT,
        help=f"the page (default: {DEFAULT_OUTPUT}; - for stdout)")
    add("--input-format", choices=("auto", *FORMATS), default="auto", help="format of the inputs (default: detected)")
    add("--jobs", type=_jobs, default=1, metavar="N", help="read the inputs in N processes (default: 1)")
    add("--locale", metavar="LOC", help="page and reminder locale (default: the guard file's, else en)")
    add("--skip-bad-lines", action="store_true", help="skip malformed input lines (counted) instead of stopping")


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of processes, 1 or more, not {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    """Analyse every input and write the page; see the module docstring for exit codes."""
    try:
        return _report(args)
    except UsageError as exc:
        print(f"toolguards report: {exc}", file=sys.stderr)
        return 2
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1


def _report(args: argparse.Namespace) -> int:
    job = Job(args.config, args.compare, args.locale, args.input_format, args.skip_bad_lines)
    if args.inputs.count("-") > 1:
        raise UsageError("stdin (-) can be read once")
    analyser = setup(job)  # a bad guard file fails before any input is opened
    requested = args.locale or analyser.engines[0].locale
    locale = resolve_page_locale(requested)
    if locale is None:
        if args.locale:
            raise UsageError(f"the page has no labels in locale {args.locale!r} (known: {', '.join(locales())})")
        print(f"toolguards report: the page has no labels in locale {requested!r}; writing it in en", file=sys.stderr)
        locale = "en"
    sessions: list[SessionReport] = []
    for result in _each(job, analyser, args.inputs, args.jobs):
        if isinstance(result, Problem):
            print(result.message if not result.usage else f"toolguards report: {result.message}", file=sys.stderr)
            return 2 if result.usage else 1
        for line in result.skipped:
            print(f"{line} (skipped)", file=sys.stderr)
        sessions.append(result)
    page = render_page(merge(analyser.views, sessions), locale)
    if args.output == "-":
        out = sys.stdout
        reconfigure = getattr(out, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(encoding="utf-8", newline="\n")
        out.write(page)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(page)
    except OSError as exc:
        print(f"toolguards report: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    size = len(page.encode("utf-8"))
    print(f"toolguards report: wrote {args.output} ({len(sessions)} session{'s' if len(sessions) != 1 else ''}, "
          f"{size / 1024:.0f} KiB)", file=sys.stderr)
    return 0


_WORKER: dict[str, Any] = {}


def _start(job: Job) -> None:
    _WORKER["analyser"] = setup(job)


def _work_in_worker(job: Job, path: str) -> SessionReport | Problem:
    return work(job, _WORKER["analyser"], path)


def _each(job: Job, analyser: Any, paths: list[str], jobs: int) -> Iterator[SessionReport | Problem]:
    """Every input's result, in input order."""
    if jobs <= 1 or len(paths) <= 1:
        for path in paths:
            yield work(job, analyser, path)
        return
    with ProcessPoolExecutor(min(jobs, len(paths)), initializer=_start, initargs=(job,)) as pool:
        yield from pool.map(_work_in_worker, [job] * len(paths), paths)
