"""The importers' registry, format detection on every real fixture and on synthetic inputs, and what all formats
share."""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SHARED_FIXTURES, require_shared
from toolguards.replay.importers import FORMATS, READERS, detect_format, read_records
from toolguards.replay.importers._document import message_list
from toolguards.replay.importers._json import parse_arguments
from toolguards.replay.importers.detect import detect
from toolguards.replay.importers.pending import Pending
from toolguards.replay.records import InputError, Record
from toolguards.replay.source import Source

FIXTURES = SHARED_FIXTURES


def test_the_registry_names_every_format_in_order():
    assert FORMATS == ("events", "dsh", "openai", "anthropic", "claude-code", "codex", "gemini", "otel")
    assert tuple(READERS) == FORMATS


# A format's module is named after it; toolguards' own events are ``toolguards_events`` (``toolguards.events`` is the
# core's contract, and one name names one module).
MODULE_NAMES = {"events": "toolguards_events"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_is_one_module_with_the_three_members(fmt):
    module = importlib.import_module(f"toolguards.replay.importers.{MODULE_NAMES.get(fmt, fmt.replace('-', '_'))}")
    assert READERS[fmt] is module
    assert f"``{fmt}``" in (module.__doc__ or "")
    assert callable(module.read) and callable(module.identifies)
    assert module.FILE_NAME is None or isinstance(module.FILE_NAME, re.Pattern)
    assert {"read", "identifies", "FILE_NAME"} <= set(module.__all__)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_format_module_shares_code_with_others_only_through_shared_modules(fmt):
    tree = ast.parse(inspect.getsource(READERS[fmt]))
    siblings = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}
    formats = {MODULE_NAMES.get(name, name.replace("-", "_")) for name in FORMATS}
    assert not siblings & formats, f"{fmt} imports {sorted(siblings & formats)}"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(["type", "role", "user", "assistant", "session", "tool_use", "tool/call", "messages"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "role", "content", "messages", "sessionId", "tool_calls", "message",
                                       "data", "payload", "id", "uuid"]) | st.text(max_size=4), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=JSON_VALUES)
def test_identifies_never_raises_and_says_yes_or_no(value):
    for module in READERS.values():
        assert module.identifies(value) in (True, False)


def test_an_unknown_format_is_a_clear_error():
    with pytest.raises(ValueError) as error:
        read_records("csv", "x", io.StringIO(""))
    assert str(error.value) == f"unknown input format 'csv' (known: {', '.join(FORMATS)})"
    assert str(error.value).startswith("unknown input format 'csv' (known: events, dsh, openai, anthropic, claude-code")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("dsh-sessions/repeat-tool-reminder.jsonl", "dsh"),
        ("dsh-sessions/parallel-tool-calls.jsonl", "dsh"),
        ("dsh-sessions/multi-turn.jsonl", "dsh"),
        ("dsh-sessions/hook-cc-pretool-deny.jsonl", "dsh"),
        ("transcripts/openai-tau-bench-airline-13.json", "openai"),
        ("transcripts/anthropic-llm-anthropic-test-tools.json", "anthropic"),
        ("transcripts/anthropic-pydantic-ai-parallel-tool-calls.json", "anthropic"),
        ("transcripts/claude-code-spotter-short.jsonl", "claude-code"),
        ("transcripts/claude-code-spotter-tool_heavy.jsonl", "claude-code"),
        ("transcripts/claude-code-spotter-subagent.jsonl", "claude-code"),
    ],
)
def test_detects_each_real_file(name, expected):
    path = FIXTURES / name
    require_shared()
    source = Source(str(path))
    try:
        assert detect(path.name, READERS, source.head, source.whole).format == expected
    finally:
        source.close()


CLAUDE_CODE_LINE = '{"parentUuid": null, "isSidechain": false, "sessionId": "s", "type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u"}'
OPENAI_CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
ANTHROPIC_CALL = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}
TEXT_BLOCKS = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
PLAIN = {"role": "user", "content": "hi"}
CANNOT = "input:1: cannot tell the input format; give --input-format"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"type": "post-execute", "agent": "main", "tool": "grep", "arguments": {"q": "x"}}\n', "events"),
        ('\n\n{"type": "pre-step", "agent": "main", "userPrompt": true}\n{"type": "forget"}', "events"),
        ('\ufeff{"type": "forget", "agent": "main"}\n', "events"),
        ('{"type": "session-start", "agent": "a"}\n{"type": "forget", "agent": "main"}\n', "events"),
        ('{"type":"session","version":0,"id":"x","createdAt":0}\n{"type":"turn/start","data":{"turn":1}}\n', "dsh"),
        ('{"type":"agent/inbox/spliced","data":{}}\n', "dsh"),
        ('{"type":"summary","summary":"Fix the bug","leafUuid":"u"}\n', "claude-code"),
        ('{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}\n', "claude-code"),
        (CLAUDE_CODE_LINE + "\n", "claude-code"),
        # Claude Code 2.1.x: entry types no importer knows never decide against the format
        ('{"type":"permission-mode","permissionMode":"default","sessionId":"s"}\n' + CLAUDE_CODE_LINE, "claude-code"),
        ('{"type":"last-prompt","lastPrompt":"hi","sessionId":"s"}\n', "claude-code"),
        ('{"type":"made-up-in-2.9"}\n{"type":"made-up-too","x":1}\n' + CLAUDE_CODE_LINE, "claude-code"),
        ('{"type": "user", "message": {"role": "user", "content": "hi"}}\n', "claude-code"),
        ("not json at all\n" + CLAUDE_CODE_LINE, "claude-code"),
        ('{"type": "user", "text": "hi"}\n', CANNOT),
        (json.dumps([PLAIN, OPENAI_CALL], indent=1), "openai"),
        (json.dumps([PLAIN, {"role": "assistant", "content": "hello"}]), "openai"),
        (json.dumps([{"role": "system", "content": [{"type": "text", "text": "x"}]}, TEXT_BLOCKS]), "openai"),
        (json.dumps([TEXT_BLOCKS, OPENAI_CALL]), "openai"),
        (json.dumps([PLAIN, ANTHROPIC_CALL], indent=1), "anthropic"),
        (json.dumps([TEXT_BLOCKS, {"role": "assistant", "content": "hi"}]), "anthropic"),
        (json.dumps(PLAIN) + "\n" + json.dumps(OPENAI_CALL) + "\n", "openai"),
        (json.dumps(PLAIN) + "\n" + json.dumps(ANTHROPIC_CALL) + "\n", "anthropic"),
        (json.dumps({"model": "m", "messages": [PLAIN, OPENAI_CALL]}), "openai"),
        (json.dumps({"model": "m", "max_tokens": 9, "messages": [PLAIN, ANTHROPIC_CALL]}, indent=2), "anthropic"),
        # a document cut short: the messages before the cut still tell
        (json.dumps([PLAIN, ANTHROPIC_CALL, {"role": "user", "content": "x" * 100}], indent=1)[:300], "anthropic"),
        ("", None),
        ("\n  \n\t\n", None),
        ("\ufeff", None),
        ("hello world\n", "input:1: not JSON: Expecting value at column 1"),
        ("[1, 2, 3]", CANNOT),
        ('{"foo": 1}\n', CANNOT),
        ('{"type": "message", "text": "hi"}\n', CANNOT),
        ("[" + "x" * 100, "input:1: not JSON: Expecting value at column 2"),
        ('[\n{"a": 1},\n{"b": "unterminated', "input:3: not JSON: Unterminated string starting at column 7"),
        # issue 12: a wrong type where detection looks is no reason to fail
        ('[{"role":[]}]', CANNOT),
        ('[{"content":[{"type":[]}]}]', CANNOT),
        ('{"type": {}}\n', CANNOT),
        ('{"messages": [{"role": {}, "content": [{"type": {}}]}]}\n', CANNOT),
    ],
)
def test_detects_from_the_content(text, expected):
    found = detect_format("input", text)
    if expected is None:
        assert found.empty
    elif expected.startswith("input:"):
        assert (found.format, str(found.problem)) == (None, expected)
    else:
        assert (found.format, found.problem) == (expected, None)


def source_of(tmp_path: Path, name: str, data: bytes) -> Source:
    path = tmp_path / name
    path.write_bytes(data)
    return Source(str(path))


def detected(tmp_path: Path, name: str, data: bytes) -> str:
    source = source_of(tmp_path, name, data)
    try:
        found = detect(str(tmp_path / name), READERS, source.head, source.whole)
    finally:
        source.close()
    return found.format or str(found.problem).replace(str(tmp_path) + "/", "")


def test_a_one_document_input_longer_than_the_head_is_read_whole(tmp_path):
    filler = [{"role": "user", "content": "x" * 1000} for _ in range(100)]  # 100 KB before the first mark
    data = json.dumps([*filler, ANTHROPIC_CALL], indent=2).encode()
    assert len(data) > 64 * 1024
    assert detected(tmp_path, "long.json", data) == "anthropic"


def test_a_first_line_longer_than_the_head_is_read_whole(tmp_path):
    line = json.dumps({"type": "tool/call", "data": {"name": "w", "arguments": "x" * 100_000}}) + "\n"
    assert detected(tmp_path, "s.jsonl", line.encode()) == "dsh"


def test_the_lines_past_the_first_decide_when_the_first_says_nothing(tmp_path):
    unknown = "".join(json.dumps({"type": f"new-{n}", "x": n}) + "\n" for n in range(3))
    assert detected(tmp_path, "s.jsonl", (unknown + CLAUDE_CODE_LINE + "\n").encode()) == "claude-code"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'[{"role": "user", "content": "h\xffi"}]', "bad.json:1: not UTF-8 text: byte 0xff at column 32"),
        (b'[\n  {"role": "user",\n   "content": "\xc3"}\n]', "bad.json:3: not UTF-8 text: byte 0xc3 at column 16"),
        (b'\xff{"type": "forget"}\n', "bad.json:1: not UTF-8 text: byte 0xff at column 1"),
        (b'{"type": "forget", "agent": "\xed\xa0\x80"}\n', "bad.json:1: not UTF-8 text: byte 0xed at column 30"),
    ],
)
def test_an_input_that_is_not_utf8_is_reported_with_its_position(tmp_path, data, expected):
    assert detected(tmp_path, "bad.json", data) == expected


def test_a_bad_byte_on_a_later_line_does_not_stop_detection(tmp_path):
    data = b'{"type": "forget", "agent": "a"}\n{"type": "forget", "agent": "\xff"}\n'
    assert detected(tmp_path, "e.jsonl", data) == "events"


class _Named:
    """A format module that only a file name can tell."""

    FILE_NAME = re.compile(r"agent-log-.*\.jsonl")

    @staticmethod
    def identifies(value):
        return False


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("agent-log-2026-01-02.jsonl", "named"),
        ("my-agent-log-2026.jsonl", "input:1: cannot tell the input format; give --input-format"),
        ("agent-log-2026.json", "input:1: cannot tell the input format; give --input-format"),
    ],
)
def test_a_fixed_file_name_decides_when_the_content_does_not(name, expected):
    formats = {**READERS, "named": _Named()}
    found = detect(f"folder/{name}", formats, ['{"entry": "no format knows this"}\n'], lambda: "")
    assert (found.format or str(found.problem).replace(f"folder/{name}", "input")) == expected


def test_the_content_decides_before_the_file_name():
    formats = {**READERS, "named": _Named()}
    found = detect("agent-log-1.jsonl", formats, ['{"type": "forget", "agent": "a"}\n'], lambda: "")
    assert found.format == "events"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("", {}),
        ("{}", {}),
        ('{"path": "a.txt", "n": 1}', {"path": "a.txt", "n": 1}),
        ('{"path": ', '{"path": '),
        ("NaN", "NaN"),
        (" ", " "),
        ("null", None),
        ("[1, 2]", [1, 2]),
        ('"text"', "text"),
        ({"already": "parsed"}, {"already": "parsed"}),
    ],
)
def test_arguments_parse_as_the_reference_parses_them(raw, expected):
    assert parse_arguments(raw) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[\n  {"a": 1},\n\n  {"b": 2}, {"c": 3}\n]', [(2, {"a": 1}), (4, {"b": 2}), (4, {"c": 3})]),
        ('{\n"x": [1, 2],\n"messages": [\n{"m": 1}\n],\n"y": {}\n}', [(4, {"m": 1})]),
        ("[]", []),
        ('[{"a": 1},\n{"b": }]', [(1, {"a": 1}), "2: not JSON: Expecting value at column 7"]),
        ('[{"a": 1}\n]\n]', [(1, {"a": 1}), "3: extra data after the JSON document at column 1"]),
        ('[{"a": 1}', [(1, {"a": 1}), "1: expected ',' or ']' after an array element before the end of the input"]),
        ('{"messages": 5}', ['1: expected a JSON array of messages, or an object with a "messages" array']),
        ('{"a": 1, 5: []}', ["1: expected a string as an object key at column 10"]),
    ],
)
def test_a_one_document_input_gives_each_element_its_line(text, expected):
    items = [f"{item.line}: {item.message}" if isinstance(item, InputError) else item for item in message_list("d", text)]
    assert items == expected


def test_a_call_never_answered_holds_back_at_most_limit_records():
    pending = Pending(limit=3)
    pending.call(Record("post-execute", 1, agent="a", tool="wait", call_id="w"))
    released = []
    for line in range(2, 6):
        pending.add(Record("pre-step", line, agent="b"))
        released.append([item.line for item in pending.release()])
    assert released == [[], [], [1, 2, 3, 4], [5]]
    assert pending.resolve("a", "w", "late", None) is False
    assert list(pending.finish()) == []


LINE_MAKERS: dict[str, Callable[[int], str]] = {
    "events": lambda n: json.dumps({"type": "pre-step", "agent": "a", "userPrompt": True}),
    "dsh": lambda n: json.dumps({"type": "user/message", "data": {"content": [], "source": {"kind": "user"}}}),
    "openai": lambda n: json.dumps({"role": "user", "content": f"prompt {n}"}),
    "anthropic": lambda n: json.dumps({"role": "user", "content": f"prompt {n}"}),
    "claude-code": lambda n: json.dumps({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}}),
    "codex": lambda n: json.dumps({"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": "hi"}}),
    "gemini": lambda n: json.dumps({"id": f"m{n}", "timestamp": "t", "type": "user", "content": [{"text": "hi"}]}),
}


# otel is the one format read whole: a trace's spans are exported children first, and its calls come in time order.
@pytest.mark.parametrize("fmt", LINE_MAKERS)
def test_json_lines_stream(fmt):
    consumed: list[int] = []

    class Endless:
        def __iter__(self) -> Iterator[str]:
            for number in range(1, 10_000_000):
                consumed.append(number)
                yield LINE_MAKERS[fmt](number) + "\n"

        def read(self) -> str:
            raise AssertionError("JSON Lines must not be read whole")

    first = next(read_records(fmt, "endless.jsonl", Endless()))
    assert isinstance(first, Record) and (first.kind, first.line, first.user_prompt) == ("pre-step", 1, True)
    assert len(consumed) <= 2


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("events", '\ufeff{"type": "pre-step", "agent": "a", "userPrompt": true}\n'),
        ("dsh", '\ufeff{"type": "user/message", "data": {"content": [], "source": {"kind": "user"}}}\n'),
        ("openai", '\ufeff[{"role": "user", "content": "hi"}]'),
        ("anthropic", '\ufeff{"role": "user", "content": "hi"}\n'),
        ("claude-code", '\ufeff{"type": "user", "sessionId": "a", "message": {"role": "user", "content": "hi"}}\n'),
    ],
)
def test_a_byte_order_mark_is_not_an_error(fmt, text):
    [record] = read_records(fmt, "a.jsonl", io.StringIO(text))
    assert isinstance(record, Record) and (record.kind, record.line, record.user_prompt) == ("pre-step", 1, True)


def fixture_values(path: Path) -> list[object]:
    """What a detector decodes from a file: each line of JSON Lines; the whole document, and each element of an
    array (any of which could be a line of a JSON Lines input), of a one-document file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    document = json.loads(text)
    return [document, *document] if isinstance(document, list) else [document]


OWN_FOLDERS = {"codex": "codex-rollout", "gemini": "gemini-cli", "otel": "otel-genai"}


@pytest.mark.parametrize("fmt", list(OWN_FOLDERS))
def test_identifies_its_own_fixtures_and_no_other(fmt):
    identifies = importlib.import_module(f"toolguards.replay.importers.{fmt}").identifies
    files = sorted(path for path in FIXTURES.rglob("*") if path.suffix in (".json", ".jsonl"))
    require_shared()
    own = [path for path in files if path.parent == FIXTURES / "hosts" / "sessions" / OWN_FOLDERS[fmt]]
    assert own
    for path in files:
        hits = [identifies(value) for value in fixture_values(path)]
        if path in own:
            assert hits[0], path  # the first record tells
            assert fmt != "codex" or all(hits), path  # every rollout line has the envelope
        else:
            assert not any(hits), path


@pytest.mark.parametrize("lines_first", [0, 1, 3000])
def test_a_source_read_whole_names_the_line_of_a_bad_byte(tmp_path, lines_first):
    line = json.dumps({"role": "user", "content": "x" * 40}) + "\n"  # 3,000 lines are past the 64 KiB head
    data = (line * 3000 + '{"content": "\xff"}\n' + line).encode("utf-8").replace("\xff".encode(), b"\xff")
    source = source_of(tmp_path, "big.jsonl", data)
    try:
        iterator = iter(source)
        for _ in range(lines_first):
            next(iterator)
        with pytest.raises(InputError) as error:
            source.read()
    finally:
        source.close()
    assert str(error.value) == f"{tmp_path / 'big.jsonl'}:3001: not UTF-8 text: byte 0xff at column 14"
