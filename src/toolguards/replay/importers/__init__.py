"""The session importers of ``toolguards replay``: recorded sessions in eight formats, read as one stream of records.

Each format is one module, registered below by one line, whose docstring documents the format as we read it:
``events`` (toolguards' own JSON Lines), ``dsh`` (the reference harness's session logs), ``openai`` (Chat Completions
message lists), ``anthropic`` (Messages API lists), ``claude_code`` (Claude Code transcripts), ``codex`` (Codex CLI
rollouts), ``gemini`` (Gemini CLI chat recordings) and ``otel`` (OpenTelemetry GenAI traces). A format module has
three members (``Format``): ``read``, ``identifies`` and ``FILE_NAME``; ``detect`` decides which format an input is
from the last two, trying the formats in registry order.

Every importer yields ``Record``s in input order — a tool call once its result has arrived or its step has ended,
so each post-execute carries its outcome — and an ``InputError`` for a malformed line, in its place in the order,
then carries on with the next line (a one-document JSON input cannot carry on past a syntax error: it ends there).
A record of the format that the importer does not read (a type it does not know, or a known type in a shape it does
not know) is a ``skipped`` record labelled with its type; only input that is not the format at all (not JSON, not a
JSON object, not UTF-8) is an InputError. JSON Lines inputs stream; a one-document JSON input is read whole, each
record keeping the line where its message starts. Traces (``otel``) are read whole too, since a trace's spans are
exported children first; their records come trace by trace in start-time order, after the input's problems.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, Protocol

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record
from . import anthropic, claude_code, codex, dsh, gemini, openai, otel, toolguards_events
from ._json import Lines
from .detect import Detection, detect

__all__ = ["FORMATS", "READERS", "Detection", "Format", "Lines", "detect_format", "read_records"]


class Format(Protocol):
    """A format module."""

    #: The name the host gives every file of this format, matched against the whole file name; None: no fixed name.
    FILE_NAME: re.Pattern[str] | None

    def read(
        self, path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS
    ) -> Iterator[Record | InputError]:
        """The records of one input; ``path`` names it in errors (and labels the agent where the log has no id)."""
        ...

    def identifies(self, value: Any) -> bool:
        """Whether a decoded JSON value (a JSON Lines line, or a whole one-document input) is unmistakably of this
        format; never raises."""
        ...


READERS: Mapping[str, Format] = MappingProxyType(
    {
        "events": toolguards_events,
        "dsh": dsh,
        "openai": openai,
        "anthropic": anthropic,
        "claude-code": claude_code,
        "codex": codex,
        "gemini": gemini,
        "otel": otel,
    }
)
FORMATS: tuple[str, ...] = tuple(READERS)


def read_records(
    fmt: str, path: str, stream: Lines, options: ImportOptions = DEFAULT_OPTIONS
) -> Iterator[Record | InputError]:
    """The records of ``stream`` read as format ``fmt`` (one of FORMATS); a malformed line is yielded as an
    InputError and reading carries on."""
    try:
        module = READERS[fmt]
    except KeyError:
        raise ValueError(f"unknown input format {fmt!r} (known: {', '.join(FORMATS)})") from None
    return module.read(path, stream, options)


def detect_format(path: str, text: str) -> Detection:
    """The format of an input held whole in ``text`` (the command reads a file's head instead: ``Source``)."""
    return detect(path, READERS, list(io.StringIO(text, newline="\n")), lambda: text)
