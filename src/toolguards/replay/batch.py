"""Many inputs: folders expanded to the session files under them, and one per-file step run over all of them — in
worker processes when asked — with the results in input order, whatever order the workers finish in.

``toolguards replay`` runs its per-file replay through ``run_each``; another command computes its own per-file result
(the outcomes' aggregates, say) by passing its own ``work``. The step runs where its input is read, so only its result
crosses back to the caller: keep it small, or spill it to a file (``Spill``).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import PurePath
from typing import Any, TypeVar

from .records import InputError

__all__ = ["SUFFIXES", "Spill", "cores", "expand_inputs", "run_each"]

#: What a folder contributes: its files with these suffixes, at any depth.
SUFFIXES = (".jsonl", ".json")

S = TypeVar("S")
R = TypeVar("R")


def expand_inputs(paths: Sequence[str]) -> tuple[list[str], list[InputError]]:
    """Each path as given, except a folder: every ``*.jsonl`` and ``*.json`` file under it, recursively, in sorted
    path order (other files are passed over). Also returns a problem for each folder that could not be listed."""
    found: list[str] = []
    problems: list[InputError] = []
    for path in paths:
        if path == "-" or not os.path.isdir(path):
            found.append(path)
            continue
        files: list[str] = []
        for folder, _subfolders, names in os.walk(path, onerror=lambda exc: problems.append(_unlisted(exc))):
            files.extend(os.path.join(folder, name) for name in names if name.endswith(SUFFIXES))
        found.extend(sorted(files, key=lambda file: PurePath(file).parts))
    return found, problems


def _unlisted(exc: OSError) -> InputError:
    return InputError(str(exc.filename), 1, f"cannot read the folder: {exc.strerror or exc}")


def cores() -> int:
    """The cores this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def run_each(
    work: Callable[[S, str], R],
    setup: Callable[[], S],
    paths: Sequence[str],
    jobs: int = 1,
    *,
    progress: bool = False,
    inherited: Callable[[], S] | None = None,
) -> Iterator[R]:
    """``work(state, path)`` for every path, yielded in the order of ``paths``. ``setup()`` makes the state once per
    process: here when ``jobs`` is 1, else in each of ``jobs`` worker processes (then ``work`` and ``setup`` must be
    picklable: module-level functions, or partials of them). Where the workers are forked from this process, each
    calls ``inherited`` instead, if given: it hands out state already made here (loaded guard files, say), which the
    worker holds as a copy in its inherited memory, unpickled and not made again. An exception in ``work`` or
    ``setup`` ends the run here. With ``progress``, one bar over the files runs on stderr when it is a terminal."""
    if jobs <= 1 or len(paths) <= 1:
        state = setup()
        with _FreshStack() as fresh:
            yield from _advancing((fresh.call(work, state, path) for path in paths), len(paths), progress)
        return
    sys.stdout.flush()  # a forked worker must not inherit unwritten output
    sys.stderr.flush()
    method = _start_method()
    make = inherited if inherited is not None and method == "fork" else setup
    context = multiprocessing.get_context(method)
    with context.Pool(min(jobs, len(paths)), initializer=_start_worker, initargs=(make,)) as pool:
        # The bar (and its monitor thread) comes after the workers: a process with threads must not fork.
        yield from _advancing(pool.imap(partial(_in_worker, work), paths, chunksize=1), len(paths), progress)


def _start_method() -> str | None:
    # Forking is cheap and safe from a process with one thread (Linux); anything else starts workers afresh.
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "forkserver" if sys.platform.startswith("linux") else None


_WORKER: dict[str, Any] = {}  # in a worker process: its "setup", then the "state" it made, and its "fresh" stack


def _start_worker(setup: Callable[[], Any]) -> None:
    # Ctrl-C reaches the whole process group; the parent alone handles it, and ends the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER.clear()
    _WORKER["setup"] = setup


def _in_worker(work: Callable[[Any, str], R], path: str) -> R:
    # The state is made by the first task, not by the initializer: a setup that raises then fails that task (and
    # the run) instead of killing the worker, which the pool would start again and again.
    if "state" not in _WORKER:
        _WORKER["state"] = _WORKER["setup"]()
        _WORKER["fresh"] = _FreshStack()  # ends with the worker process
    fresh: _FreshStack = _WORKER["fresh"]
    return fresh.call(work, _WORKER["state"], path)


class _FreshStack:
    """Runs each call on a thread of its own, so that every per-file step starts at the bottom of a fresh stack,
    here or in a worker, whatever is above the caller. Python's JSON scanner recurses once per level of nesting, and
    its limit counts what is on the stack (3.10 and 3.11: the recursion limit; later versions: C calls), so a line
    nested nearly that deep would otherwise be read in one process and refused in another."""

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._results: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
        # A daemon: if the caller is interrupted while a step runs, the process need not wait for the step.
        self._thread = threading.Thread(target=self._serve, name="toolguards-replay", daemon=True)
        self._thread.start()

    def call(self, function: Callable[[S, str], R], state: S, path: str) -> R:
        """``function(state, path)`` on the thread; what it raises is raised here."""
        self._calls.put((function, (state, path)))
        done, value = self._results.get()  # interruptible: Ctrl-C reaches the caller here
        if done:
            return value  # type: ignore[no-any-return]
        raise value

    def _serve(self) -> None:
        while (job := self._calls.get()) is not None:
            function, arguments = job
            try:
                self._results.put((True, function(*arguments)))
            except BaseException as exc:  # handed to the caller, which raises it
                self._results.put((False, exc))

    def __enter__(self) -> _FreshStack:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._calls.put(None)
        if exc_info[0] is None:
            self._thread.join()


def _advancing(results: Iterator[R], total: int, progress: bool) -> Iterator[R]:
    bar = _files_bar(total) if progress else None
    try:
        for result in results:
            if bar is not None:
                bar.clear()  # the caller prints this file's output: the bar comes back below it
            yield result
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


def _files_bar(total: int) -> Any:
    if total <= 1 or not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # noqa: PLC0415 - only a terminal needs it, and only then is it worth importing

    return tqdm(total=total, unit="file", file=sys.stderr, leave=False)


class Spill:
    """Text written by a per-file step, held in memory up to ``limit`` characters and in a temporary file past it,
    so that a worker's output for a huge input never sits whole in memory; picklable, and read back once."""

    def __init__(self, limit: int = 1 << 20) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._limit = limit
        self._file: str | None = None

    def write(self, text: str) -> None:
        """Add ``text``."""
        self._parts.append(text)
        self._size += len(text)
        if self._size > self._limit:
            self._flush()

    def _flush(self) -> None:
        if self._file is None:
            handle, self._file = tempfile.mkstemp(prefix="toolguards-", suffix=".txt")
            os.close(handle)
        with open(self._file, "a", encoding="utf-8", errors="surrogatepass", newline="") as out:
            out.write("".join(self._parts))
        self._parts, self._size = [], 0

    def __bool__(self) -> bool:
        return bool(self._parts) or self._file is not None

    def __getstate__(self) -> dict[str, Any]:
        return {"parts": self._parts, "file": self._file}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._parts, self._file, self._size, self._limit = state["parts"], state["file"], 0, 1 << 20

    def copy_to(self, write: Callable[[str], object]) -> None:
        """Write everything to ``write``, in order, and remove the temporary file."""
        if self._file is not None:
            try:
                with open(self._file, encoding="utf-8", errors="surrogatepass", newline="") as spilled:
                    for chunk in iter(partial(spilled.read, 1 << 20), ""):
                        write(chunk)
            finally:
                os.unlink(self._file)
                self._file = None
        if self._parts:
            write("".join(self._parts))
        self._parts = []
