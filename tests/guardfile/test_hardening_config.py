"""Config fuzzing: random YAML documents and random mutations of the shipped guard file, through `toolguards validate`.

Every run ends with exit 0 or 1 and prints each problem as `path:line:col: message` (or `path: message`), never a
traceback. Cases come from fixed seeds, so a failure names the seed that reproduces it; the crashes found this way are
kept as regression cases with their exact diagnostics.
"""

from __future__ import annotations

import io
import random
import re
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

import toolguards as tg
from conftest import REPO
from toolguards.cli import main
from toolguards.guardfile.loader import check_file

SHIPPED = (REPO / "guards" / "repeat-tool-reminder.yaml").read_text(encoding="utf-8")

KEYS = [
    "version", "locale", "templateDirs", "guards", "id", "name", "kind", "config", "thresholds", "include", "exclude",
    "argumentsPreviewChars", "templates", "first", "detailed", "truncated", "repeatEvery", "resultAware", "block",
    "atCount", "feedback", "overrides", "tools", "threshold", "<<", "? x", "",
]
SCALARS = [
    "0", "-1", "1", "2", "3", "3.0", "2.5", "1e999", "-1e999", "1e300", ".nan", ".inf", "-.inf", "~", "null", "true",
    "no", "yes", "on", "''", '""', "'x'", '"\\ud800"', '"\\udfff0\\udfff"', '"\\x00"', '"a\\nb"', '"\\t"', "0x1F",
    "0o17", "0b101", "1_000", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-13-45", "[]", "{}", "[3, 3]",
    "[3, 5, 8]", "[a, *b]", "*undefined", "&a x", "!!binary aGk=", "!!set {a}", "!!omap [a: 1]",
    "!!python/object:os.system {}", "!custom 1", "!!int abc", "!!bool maybe", "!!float x", "!!str 3", "!!null x",
    "!!timestamp x", "!!map [1]", "!!seq {a: 1}", "!<tag:yaml.org,2002:int> 3", "|\n  block", ">-\n  folded", "@",
    "`", "%", "- - -", "{a: [b, {c: d}]}", "中文", "é", "repeat-tool-reminder", "cycle-reminder", "todo_write",
    "mcp_*", "repeat-tool-reminder/first.j2", "../../../etc/passwd", "/etc/passwd", "/dev/null", "x" * 300,
    "9" * 400, "9" * 4301, "-" + "9" * 5000, "[" * 400 + "]" * 400, "{a: " * 300 + "1" + "}" * 300,
]
TAGS = ["!!binary", "!!set", "!!omap", "!!int", "!!bool", "!!float", "!!str", "!!null", "!!timestamp", "!custom",
        "!!python/name:os.system", "!<tag:example.com,2000:x>", "!!map", "!!seq"]
VALUE = re.compile(r"^(\s*(?:- )?[\w<>]+:)( *)(.+)$")


def _value_lines(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if VALUE.match(line) and not line.lstrip().startswith("#")]


def _set_value(lines: list[str], index: int, value: str) -> None:
    match = VALUE.match(lines[index])
    if match:
        lines[index] = f"{match.group(1)} {value}"


def mutate(text: str, rnd: random.Random) -> bytes:
    """Between one and three random edits of the text, then sometimes a flipped or inserted byte."""
    lines = text.split("\n")
    for _ in range(rnd.randint(1, 3)):
        op = rnd.randrange(14)
        spots = _value_lines(lines)
        if op == 0 and len(lines) > 1:  # delete a line
            del lines[rnd.randrange(len(lines))]
        elif op == 1:  # duplicate a line
            i = rnd.randrange(len(lines))
            lines.insert(i, lines[i])
        elif op == 2 and len(lines) > 1:  # swap two lines
            i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3 and len(spots) > 1:  # swap two values
            i, j = rnd.sample(spots, 2)
            a, b = VALUE.match(lines[i]), VALUE.match(lines[j])
            if a and b:
                lines[i], lines[j] = f"{a.group(1)} {b.group(3)}", f"{b.group(1)} {a.group(3)}"
        elif op == 4 and spots:  # a random scalar in place of a value
            _set_value(lines, rnd.choice(spots), rnd.choice(SCALARS))
        elif op == 5:  # a random key and scalar on a new line, at a random indent
            line = f"{' ' * rnd.choice([0, 2, 4, 6, 8, 3])}{rnd.choice(KEYS)}: {rnd.choice(SCALARS)}"
            lines.insert(rnd.randrange(len(lines) + 1), line)
        elif op == 6 and spots:  # deep nesting
            depth = rnd.choice([50, 100, 101, 400])
            nested = "[" * depth + "3" + "]" * depth if rnd.random() < 0.5 else "{a: " * depth + "3" + "}" * depth
            _set_value(lines, rnd.choice(spots), nested)
        elif op == 7 and len(spots) > 1:  # an anchor and an alias to it (perhaps its own ancestor)
            i, j = rnd.sample(spots, 2)
            match = VALUE.match(lines[i])
            if match:
                lines[i] = f"{match.group(1)} &a {match.group(3)}"
                _set_value(lines, j, "*a")
        elif op == 8:  # an alias bomb at the top
            bomb = ["b0: &b0 [x, x, x, x, x, x, x, x, x, x]"]
            bomb += [f"b{k}: &b{k} [{', '.join([f'*b{k - 1}'] * 10)}]" for k in range(1, rnd.randint(2, 5))]
            lines[:0] = bomb
        elif op == 9 and spots:  # a huge number
            digits = rnd.choice([20, 400, 4300, 4301, 20_000])
            _set_value(lines, rnd.choice(spots), rnd.choice(["", "-"]) + "9" * digits + rnd.choice(["", ".5", "e3"]))
        elif op == 10 and spots:  # an odd tag on a value
            i = rnd.choice(spots)
            match = VALUE.match(lines[i])
            if match:
                lines[i] = f"{match.group(1)} {rnd.choice(TAGS)} {match.group(3)}"
        elif op == 12:  # a YAML 1.1 document, where `yes` is true and `1e3` a float the parser warns about
            lines[:0] = ["%YAML 1.1", "---"]
            if spots:
                _set_value(lines, rnd.choice(spots), rnd.choice(["1e3", "yes", "0o17", "017", "1:30"]))
        elif op == 13 and len(spots) > 1:  # an anchor defined twice
            for i in rnd.sample(spots, 2):
                match = VALUE.match(lines[i])
                if match:
                    lines[i] = f"{match.group(1)} &twice {match.group(3)}"
        elif op == 11:  # truncated
            joined = "\n".join(lines)
            lines = joined[: rnd.randrange(len(joined) + 1)].split("\n")
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if data and rnd.random() < 0.3:
        i = rnd.randrange(len(data))
        data = data[:i] + bytes([data[i] ^ (1 << rnd.randrange(8))]) + data[i + 1 :]
    if rnd.random() < 0.2:
        i = rnd.randrange(len(data) + 1)
        data = data[:i] + rnd.choice([b"\t", b"\r", b"\x00", b"\xff", b"\xc2\x85", b"\xef\xbb\xbf", b"\\"]) + data[i:]
    return data


def _random_value(rnd: random.Random, depth: int) -> Any:
    roll = rnd.random()
    if depth > 3 or roll < 0.45:
        return rnd.choice([0, 1, 2, 3, 5, 8, -1, 2.5, 3.0, True, False, None, "", "grep", "repeat-tool-reminder",
                           "todo_write", "mcp_*", "en", "zh-CN", "fr", "first.j2", 10**30, 1e300, "x" * 50])
    if roll < 0.7:
        return [_random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    return {rnd.choice(KEYS[:-3]): _random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 5))}


def random_document(rnd: random.Random) -> bytes:
    """A random structure over the known keys, dumped as YAML in a random style; shared parts become anchors."""
    guard = {"id": rnd.choice(["repeat-tool-reminder", "cycle-reminder", "x"]), "config": _random_value(rnd, 1)}
    data: dict[str, Any] = {"guards": [guard, _random_value(rnd, 1)][: rnd.randint(1, 2)]}
    for key in rnd.sample(["version", "locale", "templateDirs", "extra"], rnd.randint(0, 3)):
        data[key] = _random_value(rnd, 1)
    if rnd.random() < 0.3:
        data["guards"].append(guard)  # the same object twice: an anchor and an alias
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = rnd.choice([None, True, False])
    out = io.StringIO()
    yaml.dump(data, out)
    text = out.getvalue()
    return mutate(text, rnd) if rnd.random() < 0.5 else text.encode("utf-8")


DIAGNOSTIC = re.compile(r"^(?P<path>.+?):(?P<line>[1-9]\d*):(?P<column>[1-9]\d*): (?P<message>.+)$", re.DOTALL)


def assert_validates_cleanly(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """`toolguards validate path` exits 0 or 1, printing exactly its diagnostics, each well formed."""
    code = main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert code in (0, 1)
    assert "Traceback" not in err
    problems = [str(d) for d in check_file(str(path))]
    assert code == (1 if problems else 0)
    assert out == "".join(f"{p}\n" for p in problems)
    for problem in problems:
        match = DIAGNOSTIC.match(problem)
        located = match.group("path") if match else problem.split(": ", 1)[0]
        assert located == str(path) or located.endswith(".j2"), problem
        assert (match.group("message") if match else problem.split(": ", 1)[1]).strip(), problem
    return problems


@pytest.mark.parametrize("seed", range(8))
def test_mutations_of_the_shipped_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int) -> None:
    rnd = random.Random(seed)
    for case in range(30):
        path = tmp_path / f"m{seed}-{case}.yaml"
        path.write_bytes(mutate(SHIPPED, rnd))
        assert_validates_cleanly(path, capsys)


@pytest.mark.parametrize("seed", range(8))
def test_random_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int) -> None:
    rnd = random.Random(1000 + seed)
    for case in range(15):
        path = tmp_path / f"r{seed}-{case}.yaml"
        path.write_bytes(random_document(rnd))
        assert_validates_cleanly(path, capsys)


def test_random_mappings_from_code() -> None:
    rnd = random.Random(7)
    cyclic: dict[str, Any] = {"guards": []}
    cyclic["guards"].append(cyclic)
    deep: Any = "grep"
    for _ in range(5000):
        deep = [deep]
    cases: list[Any] = [cyclic, {"guards": [{"id": "repeat-tool-reminder", "config": {"include": deep}}]}]
    cases += [{"guards": [{"id": "repeat-tool-reminder", "config": _random_value(rnd, 1)}]} for _ in range(60)]
    for data in cases:
        try:
            tg.from_mapping(data)
        except tg.ConfigError as error:
            assert error.diagnostics


# Crashes the fuzzing found, each with the diagnostics it now gives.
REGRESSIONS = [
    ("guards: " + "[" * 5000 + "]" * 5000 + "\n", ["g.yaml:1:109: the document nests deeper than 100 levels"]),
    ("guards: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n", ["g.yaml:1:406: the document nests deeper than 100 levels"]),
    ("guards:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 700)),  # past the stack, under 1 MiB
     ["g.yaml:101:201: the document nests deeper than 100 levels"]),
    ("a: &a " + "[" * 60 + "1" + "]" * 60 + "\nguards: " + "[" * 50 + "*a" + "]" * 50 + "\n",  # deep through an alias
     ["g.yaml:1:57: the document nests deeper than 100 levels"]),
    ("version: " + "9" * 5000 + "\nguards: []\n",
     ['g.yaml:1:10: version: the integer "9999999999999999999999999999999999999999"… has too many digits (5000) to '
      "be read"]),
    ("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [" + "9" * 4301 + "]\n",
     ['g.yaml:4:20: guards[0].config.thresholds[0]: the integer "9999999999999999999999999999999999999999"… has too '
      "many digits (4301) to be read"]),
    ("version: !!int abc\nguards: []\n", ['g.yaml:1:10: version: "abc" is not a valid int']),
    ("version: !!bool maybe\nguards: []\n", ['g.yaml:1:10: version: "maybe" is not a valid bool']),
    ("version: !!float x\nguards: []\n", ['g.yaml:1:10: version: "x" is not a valid float']),
    ('guards:\n  - id: "\\ud800"\n',
     ['g.yaml:2:9: guards[0].id: the text "\\ud800" holds a lone surrogate, which is not a character']),
    ('"\\udfff": 1\nguards: []\n',
     ['g.yaml:1:1: top level: the key "\\udfff" holds a lone surrogate, which is not a character']),
    ('templateDirs: ["' + "a" * 5000 + '"]\nguards: []\n', ["TOO_LONG"]),
    ("a: &x 1\nb: &x 2\nguards: []\n",  # a redefined anchor is legal YAML
     ["g.yaml:1:1: a: unknown key `a` (expected one of: `version`, `locale`, `templateDirs`, `guards`, `outcomes`, `prices`)",
      "g.yaml:2:1: b: unknown key `b` (expected one of: `version`, `locale`, `templateDirs`, `guards`, `outcomes`, `prices`)"]),
    ("%YAML 1.1\n---\nversion: 1e3\nguards: []\n",  # ruamel warns of a YAML 1.1 float without a dot
     ["g.yaml:3:10: version: must be 1, not 1000.0 (the only format version)"]),
]


@pytest.mark.parametrize(("text", "expected"), REGRESSIONS, ids=[f"regression-{i}" for i in range(len(REGRESSIONS))])
def test_fuzz_regressions(write_guard_file: Any, capsys: pytest.CaptureFixture[str], text: str,
                          expected: list[str]) -> None:
    path = Path(write_guard_file(text))
    problems = assert_validates_cleanly(path, capsys)
    if expected == ["TOO_LONG"]:  # the message carries the operating system's wording and the absolute folder
        assert len(problems) == 1 and problems[0].startswith("g.yaml:1:16: templateDirs[0]: template folder `")
        assert problems[0].endswith("` cannot be used: File name too long")
    else:
        assert problems == expected
