"""The events importer: each valid line is one exact record, each malformed line one exact InputError, in order."""

from __future__ import annotations

import io

import pytest

from toolguards.replay.importers import read_records
from toolguards.replay.records import InputError, Record

ALLOWED = "type, agent, tool, arguments, denied, callId, result, error"
TYPES = '"post-execute", "pre-step" or "forget"'


def read(text: str) -> list[Record | InputError]:
    return list(read_records("events", "events.jsonl", io.StringIO(text)))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            '{"type": "post-execute", "agent": "main", "tool": "grep", "arguments": {"q": "x"}, "denied": false, '
            '"callId": "c1"}',
            Record("post-execute", 1, agent="main", tool="grep", arguments={"q": "x"}, call_id="c1"),
        ),
        ('{"type": "post-execute", "tool": "ls"}', Record("post-execute", 1, tool="ls", arguments={})),
        ('{"type": "post-execute", "tool": "ls", "agent": null}', Record("post-execute", 1, tool="ls", arguments={})),
        (
            '{"type": "post-execute", "tool": "edit", "agent": "a", "arguments": "{\\"path\\": ", "denied": true}',
            Record("post-execute", 1, agent="a", tool="edit", arguments='{"path": ', denied=True),
        ),
        ('{"type": "post-execute", "tool": "t", "arguments": [1, 2]}', Record("post-execute", 1, tool="t", arguments=[1, 2])),
        (
            '{"type": "post-execute", "tool": "t", "callId": null, "result": {"rows": 3}, "error": null}',
            Record("post-execute", 1, tool="t", arguments={}, result={"rows": 3}),
        ),
        (
            '{"type": "post-execute", "tool": "t", "error": "boom"}',
            Record("post-execute", 1, tool="t", arguments={}, error="boom"),
        ),
        ('{"type": "pre-step", "agent": "main", "userPrompt": true}', Record("pre-step", 1, agent="main", user_prompt=True)),
        ('{"type": "pre-step", "agent": "main"}', Record("pre-step", 1, agent="main")),
        ('{"type": "forget", "agent": "main"}', Record("forget", 1, agent="main")),
        ("{not json", "not JSON: Expecting property name enclosed in double quotes at column 2"),
        ('{"type": "forget"} {}', "not JSON: extra data after the value at column 20"),
        ('{"type": "post-execute", "tool": "t", "arguments": NaN}', "not JSON: NaN is not a JSON value"),
        ('["post-execute"]', "expected a JSON object, not an array"),
        ('"forget"', "expected a JSON object, not a string"),
        ('{"agent": "main"}', f'an event needs a "type": {TYPES}'),
        ('{"type": "post"}', Record("skipped", 1, text="post")),
        ('{"type": "session-start", "agent": "a", "at": 1}', Record("skipped", 1, text="session-start")),
        ('{"type": 3}', f'"type" must be {TYPES}, not a number'),
        ('{"type": "post-execute", "agent": "main"}', 'post-execute needs a string "tool"'),
        ('{"type": "post-execute", "tool": 5}', 'post-execute needs a string "tool"'),
        ('{"type": "post-execute", "tool": ""}', '"tool" must not be empty'),
        ('{"type": "post-execute", "tool": "t", "agent": 5}', '"agent" must be a string or null, not a number'),
        ('{"type": "post-execute", "tool": "t", "denied": "no"}', '"denied" must be true or false, not a string'),
        ('{"type": "post-execute", "tool": "t", "callId": 7}', '"callId" must be a string or null, not a number'),
        ('{"type": "post-execute", "tool": "t", "error": {}}', '"error" must be a string or null, not an object'),
        ('{"type": "pre-step", "userPrompt": null}', '"userPrompt" must be true or false, not null'),
        ('{"type": "pre-step", "userPrompt": "yes"}', '"userPrompt" must be true or false, not a string'),
        ('{"type": "forget", "agent": ["a"]}', '"agent" must be a string or null, not an array'),
        (
            '{"type": "post-execute", "tool": "t", "args": {}}',
            f'unknown key "args" in a post-execute event (allowed: {ALLOWED})',
        ),
        (
            '{"type": "pre-step", "agent": "a", "tool": "t", "userPrompt": true, "denied": false}',
            'unknown keys "tool", "denied" in a pre-step event (allowed: type, agent, userPrompt)',
        ),
        (
            '{"type": "forget", "agent": "a", "userPrompt": true}',
            'unknown key "userPrompt" in a forget event (allowed: type, agent)',
        ),
        (
            '{"type": "post-execute", "agent": 1, "denied": 0, "call_id": "c"}',
            'post-execute needs a string "tool"; "agent" must be a string or null, not a number; '
            '"denied" must be true or false, not a number; '
            f'unknown key "call_id" in a post-execute event (allowed: {ALLOWED})',
        ),
    ],
)
def test_one_line(line, expected):
    if isinstance(expected, str):
        expected = InputError("events.jsonl", 1, expected)
        [error] = read(line + "\n")
        assert isinstance(error, InputError)
        assert str(error) == str(expected)
    else:
        assert read(line + "\n") == [expected]


def test_a_bad_line_is_reported_in_its_place_and_reading_carries_on():
    text = (
        '{"type": "pre-step", "agent": "main", "userPrompt": true}\n'
        "\n"
        '{"type": "post-execute", "agent": "main", "tool": "grep", "arguments": {"q": "x"}}\n'
        '{"type": "post-execute", "agent": "main", "tool": "grep", "arguments": {"q": "x"}\n'
        "   \n"
        '{"type": "post-execute", "agent": "main", "tool": "grep", "arguments": {"q": "x"}, "callId": "c3"}\n'
        '{"type": "forget", "agent": "main"}'
    )
    items = read(text)
    assert [str(item) if isinstance(item, InputError) else item for item in items] == [
        Record("pre-step", 1, agent="main", user_prompt=True),
        Record("post-execute", 3, agent="main", tool="grep", arguments={"q": "x"}),
        "events.jsonl:4: not JSON: Expecting ',' delimiter at column 82",
        Record("post-execute", 6, agent="main", tool="grep", arguments={"q": "x"}, call_id="c3"),
        Record("forget", 7, agent="main"),
    ]


def test_an_empty_input_has_no_records():
    assert read("") == []
    assert read("\n\n  \n") == []


def test_it_streams():
    consumed = []

    class Lines:
        def __iter__(self):
            for number in range(1, 1_000_000):
                consumed.append(number)
                yield f'{{"type": "post-execute", "agent": "a", "tool": "t{number}"}}\n'

        def read(self) -> str:
            raise AssertionError("JSON Lines must not be read whole")

    records = read_records("events", "big.jsonl", Lines())
    assert next(records) == Record("post-execute", 1, agent="a", tool="t1", arguments={})
    assert len(consumed) == 1
