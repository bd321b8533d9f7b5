"""The guard never raises into the host, whatever it is handed; and a reminder's length is bounded by its templates.

`engine.post_execute` is called with hostile values in every field of a ToolEvent — cycles, depth 20,000, bytes,
sets, datetimes, objects whose __eq__/__hash__/__repr__ raise, NaN, 10 MB strings, non-string keys — under the
shipped default and under a file that turns on every guard kind and option.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import fractions
import itertools
import logging
import math
from decimal import Decimal
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolguards as tg
from toolguards.canonical import canonicalize
from toolguards.guardfile.templates import Templates
from toolguards.resources import shipped_templates_dir

EVERY_KIND = {
    "guards": [
        {
            "id": "repeat-tool-reminder",
            "config": {
                "thresholds": [2, 3],
                "repeatEvery": 2,
                "resultAware": True,
                "block": {"atCount": 4},
                "argumentsPreviewChars": 20,
                "overrides": [{"tools": ["t*"], "thresholds": [2], "resultAware": False}],
            },
        },
        {"id": "cycle-reminder", "config": {"repetitions": [2, 3], "maxCycleLength": 3}},
        {"id": "repeated-error-reminder", "config": {"thresholds": [2, 3]}},
    ]
}


class Raising:
    """Every dunder a canonical form or a store might touch raises."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__")

    def __hash__(self) -> int:
        raise RuntimeError("__hash__")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__")

    def __str__(self) -> str:
        raise RuntimeError("__str__")

    def __len__(self) -> int:
        raise RuntimeError("__len__")

    def __iter__(self) -> Any:
        raise RuntimeError("__iter__")


class RaisingHashable(Raising):
    """Hashable (so it can be a dict key or a set member), but comparing or printing it raises."""

    HASH = 7

    def __hash__(self) -> int:
        return self.HASH


class RaisingGetattr:
    def __getattribute__(self, name: str) -> Any:
        if name == "__class__":  # isinstance() needs it (in hypothesis too)
            return object.__getattribute__(self, name)
        raise RuntimeError(name)


class Slotted:
    __slots__ = ("a",)

    def __init__(self) -> None:
        self.a = 1


class Plain:
    def __init__(self) -> None:
        self.x = [1.5, "y"]


@dataclasses.dataclass
class Data:
    a: int = 1
    b: Any = None


class Colour(enum.Enum):
    RED = "red"
    ONE = 1


class Pair(NamedTuple):
    left: Any
    right: Any


class BadDict(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise RuntimeError("items")

    def keys(self) -> Any:
        raise RuntimeError("keys")


class BadStr(str):
    __slots__ = ()

    def __hash__(self) -> int:
        raise RuntimeError("__hash__")


class BadFloat(float):
    def __repr__(self) -> str:
        raise RuntimeError("__repr__")


def _generator() -> Any:
    yield 1


ODD = [
    Raising(), RaisingHashable(), RaisingGetattr(), Slotted(), Plain(), Data(b=Data()), Colour.RED, Colour.ONE,
    Pair(1, Raising()), BadDict(a=1), BadStr("x"), BadFloat(1.5), _generator(), iter([1]), range(3), len, int, math,
    Decimal("NaN"), Decimal("sNaN"), Decimal("1e999999"), fractions.Fraction(1, 3), complex(1, 2), object(),
    memoryview(b"\xff\xfe"), bytearray(b"abc"), datetime.timedelta(days=1), Ellipsis, NotImplemented,
    10**5000, -(10**400), float("nan"), float("inf"), -0.0, 5e-324, 2**53 + 1,
]
HASHABLE_ODD = [RaisingHashable(), Colour.ONE, Pair(1, 2), BadFloat(2.5), 10**5000, float("nan"), None, True, 1.0,
                (1, (2, "x")), frozenset({1, "a"}), object(), datetime.date(2020, 1, 2), b"key", Decimal("1.5")]

def pick(values: list[Any]) -> st.SearchStrategy[Any]:
    """One of ``values``, drawn by index: hypothesis would repr the values themselves, and some raise."""

    def nth(index: int) -> Any:
        return values[index]

    return st.integers(0, len(values) - 1).map(nth)


SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=2**53, max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True), st.text(), st.binary(max_size=20),
    st.datetimes(timezones=st.none() | st.timezones()), st.dates(), st.times(), st.decimals(allow_nan=True),
    pick(ODD),
)


def beside_raising(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``values`` that can share a dict or a set with a RaisingHashable: one of the same hash would be compared to it
    (which raises) while hypothesis builds the container, before the guard sees it."""
    return values.filter(lambda value: hash(value) != RaisingHashable.HASH)


KEYS = st.one_of(st.text(max_size=8), beside_raising(st.integers()), beside_raising(st.floats()), st.booleans(),
                 st.none(), pick(HASHABLE_ODD))
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(KEYS, children, max_size=4),
        st.sets(pick(HASHABLE_ODD) | beside_raising(st.integers()), max_size=4),
        st.frozensets(st.text(max_size=3), max_size=3),
        st.builds(Data, st.integers(), children),
    ),
    max_leaves=25,
)


class Failures:
    """What the engines told their ``on_failure`` callback: every failure they swallowed."""

    def __init__(self) -> None:
        self.heard: list[tuple[str | None, str, str]] = []

    def __call__(self, guard_id: str | None, what: str, exc: BaseException) -> None:
        self.heard.append((guard_id, what, type(exc).__name__))


@pytest.fixture(scope="module")
def failures() -> Failures:
    return Failures()


@pytest.fixture(scope="module")
def engines(failures: Failures) -> list[tg.Engine]:
    return [tg.load_default(on_failure=failures), tg.from_mapping(EVERY_KIND, on_failure=failures)]


@pytest.fixture
def quiet(failures: Failures, caplog: pytest.LogCaptureFixture) -> Any:
    """Checks, after the test, that no guard failed and nothing but canonical-form notices was logged."""
    failures.heard.clear()
    with caplog.at_level(logging.DEBUG, logger="toolguards"):
        yield failures
    assert failures.heard == []
    assert [r.getMessage() for r in caplog.records if not r.getMessage().startswith("canonical form: ")] == []


_agents = itertools.count()


def counts(engine: tg.Engine, event: tg.ToolEvent, times: int) -> list[tuple[str, int]]:
    """Post the event ``times`` times for a fresh agent; the (guard, count) of every reminder, in order."""
    event = dataclasses.replace(event, agent=f"agent-{next(_agents)}")
    found = []
    for _ in range(times):
        decision = engine.post_execute(event)
        assert isinstance(decision, tg.PostToolDecision)
        found += [(e.reminder.guard, e.reminder.count) for e in decision.additional_contexts if e.reminder]
    return found


def post_all(engines: list[tg.Engine], event: tg.ToolEvent) -> None:
    """The shipped default reminds at 3 and the every-kind file's repeat guard at 2, alone and before a downstream
    decision (whose feedback and contexts survive)."""
    default, every_kind = engines
    assert counts(default, event, 3) == [("repeat-tool-reminder", 3)]
    assert ("repeat-tool-reminder", 2) in counts(every_kind, event, 2)
    event = dataclasses.replace(event, agent=f"agent-{next(_agents)}")
    downstream = tg.PostToolDecision(feedback="downstream", additional_contexts=(tg.ContextEntry("d", {}),))
    for engine in engines:
        decision = engine.post_execute(event, next=lambda: downstream)
        assert decision.feedback == "downstream" and decision.additional_contexts[-1].text == "d"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(arguments=VALUES, result=VALUES, tool=st.text(), call_id=st.none(), error=st.none() | st.text() | pick(ODD))
def test_the_guard_never_raises_and_still_counts(engines: list[tg.Engine], quiet: Failures, arguments: Any,
                                                 result: Any, tool: str, call_id: Any, error: Any) -> None:
    event = tg.ToolEvent(tool=tool, arguments=arguments, call_id=call_id, result=result, error=error)
    post_all(engines, event)
    assert isinstance(canonicalize(arguments), str)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=pick(ODD), call_id=VALUES)
def test_odd_tool_names_and_call_ids_never_raise(engines: list[tg.Engine], failures: Failures, tool: Any,
                                                 call_id: Any) -> None:
    # A tool name whose str() raises cannot be keyed: the engine reports that one failure and adds nothing.
    failures.heard.clear()
    event = tg.ToolEvent(tool=tool, arguments={"q": 1}, agent="agent", call_id=call_id)
    for engine in engines:
        assert isinstance(engine.post_execute(event), tg.PostToolDecision)
    assert {what for _, what, _ in failures.heard} <= {"post_execute", "observe"}


def _deep(depth: int, container: str) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value] if container == "list" else {"k": value}
    return value


def _cycles() -> list[Any]:
    lst: list[Any] = [1]
    lst.append(lst)
    dct: dict[str, Any] = {"a": 1}
    dct["self"] = dct
    obj = Plain()
    obj.x = [obj, {"back": obj}]
    through_key: dict[Any, Any] = {}
    through_key[Pair(1, 2)] = [through_key]
    pair = [lst, dct]
    return [lst, dct, obj, through_key, pair, {"a": pair, "b": pair}]


HEAVY = {
    "cycles": _cycles(),
    # 20 times Python's recursion limit; test_canonical takes the canonical form itself to 100,000 levels.
    "depth 20,000 (lists)": _deep(20_000, "list"),
    "depth 20,000 (dicts)": _deep(20_000, "dict"),
    "10 MB ASCII string": {"content": "x" * 10_000_000},
    "10 MB string, non-ASCII and surrogates": {"content": "é\ud800中" * 3_333_334},
    "10 MB bytes": b"\xff" * 10_000_000,
    "wide non-string keys": {i if i % 3 else float(i) if i % 2 else str(i): i for i in range(3000)},
    "odd values": ODD,
    "odd keys": {key: key for key in HASHABLE_ODD},
    "sets of odd members": {frozenset(HASHABLE_ODD[:5]), frozenset({1, 2})},
}


@pytest.mark.parametrize("value", list(HEAVY.values()), ids=list(HEAVY))
def test_the_guard_never_raises_on_heavy_values(engines: list[tg.Engine], quiet: Failures, value: Any) -> None:
    every_kind = engines[1]  # the shipped default's guard is one of its guards
    # Tool "x" is under the rules that compare results (resultAware), so both the arguments and the result are keyed.
    event = tg.ToolEvent(tool="x", arguments=value, result=value, error="boom")
    found = counts(every_kind, event, 2)
    assert ("repeat-tool-reminder", 2) in found and ("repeated-error-reminder", 2) in found


@pytest.mark.parametrize(
    ("agent", "failure"),
    [([], "TypeError"), ({"a": 1}, "TypeError"), (Raising(), None), (RaisingHashable(), None), (RaisingGetattr(), None),
     (BadStr("x"), "RuntimeError"), (10**5000, None), (float("nan"), None)],
    ids=["list", "dict", "raising", "raising-hashable", "raising-getattr", "bad-str", "huge-int", "nan"],
)
def test_the_guard_never_raises_on_odd_agents(engines: list[tg.Engine], failures: Failures, agent: Any,
                                               failure: str | None) -> None:
    # An agent that can be neither weakly referenced nor hashed cannot be keyed: the guard reports the error of
    # hashing it and adds nothing; any other agent is counted like a string id.
    counted = failure is None
    failures.heard.clear()
    default = engines[0]
    event = tg.ToolEvent(tool="grep", arguments={"q": 1}, agent=agent)
    reminded = [e.reminder.count for _ in range(3) for e in default.post_execute(event).additional_contexts
                if e.reminder]
    assert reminded == ([3] if counted else [])
    assert failures.heard == ([] if counted else [("repeat-tool-reminder", "observe", failure)] * 3)
    for engine in engines:
        engine.pre_step(agent, user_prompt=True)
        engine.forget(agent)
    if counted:
        assert [e.reminder.count for e in default.post_execute(event).additional_contexts if e.reminder] == []


# A reminder's length: its template rendered around the call, plus at most argumentsPreviewChars of arguments, plus
# the truncation marker.


def _templates(locale: str) -> dict[str, Any]:
    loaded = Templates([shipped_templates_dir()], locale)
    sample = {"tool": "t", "count": 2, "arguments": "a"}
    return {
        "first": loaded.load("repeat-tool-reminder/first.j2", sample),
        "detailed": loaded.load("repeat-tool-reminder/detailed.j2", sample),
        "truncated": loaded.load("repeat-tool-reminder/truncated.j2", {"head": "h", "omitted": 1}),
    }


TEMPLATES = {locale: _templates(locale) for locale in ("en", "zh")}


@settings(max_examples=120, deadline=None)
@given(
    arguments=st.one_of(st.text(max_size=3000), st.dictionaries(st.text(max_size=20), st.text(max_size=400), max_size=6)),
    tool=st.text(min_size=1, max_size=60),
    cap=st.integers(min_value=1, max_value=700),
    locale=st.sampled_from(["en", "zh"]),
)
def test_a_reminder_is_bounded_by_its_template_and_the_preview(arguments: Any, tool: str, cap: int,
                                                               locale: str) -> None:
    config = {"guards": [{"id": "repeat-tool-reminder", "config": {"thresholds": [2, 3], "argumentsPreviewChars": cap}}]}
    engine = tg.from_mapping(config, locale=locale)
    event = tg.ToolEvent(tool=tool, arguments=arguments, agent="agent")
    canonical = canonicalize(arguments)
    templates = TEMPLATES[locale]
    marker = len(templates["truncated"].render(head="", omitted=len(canonical) - cap)) if len(canonical) > cap else 0
    seen = []
    for count in range(1, 4):
        for entry in engine.post_execute(event).additional_contexts:
            slot = entry.metadata["template"]
            frame = len(templates[slot].render(tool=tool, count=count, arguments=""))
            assert len(entry.text) <= frame + cap + marker, (slot, count)
            seen.append(slot)
    assert seen == ["first", "detailed"]
