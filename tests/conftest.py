"""Shared fixtures: guard files written into a temporary folder and read back by relative path."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


def require(program: str, why: str, package: str) -> str:
    """The path of ``program``; where it is absent, the test skips with the reason on a developer's machine, and fails
    in CI (``CI`` set), whose ``.ci/run`` installs it: a real part is never skipped there."""
    found = shutil.which(program)
    if found is None:
        message = f"{program} is not installed: {why} (Debian: apt-get install {package})"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; .ci/run installs it")
        pytest.skip(message)
    return found


# Why the pydantic-ai tests skip where pydantic_ai cannot be imported: no pydantic-ai-slim 2.58 or later (the lowest the
# integration supports) exists for Python 3.10 (from 2.55 it needs 3.11), so the test extra leaves it out there.
PYDANTIC_AI_MISSING = (
    "pydantic-ai-slim 2.58 or later needs Python 3.11 or newer; the test extra leaves it out on Python 3.10"
    if sys.version_info < (3, 11)
    else "the pydantic-ai extra is not installed: pip install -e '.[pydantic-ai]'"
)

#: The real recordings beside the checkout (``../shared/fixtures``: sessions, transcripts, hosts' contracts), which a
#: fresh clone does not have. The one place that knows where they are.
SHARED_FIXTURES = REPO.parent / "shared" / "fixtures"
#: The few recordings and third-party files the repository carries itself (``tests/fixtures``, each with its README).
FIXTURES = REPO / "tests" / "fixtures"


def require_shared() -> None:
    """Skip the test where ``../shared/fixtures`` is absent (a fresh clone), with the reason; fail in CI, which has it."""
    if SHARED_FIXTURES.is_dir():
        return
    message = ("the shared fixtures (../shared/fixtures beside the checkout) are not here: this test reads real "
               "recordings that the repository does not carry")
    if os.environ.get("CI"):
        pytest.fail(f"{message}; CI has them")
    pytest.skip(message)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.needs_shared``: the test reads ``../shared/fixtures`` (``require_shared``)."""
    if item.get_closest_marker("needs_shared") is not None:
        require_shared()


# The reference's two English reminders (the seed's "Model Experience"), and the Chinese first reminder.
FIRST = (
    "You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result "
    "before calling again: if the task is not complete, try a different approach or different arguments instead of "
    "repeating the call."
)
FIRST_ZH = (
    "你正在用完全相同的参数重复同一个工具调用。再次调用前，请仔细分析上一次的结果：如果任务尚未完成，"
    "请换一种方法或使用不同的参数，而不是重复这次调用。"
)


def detailed(tool: str, count: int, arguments: str) -> str:
    """The reference's detailed reminder for these values."""
    return (
        "Repeated tool call detected:\n"
        f"- tool: {tool}\n"
        f"- consecutive_calls: {count}\n"
        f"- arguments: {arguments}\n"
        "The repeated calls are not making progress. Do not call this tool with these exact arguments again. "
        "Inspect the latest result and choose a different action, different arguments, or finish the task if enough "
        "evidence has been gathered."
    )


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


WRONG_TYPED: tuple[Any, ...] = (None, 7, "", [], {}, [{"type": 1}])


def wrong_typed(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    """Every way to give one member or element of a JSON value a value of another type: (path, wrong value, the
    whole value with it), for the importers' tests that no field of the wrong type makes them raise."""
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        for wrong in WRONG_TYPED:
            yield (*path, key), wrong, _replaced(value, key, wrong)
        for inner, wrong, variant in wrong_typed(child, (*path, key)):
            yield inner, wrong, _replaced(value, key, variant)


def _replaced(value: Any, key: Any, new: Any) -> Any:
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[key] = new
    return copy


class Watchdog:
    """Should a read of the FIFO at ``path`` block, open its other end after a while: the test then fails, not hangs."""

    def __init__(self, path: Path, seconds: float = 5) -> None:
        self.path = path
        self.found_a_blocked_reader = False
        self._timer = threading.Timer(seconds, self._unblock)

    def _unblock(self) -> None:
        with contextlib.suppress(OSError):  # ENXIO: no reader is waiting, nothing blocked
            os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
            self.found_a_blocked_reader = True

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()
        assert not self.found_a_blocked_reader
