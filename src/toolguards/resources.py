"""Where the shipped guards/, templates/ and schemas/ live.

A wheel carries them inside the package as ``toolguards/_data/`` (hatchling force-include). An editable install or a
source checkout has no copy there: the package then runs from ``src/toolguards`` and the data sits at the top of the
checkout, two folders up. Both are looked up the same way, so every caller asks this module and nothing else.
"""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["data_dir", "default_guard_file", "schema_file", "shipped_guard_file", "shipped_templates_dir"]

_MARKER = Path("schemas") / "toolguards.schema.json"


@functools.cache
def data_dir() -> Path:
    """The folder holding guards/, templates/ and schemas/ for this installation."""
    package = Path(__file__).resolve().parent
    for candidate in (package / "_data", package.parent.parent):
        if (candidate / _MARKER).is_file():
            return candidate
    raise FileNotFoundError(
        "toolguards cannot find its shipped data (schemas/toolguards.schema.json): "
        f"looked in {package / '_data'} and {package.parent.parent}; reinstall the package"
    )


def default_guard_file() -> Path:
    """The shipped default guard file, guards/repeat-tool-reminder.yaml."""
    return data_dir() / "guards" / "repeat-tool-reminder.yaml"


def shipped_guard_file(name: str) -> Path:
    """A shipped guard file by name (``gemini-cli.yaml``): guards/<name>."""
    return data_dir() / "guards" / name


def schema_file() -> Path:
    """The JSON Schema of guard files."""
    return data_dir() / _MARKER


def shipped_templates_dir() -> Path:
    """The shipped templates/ folder (one sub-folder per locale)."""
    return data_dir() / "templates"
