"""The parser class of every command, so that a usage error reads the same everywhere.

A usage error argparse finds is the parser's usage, then one line ``toolguards <command>: <problem>`` on stderr, and
exit 2; a usage error a command finds itself (``sessions.UsageError``, a refused combination) is that one line alone.
What a host runs (``toolguards hook HOST``) reads its command line with its own parser and never exits 2
(``commands.hook``).
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

__all__ = ["Parser"]


class Parser(argparse.ArgumentParser):
    """argparse's parser, reporting a usage error as the usage and one line ``<prog>: <problem>`` (exit 2)."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and ``<prog>: <message>`` on stderr; exit 2."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: {message}\n")
