"""``toolguards validate [PATH ...]``: check guard files, print every problem, exit 1 if there is any.

Exit codes: 0 all files valid; 1 a problem was found (each printed on stdout); 2 a usage error. A path that is not a
regular file (a named pipe, a device, a folder), a file over 1 MiB, one that is not UTF-8 or holds a character YAML
does not allow, is a problem of that file (one line, exit 1), found without reading it whole or waiting on it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

from ..guardfile.diagnostics import Diagnostic, escape_controls
from ..guardfile.loader import check_file

HELP = "check guard files against the schema and their templates (exit 1 on any problem)"

DEFAULT_GLOB = "guards/*.yaml"


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
    parser.add_argument("paths", nargs="*", metavar="PATH", help=f"guard files (default: {DEFAULT_GLOB})")
    parser.add_argument(
        "--format", choices=sorted(REPORTERS), default="text",
        help="text: path:line:col: message; github: ::error annotations for GitHub Actions",
    )
    parser.add_argument("--locale", help="check the templates of this locale instead of the file's own")


def run(args: argparse.Namespace) -> int:
    """Validate each file; 0 if all are valid, 1 if any problem was found, 2 if there was nothing to check."""
    paths = [Path(p) for p in args.paths] or sorted(Path.cwd().glob(DEFAULT_GLOB))
    if not paths:
        print(f"toolguards validate: no PATH given and no {DEFAULT_GLOB} here", file=sys.stderr)
        return 2
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # a file name that is not valid UTF-8 must not stop the report
        reconfigure(errors="backslashreplace")
    report = REPORTERS[args.format]
    problems = 0
    for path in paths:
        display = str(path if args.paths else path.relative_to(Path.cwd()))
        for diagnostic in check_file(display, locale=args.locale):
            print(report(diagnostic))
            problems += 1
    files = f"{len(paths)} file{'s' if len(paths) != 1 else ''}"
    print(f"toolguards validate: {files}, {problems} problem{'s' if problems != 1 else ''}", file=sys.stderr)
    return 1 if problems else 0
