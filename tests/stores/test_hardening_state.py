"""Per-agent state under load: exact counts from 8 threads, no chain left behind by a dropped agent, a capped table of
string-keyed agents, and no argument kept alive by the guard."""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import toolguards as tg
from toolguards.stores.memory import DEFAULT_MAX_KEYED_AGENTS

THREADS = 8
EVENTS = 10_000


class Agent:
    """A host's agent object: held weakly, keyed by identity."""


@pytest.fixture(autouse=True)
def frequent_thread_switches() -> Iterator[None]:
    # The interpreter switches threads every 5 ms by default, long enough for a thread to run many calls alone.
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(previous)


def engine_with_stores(config: dict[str, Any], **store_options: Any) -> tuple[tg.Engine, list[tg.MemoryStore[Any]]]:
    stores: list[tg.MemoryStore[Any]] = []

    def make(_guard_id: str) -> tg.MemoryStore[Any]:
        stores.append(tg.MemoryStore(**store_options))
        return stores[-1]

    return tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": config}]}, stores=make), stores


def run_threads(work: Callable[[int], list[int]]) -> list[list[int]]:
    """Run ``work(thread number)`` on 8 threads started together; each returns the counts of its reminders."""
    start = threading.Barrier(THREADS)
    results: list[list[int]] = [[] for _ in range(THREADS)]
    errors: list[BaseException] = []

    def run(number: int) -> None:
        try:
            start.wait()
            results[number] = work(number)
        except BaseException as exc:  # surfaced below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    return results


def reminder_counts(decision: tg.PostToolDecision) -> list[int]:
    return [entry.metadata["count"] for entry in decision.additional_contexts]


@pytest.mark.parametrize("agent", ["shared-agent", Agent()], ids=["string id", "agent object"])
def test_a_shared_agent_loses_no_count(agent: Any) -> None:
    # 80,000 identical calls from 8 threads make one run: the reminder at 80,000 fires only if no count was lost.
    total = THREADS * EVENTS
    engine, _ = engine_with_stores({"thresholds": [2, total // 2, total]})
    event = tg.ToolEvent(tool="poll", arguments={"job": 7}, agent=agent)

    def work(_number: int) -> list[int]:
        return [count for _ in range(EVENTS) for count in reminder_counts(engine.post_execute(event))]

    counts = sorted(count for found in run_threads(work) for count in found)
    assert counts == [2, total // 2, total]


@pytest.mark.parametrize("kind", ["string id", "agent object"])
def test_separate_agents_count_exactly(kind: str) -> None:
    # Each thread's own agent makes 10,000 identical calls, and alternates with a second call every 1,000: ten runs of
    # 1,000 (reminders at 3 and 1,000 in each), never disturbed by the other threads.
    engine, stores = engine_with_stores({"thresholds": [3, 1000]})
    agents = [f"agent-{n}" if kind == "string id" else Agent() for n in range(THREADS)]

    def work(number: int) -> list[int]:
        found = []
        for run in range(EVENTS // 1000):
            event = tg.ToolEvent(tool="grep", arguments={"q": run % 2}, agent=agents[number])
            for _ in range(1000):
                found += reminder_counts(engine.post_execute(event))
        return found

    assert run_threads(work) == [[3, 1000] * 10] * THREADS
    assert len(stores[0]) == THREADS


def test_dropped_agent_objects_leave_no_chain() -> None:
    engine, stores = engine_with_stores({})
    alive = []
    for n in range(20_000):
        agent = Agent()
        if n % 2:
            agent.me = agent  # type: ignore[attr-defined]  # a reference cycle: only the collector frees it
        engine.post_execute(tg.ToolEvent(tool="read_file", arguments={"path": f"f{n}"}, agent=agent))
        if n % 5000 == 0:
            alive.append(weakref.ref(agent))
        del agent
    gc.collect()
    assert all(ref() is None for ref in alive)
    assert len(stores[0]) == 0


def test_string_keyed_agents_stay_under_the_cap() -> None:
    engine, stores = engine_with_stores({})
    for n in range(DEFAULT_MAX_KEYED_AGENTS + 5000):
        engine.post_execute(tg.ToolEvent(tool="grep", arguments={}, agent=f"agent-{n}"))
    assert len(stores[0]) == DEFAULT_MAX_KEYED_AGENTS == 10_000

    small, small_stores = engine_with_stores({"thresholds": [2]}, max_keyed_agents=100)
    first = tg.ToolEvent(tool="grep", arguments={}, agent="first")
    small.post_execute(first)
    for n in range(500):
        if n % 50 == 0:
            small.post_execute(tg.ToolEvent(tool="grep", arguments={}, agent="kept"))  # recently used: never evicted
        small.post_execute(tg.ToolEvent(tool="grep", arguments={}, agent=f"agent-{n}"))
    assert len(small_stores[0]) == 100
    assert small.post_execute(first).additional_contexts == ()  # "first" was evicted: its run starts again at 1
    assert reminder_counts(small.post_execute(tg.ToolEvent(tool="grep", arguments={}, agent="kept"))) == []


class Arguments(dict):  # type: ignore[type-arg]
    """Arguments that can be weakly referenced (a plain dict cannot)."""


def test_arguments_and_results_are_not_kept() -> None:
    config = {"thresholds": [2], "resultAware": True}
    engine, _ = engine_with_stores(config)
    refs = []
    for agent in ("a", Agent()):
        for _ in range(3):
            arguments, result = Arguments(path="x" * 100_000), Arguments(text="y" * 100_000)
            engine.post_execute(tg.ToolEvent(tool="read_file", arguments=arguments, agent=agent, result=result))
            refs += [weakref.ref(arguments), weakref.ref(result)]
            del arguments, result
    assert all(ref() is None for ref in refs)


@pytest.mark.parametrize("agent", [[], {"a": 1}], ids=["list", "dict"])
def test_an_agent_that_cannot_be_keyed_is_ignored(agent: Any, caplog: pytest.LogCaptureFixture) -> None:
    engine, stores = engine_with_stores({"thresholds": [2]})
    for _ in range(3):
        assert engine.post_execute(tg.ToolEvent(tool="grep", arguments={}, agent=agent)).additional_contexts == ()
    assert len(stores[0]) == 0
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == ["toolguards: repeat-tool-reminder.observe failed"
                                                                       " and was skipped"]
