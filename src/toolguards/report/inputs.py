"""The report's inputs, read as ``toolguards replay`` reads them (``replay.session.Input``: every format, detected per
input) and each analysed where it is opened, so that a worker process of ``replay.batch.run_each`` hands back only its
figures (a ``SessionReport``) or the problem that kept it from being opened.

``Job`` says how every input is read and which guard files judge it; ``setup`` loads those once per process and
``work`` analyses one input. Both are module-level functions of picklable values, ready for a process pool.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..guardfile.loader import load
from ..guardfile.prices import NO_PRICES, PriceTable
from ..replay.records import InputError
from ..replay.session import Input, Reading
from ..resources import default_guard_file
from .analyser import Analyser
from .analysis import SessionReport

__all__ = ["Job", "Problem", "setup", "work"]


@dataclass(frozen=True)
class Job:
    """How a report reads its inputs: the guard files (``config`` None: the shipped default), the reminder locale,
    and how each input is read."""

    config: str | None = None
    compare: str | None = None
    locale: str | None = None
    reading: Reading = field(default_factory=Reading)
    #: the price table of the loops' cost (``--prices``, else the guard file's)
    prices: PriceTable = NO_PRICES

    def names(self) -> list[str]:
        """How the page names the guard files."""
        names = [self.config or default_guard_file().name]
        if self.compare:
            names.append(self.compare)
        return names


@dataclass(frozen=True)
class Problem:
    """An input that could not be opened (missing, unreadable, or of a format that cannot be told): not a session."""

    message: str


def setup(job: Job) -> Analyser:
    """The engines of the job's guard files; raises ConfigError listing every problem of a file."""
    engines = [load(job.config or default_guard_file(), locale=job.locale)]
    if job.compare:
        engines.append(load(job.compare, locale=job.locale))
    for engine in engines:  # the report shows what each guard would say, in shadow or not
        engine.deliver_all()
    return Analyser(engines, job.names(), job.reading, job.prices)


def work(analyser: Analyser, path: str) -> SessionReport | Problem:
    """The figures of one input (up to the problem that ended it, if one did), or why it could not be opened."""
    try:
        opened = Input(path, analyser.reading)
    except InputError as exc:
        return Problem(str(exc))
    with opened:
        return analyser.analyse(opened.display, opened.format, opened.records(), bad_line=opened.source.bad_line)
