"""A stand-in for a host's command where a test needs only what it prints: ``toolguards hook install`` asks
``claude --version`` which events to register (``toolguards.hooks.versions``), and a test fixes the answer.

The real programs are run by the real-host tests (``tests/realhosts``); this one is a two-line shell script.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["CLAUDE_VERSION", "on_path", "program_printing"]

#: The Claude Code version the stand-in reports by default: the one the real-host tests ran.
CLAUDE_VERSION = "2.1.197 (Claude Code)"


def program_printing(folder: Path, name: str, text: str, code: int = 0) -> Path:
    """An executable ``folder/name`` that prints ``text`` (and a newline) and exits ``code``."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f"#!/bin/sh\nprintf '%s\\n' {json.dumps(text)}\nexit {code}\n", encoding="utf-8")
    program.chmod(0o755)
    return program


def on_path(folder: Path, path: str | None = None) -> str:
    """A PATH that finds ``folder`` first, then ``path`` (default: this process's PATH)."""
    return f"{folder}{os.pathsep}{os.environ.get('PATH', os.defpath) if path is None else path}"
