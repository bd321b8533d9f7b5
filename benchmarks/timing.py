"""Side-by-side timing shared by the benchmark scripts (beside them, not a package): a subject against its floor,
back to back, as a median ratio."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["interleaved", "timed"]


def timed(run: Callable[[], object]) -> float:
    """Wall seconds of one ``run()``."""
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def interleaved(floor: Callable[[], object], subject: Callable[[], object], rounds: int) -> float:
    """The median over ``rounds`` of subject time ÷ floor time, the two back to back, alternating which goes first."""
    ratios = []
    for number in range(rounds):
        if number % 2:
            subject_time, floor_time = timed(subject), timed(floor)
        else:
            floor_time, subject_time = timed(floor), timed(subject)
        ratios.append(subject_time / floor_time)
    return statistics.median(ratios)
