"""SqliteStore: the same chains as in memory, kept in one SQLite file, exact under concurrent writers."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from typing import Any

import pytest

import toolguards as tg
from toolguards.stores.sqlite import FORMAT_VERSION, SqliteDatabase, SqliteStore


class Tuples:
    """A state type for these tests: any JSON value, every array read back as a tuple."""

    name = "tuples"
    version = 1

    def to_json(self, state: Any) -> Any:
        return state

    def from_json(self, data: Any) -> Any:
        if isinstance(data, list):
            return tuple(self.from_json(item) for item in data)
        if isinstance(data, dict):
            return {key: self.from_json(item) for key, item in data.items()}
        return data


TUPLES = Tuples()


def increment(state: Any) -> tuple[Any, int]:
    count = 1 if state is None else state[0] + 1
    return (count, ("seen", count)), count


@pytest.fixture
def database(tmp_path):
    with SqliteDatabase(tmp_path / "state.sqlite3") as db:
        yield db


def test_states_come_back_with_the_shapes_they_went_in_with(database):
    store = database.store("s", "g", TUPLES)
    state = (-123456789012345678, 2, ("id-1", "id-2"), None, {"k": ("v", 1.5, True)})
    assert store.update("main", lambda old: (state, old)) is None
    assert store.update("main", lambda old: (old, old)) == state


def test_states_are_kept_per_session_guard_and_agent(database):
    stores = [database.store("s1", "g1", TUPLES), database.store("s2", "g1", TUPLES), database.store("s1", "g2", TUPLES)]
    for store in stores:
        assert [store.update(agent, increment) for agent in ("main", "agent:a", "main")] == [1, 1, 2]
    assert database.sessions() == ["s1", "s2"]


def test_none_deletes_and_reset_and_forget_drop_the_state(database):
    store = database.store("s", "g", TUPLES)
    store.update("a", increment)
    store.update("a", lambda old: (None, None))
    assert store.update("a", increment) == 1
    store.reset("a")
    assert store.update("a", increment) == 1
    store.forget("a")
    store.forget("never-seen")
    assert store.update("a", increment) == 1
    database.drop_session("s")
    assert database.sessions() == []


@pytest.mark.parametrize(("agent", "message"), [
    (object(), "SqliteStore keys agents by string id, not by object"),
    (7, "SqliteStore keys agents by string id, not by int"),
    (None, "SqliteStore keys agents by string id, not by NoneType"),
])
def test_agent_keys_must_be_strings(database, agent, message):
    store = database.store("s", "g", TUPLES)
    with pytest.raises(TypeError) as error:
        store.update(agent, increment)
    assert str(error.value) == message


def test_a_failing_step_changes_nothing(database):
    store = database.store("s", "g", TUPLES)
    store.update("a", increment)
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        store.update("a", lambda old: ((float("nan"),), None))
    assert store.update("a", increment) == 2


def test_concurrent_connections_count_exactly(tmp_path):
    path = tmp_path / "state.sqlite3"
    SqliteDatabase(path).close()
    counts: list[int] = []

    def work() -> None:
        with SqliteDatabase(path) as db:  # one connection each, as separate processes would have
            store = db.store("s", "g", TUPLES)
            counts.extend(store.update("main", increment) for _ in range(25))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(counts) == list(range(1, 201))


def age(path, session: str, days: float, pruned_days_ago: float) -> None:
    with sqlite3.connect(path) as connection:
        now = time.time()
        connection.execute("UPDATE toolguards_state SET touched = ? WHERE session = ?", (now - days * 86400, session))
        connection.execute("UPDATE toolguards_meta SET value = ? WHERE key = 'pruned'", (now - pruned_days_ago * 86400,))
    connection.close()


def test_idle_sessions_are_pruned_when_a_database_opens(tmp_path):
    path = tmp_path / "state.sqlite3"
    with SqliteDatabase(path) as db:
        for session in ("old", "mixed", "new"):
            db.store(session, "g", TUPLES).update("main", increment)
        db.store("mixed", "g", TUPLES).update("agent:a", increment)
    age(path, "old", days=8, pruned_days_ago=1)
    with sqlite3.connect(path) as connection:  # one old row does not make a session idle
        connection.execute("UPDATE toolguards_state SET touched = 0 WHERE session = 'mixed' AND agent = 'main'")
    connection.close()
    with SqliteDatabase(path) as db:
        assert db.sessions() == ["mixed", "new"]
        assert db.store("mixed", "g", TUPLES).update("main", increment) == 2


def test_pruning_runs_at_most_once_an_hour_and_its_age_is_configurable(tmp_path):
    path = tmp_path / "state.sqlite3"
    with SqliteDatabase(path) as db:
        db.store("old", "g", TUPLES).update("main", increment)
    age(path, "old", days=8, pruned_days_ago=0.01)
    with SqliteDatabase(path) as db:
        assert db.sessions() == ["old"]  # pruned less than an hour ago: not again
    age(path, "old", days=8, pruned_days_ago=1)
    with SqliteDatabase(path, prune_after_days=30) as db:
        assert db.sessions() == ["old"]
    age(path, "old", days=8, pruned_days_ago=1)
    with SqliteDatabase(path) as db:
        assert db.sessions() == []


def stored_row(path) -> str:
    with sqlite3.connect(path) as connection:
        (text,) = connection.execute("SELECT state FROM toolguards_state").fetchone()
    connection.close()
    return text


def rewrite_row(path, text: str) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE toolguards_state SET state = ?", (text,))
    connection.close()


def test_a_state_is_stored_under_its_kind_and_version(database):
    database.store("s", "g", TUPLES).update("main", increment)
    assert stored_row(database.path) == '{"kind":"tuples","version":1,"state":[1,["seen",1]]}'


@pytest.mark.parametrize(("row", "found"), [
    ('{"kind":"tuples","version":0,"state":[5,["seen",5]]}', "of version 0"),
    ('{"kind":"tuples","version":"1","state":[5,["seen",5]]}', "of version '1'"),
    ('{"kind":"other","version":1,"state":[5,["seen",5]]}', "of another kind"),
    ('[5,["seen",5]]', "of another kind"),  # a row this store wrote before states had versions
    ('{"kind":"tuples","version":1}', "that does not decode"),
    ("{not json", "that does not decode"),
])
def test_a_state_of_another_version_is_discarded_with_one_warning(database, caplog, row, found):
    store = database.store("s", "g", TUPLES)
    store.update("main", increment)
    rewrite_row(database.path, row)
    with caplog.at_level(logging.WARNING, logger="toolguards"):
        assert store.update("main", increment) == 1  # a fresh chain, never the old count misread
        rewrite_row(database.path, row)
        assert store.update("main", increment) == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"toolguards: a stored tuples state {found} was discarded (this version reads version 1); "
        "that chain starts afresh"
    ]


def test_a_guard_reads_back_a_state_whose_json_fails_its_own_check(tmp_path, caplog):
    # The real kinds check what they read: a stored repeat state with a string count starts the chain afresh.
    path = tmp_path / "state.sqlite3"
    with SqliteDatabase(path) as db:
        engine = tg.load_default(stores=db.stores("s"))
        for _ in range(2):
            engine.post_execute(tg.ToolEvent("grep", {"q": 1}, agent="main"))
        text = stored_row(path)
        assert text.startswith('{"kind":"repeat-tool-reminder","version":1,"state":{"digest":')
        assert text.endswith(',"count":2}}')
        rewrite_row(path, text.replace('"count":2', '"count":"2"'))
        with caplog.at_level(logging.WARNING, logger="toolguards"):
            decision = engine.post_execute(tg.ToolEvent("grep", {"q": 1}, agent="main"))
        assert decision.additional_contexts == ()  # counted 1 afresh, not 3
        assert [r.getMessage() for r in caplog.records] == [
            "toolguards: a stored repeat-tool-reminder state that does not decode was discarded (this version reads "
            "version 1); that chain starts afresh"
        ]


def test_an_unbound_store_says_so(database):
    with pytest.raises(RuntimeError, match=r"was not bound to a state type \(StateStore.bind\)"):
        database.store("s", "g").update("main", increment)


def test_a_file_of_another_format_is_refused(tmp_path):
    path = tmp_path / "state.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {FORMAT_VERSION + 1}")
    connection.close()
    with pytest.raises(sqlite3.DatabaseError) as error:
        SqliteDatabase(path)
    assert str(error.value) == f"{path} holds toolguards state of format 2, this version reads 1"


CALLS: list[tuple[str, Any, str | None]] = [
    ("grep", {"q": "x", "n": 1}, "c1"),
    ("grep", {"n": 1, "q": "x"}, "c2"),  # the same call: keys in another order
    ("todo_write", {"t": 1}, "c3"),      # excluded: transparent
    ("grep", {"q": "x", "n": 1}, "c2"),  # delivered twice: counted once
    ("grep", {"q": "x", "n": 1}, "c4"),
    ("grep", {"q": "x", "n": 1}, None),
    ("grep", {"q": "y"}, "c6"),
    *[("grep", {"q": "y"}, f"d{i}") for i in range(8)],
]


def reminders(make_engine: Any) -> list[tuple[int, str]]:
    found = []
    for index, (tool, arguments, call_id) in enumerate(CALLS):
        decision = make_engine().post_execute(tg.ToolEvent(tool, arguments, agent="main", call_id=call_id))
        found += [(index, entry.text) for entry in decision.additional_contexts]
    return found


def test_the_same_chains_as_in_memory_with_a_new_engine_for_every_call(tmp_path):
    # One chain logic, two stores: a process per call over SQLite reminds exactly where one engine in memory does.
    memory = tg.load_default()
    expected = reminders(lambda: memory)
    assert [index for index, _ in expected] == [4, 8, 10, 13]
    path = tmp_path / "state.sqlite3"
    opened: list[SqliteDatabase] = []

    def process() -> tg.Engine:
        opened.append(SqliteDatabase(path))
        return tg.load_default(stores=opened[-1].stores("s"))

    try:
        assert reminders(process) == expected
    finally:
        for db in opened:
            db.close()


def test_stores_ask_for_stable_digests(tmp_path):
    factory = SqliteStore.factory(tmp_path / "state.sqlite3", "s")
    store = factory("repeat-tool-reminder")
    assert store.stable_digests is True
    assert (store.session, store.guard) == ("s", "repeat-tool-reminder")
    store.database.close()
