"""One vocabulary for every command: the options that several commands take, each with one metavar and one help.

``SHARED`` is the table: a test walks every sub-command's parser and finds each of these options, wherever it is
taken, with this metavar and this help. ``--format`` is shared by its metavar only: each command has its own formats.
Plain Python (no argparse, no dataclasses): ``toolguards hook`` reads it on every call.
"""

from __future__ import annotations

from types import MappingProxyType

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping
    from typing import Any, Protocol

    class Container(Protocol):
        """A parser, or a group of its arguments."""

        def add_argument(self, *flags: str, **more: Any) -> argparse.Action: ...

__all__ = ["SHARED", "add_option", "exit_codes"]

#: The shared options by flag: (metavar, help); a metavar of None is a flag without a value, a help of None is each
#: command's own.
SHARED: Mapping[str, tuple[str | None, str | None]] = MappingProxyType({
    "--config": ("PATH", "the guard file (default: the shipped guards/repeat-tool-reminder.yaml)"),
    "--locale": ("LOC", "the locale of the reminders (default: the guard file's, else en)"),
    "--store": ("URL", "where the chains live: memory (default), sqlite:///PATH, redis://HOST:PORT/DB"),
    "--state-dir": ("DIR", "folder of the state file (default: the user's cache folder + toolguards)"),
    "--outcome-log": ("FILE", "append one JSON line per resolved reminder outcome (default: the guard file's "
                              "outcomes log, if any)"),
    "--token-file": ("FILE", "a file holding the bearer token every request must carry"),
    "--compare": ("PATH", "a second guard file, compared with the first"),
    "--settings": ("PATH", "the settings file to edit (default: the one the host reads)"),
    "--dry-run": (None, "print the resulting file; write nothing"),
    "--format": ("FORMAT", None),
})


def add_option(parser: Container, flag: str, **more: Any) -> argparse.Action:
    """Add the shared option ``flag`` to ``parser`` with its metavar and help (``more``: a default, choices, and the
    help of an option whose help is each command's)."""
    metavar, text = SHARED[flag]
    if metavar is None:
        more.setdefault("action", "store_true")
    else:
        more.setdefault("metavar", metavar)
    if text is not None:
        more["help"] = text
    return parser.add_argument(flag, **more)


def exit_codes(*codes: str) -> str:
    """The ``exit codes:`` paragraph of a command's help, one code a line (``"0 done"``, ``"2 a usage error"``)."""
    return "exit codes:\n" + "\n".join(f"  {code}" for code in codes)
