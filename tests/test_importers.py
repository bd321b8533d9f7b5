"""The importers' registry, format detection on every real fixture and on synthetic heads, and what all formats share."""

from __future__ import annotations

import importlib
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from toolguards.replay.importers import FORMATS, READERS, detect_format, read_records
from toolguards.replay.importers._json import message_list, parse_arguments
from toolguards.replay.importers.pending import Pending
from toolguards.replay.records import InputError, Record

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"


def test_the_registry_names_every_format_in_order():
    assert FORMATS == ("events", "dsh", "openai", "anthropic", "claude-code", "codex", "gemini", "otel")
    assert tuple(READERS) == FORMATS


def test_every_format_module_documents_its_format():
    for fmt in FORMATS:
        module = importlib.import_module(f"toolguards.replay.importers.{fmt.replace('-', '_')}")
        assert f"``{fmt}``" in (module.__doc__ or "")


def test_an_unknown_format_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown input format 'csv' \(known: events, dsh, openai, anthropic, claude-code, codex, gemini, otel\)"):
        read_records("csv", "x", io.StringIO(""))


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
    if not path.is_file():
        pytest.skip(f"the shared fixtures are not here: {FIXTURES} (a checkout without ../shared)")
    head = path.read_text(encoding="utf-8")[: 64 * 1024]
    assert detect_format(path.name, head) == expected


CLAUDE_CODE_LINE = '{"parentUuid": null, "isSidechain": false, "sessionId": "s", "type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u"}'
OPENAI_CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
ANTHROPIC_CALL = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}
TEXT_BLOCKS = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
PLAIN = {"role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ('{"type": "post-execute", "agent": "main", "tool": "grep", "arguments": {"q": "x"}}\n', "events"),
        ('\n\n{"type": "pre-step", "agent": "main", "userPrompt": true}\n{"type": "forget"}', "events"),
        ('\ufeff{"type": "forget", "agent": "main"}\n', "events"),
        ('{"type":"session","version":0,"id":"x","createdAt":0}\n{"type":"turn/start","data":{"turn":1}}\n', "dsh"),
        ('{"type":"agent/inbox/spliced","data":{}}\n', "dsh"),
        ('{"type":"summary","summary":"Fix the bug","leafUuid":"u"}\n', "claude-code"),
        ('{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}\n', "claude-code"),
        (CLAUDE_CODE_LINE + "\n", "claude-code"),
        ('{"type": "user", "text": "hi"}\n', None),
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
        (json.dumps([PLAIN, ANTHROPIC_CALL, {"role": "user", "content": "x" * 100}], indent=1)[:300], "anthropic"),
        ('{"type":"tool/call","data":{"name":"w","arguments":"' + "x" * 70_000, "dsh"),
        (CLAUDE_CODE_LINE[:80] + "x" * 70_000, "claude-code"),
        ("", None),
        ("hello world\n", None),
        ("[1, 2, 3]", None),
        ('{"foo": 1}\n', None),
        ('{"type": "message", "text": "hi"}\n', None),
        ("[" + "x" * 100, None),
    ],
)
def test_detects_from_the_head(head, expected):
    assert detect_format("input", head) == expected


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
@pytest.mark.parametrize("fmt", [fmt for fmt in FORMATS if fmt != "otel"])
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
    if not files:
        pytest.skip(f"the shared fixtures are not here: {FIXTURES} (a checkout without ../shared)")
    own = [path for path in files if path.parent == FIXTURES / "hosts" / "sessions" / OWN_FOLDERS[fmt]]
    assert own
    for path in files:
        hits = [identifies(value) for value in fixture_values(path)]
        if path in own:
            assert hits[0], path  # the first record tells
            assert fmt != "codex" or all(hits), path  # every rollout line has the envelope
        else:
            assert not any(hits), path
