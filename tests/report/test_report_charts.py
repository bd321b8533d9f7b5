"""The charts' geometry: buckets of the histogram, marks of the what-if, and timeline paths that put every call where
it belongs."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from toolguards.report.charts import BUCKETS, _bands, histogram, timeline_drawing, what_if_chart
from toolguards.report.timeline import Mark, Row, Span, Timeline


def test_the_histogram_buckets_every_length_once_and_darkens_from_the_first_threshold():
    runs = Counter({1: 40, 2: 5, 3: 2, 7: 1, 9: 1, 400: 1})
    chart = histogram(runs, 3)
    assert [(bar.low, bar.high, bar.runs) for bar in chart.bars if bar.runs] == [
        (1, 1, 40), (2, 2, 5), (3, 3, 2), (6, 7, 1), (8, 10, 1), (101, None, 1)]
    assert [bar.hot for bar in chart.bars] == [False, False] + [True] * (len(BUCKETS) - 2)
    assert max(float(bar.height) for bar in chart.bars) == chart.height
    assert all(float(bar.height) >= 1.5 for bar in chart.bars if bar.runs)


def test_the_what_if_chart_marks_the_configured_thresholds_of_each_side():
    chart = what_if_chart([2, 3, 4], [[(4, 2), (2, 2), (1, 0)], [(4, 4), (2, 1), (1, 1)]], [(3,), (3, 4)])
    assert [(threshold, marked) for threshold, _, marked in chart.groups] == [(2, ()), (3, (0, 1)), (4, (1,))]
    assert chart.top == 4 and len(chart.bars) == 12
    assert [(bar.side, bar.aware, bar.reminders) for bar in chart.bars[:4]] == [
        (0, False, 4), (0, True, 2), (1, False, 4), (1, True, 4)]


@pytest.mark.parametrize(
    ("bins", "width", "apart", "expected"),
    [
        ((1, 1, 0, 1), 1, False, {"1": [(0, 2), (3, 1)]}),
        ((1, 1, 0, 1), 1, True, {"1": [(0, 1), (1, 1), (3, 1)]}),
        ((4, 1, 1, 3, 0, 0, 2), 4, False, {"1": [(0, 1), (3, 1)], ".5": [(1, 2), (6, 1)]}),
        ((), 1, False, {}),
    ],
)
def test_bands_join_neighbouring_bins_of_one_shade(bins, width, apart, expected):
    assert _bands(bins, width, apart) == expected


def pen(path: str) -> list[tuple[float, float]]:
    """The absolute (x, width) of every stroke of a relative path: M0 y, then m dx 0 h w for each."""
    found, at = [], 0.0
    for move, length in re.findall(r"m(-?[\d.]+) 0h([\d.]+)", path):
        at += float(move)
        found.append((round(at, 3), float(length)))
        at += float(length)
    return found


def test_a_timeline_puts_each_call_and_run_where_it_is():
    timeline = Timeline(
        calls=7, width=1,
        rows=(Row("main", (1, 1, 0, 1, 0, 0, 1)), Row("sub", (0, 0, 1, 0, 1, 1))),
        spans=(Span(0, 0, 1, 2, "grep", 3), Span(1, 4, 5, 2, "ls", 9)),
        marks=(Mark(1, 5, "ls", 2, "g/first"),), more_spans=0, more_marks=0,
    )
    drawing = timeline_drawing(timeline, 2)
    assert drawing.width == 70  # 10 px per call in a short session
    (_, agent, _, ((shade, main),)), (_, _, _, ((_, sub),)) = drawing.rows
    assert (agent, shade) == ("main", "1")
    assert pen(main) == [(0.0, 9.5), (10.0, 9.5), (30.0, 9.5), (60.0, 9.5)]
    assert pen(sub) == [(20.0, 9.5), (40.0, 9.5), (50.0, 9.5)]
    assert [(s.x, s.width, s.tool, s.length, s.line) for s in drawing.long] == [("0", "20", "grep", 2, 3),
                                                                              ("40", "20", "ls", 2, 9)]
    assert drawing.short == "" and drawing.marks == "M55 24l-3 -5h6z"


def test_a_long_timeline_is_drawn_to_its_width_with_short_runs_in_one_path():
    timeline = Timeline(calls=3000, width=16, rows=(Row("main", (16,) * 187 + (8,)),),
                        spans=(Span(0, 16, 17, 2, "grep", 20), Span(0, 2990, 2999, 10, "ls", 2999)),
                        marks=(), more_spans=0, more_marks=0)
    drawing = timeline_drawing(timeline, 3)
    (_, _, _, paths), = drawing.rows
    # 187 full bins of 16 calls (3.84 px) in one band, and a last half-full bin that ends with the last call
    assert [(shade, pen(path)) for shade, path in paths] == [(".5", [(718.1, 1.9)]), ("1", [(0.0, 718.1)])]
    assert drawing.width == 720
    assert drawing.short == "M3.8 14h2" and [s.tool for s in drawing.long] == ["ls"]
