from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import logging
import math
import random
import subprocess
import sys
from collections import OrderedDict
from collections.abc import Iterator
from decimal import Decimal
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO, require
from toolguards import canonical
from toolguards.canonical import canonicalize
from toolguards.canonical.fast import fast_text

NODE_HELPER = REPO / "tests" / "support" / "js" / "canonical.js"


@pytest.fixture(scope="module", autouse=True, params=["fast", "reference"])
def canonical_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test here runs twice: as shipped (the fast path first), and with the fast path switched off."""
    canonical.use_fast_path(request.param == "fast")
    yield request.param
    canonical.use_fast_path(True)


class Color(enum.Enum):
    RED = "red"
    ONE = 1


@dataclasses.dataclass
class Point:
    y: int
    x: float


class Plain:
    def __init__(self) -> None:
        self.b = [1, 2]
        self.a = "x"


class NoDict:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NoDict()"


class BadRepr:
    __slots__ = ()

    def __repr__(self) -> str:
        raise RuntimeError("no")


def _cyclic_list() -> list[object]:
    a: list[object] = []
    a.append(a)
    return a


def _cyclic_dict() -> dict[str, object]:
    d: dict[str, object] = {"k": 1}
    d["self"] = {"inner": d}
    return d


def _shared() -> list[object]:
    x = [1, {"a": 2}]
    return [x, x, {"again": x}]


def _cyclic_object() -> Plain:
    p = Plain()
    p.b = [p]
    return p


def _key_cycle() -> dict[object, object]:
    d: dict[object, object] = {"x": 2}
    key = Plain()
    key.b = [d]
    d[key] = 1
    return d


def _nested_list(n: int) -> list[object]:
    v: list[object] = []
    for _ in range(n):
        v = [v]
    return v


def _nested_dict(n: int) -> dict[str, object]:
    v: dict[str, object] = {}
    for _ in range(n):
        v = {"a": v}
    return v


DEEP = 100_000

CASES: list[tuple[object, str]] = [
    # numbers
    (1.0, "1"),
    (30.0, "30"),
    (1e21, "1e+21"),
    (1e20, "100000000000000000000"),
    (1e-7, "1e-7"),
    (0.000001, "0.000001"),
    (0.00001, "0.00001"),
    (0.0001, "0.0001"),
    (1.5e-10, "1.5e-10"),
    (123e25, "1.23e+27"),
    (-0.0, "0"),
    (math.nan, "null"),
    (math.inf, "null"),
    (-math.inf, "null"),
    (2.0**60, "1152921504606847000"),
    (2**53, "9007199254740992"),
    (2**53 + 1, "9007199254740992"),
    (-(2**53) - 1, "-9007199254740992"),
    (10**30, "1e+30"),
    (12345678901234567890, "12345678901234567000"),
    (10**400, "null"),
    (-(10**400), "null"),
    (5e-324, "5e-324"),
    (0.7, "0.7"),
    (-1.5, "-1.5"),
    (1e16, "10000000000000000"),
    (1.5e16, "15000000000000000"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (True, "true"),
    (False, "false"),
    (None, "null"),
    (0, "0"),
    ({"t": 0.7, "n": 30.0, "i": 3}, '{"i":3,"n":30,"t":0.7}'),
    # key order
    (
        {"10": 1, "2": 2, "01": 3, "-1": 4, "4294967294": 5, "4294967295": 6, "a": 7, "0": 8, "": 9},
        '{"0":8,"2":2,"10":1,"4294967294":5,"":9,"-1":4,"01":3,"4294967295":6,"a":7}',
    ),
    ({"0": 1, "1": 2, "10": 3, "b": 4, "B": 5}, '{"0":1,"1":2,"10":3,"B":5,"b":4}'),
    ({"\ue000": 1, "\U0001f600": 2}, '{"\U0001f600":2,"\ue000":1}'),
    ({"b": {"z": 1, "y": [{"d": 1, "c": 2}]}, "a": []}, '{"a":[],"b":{"y":[{"c":2,"d":1}],"z":1}}'),
    ({"__proto__": {"x": 1}, "a": 1}, '{"__proto__":{"x":1},"a":1}'),
    # strings
    ("plain", '"plain"'),
    ('q"b\\', '"q\\"b\\\\"'),
    ("\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'),
    ("\x00\x01\x1f", '"\\u0000\\u0001\\u001f"'),
    ("\x7f\u2028\u2029é😀", '"\x7f\u2028\u2029é😀"'),
    ("\ud800", '"\\ud800"'),
    ("a\udc00b\udbff", '"a\\udc00b\\udbff"'),
    ("\ud83d\ude00", '"😀"'),
    ({"\ud800": "\udfff"}, '{"\\ud800":"\\udfff"}'),
    ("", '""'),
    # non-string keys
    ({1: "a"}, '{"1":"a"}'),
    ({1.0: "a"}, '{"1":"a"}'),
    ({True: 1, None: 2, 2.5: 3, math.nan: 4, math.inf: 5}, '{"2.5":3,"Infinity":5,"NaN":4,"null":2,"true":1}'),
    ({10: "a", 9: "b", "x": 1}, '{"9":"b","10":"a","x":1}'),
    ({1: "b", "1": "a"}, '{"1":"a","1":"b"}'),
    ({"1": "b", 1: "a"}, '{"1":"a","1":"b"}'),
    ({("a", 1): 1}, '{"[\\"a\\",1]":1}'),
    ({b"k": 1}, '{"k":1}'),
    ({"\ud83d\ude00": 2, "😀": 1}, '{"😀":1,"😀":2}'),
    (_key_cycle(), '{"x":2,"{\\"a\\":\\"x\\",\\"b\\":[\\"[Circular]\\"]}":1}'),
    # containers and other values
    ((1, "a"), '[1,"a"]'),
    ([], "[]"),
    ({}, "{}"),
    (b"ab\xff", '"ab\\\\xff"'),
    (bytearray(b"x"), '"x"'),
    (memoryview(b"mv"), '"mv"'),
    ({3, 1, 2}, "[1,2,3]"),
    (frozenset({"b", "a", 10}), '["a","b",10]'),
    (set(), "[]"),
    (datetime.datetime(2024, 5, 6, 7, 8, 9), '"2024-05-06T07:08:09"'),
    (datetime.date(2024, 5, 6), '"2024-05-06"'),
    (datetime.time(7, 8), '"07:08:00"'),
    (Decimal("1.50"), "1.5"),
    (Decimal("1e400"), "null"),
    (Decimal("NaN"), "null"),
    (Decimal("sNaN"), "null"),
    (Color.RED, '"red"'),
    ({"c": Color.ONE}, '{"c":1}'),
    (Point(1, 2.0), '{"x":2,"y":1}'),
    (Plain(), '{"a":"x","b":[1,2]}'),
    (NoDict(), '"NoDict()"'),
    (BadRepr(), '"<unrepresentable BadRepr>"'),
    (MappingProxyType({"b": 1, "a": 2}), '{"a":2,"b":1}'),
    (OrderedDict([("b", 1), ("a", 2)]), '{"a":2,"b":1}'),
    ({"f": len}, '{"f":"<built-in function len>"}'),
    ({"m": sys}, '{"m":"<module \'sys\' (built-in)>"}'),
    ({"c": int}, '{"c":"<class \'int\'>"}'),
    # cycles, shared references, depth, size
    (_cyclic_list(), '["[Circular]"]'),
    (_cyclic_dict(), '{"k":1,"self":{"inner":"[Circular]"}}'),
    (_cyclic_object(), '{"a":"x","b":["[Circular]"]}'),
    (_shared(), '[[1,{"a":2}],[1,{"a":2}],{"again":[1,{"a":2}]}]'),
    (_nested_list(DEEP), "[" * (DEEP + 1) + "]" * (DEEP + 1)),
    (_nested_dict(DEEP), '{"a":' * DEEP + "{}" + "}" * DEEP),
    ("x" * 10_000_000, '"' + "x" * 10_000_000 + '"'),
    ({"content": "é\n" * 5_000_000}, '{"content":"' + "é\\n" * 5_000_000 + '"}'),
]


def _case_id(case: tuple[object, str]) -> str:
    expected = case[1]
    return f"{type(case[0]).__name__}:{expected if len(expected) <= 40 else expected[:37] + '...'}"


@pytest.mark.parametrize(("value", "expected"), CASES, ids=[_case_id(c) for c in CASES])
def test_canonical_text(value: object, expected: str) -> None:
    assert canonicalize(value) == expected


def test_set_order_independent() -> None:
    members = [f"m{i}" for i in range(50)] + list(range(50))
    texts = set()
    for seed in range(5):
        random.Random(seed).shuffle(members)
        texts.add(canonicalize(set(members)))
    assert len(texts) == 1


def test_generator_not_consumed() -> None:
    gen = (i for i in range(3))
    text = canonicalize({"g": gen})
    assert text.startswith('{"g":"<generator object')
    assert list(gen) == [0, 1, 2]


def test_never_raises_on_hostile_values() -> None:
    class Hostile:
        def __getattribute__(self, name: str) -> object:
            raise RuntimeError(name)

    class BadMapping(dict[str, int]):
        def items(self):  # type: ignore[override]
            raise RuntimeError("items")

    for value in (Hostile(), BadMapping(a=1), {"x": Hostile()}, [BadRepr()]):
        assert isinstance(canonicalize(value), str)


def test_warns_once_per_type(caplog: pytest.LogCaptureFixture) -> None:
    class Fresh:
        def __init__(self, n: int) -> None:
            self.n = n

    class Other:
        __slots__ = ()

    class Blob(bytes):
        pass

    with caplog.at_level(logging.WARNING, logger="toolguards"):
        canonicalize([Fresh(1), Fresh(2), {"k": Fresh(3)}])
        canonicalize(Fresh(4))
        canonicalize(Other())
        canonicalize({"plain": [1, "json", 2.5, None]})
        canonicalize([Blob(b"hi"), Blob(b"ho")])
    messages = [r.getMessage() for r in caplog.records if r.name == "toolguards"]
    assert len(messages) == 3, messages
    assert "Fresh" in messages[0] and "attributes" in messages[0]
    assert "Other" in messages[1] and "repr" in messages[1]
    assert "Blob" in messages[2] and 'UTF-8 decoding: "hi"' in messages[2]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.sampled_from(["0", "1", "10", "2", "01"]), children, max_size=5)
    ),
    max_leaves=20,
)


def _shuffled(value: object, rnd: random.Random) -> object:
    if isinstance(value, dict):
        items = [(k, _shuffled(x, rnd)) for k, x in value.items()]
        rnd.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        return [_shuffled(x, rnd) for x in value]
    return value


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=6) | st.sampled_from(["0", "1", "10", "2", "01"]), JSON), st.randoms())
def test_order_independent_and_deterministic(value: dict[str, object], rnd: random.Random) -> None:
    text = canonicalize(value)
    assert canonicalize(_shuffled(value, rnd)) == text
    assert canonicalize(value) == text


# Differential test against Node.js


_KEY_POOL = ["0", "1", "2", "9", "10", "11", "100", "01", "00", "-1", "-0", "1.5", "1e3", "4294967294", "4294967295"]
_KEY_POOL += ["4294967296", "99999999999", "", " ", "a", "B", "_", "~", "ab", "key", "Key", "a1", "1a"]
_WILD_KEYS = ["\ue000", "\uffff", "\U0001f600", "\U00010000", "\ud7ff", "\x00", "\x1f", "é", "a\ue000", "a\U0001f600"]
_WILD_KEYS += ["\ud800", "\udc00", "\udbff\udc00"]

_ASCII = [chr(c) for c in range(0x20, 0x7F)]
_CONTROLS = [chr(c) for c in range(0x20)] + ["\x7f", "\u2028", "\u2029", '"', "\\", "/"]
_BMP = ["é", "ß", "中", "\u0300", "\ufeff", "\ud7ff", "\ue000", "\uf8ff", "\ufffd", "\uffff"]
_ASTRAL = ["\U00010000", "\U0001f600", "\U0010ffff", "\U0002a6d6"]
_LONE = ["\ud800", "\udbff", "\udc00", "\udfff"]


class _Gen:
    """Random JSON documents; "ascii" and "bmp" flavours keep to what the fast paths handle."""

    def __init__(self, rnd: random.Random, flavour: str) -> None:
        self.rnd = rnd
        self.chars = {"ascii": [_ASCII, _CONTROLS], "bmp": [_ASCII, _CONTROLS, _BMP]}.get(
            flavour, [_ASCII, _CONTROLS, _BMP, _ASTRAL, _LONE]
        )
        self.keys = _KEY_POOL + (_WILD_KEYS if flavour == "wild" else [])

    def text(self) -> str:
        rnd = self.rnd
        return "".join(rnd.choice(rnd.choice(self.chars)) for _ in range(rnd.randint(0, 8)))

    def float(self) -> float:
        rnd = self.rnd
        kind = rnd.randrange(7)
        if kind == 0:
            return rnd.choice(
                [1e21, 1e-7, 1e-6, 1e16, 1e-4, 1e-5, 2.0**53, 2.0**60, 0.0, -0.0, 5e-324, 2.2250738585072014e-308]
            )
        if kind == 1:
            x = rnd.choice([1e21, 1e-7, 1e-6, 1e16, 1e-4, 2.0**53, 1e22])
            for _ in range(rnd.randint(1, 3)):
                x = math.nextafter(x, rnd.choice([0.0, math.inf]))
            return x
        if kind == 2:  # integral
            return float(rnd.randint(-(2**70), 2**70) >> rnd.randrange(70))
        if kind == 3:  # any finite double, subnormals included
            while True:
                x = rnd.choice([-1, 1]) * rnd.random() * 2.0 ** rnd.randint(-1075, 1023)
                if math.isfinite(x):
                    return x
        if kind == 4:
            return round(rnd.uniform(-1000, 1000), rnd.randint(0, 6))
        return rnd.uniform(-1, 1) * 10.0 ** rnd.randint(-30, 30)

    def int(self) -> int:
        rnd = self.rnd
        kind = rnd.randrange(4)
        if kind == 0:
            return rnd.randint(-1000, 1000)
        if kind == 1:
            return rnd.choice([1, -1]) * (2**53 + rnd.randint(-5, 5))
        if kind == 2:
            return rnd.choice([1, -1]) * rnd.randint(0, 10 ** rnd.randint(15, 40))
        return rnd.choice([1, -1]) * 10 ** rnd.randint(300, 330)

    def value(self, depth: int) -> object:
        kind = self.rnd.randrange(10 if depth < 4 else 7)
        if kind == 0:
            return self.rnd.choice([None, True, False])
        if kind in (1, 2):
            return self.float()
        if kind == 3:
            return self.int()
        if kind in (4, 5, 6):
            return self.text() if self.rnd.random() < 0.8 else self.rnd.choice(self.keys)
        if kind == 7:
            return [self.value(depth + 1) for _ in range(self.rnd.randint(0, 4))]
        return self.object(depth)

    def object(self, depth: int) -> dict[str, object]:
        out: dict[str, object] = {}
        for _ in range(self.rnd.randint(0, 6)):
            key = self.rnd.choice(self.keys) if self.rnd.random() < 0.6 else self.text()
            out[key] = self.value(depth + 1)
        return out


_RAW_LINES = [
    "1e400",
    "-1e400",
    "-0",
    "0.1e1",
    "1E5",
    "[1.0,2.50,1e-7]",
    '{"a":1e-0}',
    "123456789012345678901234567890",
]


@pytest.fixture(scope="module")
def javascript_texts(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str]]:
    """Generated documents as JSON lines, each with the canonical text Node.js gives it (one Node run for both paths)."""
    node = require("node", "the canonical-form differential test runs Node.js", "nodejs")
    rnd = random.Random(20240506)
    lines = list(_RAW_LINES)
    for flavour in ("ascii", "bmp", "wild"):
        gen = _Gen(rnd, flavour)
        for _ in range(4_000):
            doc = gen.object(0) if rnd.random() < 0.8 else gen.value(0)
            lines.append(json.dumps(doc, ensure_ascii=True))
    docs = tmp_path_factory.mktemp("node") / "docs.jsonl"
    docs.write_text("\n".join(lines) + "\n", encoding="ascii")
    run = subprocess.run([node, str(NODE_HELPER), str(docs)], capture_output=True, check=True, timeout=120)
    # split on "\n" only: splitlines() would also split at U+2028 and friends, which JSON.stringify leaves raw
    expected = [json.loads(line) for line in run.stdout.decode("utf-8").split("\n")[:-1]]
    assert len(expected) == len(lines)
    return list(zip(lines, expected, strict=True))


def test_matches_javascript(javascript_texts: list[tuple[str, str]], canonical_path: str) -> None:
    mismatches = []
    answered = 0  # documents the fast path printed itself
    for line, want in javascript_texts:
        doc = json.loads(line)
        got = canonicalize(doc)
        if got != want:
            mismatches.append(f"doc {line}\n  python {got!r}\n  node   {want!r}")
        answered += canonical_path == "fast" and fast_text(doc) is not None
    total = len(javascript_texts)
    assert not mismatches, f"{len(mismatches)} of {total} differ ({canonical_path}); first ones:\n" + "\n".join(
        mismatches[:5]
    )
    if canonical_path == "fast":
        # Most documents are plain JSON: what matched Node for them was the fast path's answer, not the reference's.
        assert answered > total // 2, f"the fast path answered only {answered} of {total} documents"


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def test_nearly_full_stack_never_raises() -> None:
    value = {"a": [1.5, {"b": 2}], "c": 1e-5}

    def recurse(n: int) -> str:
        return canonicalize(value) if n <= 0 else recurse(n - 1)

    # canonicalize never raises, so a RecursionError here means the test's own frames did not fit.
    texts = {}
    for headroom in range(60):
        try:
            texts[headroom] = recurse(sys.getrecursionlimit() - _stack_depth() - headroom)
        except RecursionError:
            continue
    assert all(isinstance(text, str) for text in texts.values())
    assert texts[59] == '{"a":[1.5,{"b":2}],"c":0.00001}'
    assert min(texts) < 10
