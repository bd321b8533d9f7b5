"""The page's suggestion where the data shows polling: a guard file in which the tools whose long runs had changing
results get ``resultAware: true``, and the tools with many long runs whose results never changed are named.

A tool is *polled with progress* when, during at least one of its runs of the first threshold or longer, its result
changed: ``resultAware`` would have stayed quiet there. A tool with ``POLLING_RUNS`` such runs or more and no change
seen (or no results recorded) is *polled or looping*: the page advises excluding it or raising its thresholds, as
``replay --summary`` does, but puts nothing in the YAML, since a real loop would go unseen.

Runs that break only on a volatile part (``volatility``) get what would have kept them together, each tool in an
override of its own: a tool with runs of the first threshold or longer whose result changed only in volatile numbers
gets ``resultAware: true`` with the ``resultNormalizers`` that leave them out (and leaves the ``resultAware`` list: a
PGID that changes on every call is not progress); a tool with loose runs of the first threshold or longer — calls
that differ only in volatile strings, with a result that never changed — gets ``ignoreArguments`` for those places.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..replay.stats import POLLING_RUNS
from ..volatile import Normalizer
from .analysis import GuardView, Report, ToolTally, runs_at_least

__all__ = ["Loose", "Polled", "Suggestion", "Volatile", "suggest", "yaml_string"]


@dataclass(frozen=True)
class Polled:
    """A tool the data shows polled: its runs of the first threshold or longer, and how many had changing results."""

    tool: str
    long_runs: int
    changing: int


@dataclass(frozen=True)
class Volatile:
    """A tool whose ``runs`` of the first threshold or longer changed their result only in what ``normalizers``
    replace."""

    tool: str
    runs: int
    normalizers: tuple[Normalizer, ...]


@dataclass(frozen=True)
class Loose:
    """A tool whose ``runs`` of the first threshold or more calls differed only in the arguments at ``paths``, with a
    result that never changed."""

    tool: str
    runs: int
    paths: tuple[str, ...]


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
    volatile: tuple[Volatile, ...] = ()
    loose: tuple[Loose, ...] = ()


def suggest(report: Report) -> Suggestion | None:
    """What the first guard file could change, or None where the data shows no polling."""
    view = report.views[0]
    threshold = view.first_threshold
    aware: list[Polled] = []
    unlisted: list[Polled] = []
    unchanged: list[Polled] = []
    volatile: list[Volatile] = []
    loose: list[Loose] = []
    for tool, tally in sorted(report.tools.items()):
        long_runs = runs_at_least(tally.runs, threshold)
        changing = runs_at_least(tally.changing, threshold)
        found = _volatile(tool, tally, threshold) if _listable(tool) else None
        if found is not None:
            volatile.append(found)
        elif changing and not view.aware_for(tool):
            (aware if _listable(tool) else unlisted).append(Polled(tool, long_runs, changing))
        elif not changing and long_runs >= POLLING_RUNS:
            unchanged.append(Polled(tool, long_runs, changing))
        spread = _loose(tool, tally, threshold, view) if _listable(tool) else None
        if spread is not None:
            loose.append(spread)
    if not aware and not unchanged and not unlisted and not volatile and not loose:
        return None
    listed = aware or volatile or loose
    return Suggestion(_yaml(report, [p.tool for p in aware], volatile, loose) if listed else None, threshold,
                      tuple(aware), tuple(unchanged), tuple(unlisted), tuple(volatile), tuple(loose))


def _volatile(tool: str, tally: ToolTally, threshold: int) -> Volatile | None:
    """The tool's runs of ``threshold`` or more whose result changed only in volatile numbers, with the normalizers
    that explain them, the commonest first."""
    counted: Counter[Normalizer] = Counter()
    runs = 0
    for (normalizers, length), n in tally.volatile.items():
        if length >= threshold:
            runs += n
            counted.update(dict.fromkeys(normalizers, n))
    if not runs:
        return None
    return Volatile(tool, runs, tuple(sorted(counted, key=lambda item: (-counted[item], item.pattern))))


def _loose(tool: str, tally: ToolTally, threshold: int, view: GuardView) -> Loose | None:
    """The commonest places of the tool's loose runs of ``threshold`` calls or more (less those already ignored)."""
    counted: Counter[tuple[str, ...]] = Counter()
    ignored = set(view.ignored_for(tool))
    for (paths, length), n in tally.loose.items():
        kept = tuple(path for path in paths if path not in ignored)
        if length >= threshold and kept:
            counted[kept] += n
    if not counted:
        return None
    paths, runs = min(counted.items(), key=lambda item: (-item[1], item[0]))
    return Loose(tool, runs, paths)


def _listable(tool: str) -> bool:
    # `*` would be read as a wildcard, and a lone surrogate cannot be written in YAML at all.
    return "*" not in tool and not any(0xD800 <= ord(char) <= 0xDFFF for char in tool)


def _yaml(report: Report, tools: list[str], volatile: list[Volatile], loose: list[Loose]) -> str:
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
    lines.append("      overrides:")
    normalized = {found.tool: found for found in volatile}
    spread = {found.tool: found for found in loose}
    for tool in sorted(normalized.keys() | spread.keys()):
        lines.append(f"        - tools: [{yaml_string(tool)}]")
        if tool in normalized:
            lines += ["          resultAware: true", "          resultNormalizers:"]
            lines += [f"            - {{pattern: {yaml_string(n.pattern)}, replacement: {yaml_string(n.replacement)}}}"
                      for n in normalized[tool].normalizers]
        if tool in spread:
            lines.append(f"          ignoreArguments: [{', '.join(yaml_string(p) for p in spread[tool].paths)}]")
    if tools:
        lines += [
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
