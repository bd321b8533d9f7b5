"""The report page: one self-contained HTML file rendered from ``templates/report/`` in the chosen locale.

``page.html.j2`` lays the page out; ``<locale>/labels.j2`` holds every word of it (plain strings and small macros for
counted phrases), imported by the page as ``t``; ``style.css`` and ``script.js`` are inlined. Jinja2 runs sandboxed,
with ``StrictUndefined`` and autoescaping on: every tool name, argument, agent and path is data and reaches the page
escaped. A Content-Security-Policy lets the page load nothing at all, and run only its own script and style (by hash).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup

from .. import __version__
from ..events import OUTCOMES
from ..guardfile.templates import available_locales, resolve_locale
from ..replay.delivered import Followups
from ..replay.summary import outcome_rows, share
from ..resources import shipped_templates_dir
from .analysis import Report, ToolTally, runs_at_least
from .charts import Histogram, TimelineDrawing, WhatIfChart, histogram, timeline_drawing, what_if_chart
from .suggest import Suggestion, suggest

__all__ = ["FOLD_ABOVE", "locales", "render_page", "report_templates_dir", "resolve_page_locale"]

#: timelines start folded when there are more sessions than this
FOLD_ABOVE = 12
#: inputs that failed, listed by name (the rest are counted)
MAX_FAILURES = 200


def report_templates_dir() -> Path:
    """The shipped templates/report/ folder."""
    return shipped_templates_dir() / "report"


def locales() -> list[str]:
    """The locales the page has labels in."""
    root = report_templates_dir()
    return [name for name in available_locales([root]) if (root / name / "labels.j2").is_file()]


def resolve_page_locale(requested: str) -> str | None:
    """The page locale for ``requested`` (``zh-CN`` → ``zh``), or None when the page has no labels in it."""
    return resolve_locale(requested, locales())


@dataclass(frozen=True)
class ToolRow:
    """One tool in the per-tool table."""

    tool: str
    tally: ToolTally
    tracked: bool
    histogram: Histogram
    repeated: int
    long_runs: int
    changing: int
    reminders: tuple[int, ...]


@dataclass(frozen=True)
class SessionRow:
    """One session in the timelines."""

    path: str
    format: str | None
    calls: int
    agents: int
    reminders: int
    longest: int
    drawing: TimelineDrawing
    more_spans: int
    more_marks: int


@dataclass(frozen=True)
class ReminderRow:
    """Reminders drawn at one (guard, template, count), per guard file."""

    guard: str
    template: str
    count: int
    drawn: tuple[int, ...]


def render_page(report: Report, locale: str) -> str:
    """The page of ``report`` with labels in ``locale`` (one of ``locales()``)."""
    root = report_templates_dir()
    env = ImmutableSandboxedEnvironment(
        loader=FileSystemLoader([str(root / locale), str(root)], encoding="utf-8"),
        undefined=StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    style = (root / "style.css").read_text(encoding="utf-8")
    script = (root / "script.js").read_text(encoding="utf-8")
    context = _context(report)
    return env.get_template("page.html.j2").render(
        **context,
        version=__version__,
        style=Markup(style),  # our own shipped files: a test checks that neither holds a closing tag
        script=Markup(script),
        csp=f"default-src 'none'; style-src '{_digest(style)}'; script-src '{_digest(script)}'; img-src data:",
    )


def _cost(found: Followups) -> dict[str, object] | None:
    """The loops' tokens (and dollars, where priced), in all and per tool; None where no usage was recorded."""
    if not found.usage:
        return None
    tools = [(tool, tokens, found.tools_after_reminder[tool]) for tool, tokens in
             sorted(found.tools_in_loops.items(), key=lambda item: (-(item[1].input + item[1].output), item[0]))]
    return {"all": found.tokens, "in_loops": found.in_loops, "after_reminder": found.after_reminder, "tools": tools}
def _stalled(report: Report) -> dict[str, object] | None:
    """The no-progress what-if of the sides whose file has a no-progress-reminder (None: no file has one)."""
    sides = [side for side, view in enumerate(report.views) if view.no_progress]
    if not sides:
        return None
    thresholds = report.stalled_thresholds()
    return {
        "sides": sides,
        "thresholds": thresholds,
        "totals": {side: [report.stalled_what_if(side, t) for t in thresholds] for side in sides},
        "tools": {
            side: [(tool, [runs_at_least(tally.sides[side].stalled, t) for t in thresholds])
                   for tool, tally in report.by_tool() if runs_at_least(tally.sides[side].stalled, 2)]
            for side in sides
        },
    }


def _digest(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _context(report: Report) -> dict[str, object]:
    views = report.views
    sides = range(len(views))
    first = views[0].first_threshold
    thresholds = report.thresholds()
    keys = sorted({key for side in sides for key in report.reminders(side)}, key=lambda key: (key[0], key[2], key[1]))
    drawn = [report.reminders(side) for side in sides]
    tools = [
        ToolRow(
            tool, tally, bool(tally.runs), histogram(tally.runs, first), runs_at_least(tally.runs, 2),
            runs_at_least(tally.runs, first), runs_at_least(tally.changing, 2),
            tuple(sum(tally.sides[side].reminders.values()) for side in sides),
        )
        for tool, tally in report.by_tool()
    ]
    what_if = [[(report.what_if(side, t, aware=False), report.what_if(side, t, aware=True)) for t in thresholds]
               for side in sides]
    per_tool = [
        [
            (tool, [(Report.tool_what_if(tally, side, t, aware=False), Report.tool_what_if(tally, side, t, aware=True))
                    for t in thresholds], views[side].aware_for(tool))
            for tool, tally in report.by_tool()
            if runs_at_least(tally.sides[side].plain, 2) or runs_at_least(tally.sides[side].aware, 2)
        ]
        for side in sides
    ]
    chart: WhatIfChart = what_if_chart(thresholds, what_if, [view.thresholds for view in views])
    sessions = [
        SessionRow(s.path, s.format, s.calls, len(s.agents), s.reminders[0],
                   max((tally.longest() for tally in s.tools.values()), default=0),
                   timeline_drawing(s.timeline, first), s.timeline.more_spans, s.timeline.more_marks)
        for s in report.sessions
    ]
    suggestion: Suggestion | None = suggest(report)
    found = report.followups
    after = [{**row, "shares": {name: share(row[name], row["reminders"]) for name in OUTCOMES}}
             for row in outcome_rows(found)]
    return {
        "after": after,
        "cost": _cost(found),
        "stalled": _stalled(report),
        "views": views,
        "compare": len(views) > 1,
        "first_threshold": first,
        "totals": {
            "sessions": len(report.sessions),
            "agents": report.agents,
            "calls": report.calls,
            "skipped": report.skipped,
            "unread": sum(count for count, _, _ in report.unread.values()),
            "failed": len(report.failures),
            "reminders": [sum(side.values()) for side in drawn],
        },
        "failures": report.failures,
        "max_failures": MAX_FAILURES,
        # As replay --summary lists them: the commonest first.
        "unread": [(fmt, label, count, path, line) for (fmt, label), (count, path, line)
                   in sorted(report.unread.items(), key=lambda item: (-item[1][0], item[0]))],
        "reminder_rows": [ReminderRow(key[0], key[1], key[2], tuple(side[key] for side in drawn)) for key in keys],
        "thresholds": thresholds,
        "what_if": what_if,
        "what_if_tools": per_tool,
        "chart": chart,
        "tools": tools,
        "longest": report.longest,
        "sessions": sessions,
        "folded": len(sessions) > FOLD_ABOVE,
        "suggestion": suggestion,
    }
