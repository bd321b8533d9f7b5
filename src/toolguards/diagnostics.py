"""Config problems as linters print them: ``path:line:col: message``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ConfigError", "Diagnostic", "format_json_path"]


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a guard file, at a 1-based line and column (None where no position exists)."""

    path: str
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        # One problem, one line: a key or value quoted in a message may hold a line break or another control character.
        message = _escape_controls(self.message)
        if self.line is None:
            return f"{_escape_controls(self.path)}: {message}"
        return f"{_escape_controls(self.path)}:{self.line}:{self.column or 1}: {message}"

    def sort_key(self) -> tuple[str, int, int]:
        """Order of report: by file, then by position (problems without one first)."""
        return (self.path, self.line or 0, self.column or 0)


_CONTROLS = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def _escape_controls(text: str) -> str:
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
