"""``sqlite:///PATH``: guard states in one SQLite file, for hosts that run a new process for every tool call (a hook).

The chain logic stays in the guards; this store only keeps their states, like the memory store does in memory:

- one row per (session, guard id, agent key); the state is stored as JSON through the kind's ``StateType``, as
  ``{"kind": <kind name>, "version": <state version>, "state": <its JSON form>}``: a row of another kind or version, or
  one that fails to decode, is discarded with one logged warning and the chain starts afresh;
- each ``update`` is one ``BEGIN IMMEDIATE`` transaction, so processes that share the file take turns (waiting up to
  ``busy_timeout`` seconds, 10 by default) and a count is never lost or doubled;
- agent keys must be strings (a hook has ids, not live agent objects): any other key raises ``TypeError``, which the
  engine logs once and treats as a call with no agent;
- ``stable_digests`` is True, so guards store blake2b digests, equal in every process, not Python's salted ``hash``;
- sessions whose rows were all left untouched for ``prune_after_days`` (7 by default) are deleted when a database is
  opened, at most once an hour across all processes sharing the file.

Usage, in a process that handles one event and exits::

    engine = toolguards.load(path, stores=SqliteStore.factory(db_path, session_id))

or, where the connection should be closed before the process ends::

    with SqliteDatabase(db_path) as database:
        engine = toolguards.load(path, stores=database.stores(session_id))
        ...
"""

from __future__ import annotations

import os
import sqlite3
import time
from _thread import allocate_lock  # threading's Lock without importing threading: a hook process needs no more
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from .base import Envelopes, StateType, Step

__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "DEFAULT_PRUNE_DAYS",
    "FORMAT_VERSION",
    "SqliteDatabase",
    "SqliteStore",
    "from_url",
]

#: The session of stores opened from a URL, where no host session applies (a service keys agents by itself).
URL_SESSION = "default"

R = TypeVar("R")

#: Sessions idle this many days are deleted: a resumed session that old starts with fresh chains.
DEFAULT_PRUNE_DAYS = 7.0
#: Seconds a process waits for another one's transaction before giving up.
DEFAULT_BUSY_TIMEOUT = 10.0
#: The layout of the tables, kept in ``PRAGMA user_version``.
FORMAT_VERSION = 1

_PRUNE_INTERVAL = 3600.0
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS toolguards_state ("
    " session TEXT NOT NULL, guard TEXT NOT NULL, agent TEXT NOT NULL, state TEXT NOT NULL, touched REAL NOT NULL,"
    " PRIMARY KEY (session, guard, agent)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS toolguards_meta (key TEXT PRIMARY KEY, value REAL NOT NULL) WITHOUT ROWID",
)




def _key(what: str, value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"SqliteStore keys {what}s by string id, not by {type(value).__name__}")
    return value


class SqliteDatabase:
    """One SQLite file of guard states, opened (and created if missing) at construction; its folder must exist."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        prune_after_days: float = DEFAULT_PRUNE_DAYS,
    ) -> None:
        self.path = os.fspath(path)
        self.prune_after_days = prune_after_days
        self._lock = allocate_lock()
        # Autocommit mode (isolation_level=None): every transaction below is begun and ended explicitly.
        self._connection = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None,
                                           check_same_thread=False)
        try:
            self._open()
        except BaseException:
            self._connection.close()
            raise

    def __repr__(self) -> str:
        return f"<SqliteDatabase {self.path}>"

    def __enter__(self) -> SqliteDatabase:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection; the stores of this database cannot be used afterwards."""
        self._connection.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, begun at once so concurrent writers queue instead of failing half way."""
        with self._lock:
            connection = self._connection
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                if connection.in_transaction:  # SQLite may have rolled back already (a full disk, say)
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def _open(self) -> None:
        with self.transaction() as connection:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, FORMAT_VERSION):
                raise sqlite3.DatabaseError(
                    f"{self.path} holds toolguards state of format {version}, this version reads {FORMAT_VERSION}"
                )
            if version == 0:
                for statement in _SCHEMA:
                    connection.execute(statement)
                connection.execute(f"PRAGMA user_version = {FORMAT_VERSION}")
            now = time.time()
            row = connection.execute("SELECT value FROM toolguards_meta WHERE key = 'pruned'").fetchone()
            if row is None or now - row[0] >= _PRUNE_INTERVAL:
                self._prune(connection, now - self.prune_after_days * 86400.0)
                connection.execute("INSERT OR REPLACE INTO toolguards_meta (key, value) VALUES ('pruned', ?)", (now,))

    @staticmethod
    def _prune(connection: sqlite3.Connection, cutoff: float) -> None:
        connection.execute(
            "DELETE FROM toolguards_state WHERE session IN"
            " (SELECT session FROM toolguards_state GROUP BY session HAVING max(touched) < ?)",
            (cutoff,),
        )

    def store(self, session: str, guard: str, state: StateType[Any] | None = None) -> SqliteStore:
        """The store of one guard in one session (bound to ``state``, or to be bound by the loader)."""
        return SqliteStore(self, session, guard, state)

    def stores(self, session: str) -> Callable[[str], SqliteStore]:
        """A store factory for ``toolguards.load(..., stores=...)``: every guard of the file, in this session."""
        _key("session", session)
        return lambda guard: SqliteStore(self, session, guard)

    def drop_session(self, session: str) -> None:
        """Delete every state of a session (it ended)."""
        with self.transaction() as connection:
            connection.execute("DELETE FROM toolguards_state WHERE session = ?", (_key("session", session),))

    def sessions(self) -> list[str]:
        """The sessions that have any state, sorted."""
        with self._lock:
            rows = self._connection.execute("SELECT DISTINCT session FROM toolguards_state ORDER BY session").fetchall()
        return [row[0] for row in rows]


class SqliteStore:
    """A ``StateStore`` over one guard's rows of one session in a ``SqliteDatabase``."""

    stable_digests = True

    def __init__(
        self, database: SqliteDatabase, session: str, guard: str, state: StateType[Any] | None = None
    ) -> None:
        self.database = database
        self.session = _key("session", session)
        self.guard = _key("guard id", guard)
        self.state = state
        self._envelopes = Envelopes(self, state)

    def bind(self, state: StateType[Any]) -> SqliteStore:
        """The same rows, read and written as states of this type."""
        return SqliteStore(self.database, self.session, self.guard, state)

    def __repr__(self) -> str:
        return f"<SqliteStore {self.database.path} session={self.session!r} guard={self.guard!r}>"

    @classmethod
    def factory(
        cls,
        path: str | os.PathLike[str],
        session: str,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        prune_after_days: float = DEFAULT_PRUNE_DAYS,
    ) -> Callable[[str], SqliteStore]:
        """Open the database at ``path`` and return the store factory of ``session`` (one connection for all guards)."""
        database = SqliteDatabase(path, busy_timeout=busy_timeout, prune_after_days=prune_after_days)
        return database.stores(session)

    def update(self, agent: Any, step: Step[R]) -> R:
        """Run ``step`` on the agent's state inside one write transaction."""
        key = (self.session, self.guard, _key("agent", agent))
        with self.database.transaction() as connection:
            row = connection.execute(
                "SELECT state FROM toolguards_state WHERE session = ? AND guard = ? AND agent = ?", key
            ).fetchone()
            new_state, result = step(None if row is None else self._envelopes.loads(row[0]))
            if new_state is None:
                if row is not None:
                    connection.execute(
                        "DELETE FROM toolguards_state WHERE session = ? AND guard = ? AND agent = ?", key
                    )
            else:
                text = self._envelopes.dumps(new_state)
                connection.execute(
                    "INSERT OR REPLACE INTO toolguards_state (session, guard, agent, state, touched)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (*key, text, time.time()),
                )
            return result

    def reset(self, agent: Any) -> None:
        """Drop the agent's state."""
        key = (self.session, self.guard, _key("agent", agent))
        with self.database.transaction() as connection:
            connection.execute("DELETE FROM toolguards_state WHERE session = ? AND guard = ? AND agent = ?", key)

    forget = reset


def from_url(url: str) -> Callable[[str], SqliteStore]:
    """``sqlite:///PATH``: the stores of one file, as SQLAlchemy spells it (``sqlite:///state.db`` is relative to the
    working folder, ``sqlite:////var/lib/toolguards/state.db`` absolute); the file is created if missing."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ValueError(f"a SQLite store URL is sqlite:///PATH, not {url!r}")
    return SqliteDatabase(url[len(prefix):]).stores(URL_SESSION)
