"""The geometry of the page's charts, drawn as inline SVG by the page template: a histogram of run lengths per tool,
the what-if's bars per threshold, and a session's timeline.

Only numbers and the figures' own values come out of here; the template writes the SVG elements and every label (in
the page's locale), escaping all text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .timeline import Timeline

__all__ = [
    "BUCKETS",
    "Bar",
    "Histogram",
    "Stripe",
    "TimelineDrawing",
    "WhatIfBar",
    "WhatIfChart",
    "histogram",
    "timeline_drawing",
    "what_if_chart",
]

#: run-length buckets of the histogram: (lowest, highest; None for no bound)
BUCKETS: tuple[tuple[int, int | None], ...] = (
    (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 7), (8, 10), (11, 15), (16, 25), (26, 50), (51, 100), (101, None),
)
_BAR = 11  # px per histogram bar, gap included
_HIST_HEIGHT = 36


def _n(value: float) -> str:
    # Coordinates with one decimal at most: small pages, and the same text on every platform.
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


@dataclass(frozen=True)
class Bar:
    """One histogram bar: runs of ``low``..``high`` calls (``high`` None: or more); ``hot`` from the first
    threshold on."""

    x: str
    y: str
    height: str
    low: int
    high: int | None
    runs: int
    hot: bool


@dataclass(frozen=True)
class Histogram:
    """Run lengths of one tool, on a logarithmic scale (a tool has far more single calls than long runs)."""

    width: int
    height: int
    bar: int
    bars: tuple[Bar, ...]


def histogram(runs: Mapping[int, int], first_threshold: int) -> Histogram:
    """The histogram of ``runs`` (run length → runs)."""
    counts = []
    for low, high in BUCKETS:
        counts.append(sum(n for length, n in runs.items() if length >= low and (high is None or length <= high)))
    top = math.log1p(max(counts, default=0)) or 1.0
    bars = []
    for number, ((low, high), count) in enumerate(zip(BUCKETS, counts, strict=True)):
        height = 0.0 if count == 0 else max(1.5, _HIST_HEIGHT * math.log1p(count) / top)
        hot = high is None or high >= first_threshold
        bars.append(Bar(_n(number * _BAR), _n(_HIST_HEIGHT - height), _n(height), low, high, count, hot))
    return Histogram(len(BUCKETS) * _BAR, _HIST_HEIGHT, _BAR - 2, tuple(bars))


@dataclass(frozen=True)
class WhatIfBar:
    """Reminders at one threshold under one guard file, plain or result-aware."""

    x: str
    y: str
    height: str
    side: int
    aware: bool
    reminders: int


@dataclass(frozen=True)
class WhatIfChart:
    """Bars grouped by threshold: for each guard file, plain then result-aware."""

    width: int
    height: int
    bar: int
    #: (threshold, x of its label, configured under which guard files)
    groups: tuple[tuple[int, str, tuple[int, ...]], ...]
    bars: tuple[WhatIfBar, ...]
    top: int


_WI_BAR = 13
_WI_HEIGHT = 150


def what_if_chart(thresholds: Sequence[int], values: Sequence[Sequence[tuple[int, int]]],
                  configured: Sequence[Sequence[int]]) -> WhatIfChart:
    """``values[side][i]`` is (plain, result-aware) at ``thresholds[i]``; ``configured[side]`` the file's thresholds."""
    sides = len(values)
    per_group = 2 * sides * _WI_BAR + 12
    top = max((v for side in values for pair in side for v in pair), default=0)
    scale = _WI_HEIGHT / top if top else 0.0
    bars = []
    groups = []
    for i, threshold in enumerate(thresholds):
        left = i * per_group + 6
        for side in range(sides):
            for k, aware in enumerate((False, True)):
                value = values[side][i][k]
                height = value * scale
                x = left + (2 * side + k) * _WI_BAR
                bars.append(WhatIfBar(_n(x), _n(_WI_HEIGHT - height), _n(height), side, aware, value))
        marked = tuple(side for side in range(sides) if threshold in configured[side])
        groups.append((threshold, _n(left + sides * _WI_BAR), marked))
    return WhatIfChart(len(thresholds) * per_group, _WI_HEIGHT, _WI_BAR - 1, tuple(groups), tuple(bars), top)


@dataclass(frozen=True)
class Stripe:
    """Drawn runs and reminders of a timeline: where, and what the template names in their titles."""

    x: str
    y: str
    width: str
    tool: str
    length: int
    line: int
    hot: bool


@dataclass(frozen=True)
class TimelineDrawing:
    """A session's timeline: one row per agent, calls as ticks (shaded by how many calls a tick stands for), runs
    as bands over them and reminders as marks above."""

    width: int
    height: int
    row_height: int
    #: (y, agent or None for the shared row, agents in the shared row, [(opacity, path)])
    rows: tuple[tuple[str, str | None, int, tuple[tuple[str, str], ...]], ...]
    spans: tuple[Stripe, ...]
    #: (x, y, tool, count, label)
    marks: tuple[tuple[str, str, str, int, str], ...]


_TL_WIDTH = 720
_TL_CALL = 10  # px per call at most: a short session is drawn short
_TL_ROW = 16
_TL_TOP = 6


def timeline_drawing(timeline: Timeline, first_threshold: int) -> TimelineDrawing:
    """The drawing of one session's timeline."""
    calls = max(timeline.calls, 1)
    step = min(_TL_WIDTH / calls, _TL_CALL)  # px per call
    tick = max(step * timeline.width - (0.5 if step * timeline.width > 2 else 0), 0.6)
    rows = []
    for number, row in enumerate(timeline.rows):
        y = _TL_TOP + number * _TL_ROW
        shades: dict[str, list[str]] = {}
        for slot, count in enumerate(row.bins):
            if count:
                shade = "1" if count * 2 > timeline.width else ".5"
                x = _n(slot * timeline.width * step)
                shades.setdefault(shade, []).append(f"M{x} {y + 3}h{_n(tick)}v10h-{_n(tick)}z")
        rows.append((str(y), row.agent, row.others, tuple((shade, "".join(d)) for shade, d in sorted(shades.items()))))
    spans = tuple(
        Stripe(_n(span.first * step), str(_TL_TOP + span.row * _TL_ROW + 1),
               _n(max((span.last + 1 - span.first) * step, 2.0)), span.tool, span.length, span.line,
               span.length >= first_threshold)
        for span in timeline.spans
    )
    marks = tuple(
        (_n((mark.index + 0.5) * step), str(_TL_TOP + mark.row * _TL_ROW), mark.tool, mark.count, mark.label)
        for mark in timeline.marks
    )
    height = _TL_TOP * 2 + max(len(rows), 1) * _TL_ROW
    return TimelineDrawing(math.ceil(step * calls), height, _TL_ROW, tuple(rows), spans, marks)
