"""The session importers of ``toolguards replay``: recorded sessions in eight formats, read as one stream of records.

Each format has a module whose docstring documents the format as we read it: ``events`` (toolguards' own JSON
Lines), ``dsh`` (the reference harness's session logs), ``openai`` (Chat Completions message lists), ``anthropic``
(Messages API lists), ``claude_code`` (Claude Code transcripts), ``codex`` (Codex CLI rollouts), ``gemini`` (Gemini
CLI chat recordings) and ``otel`` (OpenTelemetry GenAI traces); ``detect`` decides which one an input is.

Every importer yields ``Record``s in input order — a tool call once its result has arrived or its step has ended,
so each post-execute carries its outcome — and an ``InputError`` for a malformed line, in its place in the order,
then carries on with the next line (a one-document JSON input cannot carry on past a syntax error: it ends there).
JSON Lines inputs stream; a one-document JSON input is read whole, each message keeping the line where it starts.
Traces (``otel``) are the exception: read whole, since a trace's spans are exported children first, their records
come trace by trace in start-time order, after the input's problems.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Protocol

from ..records import InputError, Record
from . import anthropic, claude_code, codex, dsh, events, gemini, openai, otel
from ._json import Lines
from .detect import detect_format

__all__ = ["FORMATS", "READERS", "Lines", "Reader", "detect_format", "read_records"]


class Reader(Protocol):
    """An importer: ``path`` names the input in errors (and labels the agent where the log has no id)."""

    def __call__(self, path: str, lines: Lines) -> Iterator[Record | InputError]: ...


READERS: Mapping[str, Reader] = MappingProxyType(
    {
        "events": events.read,
        "dsh": dsh.read,
        "openai": openai.read,
        "anthropic": anthropic.read,
        "claude-code": claude_code.read,
        "codex": codex.read,
        "gemini": gemini.read,
        "otel": otel.read,
    }
)
FORMATS: tuple[str, ...] = tuple(READERS)


def read_records(fmt: str, path: str, stream: Lines) -> Iterator[Record | InputError]:
    """The records of ``stream`` read as format ``fmt`` (one of FORMATS); a malformed line is yielded as an
    InputError and reading carries on."""
    try:
        reader = READERS[fmt]
    except KeyError:
        raise ValueError(f"unknown input format {fmt!r} (known: {', '.join(FORMATS)})") from None
    return reader(path, stream)
