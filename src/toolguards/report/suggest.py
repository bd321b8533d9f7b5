"""The page's suggestion where the data shows polling: a guard file in which the tools whose long runs had changing
results get ``resultAware: true``, and the tools with many long runs whose results never changed are named.

A tool is *polled with progress* when, during at least one of its runs of the first threshold or longer, its result
changed: ``resultAware`` would have stayed quiet there. A tool with ``POLLING_RUNS`` such runs or more and no change
seen (or no results recorded) is *polled or looping*: the page advises excluding it or raising its thresholds, as
``replay --summary`` does, but puts nothing in the YAML, since a real loop would go unseen.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..replay.stats import POLLING_RUNS
from .analysis import Report, runs_at_least

__all__ = ["Polled", "Suggestion", "suggest", "yaml_string"]


@dataclass(frozen=True)
class Polled:
    """A tool the data shows polled: its runs of the first threshold or longer, and how many had changing results."""

    tool: str
    long_runs: int
    changing: int


@dataclass(frozen=True)
class Suggestion:
    """The suggested guard file (None when no tool needs ``resultAware``), and the tools behind it: ``aware`` in the
    YAML, ``unlisted`` polled with progress too but not nameable in an override (a ``*`` in the name would be a
    wildcard), ``unchanged`` polled or looping."""

    yaml: str | None
    threshold: int
    aware: tuple[Polled, ...]
    unchanged: tuple[Polled, ...]
    unlisted: tuple[Polled, ...] = ()


def suggest(report: Report) -> Suggestion | None:
    """What the first guard file could change, or None where the data shows no polling."""
    view = report.views[0]
    threshold = view.first_threshold
    aware: list[Polled] = []
    unlisted: list[Polled] = []
    unchanged: list[Polled] = []
    for tool, tally in sorted(report.tools.items()):
        long_runs = runs_at_least(tally.runs, threshold)
        changing = runs_at_least(tally.changing, threshold)
        if changing and not view.aware_for(tool):
            (aware if _listable(tool) else unlisted).append(Polled(tool, long_runs, changing))
        elif not changing and long_runs >= POLLING_RUNS:
            unchanged.append(Polled(tool, long_runs, changing))
    if not aware and not unchanged and not unlisted:
        return None
    return Suggestion(_yaml(report, [p.tool for p in aware]) if aware else None, threshold, tuple(aware),
                      tuple(unchanged), tuple(unlisted))


def _listable(tool: str) -> bool:
    # `*` would be read as a wildcard, and a lone surrogate cannot be written in YAML at all.
    return "*" not in tool and not any(0xD800 <= ord(char) <= 0xDFFF for char in tool)


def _yaml(report: Report, tools: list[str]) -> str:
    view = report.views[0]
    lines = [
        "version: 1",
        "guards:",
        f"  - id: {yaml_string(view.guard or 'repeat-tool-reminder')}",
        "    config:",
        f"      thresholds: [{', '.join(str(t) for t in view.thresholds or (3, 5, 8))}]",
    ]
    for key, patterns in (("include", view.include), ("exclude", view.exclude)):
        if patterns:
            lines.append(f"      {key}: [{', '.join(yaml_string(p) for p in patterns)}]")
    lines += [
        "      overrides:",
        f"        - tools: [{', '.join(yaml_string(tool) for tool in tools)}]",
        "          resultAware: true",
    ]
    return "\n".join(lines) + "\n"


def _printable(code: int) -> bool:
    # YAML 1.2's printable set (chapter 5.1), less the line breaks, which a one-line scalar must escape.
    return (
        0x20 <= code <= 0x7E or code == 0x85 or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    ) and code not in (0x85, 0x2028, 0x2029, 0xFEFF)


def yaml_string(text: str) -> str:
    """``text`` as a YAML double-quoted scalar that reads back as exactly ``text``."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif _printable(code):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)
