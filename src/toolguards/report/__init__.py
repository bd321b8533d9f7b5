"""``toolguards report``: recorded sessions in, one self-contained HTML page of runs, thresholds and what-ifs out.

The analysis is per input and mergeable: ``work`` (``inputs``) turns one input into a small ``SessionReport`` (in a
worker process if need be) through the ``Analyser`` (``analyser``), which reads the input's records through replay's
feed and follows its runs (``replay.chains``, ``timeline``); ``merge`` (``analysis``) adds them up in input order into a
``Report``, ``suggest`` proposes thresholds from it, and ``render_page`` (``page``, with ``charts``) writes the page.
"""

from __future__ import annotations

from ..replay.chains import Chains, Run
from .analyser import Analyser, guard_view
from .analysis import WHAT_IF, GuardView, LongRun, Report, SessionReport, ToolTally, merge, runs_at_least
from .inputs import Job, Problem, setup, work
from .page import locales, render_page, resolve_page_locale
from .suggest import Suggestion, suggest

__all__ = [
    "WHAT_IF",
    "Analyser",
    "Chains",
    "GuardView",
    "Job",
    "LongRun",
    "Problem",
    "Report",
    "Run",
    "SessionReport",
    "Suggestion",
    "ToolTally",
    "guard_view",
    "locales",
    "merge",
    "render_page",
    "resolve_page_locale",
    "runs_at_least",
    "setup",
    "suggest",
    "work",
]
