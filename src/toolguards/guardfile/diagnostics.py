"""Config problems as linters print them: ``path:line:col: message``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ConfigError", "Diagnostic", "escape_controls", "format_json_path"]


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a guard file, at a 1-based line and column (None where no position exists)."""

    path: str
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        # One problem, one line: a key or value quoted in a message may hold a line break or another control character.
        message = escape_controls(self.message)
        if self.line is None:
            return f"{escape_controls(self.path)}: {message}"
        return f"{escape_controls(self.path)}:{self.line}:{self.column or 1}: {message}"

    def sort_key(self) -> tuple[str, int, int]:
        """Order of report: by file, then by position (problems without one first)."""
        return (self.path, self.line or 0, self.column or 0)


# C0 and C1 controls (NEL, U+0085, ends a line for Python's splitlines and some terminals; CSI, U+009B, starts an
# escape sequence) and the two Unicode line separators.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_controls(text: str) -> str:
    """``text`` with every control character and line separator written as a Python escape (``\\n``, ``\\x85``)."""
    return _CONTROLS.sub(lambda match: repr(match.group())[1:-1], text)


class ConfigError(Exception):
    """A guard file (or mapping) that cannot be loaded; ``.diagnostics`` holds every problem found."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(sorted(diagnostics, key=Diagnostic.sort_key))
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def format_json_path(path: Iterable[str | int]) -> str:
    """``("guards", 0, "config")`` → ``guards[0].config``; the empty path is ``top level``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif text:
            text += f".{part}"
        else:
            text = part
    return text or "top level"
