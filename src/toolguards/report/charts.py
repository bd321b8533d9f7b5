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
    """A run of the first threshold or longer, drawn with its own title (shorter runs share one path)."""

    x: str
    y: str
    width: str
    tool: str
    length: int
    line: int


@dataclass(frozen=True)
class TimelineDrawing:
    """A session's timeline: one row per agent, calls as bands (shaded by how full the bins are), runs as bands over
    them and reminders as marks above. Whatever has no title of its own is one path, to keep the page small."""

    width: int
    height: int
    #: (y, agent or None for the shared row, agents in the shared row, [(opacity, path)])
    rows: tuple[tuple[int, str | None, int, tuple[tuple[str, str], ...]], ...]
    #: the runs shorter than the first threshold
    short: str
    long: tuple[Stripe, ...]
    marks: str


_TL_WIDTH = 720
_TL_CALL = 10  # px per call at most: a short session is drawn short
_TL_ROW = 16
_TL_TOP = 6


def _bands(bins: tuple[int, ...], width: int, apart: bool) -> dict[str, list[tuple[int, int]]]:
    """Runs of neighbouring bins of one shade, as (first bin, bins): a bin more than half full is dark. With
    ``apart`` (bins of one call each, with room to tell them apart) every bin is a band of its own."""
    found: dict[str, list[tuple[int, int]]] = {}
    current: tuple[str, int] | None = None
    for slot, count in enumerate((*bins, 0)):
        shade = ("1" if count * 2 > width else ".5") if count else None
        if current is not None and (shade != current[0] or apart):
            found.setdefault(current[0], []).append((current[1], slot - current[1]))
            current = None
        if shade is not None and current is None:
            current = (shade, slot)
    return found


def timeline_drawing(timeline: Timeline, first_threshold: int) -> TimelineDrawing:
    """The drawing of one session's timeline."""
    calls = max(timeline.calls, 1)
    step = min(_TL_WIDTH / calls, _TL_CALL)  # px per call
    gap = 0.5 if step > 2 else 0.0  # single calls stay apart where there is room
    rows = []
    for number, row in enumerate(timeline.rows):
        y = _TL_TOP + number * _TL_ROW
        paths = []
        for shade, bands in sorted(_bands(row.bins, timeline.width, timeline.width == 1 and gap > 0).items()):
            # Each band is one horizontal stroke (10 px wide, see style.css), each placed relative to the last.
            d, at = [f"M0 {y + 8}"], 0.0
            for first, size in bands:
                x = first * timeline.width * step
                # The last bin may reach past the session's last call: the band ends there.
                width = max(min(size * timeline.width * step - gap, step * calls - x), 0.6)
                move, length = _n(x - at), _n(width)
                d.append(f"m{move} 0h{length}")
                at += float(move) + float(length)  # where the pen is, rounding included
            paths.append((shade, "".join(d)))
        rows.append((y, row.agent, row.others, tuple(paths)))
    short = []
    long = []
    for span in timeline.spans:
        left, top = _n(span.first * step), _TL_TOP + span.row * _TL_ROW + 1
        extent = _n(max((span.last + 1 - span.first) * step, 2.0))
        if span.length >= first_threshold:
            long.append(Stripe(left, str(top), extent, span.tool, span.length, span.line))
        else:
            short.append(f"M{left} {top + 7}h{extent}")  # a stroke 14 px wide, as the long runs' rects are tall
    marks = "".join(f"M{_n((m.index + 0.5) * step)} {_TL_TOP + m.row * _TL_ROW + 2}l-3 -5h6z" for m in timeline.marks)
    height = _TL_TOP * 2 + max(len(rows), 1) * _TL_ROW
    return TimelineDrawing(math.ceil(step * calls), height, tuple(rows), "".join(short), tuple(long), marks)
