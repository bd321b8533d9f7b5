"""One replay input, from its path to the outcome of each of its tool calls: open it, tell its format (``Input``),
read its records and run them through the engines (``outcomes``). ``toolguards replay`` (``replay.files``) and
``toolguards report`` (``report.inputs``) open every input this way, in worker processes with ``--jobs``.

Each input is its own session: after it, ``reset`` makes the engines forget every agent it had, so the next input
starts with fresh chains without loading the guard file again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType

from ..engine import Engine
from .feed import Outcome, Skipped, replay
from .importers import READERS, read_records
from .importers.detect import detect
from .records import DEFAULT_OPTIONS, ImportOptions, InputError, Record
from .source import Source

__all__ = ["Input", "Reading", "outcomes", "reset"]


@dataclass(frozen=True)
class Reading:
    """How a run reads its inputs (the same for every input)."""

    #: a name from ``importers.FORMATS``, or ``auto`` to detect each input's format
    input_format: str = "auto"
    options: ImportOptions = DEFAULT_OPTIONS
    #: records of the format that the importer does not read become errors
    strict: bool = False
    #: malformed lines are yielded as Skipped instead of ending the input
    skip_bad_lines: bool = False


class Input:
    """An opened input whose format is known: ``format`` is None for an empty input. Raises InputError when the
    file cannot be opened or its format cannot be told."""

    def __init__(self, path: str, reading: Reading, *, progress: bool = False) -> None:
        self.reading = reading
        try:
            self.source = Source(path, progress=progress)
        except OSError as exc:
            raise InputError(path, 1, f"cannot read the input: {exc.strerror or exc}") from None
        self.display = self.source.display
        self.format: str | None = reading.input_format
        if self.format == "auto":
            found = detect(self.display, READERS, self.source.head, self.source.whole)
            if found.problem is not None:
                self.source.close()
                raise found.problem
            self.format = found.format

    def records(self) -> Iterator[Record | InputError]:
        """The input's records, in order (with ``strict``, a skipped record is an InputError). Under a format named
        by ``input_format``, an input of which nothing reads as that format ends with an InputError."""
        if self.format is None:
            return iter(())
        records = read_records(self.format, self.display, self.source, self.reading.options)
        if self.reading.input_format != "auto":
            records = _read_something(records, self.display, self.format)
        return _strict(records, self.display, self.format) if self.reading.strict else records

    def close(self) -> None:
        """Close the input."""
        self.source.close()

    def __enter__(self) -> Input:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def outcomes(opened: Input, engines: Sequence[Engine]) -> Iterator[Outcome | Record | Skipped]:
    """Replay one opened input (``feed.replay``): an Outcome per tool call, every other record as it is, malformed
    lines as Skipped with ``skip_bad_lines``. Raises InputError where the input cannot be read on (the first malformed
    line without ``skip_bad_lines``, a line that is not UTF-8). Call ``reset`` after it."""
    try:
        yield from replay(opened.records(), engines, skip_bad_lines=opened.reading.skip_bad_lines)
    except UnicodeDecodeError as exc:  # a line not UTF-8, let through by an importer that iterates lines itself
        raise opened.source.bad_line(exc) from None


def reset(engines: Sequence[Engine], agents: Iterable[str]) -> None:
    """Forget ``agents`` in every engine: the next input starts with fresh chains, as if the engines were new."""
    for agent in agents:
        for engine in engines:
            engine.forget(agent)


def _strict(records: Iterator[Record | InputError], path: str, fmt: str) -> Iterator[Record | InputError]:
    for item in records:
        if type(item) is Record and item.kind == "skipped":
            yield InputError(path, item.line, f"{fmt} record not read (--strict): {item.text}")
        else:
            yield item


def _read_something(records: Iterator[Record | InputError], path: str, fmt: str) -> Iterator[Record | InputError]:
    """The records as they come; when every one was a record not read, an InputError after them: the input is not of
    the format named (an input holding nothing at all, or only records that hold no call, is a session)."""
    unread = 0
    first = 1
    for item in records:
        yield item
        if type(item) is not Record or item.kind != "skipped":
            yield from records  # something was read: the rest as it comes
            return
        unread += 1
        if unread == 1:
            first = item.line
    if unread:
        yield InputError(path, first, f"nothing here reads as {fmt}: {unread} record{'s' if unread != 1 else ''} not "
                                      "read and none read (another format? without --input-format it is detected)")
