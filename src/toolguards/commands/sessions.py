"""The options of the commands that read recorded sessions (``replay``, ``report``): what to read and how, and in how
many processes. Each command adds its own options beside these."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..guardfile.loader import check_bytes
from ..guardfile.prices import PriceTable, load_prices
from ..guardfile.reading import read_guard_file
from ..replay.importers import FORMATS
from ..resources import default_guard_file

__all__ = ["UsageError", "add_input_arguments", "positive", "price_table"]


class UsageError(Exception):
    """A problem with how the command was called (exit 2)."""


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """The inputs, ``--input-format``, ``--skip-bad-lines``, ``--strict``, ``--count-polls`` and ``--jobs`` (the same
    words in every command that reads sessions)."""
    add = parser.add_argument
    add("inputs", nargs="+", metavar="PATH",
        help="session files, or folders of them (every *.jsonl and *.json under it); - for stdin; each file is its "
             "own session")
    add("--input-format", choices=("auto", *FORMATS), default="auto", help="format of the inputs (default: detected)")
    add("--skip-bad-lines", action="store_true", help="skip malformed input lines (counted) instead of stopping")
    add("--strict", action="store_true",
        help="a record that could hold a tool call but that its importer does not read is an error, not a count")
    add("--count-polls", action="store_true",
        help="Codex: count write_stdin polls of a running command, which the live hook never sees")
    add("--prices", metavar="FILE",
        help="YAML price table (model-name pattern: {input, output} US dollars per million tokens) for the loops' "
             "cost (default: the guard file's prices, if any)")
    add("--jobs", type=positive, metavar="N",
        help="read the files in N processes (default: the number of cores, at most the number of files); the result "
             "is the same as with --jobs 1")


def price_table(option: str | None, config: str | None) -> PriceTable:
    """The ``--prices`` file's table, else the guard file's ``prices`` (none: an empty table); ConfigError for either
    file's problems."""
    if option is not None:
        return load_prices(option)
    path = Path(config) if config is not None else default_guard_file()
    return check_bytes(str(path), read_guard_file(str(path), path), path.resolve().parent).guard_file.prices


def positive(text: str) -> int:
    """A whole number of 1 or more, for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value
