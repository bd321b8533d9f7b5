"""``toolguards validate [PATH ...]``: check guard files, print every problem, exit 1 if there is any.

A folder stands for every ``*.yaml`` and ``*.yml`` file under it, at any depth (as yamllint takes ``.``); a folder
without any is a problem of that folder. Exit codes: 0 all files valid; 1 a problem was found (each printed on
stdout); 2 a usage error. A path that is not a regular file (a named pipe, a device), a file over 1 MiB, one that is
not UTF-8 or holds a character YAML does not allow, is a problem of that file (one line, exit 1), found without
reading it whole or waiting on it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path, PurePath
from types import MappingProxyType

from ..guardfile.diagnostics import Diagnostic, escape_controls
from ..guardfile.loader import check_file
from .options import add_option, exit_codes

HELP = "check guard files against the schema and their templates (exit 1 on any problem)"

DEFAULT_GLOB = "guards/*.yaml"
SUFFIXES = (".yaml", ".yml")
EPILOG = exit_codes("0 every file valid", "1 a problem was found (each printed on stdout)", "2 a usage error")


def _text(diagnostic: Diagnostic) -> str:
    return str(diagnostic)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github(diagnostic: Diagnostic) -> str:
    place = f"file={_escape_property(diagnostic.path)}"
    if diagnostic.line is not None:
        place += f",line={diagnostic.line},col={diagnostic.column or 1}"
    # One annotation a line: a control character in the message is written out as the text reporter writes it.
    return f"::error {place}::{_escape_data(escape_controls(diagnostic.message))}"


REPORTERS: Mapping[str, Callable[[Diagnostic], str]] = MappingProxyType({"text": _text, "github": _github})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register validate's arguments."""
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="guard files, or folders of them (every *.yaml and *.yml under it); default: "
                             f"{DEFAULT_GLOB}")
    add_option(parser, "--format", choices=sorted(REPORTERS), default="text",
               help="text: path:line:col: message; github: ::error annotations for GitHub Actions")
    add_option(parser, "--locale")


def run(args: argparse.Namespace) -> int:
    """Validate each file; 0 if all are valid, 1 if any problem was found, 2 if there was nothing to check."""
    given = args.paths or [str(path.relative_to(Path.cwd())) for path in sorted(Path.cwd().glob(DEFAULT_GLOB))]
    if not given:
        print(f"toolguards validate: no PATH given and no {DEFAULT_GLOB} here", file=sys.stderr)
        return 2
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # a file name that is not valid UTF-8 must not stop the report
        reconfigure(errors="backslashreplace")
    report = REPORTERS[args.format]
    problems = files = 0
    for item in expand(given):
        found = [item] if isinstance(item, Diagnostic) else check_file(item, locale=args.locale)
        files += not isinstance(item, Diagnostic)
        for diagnostic in found:
            print(report(diagnostic))
            problems += 1
    counted = f"{files} file{'s' if files != 1 else ''}"
    print(f"toolguards validate: {counted}, {problems} problem{'s' if problems != 1 else ''}", file=sys.stderr)
    return 1 if problems else 0


def expand(paths: Sequence[str]) -> Iterator[str | Diagnostic]:
    """Each path as given, except a folder: every ``*.yaml`` and ``*.yml`` file under it, at any depth, in sorted path
    order — or, for a folder without any (or one that cannot be listed), the problem of that folder."""
    for path in paths:
        if not os.path.isdir(path):
            yield path
            continue
        files: list[str] = []
        unlisted: list[OSError] = []
        for folder, _subfolders, names in os.walk(path, onerror=unlisted.append):
            files.extend(os.path.join(folder, name) for name in names if name.endswith(SUFFIXES))
        for error in unlisted:
            yield Diagnostic(str(error.filename), None, None, f"cannot read the folder: {error.strerror or error}")
        if not files and not unlisted:
            yield Diagnostic(path, None, None, "a folder without any *.yaml or *.yml file")
        yield from sorted(files, key=lambda file: PurePath(file).parts)
