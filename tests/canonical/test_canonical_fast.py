"""The fast path against the reference: it answers plain JSON exactly as the reference does, declines everything else,
and canonicalize then asks the reference. test_canonical.py and test_hardening_canonical.py run every canonical test on
both paths; these are about the fast path itself."""

from __future__ import annotations

import datetime
import enum
import json
import logging
from collections import OrderedDict
from decimal import Decimal
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguards import canonical
from toolguards.canonical import canonicalize, reference_text
from toolguards.canonical import fast as canonical_fast
from toolguards.canonical.fast import MAX_DEPTH, fast_text


def _nested(levels: int) -> list[Any]:
    """``levels`` lists, each the only member of the one around it."""
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


class Text(str):
    __slots__ = ()


class Level(enum.IntEnum):
    ONE = 1


class Pair(NamedTuple):
    left: int
    right: int


def _cycle() -> list[Any]:
    value: list[Any] = []
    value.append(value)
    return value


ANSWERED: dict[str, Any] = {
    "shell call": {"command": "pytest -q", "cwd": "/src", "timeout": 120},
    "floats, integer-like keys": {"temperature": 0.7, "timeout": 30.0, "lines": {"3": "a", "12": "b", "40": "c"}},
    "numbers the repr gets wrong": [1e21, 1e-7, 1e16, 2**53 + 1, -(2**60), 10**400, float("nan"), -0.0, 5e-324],
    "empty containers": {"a": {}, "b": [], "c": ()},
    "a tuple": (1, "a", None, True),
    "keys beyond U+FFFF": {"\U0001f600": 1, "\uff61": 2, "\ue000": 3, "z": 4},
    "escapes and U+2028": {'q"b\\': "\x00\x1f\u2028\x7f\n"},
    "a str": "plain text, é",
    "8 scalars, member by member": [1, 2.5, "x", None, True, False, -3, "y"],
    "9 plain scalars, one encoder call": [1, 2.5, "x", None, True, False, -3, "y", "é\n"],
    "9 scalars, an integral float among them": [1, 2.5, "x", None, True, False, -3, "y", 30.0],
    "9 scalars, a big int among them": [1, 2, 3, 4, 5, 6, 7, 8, 2**60],
    "9 members, a container among them": [1, 2, 3, 4, 5, 6, 7, 8, {"b": 1, "a": 2}],
    f"{MAX_DEPTH + 1} levels": _nested(MAX_DEPTH + 1),
}


@pytest.mark.parametrize("value", list(ANSWERED.values()), ids=list(ANSWERED))
def test_answers_plain_json_as_the_reference_does(value: Any) -> None:
    text = fast_text(value)
    assert text is not None
    assert text == reference_text(value)


DECLINED: dict[str, Any] = {
    "a bare int": 5,
    "a bare float": 1.5,
    "a bare None": None,
    "a bare bool": True,
    "an int key": {1: "a"},
    "a None key": {None: 1},
    "a tuple key": {("a",): 1},
    "a str subclass key": {Text("k"): 1},
    "a set": {"a": {1, 2}},
    "bytes": {"a": b"x"},
    "a Decimal": [Decimal("1.5")],
    "a date": [datetime.date(2024, 5, 6)],
    "a lone surrogate": "\ud800",
    "a lone surrogate in a key": {"\ud800": 1},
    "a surrogate pair as two code points": ["\ud83d\ude00"],
    "a dict subclass": OrderedDict(a=1),
    "a dict subclass inside": {"a": OrderedDict()},
    "a str subclass": [Text("x")],
    "an IntEnum member": {"level": Level.ONE},
    "a NamedTuple": {"pair": Pair(1, 2)},
    "a str subclass among 9 members": [1, 2, 3, 4, 5, 6, 7, 8, Text("x")],
    f"{MAX_DEPTH + 2} levels": _nested(MAX_DEPTH + 2),
    "a list inside itself": _cycle(),
}


@pytest.mark.parametrize("value", list(DECLINED.values()), ids=list(DECLINED))
def test_declines_what_only_the_reference_prints(value: Any) -> None:
    assert fast_text(value) is None
    assert canonicalize(value) == reference_text(value)


def test_a_key_equal_to_a_remembered_str_is_still_left_to_the_reference(caplog: pytest.LogCaptureFixture) -> None:
    # A memo lookup matches shapes by ==, and these keys equal "k": the fast path must check each key's type anyway.
    class Key(str, enum.Enum):
        K = "k"

    class Spelled(str, enum.Enum):  # its text is "k", its value is not: the reference keys it by its value
        K = "v"

        def __new__(cls, value: str) -> Spelled:
            member = str.__new__(cls, "k")
            member._value_ = value
            return member

    assert fast_text({"k": 1}) == '{"k":1}'  # the shape ("k",) is remembered now
    for key, expected in ((Text("k"), '{"k":1}'), (Key.K, '{"k":1}'), (Spelled.K, '{"v":1}')):
        assert key == "k"
        assert fast_text({key: 1}) is None
        with caplog.at_level(logging.WARNING, logger="toolguards"):
            assert canonicalize({key: 1}) == expected
    assert [r.getMessage().split(";")[0] for r in caplog.records if r.name == "toolguards"] == [
        "canonical form: a test_a_key_equal_to_a_remembered_str_is_still_left_to_the_reference.<locals>.Key is not a "
        "JSON value",
        "canonical form: a test_a_key_equal_to_a_remembered_str_is_still_left_to_the_reference.<locals>.Spelled is not "
        "a JSON value",
    ]


def test_canonicalize_asks_the_reference_only_when_the_fast_path_declines(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []

    def recording(value: Any) -> str:
        asked.append(value)
        return reference_text(value)

    monkeypatch.setattr(canonical, "reference_text", recording)
    assert canonicalize({"b": [1.0], "a": "x"}) == '{"a":"x","b":[1]}'
    assert asked == []
    key = {1: "a"}
    assert canonicalize(key) == '{"1":"a"}'
    assert asked == [key]


def test_switched_off_the_fast_path_is_never_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []

    def recording(value: Any) -> str | None:
        asked.append(value)
        return fast_text(value)

    monkeypatch.setattr(canonical, "fast_text", recording)
    value = {"b": 2, "a": [1.0]}
    try:
        canonical.use_fast_path(False)
        assert canonicalize(value) == '{"a":[1],"b":2}'
        assert asked == []
    finally:
        canonical.use_fast_path(True)
    assert canonicalize(value) == '{"a":[1],"b":2}'
    assert asked == [value]


def test_a_container_changed_while_printed_is_left_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    # As if another thread removed a key between the shape lookup and the member lookups.
    monkeypatch.setattr(canonical_fast, "_leads", lambda _value: [("gone", '{"gone":')])
    value = {"a": 1}
    assert fast_text(value) is None
    assert canonicalize(value) == '{"a":1}'


def test_without_the_json_c_accelerators_the_text_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    # CPython without its _json module: json's encoder is pure Python, and so is the string escaper.
    value = {"lines": ['q"b\\', "\x00\x1f\u2028\x7f", "é中😀", 1, 2.5, -7, None, True, False], "z": "\t"}
    expected = reference_text(value)
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    monkeypatch.setattr(json.encoder, "encode_basestring", json.encoder.py_encode_basestring)
    monkeypatch.setattr(canonical_fast, "quote", json.encoder.py_encode_basestring)
    monkeypatch.setattr(canonical_fast, "_memo", canonical_fast._Memo(canonical_fast._memo.limit))
    monkeypatch.setattr(canonical_fast, "_shapes", canonical_fast._memo.shapes)
    assert fast_text(value) == expected


def test_the_memo_remembers_shapes_within_its_bounds() -> None:
    memo = canonical_fast._Memo(2_000)
    small = ("a", "b")
    memo.remember(small, [("a", '{"a":'), ("b", ',"b":')])
    assert small in memo.shapes
    assert memo.held == 2 * 2 + 2 * canonical_fast._KEY_BYTES
    big = tuple(f"k{n}" for n in range(canonical_fast._SHAPE_BYTES // canonical_fast._KEY_BYTES))
    memo.remember(big, [])
    assert big not in memo.shapes  # larger than any one shape may be
    for n in range(20):
        memo.remember((f"key{n}",), [])
        assert memo.held <= memo.limit
    assert small not in memo.shapes  # the memo started afresh when full


def test_a_shape_is_ordered_once_and_then_remembered() -> None:
    value = {"zeta": 1, "10": 2, "9": 3, "alpha": {"x": 1}}
    canonical_fast._memo.shapes.pop(tuple(value), None)
    assert fast_text(value) == '{"9":3,"10":2,"alpha":{"x":1},"zeta":1}'
    assert [key for key, _ in canonical_fast._memo.shapes[tuple(value)]] == ["9", "10", "alpha", "zeta"]
    assert fast_text(dict(value)) == '{"9":3,"10":2,"alpha":{"x":1},"zeta":1}'


KEYS = st.sampled_from(["0", "1", "2", "10", "01", "-1", "4294967294", "4294967295", "", "a", "B", "é", "\ue000", "😀"])
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.sampled_from([30.0, 1e21, 1e-7, 2**60, -0.0])
)
PLAIN = st.recursive(
    SCALARS | st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=6),
    lambda children: st.lists(children, max_size=12) | st.dictionaries(KEYS | st.text(max_size=3), children, max_size=6),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(PLAIN, max_size=3) | st.dictionaries(KEYS, PLAIN, max_size=3))
def test_the_fast_path_answers_plain_json_as_the_reference_does(value: Any) -> None:
    assert fast_text(value) == reference_text(value)


ANYTHING = st.recursive(
    SCALARS | st.text(max_size=4) | st.binary(max_size=3) | st.frozensets(st.integers(), max_size=3),
    lambda children: (
        st.lists(children, max_size=10)
        | st.tuples(children, children)
        | st.dictionaries(KEYS | st.text(max_size=3) | st.integers() | st.none(), children, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(ANYTHING)
def test_the_fast_path_answers_as_the_reference_or_not_at_all(value: Any) -> None:
    text = fast_text(value)
    assert text is None or text == reference_text(value)
    assert canonicalize(value) == reference_text(value)
