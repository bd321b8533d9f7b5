"""Node.js on every shape the benchmarks measure, and on the same shapes filled with what makes the fast path hesitate.

test_canonical.py's generated documents are small (a few keys, nesting a few deep); these are the large nested ones
whose speed bench_guard.py measures — a wide object of small lists, objects nested tens deep, a long list of small
objects — exactly as the benchmark builds them, then again with random members (numbers JavaScript prints otherwise,
integer-like keys, strings to escape, containers inside the small lists) and around the fast path's bounds (lists of 8
and 9 members, nesting of 99 to 102). Each runs on both paths; on the fast one, each plain document must have been
answered by the fast path itself, and each document beyond its bounds by the reference.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import REPO, require
from toolguards import canonical
from toolguards.canonical import canonicalize
from toolguards.canonical.fast import MAX_DEPTH, fast_text

NODE_HELPER = REPO / "tests" / "support" / "js" / "canonical.js"


def bench_shapes() -> dict[str, Any]:
    """The arguments of every shape bench_guard.py measures (benchmarks/workloads.py), four variants each."""
    spec = importlib.util.spec_from_file_location("workloads", REPO / "benchmarks" / "workloads.py")
    assert spec is not None and spec.loader is not None
    workloads = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(workloads)
    return {f"{name}/{n}": make(n) for name, (_, make) in workloads.SHAPES.items() for n in range(4)}


SCALARS: list[Any] = [0, -1, 7, 2**53, 2**53 + 1, -(2**53) - 1, 10**21, 1.0, -0.0, 0.5, 1e-4, 9.999e-5, 1e16, 1.5e16,
                      1e21, 123.456, -2.5e-7, "", "a\"b\\c", "\x00\x1f\u2028\x7f", "é中", "\U0001f600", None, True,
                      False]
#: Lone surrogates make the fast path decline a whole document: a few documents carry one, the rest none.
LONE = ["\ud800", "a\udc00"]
KEYS = ["0", "1", "10", "01", "4294967294", "4294967295", "a", "B", "_", "k0001", "é", "\ue000", "\U0001f600"]


def small_list(rnd: random.Random, length: int) -> list[Any]:
    members: list[Any] = [rnd.choice(SCALARS) for _ in range(length)]
    if length and rnd.random() < 0.2:  # a container among the members of a small list
        members[rnd.randrange(length)] = rnd.choice([{"x": rnd.choice(SCALARS)}, [rnd.choice(SCALARS)], [], {}])
    return members


def random_shapes(rnd: random.Random) -> dict[str, Any]:
    """The three nested shapes with random members, 20 of each (named ``plain …``), and a few with a lone surrogate."""
    found: dict[str, Any] = {}
    for n in range(20):
        found[f"wide lists {n}"] = {(rnd.choice(KEYS) + str(i) if rnd.random() < 0.3 else f"k{i:04d}"):
                                    small_list(rnd, rnd.choice([0, 1, 4, 7, 8, 9, 12])) for i in range(300)}
        found[f"objects {n}"] = [{rnd.choice(KEYS): rnd.choice(SCALARS) for _ in range(rnd.randint(0, 5))}
                                 for _ in range(300)]
        node: Any = rnd.choice(SCALARS)
        for level in range(rnd.randint(30, 60)):
            node = ({"level": level, rnd.choice(KEYS): small_list(rnd, rnd.randint(0, 9)), "child": node}
                    if rnd.random() < 0.7 else [level, node, small_list(rnd, 3)])
        found[f"deep {n}"] = node
    found = {f"plain {name}": doc for name, doc in found.items()}
    for n, lone in enumerate(LONE):
        found[f"lone surrogate {n}"] = {"k0001": [1, lone, None], "rows": [{"a": lone}]}
    return found


def nested(levels: int, inner: Any, list_every: int) -> Any:
    """``inner`` inside ``levels`` containers: objects, with a small list in place of every ``list_every``-th."""
    value = inner
    for level in range(levels):
        value = [value, level] if list_every and level % list_every == 0 else {"v": value, "n": level}
    return value


BOUNDS = {f"{levels} levels, a list every {every}": nested(levels, [1, "x"], every)
          for levels in (MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 2) for every in (0, 2, 3)}
BOUNDS |= {f"a {n}-member list in an object": {"a": [*range(n - 1), 1.5]} for n in (7, 8, 9, 10)}


@pytest.fixture(scope="module")
def documents() -> dict[str, Any]:
    return {**bench_shapes(), **random_shapes(random.Random(26)), **BOUNDS}


@pytest.fixture(scope="module")
def node_texts(tmp_path_factory: pytest.TempPathFactory, documents: dict[str, Any]) -> dict[str, str]:
    """The canonical text Node.js gives each document."""
    node = require("node", "the canonical-form differential test runs Node.js", "nodejs")
    docs = tmp_path_factory.mktemp("node") / "shapes.jsonl"
    docs.write_text("".join(json.dumps(doc, ensure_ascii=True) + "\n" for doc in documents.values()), encoding="ascii")
    run = subprocess.run([node, str(NODE_HELPER), str(docs)], capture_output=True, check=True, timeout=120)
    texts = [json.loads(line) for line in run.stdout.decode("utf-8").split("\n")[:-1]]
    assert len(texts) == len(documents)
    return dict(zip(documents, texts, strict=True))


@pytest.fixture(params=["fast", "reference"])
def canonical_path(request: pytest.FixtureRequest) -> Iterator[str]:
    canonical.use_fast_path(request.param == "fast")
    yield request.param
    canonical.use_fast_path(True)


def test_every_shape_matches_javascript(documents, node_texts, canonical_path):
    # What Node.js parses is what json.loads gives (floats as floats, 1.0 as 1.0): the text both were given.
    for name, doc in documents.items():
        parsed = json.loads(json.dumps(doc, ensure_ascii=True))
        assert canonicalize(parsed) == node_texts[name], name


def test_the_fast_path_answers_the_plain_shapes_and_leaves_the_rest(documents):
    answered = {name for name, doc in documents.items() if fast_text(json.loads(json.dumps(doc))) is not None}
    plain = {name for name in documents if "/" in name or name.startswith(("plain ", "a "))}
    assert plain <= answered  # every benchmark shape and every plain document, by the fast path
    assert not {name for name in documents if name.startswith("lone surrogate")} & answered
    levels = {name: int(name.split(" ")[0]) for name in BOUNDS if name.split(" ")[0].isdigit()}
    assert {name for name, n in levels.items() if n <= MAX_DEPTH} <= answered  # up to its bound: the fast path
    beyond = {name for name, n in levels.items() if n > MAX_DEPTH}
    assert beyond and not beyond & answered  # past it: the reference
