"""The dsh importer on the reference harness's own session logs, and on synthetic logs for the edge cases."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conftest import SHARED_FIXTURES, require_shared
from toolguards.replay.importers import read_records
from toolguards.replay.records import InputError, Record

FIXTURES = SHARED_FIXTURES / "dsh-sessions"
TODOS = {"todos": [{"content": "watch the kettle boil", "status": "in_progress"}]}
TODO_RESULT = "Updated todo list: 0 pending, 1 in progress, 0 completed."
SNAPSHOT = "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."


def fixture(name: str) -> Path:
    require_shared()
    return FIXTURES / name


def read_fixture(name: str) -> list[Record | InputError]:
    with fixture(name).open(encoding="utf-8") as stream:
        return list(read_records("dsh", name, stream))


def summary(item: Record | InputError) -> tuple[object, ...]:
    """The fields a test compares, with long texts cut to their start."""
    if isinstance(item, InputError):
        return ("error", item.line, item.message)
    if item.kind == "skipped":
        return (item.kind, item.line, item.text)
    if item.kind == "recorded-reminder":
        return (item.kind, item.line, item.agent, item.text[:84], item.source.get("plugin"), item.source.get("summary"))
    if item.kind == "pre-step":
        return (item.kind, item.line, item.agent, item.user_prompt)
    result = item.result[:40] if isinstance(item.result, str) else item.result
    return (item.kind, item.line, item.agent, item.tool, item.arguments, item.call_id, item.denied, result, item.error)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "repeat-tool-reminder.jsonl",
            [
                ("pre-step", 6, "{{sessionId}}", True),
                ("recorded-reminder", 7, "{{sessionId}}", SNAPSHOT, "@deepseek-ai/dsh-system-prompt", None),
                ("post-execute", 17, "{{sessionId}}", "todo_write", TODOS, "call_1", False, TODO_RESULT[:40], None),
                ("post-execute", 28, "{{sessionId}}", "todo_write", TODOS, "call_2", False, TODO_RESULT[:40], None),
                ("post-execute", 39, "{{sessionId}}", "todo_write", TODOS, "call_3", False, TODO_RESULT[:40], None),
                (
                    "recorded-reminder", 46, "{{sessionId}}",
                    "You are repeating the exact same tool call with identical arguments. Carefully analy",
                    "repeat-tool-reminder", "todo_write × 3",
                ),
                ("post-execute", 53, "{{sessionId}}", "todo_write", TODOS, "call_4", False, TODO_RESULT[:40], None),
                ("post-execute", 64, "{{sessionId}}", "todo_write", TODOS, "call_5", False, TODO_RESULT[:40], None),
                (
                    "recorded-reminder", 71, "{{sessionId}}",
                    "Repeated tool call detected:\n- tool: todo_write\n- consecutive_calls: 5\n- arguments: ",
                    "repeat-tool-reminder", "todo_write × 5",
                ),
            ],
        ),
        (
            "parallel-tool-calls.jsonl",
            [
                ("pre-step", 6, "{{sessionId}}", True),
                ("recorded-reminder", 7, "{{sessionId}}", SNAPSHOT, "@deepseek-ai/dsh-system-prompt", None),
                (
                    "post-execute", 20, "{{sessionId}}", "read", {"file_path": "a.txt"}, "call_read_a", False,
                    "<path>{{cwd}}/a.txt</path>\n<type>file</t", None,
                ),
                (
                    "post-execute", 21, "{{sessionId}}", "read", {"file_path": "b.txt"}, "call_read_b", False,
                    "<path>{{cwd}}/b.txt</path>\n<type>file</t", None,
                ),
            ],
        ),
        (
            "multi-turn.jsonl",
            [
                ("pre-step", 6, "228b7b82-84ed-49b7-a567-981c03b28c77", True),
                (
                    "recorded-reminder", 7, "228b7b82-84ed-49b7-a567-981c03b28c77", SNAPSHOT,
                    "@deepseek-ai/dsh-system-prompt", None,
                ),
                ("pre-step", 26, "228b7b82-84ed-49b7-a567-981c03b28c77", True),
            ],
        ),
        (
            "hook-cc-pretool-deny.jsonl",
            [
                ("pre-step", 6, "ff1c1e99-3bd4-4ef8-a954-80d607d628ba", True),
                (
                    "recorded-reminder", 7, "ff1c1e99-3bd4-4ef8-a954-80d607d628ba", SNAPSHOT,
                    "@deepseek-ai/dsh-system-prompt", None,
                ),
                (
                    "post-execute", 20, "ff1c1e99-3bd4-4ef8-a954-80d607d628ba", "bash",
                    {"command": "echo HELLO", "description": "Run echo HELLO"}, "call_00_JliP571Bh0QQ8QExbSPk0080",
                    True, None, "Error: bash is disabled by policy in this session",
                ),
            ],
        ),
    ],
)
def test_reference_logs(name, expected):
    assert [summary(item) for item in read_fixture(name)] == expected


def test_the_recorded_reminders_whole():
    reminders = [r for r in read_fixture("repeat-tool-reminder.jsonl") if r.kind == "recorded-reminder"]
    guard = [r for r in reminders if r.source.get("plugin") == "repeat-tool-reminder"]
    assert [(r.line, r.text, dict(r.source)) for r in guard] == [
        (
            46,
            "You are repeating the exact same tool call with identical arguments. Carefully analyze the previous "
            "result before calling again: if the task is not complete, try a different approach or different "
            "arguments instead of repeating the call.",
            {"kind": "plugin", "plugin": "repeat-tool-reminder", "form": "notice", "summary": "todo_write × 3"},
        ),
        (
            71,
            "Repeated tool call detected:\n- tool: todo_write\n- consecutive_calls: 5\n"
            '- arguments: {"todos":[{"content":"watch the kettle boil","status":"in_progress"}]}\n'
            "The repeated calls are not making progress. Do not call this tool with these exact arguments again. "
            "Inspect the latest result and choose a different action, different arguments, or finish the task if "
            "enough evidence has been gathered.",
            {"kind": "plugin", "plugin": "repeat-tool-reminder", "form": "notice", "summary": "todo_write × 5"},
        ),
    ]


def event(kind: str, **data: object) -> str:
    return json.dumps({"type": kind, "data": data})


def call(call_id: str, name: str, arguments: str) -> str:
    return event("tool/call", turn=1, step=1, callId=call_id, name=name, arguments=arguments)


def result(call_id: str, text: str, is_error: bool = False) -> str:
    block = {"type": "tool-result", "toolCallId": call_id, "content": [{"type": "text", "text": text}], "isError": is_error}
    return event("tool/result", message={"role": "user", "content": [block]})


def read(*lines: str, name: str = "session.jsonl") -> list[Record | InputError]:
    return list(read_records("dsh", name, io.StringIO("\n".join(lines) + "\n")))


def test_parallel_results_in_another_order_keep_the_calls_in_emitted_order():
    items = read(
        '{"type": "session", "id": "s1"}',
        call("a", "read", '{"p": 1}'),
        call("b", "read", '{"p": 2}'),
        call("c", "grep", ""),
        result("c", "three"),
        result("a", "one"),
        result("b", "two", is_error=True),
        event("step/end", turn=1, step=1),
    )
    assert items == [
        Record("post-execute", 2, agent="s1", tool="read", arguments={"p": 1}, call_id="a", result="one"),
        Record("post-execute", 3, agent="s1", tool="read", arguments={"p": 2}, call_id="b", error="two"),
        Record("post-execute", 4, agent="s1", tool="grep", arguments={}, call_id="c", result="three"),
    ]


def test_arguments_parse_as_the_reference_parses_them():
    items = read(call("a", "t", ""), call("b", "t", '{"path": '), call("c", "t", "[1, 2]"), call("d", "t", " "))
    assert [item.arguments for item in items if isinstance(item, Record)] == [{}, '{"path": ', [1, 2], " "]


def test_a_missing_result_stays_none_and_a_step_end_releases_the_call():
    items = read(
        call("a", "t", "{}"),
        event("step/end", turn=1, step=1),
        event("user/message", content=[{"type": "text", "text": "hi"}], source={"kind": "user"}),
        result("a", "late"),
    )
    assert items == [
        Record("post-execute", 1, agent="session", tool="t", arguments={}, call_id="a"),
        Record("pre-step", 3, agent="session", user_prompt=True),
    ]


def test_bad_lines_come_in_their_place_and_reading_carries_on():
    items = read(
        '{"type": "session", "id": "s1"}',
        call("a", "t", "{}"),
        '{"type": "tool/call", "data": ',
        "[1]",
        event("tool/call", callId="b"),
        '{"type": "tool/call"}',
        result("a", "ok"),
        call("c", "u", "{}"),
        event("tool/result", message={"content": "?"}),
    )
    assert [summary(item) for item in items] == [
        ("post-execute", 2, "s1", "t", {}, "a", False, "ok", None),
        ("error", 3, "not JSON: Expecting value at column 31"),
        ("error", 4, "expected a JSON object, not an array"),
        ("skipped", 5, 'a tool/call event needs a string "data.name"'),
        ("skipped", 6, 'a tool/call event needs an object "data"'),
        ("post-execute", 8, "s1", "u", {}, "c", False, None, None),
        ("skipped", 9, NO_RESULT),
    ]


NO_RESULT = 'a tool/result event needs "data.callId" and a list "data.content", or a list "data.message.content"'


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # issue 12: a type that is not a string is checked before it is looked up
        ('{"type": {}}', ("error", 2, 'an event needs a string "type", not an object')),
        ('{"type": []}', ("error", 2, 'an event needs a string "type", not an array')),
        ('{"data": {}}', ("error", 2, 'an event needs a string "type"')),
        ('{"type": "memory/compacted", "data": {}}', ("skipped", 2, "memory/compacted")),
        ('{"type": "step/start", "data": {}}', None),
        ('{"type": "tool/call", "data": {"name": "t", "callId": 5}}',
         ("skipped", 2, '"data.callId" of a tool/call event must be a string, not a number')),
        ('{"type": "tool/result", "data": {"callId": "a", "content": "ok"}}', ("skipped", 2, NO_RESULT)),
    ],
)
def test_what_is_not_a_dsh_event_and_what_is_not_read(line, expected):
    items = [summary(item) for item in read('{"type": "session", "id": "s"}', line)]
    assert items == ([] if expected is None else [expected])


def test_the_newer_tool_result_shape_reads_like_the_older_one():
    newer = [
        event("tool/result", callId="a", content=[{"type": "text", "text": "one"}], isError=False),
        event("tool/result", callId="b", content=[{"type": "text", "text": "two"}], isError=True),
    ]
    older = [result("a", "one"), result("b", "two", is_error=True)]
    for results in (newer, older):
        items = read('{"type": "session", "id": "s1"}', call("a", "read", "{}"), call("b", "read", "{}"), *results)
        assert items == [
            Record("post-execute", 2, agent="s1", tool="read", arguments={}, call_id="a", result="one"),
            Record("post-execute", 3, agent="s1", tool="read", arguments={}, call_id="b", error="two"),
        ]


def test_without_a_session_line_the_file_name_labels_the_agent():
    assert read(call("a", "t", "{}"), name="my-run.jsonl")[0] == Record(
        "post-execute", 1, agent="my-run", tool="t", arguments={}, call_id="a"
    )
    assert read(call("a", "t", "{}"), name="-")[0].agent == "-"


def test_a_pre_tool_hook_block_denies_the_call_being_run():
    hook = event("hook/result", turn=1, point="PreToolUse", handlerId="h", decision="block", exitCode=2)
    passing = event("hook/result", turn=1, point="PreToolUse", handlerId="h", decision="pass", exitCode=0)
    post = event("hook/result", turn=1, point="PostToolUse", handlerId="h", decision="block", exitCode=2)
    items = read(
        call("a", "t", "{}"),
        passing,
        result("a", "ran"),
        call("b", "t", "{}"),
        hook,
        result("b", "Error: no", is_error=True),
        call("c", "t", "{}"),
        post,
        result("c", "ran"),
    )
    assert [(item.call_id, item.denied) for item in items if isinstance(item, Record)] == [
        ("a", False),
        ("b", True),
        ("c", False),
    ]


def test_a_log_with_no_tool_calls():
    items = read(
        '{"type": "session", "id": "s"}',
        event("user/message", content=[{"type": "text", "text": "hello"}], source={"kind": "user"}),
        event("assistant/message", message={"role": "assistant", "content": [{"type": "text", "text": "hi"}]}),
    )
    assert items == [Record("pre-step", 2, agent="s", user_prompt=True)]


def test_a_second_session_line_starts_another_agent():
    items = read('{"type": "session", "id": "s1"}', call("a", "t", "{}"), '{"type": "session", "id": "s2"}', call("b", "t", "{}"))
    assert [(item.agent, item.call_id) for item in items if isinstance(item, Record)] == [("s1", "a"), ("s2", "b")]
