"""Fuzzing `toolguards validate` from the real guard files: structural edits at the nodes of guards/*.yaml and
examples/*.yaml, then byte-level damage.

test_hardening_config.py edits lines of the shipped file and writes random documents; this file edits the parsed
nodes of every shipped guard file in place (keeping its comments and layout): one value or key swapped for `[]`, `{}`,
a number, `null` or a string; a key written twice; an anchor and an alias (perhaps to its own ancestor, or not yet
defined); an alias bomb; deep nesting. Then, sometimes: a truncation at a random byte, bytes that are not UTF-8,
characters YAML does not allow, or padding past the size limit.

Every run of `toolguards validate` (in-process, through `toolguards.cli.main`) must exit 0 or 1, print no traceback,
and print each problem as exactly one line `path:line:col: message` (or `path: message`), at a 1-based position inside
the file it names. Where the fault put in is one the reader stops at, the report is exactly that fault: the first byte
that is not UTF-8, every character YAML does not allow, or the size. Cases come from fixed seeds, so a failure names
the seed, the case and the edits that reproduce it. 3 files x 8 seeds x 10 cases: 240 runs, a few seconds.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from conftest import REPO
from toolguards.cli import main

BASES = sorted([*REPO.glob("guards/*.yaml"), *REPO.glob("examples/*.yaml")])
MAX_BYTES = 1024 * 1024  # the documented limit on a guard file

SWAPS = ["[]", "{}", "0", "-1", "7", "2.5", "1e999", "null", "~", '""', '"text"', "text", "true", "[1, x]", "{a: 1}",
         "中文", "'é'", '"\\x00"', '"a\\nb"', '"\\x85\\x9b\\u2028"', "9" * 5000]
# Characters YAML does not allow anywhere in a file, and odd ones it does allow.
REFUSED = ["\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x80", "\x9f", "\ufffe", "\uffff"]
ALLOWED = ["\t", "\r", "\r\n", "\x85", "\u2028", "\u2029", "\ufeff", "\xa0", "é", "中", "😀"]
NOT_UTF8 = [b"\xff", b"\xfe", b"\x80", b"\xc3", b"\xc3(", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80",
            b"\xf8\x88\x80\x80\x80"]
# The code points YAML 1.2 allows in a stream (its c-printable production).
NOT_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
LINE_BREAK = re.compile(r"\r\n|\r|\n")
POSITIONED = re.compile(r"^(?P<path>.+?):(?P<line>[1-9]\d*):(?P<column>[1-9]\d*): (?P<message>\S.*)$")
UNPOSITIONED = re.compile(r"^(?P<path>[^:]+): (?P<message>\S.*)$")
GITHUB = re.compile(r"^::error file=[^,:]+(,line=[1-9]\d*,col=[1-9]\d*)?::\S.*$")
SUMMARY = re.compile(r"^toolguards validate: 1 file, (\d+) problems?\n$")
# Wording of the parser's own, which must never reach a message: its idea of where it was.
PARSER_PLACE = re.compile(r'<unicode string>|<byte string>|position \d+|line \d+, column \d+')


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    node: Node
    key: bool


def spans(text: str) -> list[Span]:
    """Every node of the document with where its text starts and ends (trailing blank space and comments cut)."""
    root = YAML(typ="safe", pure=True).compose(text)
    found: list[Span] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, key = stack.pop()
        end = node.end_mark.index
        if not isinstance(node, ScalarNode):  # a block collection ends where the next token starts: cut the
            lines = text[node.start_mark.index : end].split("\n")  # blank lines and comments before that
            while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
                lines.pop()
            lines[-1] = lines[-1].split(" #")[0]
            end = node.start_mark.index + len("\n".join(lines).rstrip())
        found.append(Span(node.start_mark.index, end, node, key))
        if isinstance(node, SequenceNode):
            stack.extend((item, False) for item in node.value)
        elif isinstance(node, MappingNode):
            for key_node, value_node in node.value:
                stack.extend([(key_node, True), (value_node, False)])
    return found


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def structural(text: str, rnd: random.Random) -> tuple[str, str]:
    """One edit at the nodes of ``text``, and its description."""
    nodes = spans(text)
    target = rnd.choice(nodes)
    op = rnd.randrange(7)
    if op == 0:
        new = rnd.choice(SWAPS)
        return splice(text, [(target.start, target.end, new)]), f"swap {text[target.start:target.end]!r} for {new!r}"
    if op == 1:
        depth = rnd.choice([99, 100, 101, 1000, 5000])
        deep = "[" * depth + "1" + "]" * depth if rnd.random() < 0.5 else "{a: " * depth + "1" + "}" * depth
        return splice(text, [(target.start, target.end, deep)]), f"nest {depth} deep at {target.start}"
    if op == 2:
        pairs = [(span.node, key, value) for span in nodes if isinstance(span.node, MappingNode)
                 for key, value in span.node.value]
        if pairs:
            mapping, key, value = rnd.choice(pairs)
            end = next(span.end for span in nodes if span.node is value)
            entry = text[key.start_mark.index : end]
            copy = f", {entry}" if mapping.flow_style else f"\n{' ' * key.start_mark.column}{entry}"
            return splice(text, [(end, end, copy)]), f"write the key at {key.start_mark.index} twice"
    if op == 3:
        other = rnd.choice(nodes)
        if not other.start <= target.start < other.end:
            edits = [(target.start, target.start, "&x "), (other.start, other.end, "*x")]
            return splice(text, edits), f"anchor at {target.start}, alias at {other.start}"
    if op == 4:
        levels = rnd.randint(2, 6)
        bomb = "b0: &b0 [x, x, x, x, x, x, x, x, x, x]\n"
        bomb += "".join(f"b{k}: &b{k} [{', '.join([f'*b{k - 1}'] * 10)}]\n" for k in range(1, levels))
        return bomb + splice(text, [(target.start, target.end, f"*b{levels - 1}")]), f"alias bomb of 10^{levels}"
    if op == 5:
        where = rnd.choice([target.start, target.end])
        odd = rnd.choice(ALLOWED)
        return splice(text, [(where, where, odd)]), f"insert {odd!r} at {where}"
    return text, "no structural edit"


def damage(data: bytes, rnd: random.Random) -> tuple[bytes, str]:
    """Sometimes one byte-level fault: a truncation, bytes that are not UTF-8, a character YAML refuses, padding."""
    roll = rnd.random()
    at = rnd.randrange(len(data) + 1)
    if roll < 0.15:
        return data[:at], f"truncate at byte {at}"
    if roll < 0.3:
        bad = rnd.choice(NOT_UTF8)
        return data[:at] + bad + data[at:], f"insert {bad!r} at byte {at}"
    if roll < 0.5:
        chars = [rnd.choice(REFUSED) for _ in range(rnd.choice([1, 1, 2, 30]))]
        for char in chars:
            at = rnd.randrange(len(data) + 1)
            data = data[:at] + char.encode("utf-8") + data[at:]
        return data, f"insert {''.join(chars)!r}"
    if roll < 0.52:
        return data + b"\n#" + b"x" * (MAX_BYTES - len(data)), f"pad to {MAX_BYTES + 2} bytes"
    return data, "no damage"


def position(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of ``text[index]``: lines end at LF, CR LF or CR; a byte-order mark takes no column."""
    before = text[:index]
    lines = LINE_BREAK.split(before)
    return len(lines), len(lines[-1].replace("\ufeff", "")) + 1


def expected_stop(data: bytes, display: str) -> list[str] | None:
    """The exact report for a file the reader must stop at (too big, not UTF-8, refused characters); else None."""
    if len(data) > MAX_BYTES:
        return [f"{display}:1:1: the file is {len(data)} bytes; a guard file may be at most {MAX_BYTES} bytes (1 MiB)"]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8")
        line, column = position(before, len(before))
        return [f"{display}:{line}:{column}: the file is not UTF-8 text (byte 0x{data[exc.start]:02x})"]
    text = text.removeprefix("\ufeff")
    refused = list(NOT_PRINTABLE.finditer(text))
    if not refused:
        return None
    report = []
    for match in refused[:20]:
        line, column = position(text, match.start())
        what = "a noncharacter" if match.group() in "\ufffe\uffff" else "a control character"
        report.append(f"{display}:{line}:{column}: the file holds {what} U+{ord(match.group()):04X}, which YAML does "
                      "not allow")
    if len(refused) > 20:
        line, column = position(text, refused[20].start())
        report.append(f"{display}:{line}:{column}: and {len(refused) - 20} more characters that YAML does not allow")
    return report


def inside(path: str, line: int, column: int) -> bool:
    """Whether a 1-based position is a character of the file, or the end of one of its lines."""
    text = Path(path).read_bytes().decode("utf-8", "replace").removeprefix("\ufeff")
    lines = LINE_BREAK.split(text)
    return line <= len(lines) and column <= len(lines[line - 1].replace("\ufeff", "")) + 1


def check_run(display: str, data: bytes, github: bool, what: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`toolguards validate display` (whose bytes are ``data``): exit code, output lines, positions, exact stops."""
    argv = ["validate", *(["--format", "github"] if github else []), display]
    try:
        code = main(argv)
    except BaseException as exc:  # a traceback of any kind, SystemExit included
        pytest.fail(f"{what}: validate raised {exc!r}")
    out, err = capsys.readouterr()
    summary = SUMMARY.match(err)
    assert summary, f"{what}: stderr {err!r}"
    lines = out.splitlines()
    assert out == "".join(f"{line}\n" for line in lines), f"{what}: output lines {out!r}"
    assert len(lines) == int(summary.group(1)), f"{what}: {lines} against {err!r}"
    assert code == (1 if lines else 0), f"{what}: exit {code} with {lines}"
    for line in lines:
        assert not PARSER_PLACE.search(line), f"{what}: the parser's own place in {line!r}"
        if github:
            assert GITHUB.match(line), f"{what}: {line!r}"
            continue
        match = POSITIONED.match(line) or UNPOSITIONED.match(line)
        assert match, f"{what}: {line!r} is not `path:line:col: message`"
        named = match.group("path")
        assert named == display or named.endswith(".j2"), f"{what}: {line!r} names another file"
        if "line" in match.groupdict():
            assert inside(named, int(match.group("line")), int(match.group("column"))), f"{what}: {line!r}"
    stop = None if github else expected_stop(data, display)
    if stop is not None:
        assert lines == stop, f"{what}: {lines}"


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("base", BASES, ids=[path.name for path in BASES])
def test_mutations_of_the_shipped_guard_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str], base: Path, seed: int) -> None:
    monkeypatch.chdir(tmp_path)
    original = base.read_text(encoding="utf-8")
    rnd = random.Random(f"{base.name}-{seed}")
    for case in range(10):
        text, edit = structural(original, rnd)
        data, fault = damage(text.encode("utf-8"), rnd)
        display = f"m{case}.yaml"
        (tmp_path / display).write_bytes(data)
        what = f"{base.name} seed {seed} case {case}: {edit}; {fault}"
        check_run(display, data, rnd.random() < 0.2, what, capsys)
