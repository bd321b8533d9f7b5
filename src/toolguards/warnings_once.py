"""Failures the guards swallow are logged once per place and kind, through ``logging.getLogger("toolguards")``."""

from __future__ import annotations

import logging
import threading

__all__ = ["WarnOnce", "log"]

log = logging.getLogger("toolguards")


class WarnOnce:
    """Log a swallowed failure the first time it happens at a place with an exception type; stay quiet after."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def __call__(self, where: str, exc: BaseException) -> None:
        key = (where, type(exc).__name__)
        with self._lock:
            if key in self._seen:
                return
            self._seen.add(key)
        # The Claude Code hook turns this wording into its one stderr line: keep the "; later failures" tail.
        log.warning("toolguards: %s failed and was skipped (%s: %s); later failures like it are not logged",
                    where, type(exc).__name__, exc, exc_info=exc)
