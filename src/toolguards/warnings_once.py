"""Failures the guards swallow are logged once per place and kind, through ``logging.getLogger("toolguards")``.

The engine's, the stores' and the kinds' warnings go through ``warn``, which imports ``logging`` on the first warning:
it costs a process that handles one hook event more than its own work, and most such processes warn of nothing. The
hook command sets ``collector`` for the length of one request, so that what would be logged is kept for its one stderr
line instead.
"""

from __future__ import annotations

from _thread import allocate_lock  # threading's Lock without importing threading: a hook process needs no more

__all__ = ["WarnOnce", "collector", "warn"]

#: While set (``toolguards.hooks.command``), each warning's text is appended here instead of being logged.
collector: list[str] | None = None


def warn(message: str, *args: object, exc_info: BaseException | None = None) -> None:
    """Log a warning (``message % args``) through the ``toolguards`` logger, or keep its text in ``collector``."""
    if collector is not None:
        collector.append(message % args if args else message)
        return
    import logging  # noqa: PLC0415 - only a process that has something to warn of imports it

    logging.getLogger("toolguards").warning(message, *args, exc_info=exc_info)


class WarnOnce:
    """Log a swallowed failure the first time it happens at a place with an exception type; stay quiet after."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, str]] = set()
        self._lock = allocate_lock()

    def __call__(self, where: str, exc: BaseException) -> None:
        key = (where, type(exc).__name__)
        with self._lock:
            if key in self._seen:
                return
            self._seen.add(key)
        # The Claude Code hook turns this wording into its one stderr line: keep the "; later failures" tail.
        warn("toolguards: %s failed and was skipped (%s: %s); later failures like it are not logged",
             where, type(exc).__name__, exc, exc_info=exc)
