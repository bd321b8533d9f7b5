"""``toolguards report PATH ...``: recorded sessions in, one self-contained HTML page of runs, thresholds and what-ifs
out (``toolguards-report.html`` in the current folder, or ``-o FILE``; ``-o -`` writes it to stdout).

The inputs are those of ``toolguards replay``: files, and folders standing for every ``*.jsonl`` and ``*.json`` file
under them, each file its own session, read in ``--jobs`` processes. An input that cannot be read is reported as
``path:line: message`` on stderr, listed on the page, and the run goes on; the page is written once every input has
been read. Exit codes: 0 every input read and the page written; 1 an input could not be read (the page is written
all the same), a config problem, or the page could not be written; 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

from ..guardfile.diagnostics import ConfigError
from ..replay.batch import cores, expand_inputs, run_each
from ..replay.records import ImportOptions
from ..replay.session import Reading
from ..report import Analyser, Job, Problem, Report, locales, render_page, resolve_page_locale, setup, work
from .options import add_option, exit_codes
from .sessions import UsageError, add_input_arguments, price_table

HELP = "turn recorded sessions into one self-contained HTML page of runs, thresholds and what-ifs"
EPILOG = exit_codes(
    "0 every input read and the page written",
    "1 an input could not be read (the page is written all the same), a problem in the guard file, or the page "
    "could not be written",
    "2 a usage error",
)

DEFAULT_OUTPUT = "toolguards-report.html"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register report's arguments."""
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    add_input_arguments(parser)
    add_option(parser, "--config")
    add_option(parser, "--compare")
    parser.add_argument("-o", "--output", metavar="FILE", default=DEFAULT_OUTPUT,
                        help=f"the page (default: {DEFAULT_OUTPUT} in the current folder; - for stdout)")
    add_option(parser, "--locale")


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
    reading = Reading(args.input_format, ImportOptions(count_polls=args.count_polls), args.strict, args.skip_bad_lines)
    job = Job(args.config, args.compare, args.locale, reading, price_table(args.prices, args.config))
    analyser = setup(job)  # a bad guard file fails before any input is opened
    locale = _locale(args.locale, analyser.engines[0].locale)
    paths, problems = expand_inputs(args.inputs)
    report = Report(analyser.views)
    for problem in problems:
        print(problem, file=sys.stderr)
        report.problem(str(problem))
    jobs = 1 if "-" in paths else min(args.jobs or cores(), max(len(paths), 1))
    start = partial(_same, analyser) if jobs == 1 else partial(setup, job)
    inherited = partial(_same, analyser)  # forked workers start from the engines loaded here, each its own copy
    for result in run_each(work, start, paths, jobs, progress=len(paths) > 1, inherited=inherited):
        if isinstance(result, Problem):
            print(result.message, file=sys.stderr)
            report.problem(result.message)
            continue
        for line in result.skipped:
            print(f"{line} (skipped)", file=sys.stderr)
        if result.failed is not None:
            print(result.failed, file=sys.stderr)
        report.add(result)
    if not _write(args.output, render_page(report, locale), len(report.sessions)):
        return 1
    return 1 if report.failures else 0


def _same(analyser: Analyser) -> Analyser:
    # One process, or a forked worker: the engines loaded to check the guard files are the ones that read the inputs.
    return analyser


def _locale(requested: str | None, guard_file_locale: str) -> str:
    """The page's locale: --locale, else the guard file's (the page in English where it has no labels for that)."""
    found = resolve_page_locale(requested or guard_file_locale)
    if found is not None:
        return found
    if requested:
        raise UsageError(f"the page has no labels in locale {requested!r} (known: {', '.join(locales())})")
    print(f"toolguards report: the page has no labels in locale {guard_file_locale!r}; writing it in en",
          file=sys.stderr)
    return "en"


def _write(output: str, page: str, sessions: int) -> bool:
    """Write the page; False (with the reason on stderr) when it cannot be written."""
    if output == "-":
        reconfigure = getattr(sys.stdout, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(encoding="utf-8", newline="\n")
        sys.stdout.write(page)
        return True
    try:
        with open(output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(page)
    except OSError as exc:
        print(f"toolguards report: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return False
    size = len(page.encode("utf-8"))
    print(f"toolguards report: wrote {output} ({sessions} session{'s' if sessions != 1 else ''}, "
          f"{size / 1024:.0f} KiB)", file=sys.stderr)
    return True
