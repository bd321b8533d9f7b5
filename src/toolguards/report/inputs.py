"""The report's inputs: each one read and analysed where it is opened, so that worker processes hand back only its
figures (a ``SessionReport``) or the problem that stopped it.

``Job`` says how every input is read and which guard files judge it; ``setup`` loads those once per process and
``work`` analyses one input. Both are module-level functions of picklable values, ready for a process pool.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import ConfigError
from ..loader import load
from ..replay.importers import detect_format, read_records
from ..replay.records import InputError
from ..replay.source import Source
from ..resources import default_guard_file
from .analysis import SessionReport
from .session import Analyser

__all__ = ["Job", "Problem", "setup", "work"]


@dataclass(frozen=True)
class Job:
    """How a report reads its inputs: the guard files (``config`` None: the shipped default), the reminder locale,
    the input format (``auto``: detected per input) and whether malformed lines are passed over."""

    config: str | None = None
    compare: str | None = None
    locale: str | None = None
    input_format: str = "auto"
    skip_bad_lines: bool = False

    def names(self) -> list[str]:
        """How the page names the guard files."""
        names = [self.config or default_guard_file().name]
        if self.compare:
            names.append(self.compare)
        return names


@dataclass(frozen=True)
class Problem:
    """Why an input could not be analysed: the message, and whether it is a usage error (exit 2) or not (exit 1)."""

    message: str
    usage: bool = False


def setup(job: Job) -> Analyser:
    """The engines of the job's guard files; raises ConfigError listing every problem of a file."""
    engines = [load(job.config or default_guard_file(), locale=job.locale)]
    if job.compare:
        engines.append(load(job.compare, locale=job.locale))
    return Analyser(engines, job.names())


def work(job: Job, analyser: Analyser, path: str) -> SessionReport | Problem:
    """The figures of one input, or the problem that stopped it."""
    try:
        source = Source(path)
    except OSError as exc:
        return Problem(str(InputError(path, 1, f"cannot read the input: {exc.strerror or exc}")))
    try:
        fmt: str | None = job.input_format
        if fmt == "auto":
            fmt = detect_format(source.display, source.head)
        if fmt is None:
            return Problem(f"{source.display}: cannot tell the input format; give --input-format", usage=True)
        records = read_records(fmt, source.display, source)
        return analyser.analyse(source.display, fmt, records, skip_bad_lines=job.skip_bad_lines)
    except (InputError, ConfigError) as exc:
        return Problem(str(exc))
    finally:
        source.close()
