"""One hook event in one process: the request counted against the session's SQLite state, every failure one line.

``run(host, payload, config=…, locale=…, state_dir=…)`` is what ``toolguards hook HOST`` does with its stdin:

- the state is ``<state folder>/<host's STATE_FILE>`` (``toolguards.stores.sqlite``), keyed by the request's session,
  so separate processes, even concurrent ones, count one session exactly. The state folder is ``--state-dir``, by
  default the user's cache folder + ``toolguards`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux,
  ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows, as platformdirs says);
- the whole request — one call, or a batch of 10,000 — is one write transaction: it counts completely or, when the
  state file fails, not at all (and it does not wait for the disk: see ``HookDatabase``);
- a state file that is not a database, or whose pages are damaged, is moved aside (to ``<file>.damaged-<time>-<pid>``,
  named in a notice) and the session starts afresh in a new file;
- the engine comes from the compiled guard-file cache in ``<state folder>/compiled``
  (``toolguards.guardfile.compiled``);
- with an outcome log (``outcome_log``, else the guard file's ``outcomes.log``), the engine follows each reminder to
  its outcome (``toolguards.outcomes``): the reminders still waiting are kept in the same state file, under the
  session, so the process of a later event resolves them and appends their lines; a guard in shadow splits agents by
  ``<host>:<session>:<agent>``, the key ``toolguards serve`` gives the same agent.

A failure raises ``HookError`` with a one-line message; a guard that failed inside the engine makes the whole request a
failure (no reminders are printed). Notices (a state file moved aside, a stored state of another version discarded)
come back beside the stdout text: the command prints them on stderr and the text on stdout.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .. import warnings_once
from ..stores.sqlite import SqliteDatabase
from . import host as host_module
from .driver import HookRequest, apply, parse_event, render
from .protocol import HookError, decode

if TYPE_CHECKING:
    from ..engine import Engine

    #: What one hook process says: the exact stdout text ("" for nothing), and notices for stderr, one line each.
    Outcome = tuple[str, tuple[str, ...]]

__all__ = ["HookDatabase", "default_state_dir", "run", "run_event", "xdg_cache_dir"]

#: The compiled guard-file cache, inside the state folder.
CACHE_FOLDER = "compiled"


def default_state_dir() -> str:
    """The user's cache folder for toolguards, by the platform's rules (platformdirs)."""
    found = xdg_cache_dir()
    if found is not None:
        return found
    import platformdirs  # noqa: PLC0415 - it imports a dozen modules (tempfile, shutil, random…): only where needed

    return platformdirs.user_cache_dir("toolguards", appauthor=False)


def xdg_cache_dir() -> str | None:
    """On Linux, platformdirs' answer without importing it: ``$XDG_CACHE_HOME/toolguards`` when that is an absolute
    path, else ``$HOME/.cache/toolguards`` when HOME is absolute; None (ask platformdirs) in every other case."""
    if sys.platform != "linux" or "ANDROID_DATA" in os.environ:
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.environ.get("HOME", "")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "toolguards")


class HookDatabase(SqliteDatabase):
    """A state file whose ``batch()`` makes every store update inside it part of one transaction, written without
    waiting for the disk (``PRAGMA synchronous = OFF``).

    A commit that waits for the disk costs more than everything else a hook does (about 20 ms against a fraction of a
    millisecond, measured on this project's CI machine), and the state is an advisory counter: a process that dies
    loses nothing (SQLite's journal still rolls it back), and an operating-system crash at the wrong moment can at worst
    damage the file, which the next call then moves aside and starts afresh.
    """

    _outer: sqlite3.Connection | None = None
    _broken: sqlite3.Error | None = None

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(path)
        self._connection.execute("PRAGMA synchronous = OFF")

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """One write transaction for everything inside; rolled back as a whole when any statement failed in it."""
        with super().transaction() as connection:
            self._outer, self._broken = connection, None
            try:
                yield
                if self._broken is not None:
                    raise self._broken  # the store error the engine swallowed: roll back, then report it
            finally:
                self._outer = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The batch's transaction when one is open, else a transaction of its own."""
        if self._outer is None:
            with super().transaction() as connection:
                yield connection
            return
        if self._broken is not None:
            raise self._broken  # SQLite may have rolled back already: nothing more may run, even in autocommit
        try:
            yield self._outer
        except sqlite3.Error as exc:
            self._broken = exc
            raise


def _damaged(exc: BaseException) -> bool:
    """Whether SQLite found the file damaged (not a database, malformed pages), as opposed to busy or unwritable."""
    if type(exc) is not sqlite3.DatabaseError:
        return False
    name = getattr(exc, "sqlite_errorname", None)  # Python 3.11+
    if name is not None:
        return name in ("SQLITE_NOTADB", "SQLITE_CORRUPT")
    return str(exc) in ("file is not a database", "database disk image is malformed")


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    """An exclusive lock between the processes that share the state file (none where fcntl is missing)."""
    try:
        import fcntl  # noqa: PLC0415
    except ImportError:
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _move_aside(path: str, exc: BaseException) -> str | None:
    """Move a damaged state file (and its journal) aside; the notice, or None when another process already did."""
    with _locked(f"{path}.lock"):
        try:
            SqliteDatabase(path).close()
            return None  # it opens now: another process replaced it while we waited
        except sqlite3.DatabaseError as again:
            if not _damaged(again):
                raise
        target = f"{path}.damaged-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        os.replace(path, target)
        for suffix in ("-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(path + suffix, target + suffix)
    return f"the state file {path} was damaged ({exc}); moved it to {target} and started afresh"


def _open(folder: str, name: str) -> tuple[HookDatabase, str | None]:
    path = os.path.join(folder, name)
    try:
        os.makedirs(folder, exist_ok=True)
        try:
            return HookDatabase(path), None
        except sqlite3.DatabaseError as exc:
            if not _damaged(exc):
                raise
            notice = _move_aside(path, exc)
        return HookDatabase(path), notice
    except Exception as exc:
        raise HookError(f"cannot open the state file in {folder}: {exc}") from None


@contextlib.contextmanager
def _quiet_log() -> Iterator[list[str]]:
    """What the guards warn of during one request, kept (not logged): the hook turns it into at most one line."""
    collected: list[str] = []
    outer, warnings_once.collector = warnings_once.collector, collected
    try:
        yield collected
    finally:
        warnings_once.collector = outer


def run(
    host: str,
    payload: bytes | str,
    *,
    config: str | os.PathLike[str] | None = None,
    locale: str | None = None,
    state_dir: str | os.PathLike[str] | None = None,
    outcome_log: str | None = None,
) -> Outcome:
    """Handle one hook event (the bytes a host wrote to stdin); HookError for any failure."""
    return run_event(host, decode(payload), config=config, locale=locale, state_dir=state_dir,
                     outcome_log=outcome_log)


def run_event(
    host: str,
    event: dict[str, Any],
    *,
    config: str | os.PathLike[str] | None = None,
    locale: str | None = None,
    state_dir: str | os.PathLike[str] | None = None,
    outcome_log: str | None = None,
) -> Outcome:
    """Handle one decoded hook event; HookError for any failure."""
    request = parse_event(host, event)
    if request.action == "ignore":
        return "", ()
    if state_dir is not None and not os.fspath(state_dir):
        raise HookError("the state folder is an empty path")
    folder = os.fspath(state_dir) if state_dir is not None else default_state_dir()
    notices: list[str] = []
    with _quiet_log() as logged:
        for attempt in (1, 2):
            database, moved = _open(folder, host_module(host).STATE_FILE)
            notices += [moved] if moved else []
            failures: list[str] = []
            error: sqlite3.Error | None = None
            try:
                engine = _engine(config, locale, database, request, folder, failures, outcome_log)
                with database.batch():
                    contexts = apply(engine, request)
            except sqlite3.Error as exc:  # the batch was rolled back: nothing of this request was counted
                error = exc
            finally:
                database.close()
            if error is None:
                break
            if attempt == 1 and _damaged(error):  # damaged under our feet: once more, on a fresh file
                notices += filter(None, [_move_aside(database.path, error)])
                continue
            raise HookError(failures[0] if failures else f"cannot update the state file: {error}")
    if failures:
        raise HookError(failures[0])
    notices += [message.removeprefix("toolguards: ") for message in logged[:1]]
    return render(request, contexts), tuple(notices)


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")


def _quoted(session: str) -> str:
    """The session percent-encoded as ``toolguards serve`` keys it (``serve.host_routes.hook_agent``); urllib.parse is
    imported only for a session id that needs it (it costs a hook process milliseconds)."""
    if all(char in _UNRESERVED for char in session):
        return session
    from urllib.parse import quote  # noqa: PLC0415

    return quote(session, safe="", errors="surrogatepass")


def _engine(  # noqa: PLR0917 - private, called once
    config: str | os.PathLike[str] | None,
    locale: str | None,
    database: HookDatabase,
    request: HookRequest,
    folder: str,
    failures: list[str],
    outcome_log: str | None,
) -> Engine:
    from ..guardfile.compiled import Following, cached_engine  # noqa: PLC0415

    def failed(guard_id: str | None, what: str, exc: BaseException) -> None:
        where = "engine" if guard_id is None else f"{guard_id}.{what}"
        failures.append(f"{where} failed and was skipped ({type(exc).__name__}: {exc})")

    try:
        following = Following(log=outcome_log, split_prefix=f"{request.host}:{_quoted(request.session)}:")
        return cached_engine(config, locale=locale, cache_dir=os.path.join(folder, CACHE_FOLDER),
                             stores=database.stores(request.session), on_failure=failed, following=following)
    except Exception as exc:
        from ..guardfile.diagnostics import ConfigError  # noqa: PLC0415 - loaded already when the loader raised one

        if not isinstance(exc, ConfigError):
            raise
        problems = exc.diagnostics
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise HookError(f"{problems[0] if problems else 'the guard file cannot be loaded'}{more}") from None
