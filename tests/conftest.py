"""Shared fixtures: guard files written into a temporary folder and read back by relative path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_FIXTURES = REPO.parent / "shared" / "fixtures"


@pytest.fixture
def write_guard_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., str]:
    """Write text (or bytes) to g.yaml in a temporary working folder; returns the relative path."""
    monkeypatch.chdir(tmp_path)

    def write(content: str | bytes, name: str = "g.yaml") -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return name

    return write
