"""Side-by-side timing shared by the benchmark scripts (beside them, not a package): a subject against its floor,
back to back, as a median ratio."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["interleaved", "side_by_side", "timed"]


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


def side_by_side(
    floor: Callable[[], object], subjects: dict[str, Callable[[], object]], rounds: int
) -> dict[str, float]:
    """For each subject, the median over ``rounds`` of its time ÷ the floor's time in the same round; the floor and
    the subjects run back to back, in an order that rotates from round to round."""
    runs = [("", floor), *subjects.items()]
    ratios: dict[str, list[float]] = {name: [] for name in subjects}
    for number in range(rounds):
        shift = number % len(runs)
        times = {name: timed(run) for name, run in runs[shift:] + runs[:shift]}
        for name in subjects:
            ratios[name].append(times[name] / times[""])
    return {name: statistics.median(found) for name, found in ratios.items()}
