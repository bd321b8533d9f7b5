"""The canonical form against an independent oracle written here, where it is most intricate: objects whose keys need
JavaScript's order, integral floats, big integers, keys beyond U+FFFF, and text holding lone surrogates. Every test runs
on both paths: as shipped (the fast path first) and with the fast path switched off. test_canonical.py has the Node.js
differential test and the order independence property; these run without Node."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguards import canonical
from toolguards.canonical import canonicalize, jsformat
from toolguards.canonical import fast as canonical_fast


@pytest.fixture(scope="module", autouse=True, params=["fast", "reference"])
def canonical_path(request: pytest.FixtureRequest) -> Iterator[str]:
    canonical.use_fast_path(request.param == "fast")
    yield request.param
    canonical.use_fast_path(True)


def _is_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1


def reference(value: Any) -> str:
    """JSON.stringify of a deep key-sorted copy, written plainly (recursive; numbers by the tested _number)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int) and abs(value) <= 2**53:
        return str(value)
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            return "null"
        return jsformat.number_text(number) if math.isfinite(number) else "null"
    if isinstance(value, str):
        out = ['"']
        for char in value:
            if char in '"\\':
                out.append("\\" + char)
            elif char in "\b\f\n\r\t":
                out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[char])
            elif char < " " or "\ud800" <= char <= "\udfff":
                out.append(f"\\u{ord(char):04x}")
            else:
                out.append(char)
        return "".join(out) + '"'
    if isinstance(value, list):
        return "[" + ",".join(reference(x) for x in value) + "]"
    index = sorted((k for k in value if _is_index(k)), key=int)
    rest = sorted((k for k in value if not _is_index(k)), key=lambda k: k.encode("utf-16-be", "surrogatepass"))
    return "{" + ",".join(f"{reference(k)}:{reference(value[k])}" for k in index + rest) + "}"


INDEX_LIKE = st.sampled_from(
    ["0", "1", "2", "3", "9", "10", "12", "40", "100", "4294967294", "4294967295", "01", "-1", "1.0", " 1", "1e3",
     "\u0661", "٣"]
)
KEYS = st.one_of(INDEX_LIKE, st.text(max_size=4), st.sampled_from(["", "a", "Z", "😀", "\uff61", "\ue000", "é", ":"]))
NUMBERS = st.one_of(
    st.integers(-(2**60), 2**60), st.integers(min_value=2**53), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([30.0, -0.0, 1e21, 1e-7, 1e16, 123e-20, 2.0**53, 0.1, 5e-324]),
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | NUMBERS | st.text(max_size=6),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(KEYS, children, max_size=6),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(JSON_VALUES)
def test_matches_the_reference(value: Any) -> None:
    assert canonicalize(value) == reference(value)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.dictionaries(INDEX_LIKE, st.integers() | st.floats(), min_size=2, max_size=5), min_size=10,
                max_size=40))
def test_many_objects_in_javascript_order(value: list[dict[str, Any]]) -> None:
    # Many objects needing JavaScript's order, side by side and nested.
    assert canonicalize(value) == reference(value)
    assert canonicalize({"3": value, "12": value}) == reference({"3": value, "12": value})


# Lone surrogates, some between digits (the shape of the placeholders an earlier fast path used), beside objects whose
# keys need JavaScript's order.
SURROGATE_TEXTS = ["\udfff0\udfff", "\udfff1\udfff", '"\udfff0\udfff"', "\udfff", "\ud800x"]


@pytest.mark.parametrize("text", SURROGATE_TEXTS, ids=["p0", "p1", "quoted", "lone", "high"])
def test_lone_surrogates_beside_objects_in_javascript_order(text: str) -> None:
    for value in (
        {"a": text, "b": {"3": 1, "12": 2}},
        {"b": {"3": text, "12": 2}, "a": text},
        [{"3": 1, "12": 2}, text, {"3": 4, "12": 5}],
        {text: {"3": 1, "12": 2}},
        {"3": text, "12": {"40": text, "5": text}},
    ):
        assert canonicalize(value) == reference(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"4294967295": 1, "4294967294": 2, "5": 3}, '{"5":3,"4294967294":2,"4294967295":1}'),
        ({"12": 1, "3": 2, "01": 3, "-1": 4}, '{"3":2,"12":1,"-1":4,"01":3}'),
        ({"timeout": 30.0, "lines": {"40": "c", "3": "a", "12": "b"}},
         '{"lines":{"3":"a","12":"b","40":"c"},"timeout":30}'),
        ({"12": {"3": 1.0, "12": [1e21, {"2": 1, "10": 2}]}, "3": 2**60},
         '{"3":1152921504606847000,"12":{"3":1,"12":[1e+21,{"2":1,"10":2}]}}'),
        ({"😀": 1, "\uff61": 2, "3": 3, "12": 4}, '{"3":3,"12":4,"😀":1,"｡":2}'),
    ],
)
def test_javascript_key_order(value: Any, expected: str) -> None:
    assert canonicalize(value) == expected == reference(value)


def test_the_key_order_cache_stays_bounded() -> None:
    rnd = random.Random(3)
    for n in range(5000):
        canonicalize({str(rnd.randrange(100)): 1, str(n): 2, "x" * rnd.randrange(2000): 3})
    memo = canonical_fast._memo
    assert memo.held <= memo.limit
    assert memo.held == sum(2 * sum(map(len, shape)) + canonical_fast._KEY_BYTES * len(shape) for shape in memo.shapes)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_bytes_key_as_their_backslashreplace_decoding(data: bytes) -> None:
    assert canonicalize(data) == reference(data.decode("utf-8", "backslashreplace"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, categories=["Cs", "Ll", "So", "Cc"]), max_size=20))
def test_lone_surrogates_print_as_escapes(text: str) -> None:
    # Adjacent high+low surrogates are one character to JavaScript; any other surrogate prints as \\udxxx.
    paired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    assert canonicalize(text) == reference(paired)
    assert canonicalize({text: [text]}) == reference({paired: [paired]})
