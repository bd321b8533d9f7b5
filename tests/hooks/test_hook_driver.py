"""The hook driver's pure API (``parse``, ``apply``, ``render``): every host's events as requests, and the answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolguards
from conftest import FIRST, detailed
from support.hooks import codex_problems
from toolguards.events import ContextEntry, Reminder
from toolguards.hooks import HOSTS, HookError, driver, host, protocol
from toolguards.hooks.driver import HookRequest, apply, parse, render

A = {"command": "ls"}
#: The fields every Codex event below carries, so that each one is valid by Codex's own input schema.
CODEX = {"session_id": "s", "turn_id": "t", "transcript_path": None, "cwd": "/p", "model": "gpt-5.1-codex",
         "permission_mode": "default"}
CODEX_INPUTS = {"PostToolUse": "post-tool-use", "UserPromptSubmit": "user-prompt-submit", "PreToolUse": "pre-tool-use"}


def calls(request: HookRequest) -> list[tuple[Any, ...]]:
    return [(c.tool, c.arguments, c.agent, c.denied, c.call_id, c.result, c.error) for c in request.calls]


@pytest.mark.parametrize(("host_name", "event", "expected", "expected_calls"), [
    ("claude", {"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": A,
                "tool_response": {"stdout": "x"}, "tool_use_id": "t1"},
     ("PostToolUse", "count", "s", "main"), [("Bash", A, "main", False, "t1", {"stdout": "x"}, None)]),
    ("claude", {"hook_event_name": "PostToolUseFailure", "session_id": "s", "agent_id": "a1", "tool_name": "Bash",
                "tool_input": A, "tool_use_id": "t2", "error": {"code": 2}},
     ("PostToolUseFailure", "count", "s", "agent:a1"), [("Bash", A, "agent:a1", False, "t2", None, '{"code": 2}')]),
    ("claude", {"hookEventName": "PostToolUse", "sessionId": "vs", "tool_name": "create_file", "tool_input": A},
     ("PostToolUse", "count", "vs", "main"), [("create_file", A, "main", False, None, None, None)]),
    ("claude", {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "go"},
     ("UserPromptSubmit", "reset", "s", "main"), []),
    ("claude", {"hook_event_name": "Stop", "session_id": "s"}, ("Stop", "ignore", "s", "main"), []),
    ("codex", CODEX | {"hook_event_name": "PostToolUse", "agent_id": "019e", "agent_type": "worker",
                       "tool_name": "Bash", "tool_input": A, "tool_response": "out", "tool_use_id": "call_1"},
     ("PostToolUse", "count", "s", "agent:019e"), [("Bash", A, "agent:019e", False, "call_1", "out", None)]),
    ("codex", CODEX | {"hook_event_name": "UserPromptSubmit", "agent_id": "019e", "prompt": "go"},
     ("UserPromptSubmit", "reset", "s", "agent:019e"), []),
    ("codex", CODEX | {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": A, "tool_use_id": "c"},
     ("PreToolUse", "ignore", "s", "main"), []),
    ("gemini", {"hook_event_name": "AfterTool", "session_id": "g", "tool_name": "read_file", "tool_input": A,
                "tool_response": {"llmContent": "text", "returnDisplay": "shown"}},
     ("AfterTool", "count", "g", "main"), [("read_file", A, "main", False, None, "text", None)]),
    ("gemini", {"hook_event_name": "AfterTool", "session_id": "g", "tool_name": "run_shell_command", "tool_input": A,
                "tool_response": {"llmContent": "Error: x", "returnDisplay": "x",
                                  "error": {"message": "exit 1", "type": "shell_execute_error"}}},
     ("AfterTool", "count", "g", "main"), [("run_shell_command", A, "main", False, None, "Error: x", "exit 1")]),
    ("gemini", {"hook_event_name": "AfterTool", "session_id": "g", "tool_name": "x", "tool_response": "plain"},
     ("AfterTool", "count", "g", "main"), [("x", None, "main", False, None, "plain", None)]),
    ("gemini", {"hook_event_name": "BeforeAgent", "session_id": "g", "prompt": "go"},
     ("BeforeAgent", "reset", "g", "main"), []),
    ("cursor", {"hook_event_name": "postToolUse", "conversation_id": "c", "tool_name": "Shell", "tool_input": A,
                "tool_output": '{"output": "", "exitCode": 0}', "tool_use_id": "u1"},
     ("postToolUse", "count", "c", "main"), [("Shell", A, "main", False, "u1", {"output": "", "exitCode": 0}, None)]),
    ("cursor", {"hook_event_name": "postToolUseFailure", "conversation_id": "c", "tool_name": "Shell",
                "tool_input": A, "tool_use_id": "u2", "error_message": "exit 1"},
     ("postToolUseFailure", "count", "c", "main"), [("Shell", A, "main", False, "u2", None, "exit 1")]),
    ("cursor", {"hook_event_name": "beforeSubmitPrompt", "conversation_id": "c", "prompt": "go"},
     ("beforeSubmitPrompt", "reset", "c", "main"), []),
])
def test_parse(host_name, event, expected, expected_calls):
    if host_name == "codex":
        assert codex_problems(f"{CODEX_INPUTS[event['hook_event_name']]}.command.input", event) == []
    request = parse(host_name, json.dumps(event))
    assert (request.host, request.event, request.action, request.session, request.agent) == (host_name, *expected)
    assert calls(request) == expected_calls
    assert parse(host_name, json.dumps(event).encode("utf-8")) == request


def test_a_batch_lists_its_calls_in_order():
    entries = [{"tool_name": "Read", "tool_input": {"p": i}, "tool_use_id": f"r{i}"} for i in range(3)]
    request = parse("claude", json.dumps({"hook_event_name": "PostToolBatch", "session_id": "s", "tool_calls": entries}))
    assert [(c.arguments, c.call_id) for c in request.calls] == [({"p": 0}, "r0"), ({"p": 1}, "r1"), ({"p": 2}, "r2")]


@pytest.mark.parametrize(("host_name", "payload", "message"), [
    ("claude", b"", "stdin is not a JSON event (Expecting value: line 1 column 1 (char 0))"),
    ("claude", b"\xff{}", "stdin is not a JSON event ('utf-8' codec can't decode byte 0xff in position 0: invalid "
                          "start byte)"),
    ("codex", "[1]", "stdin holds a JSON list, not an event object"),
    ("gemini", '"x"', "stdin holds a JSON str, not an event object"),
    ("cursor", '{"conversation_id": "c"}', "the event has no `hook_event_name` string"),
    ("cursor", '{"hook_event_name": 3, "conversation_id": "c"}', "the event has no `hook_event_name` string"),
    ("claude", '{"hook_event_name": "PostToolBatch", "session_id": "s", "tool_calls": {}}',
     "the PostToolBatch event has no `tool_calls` list"),
    ("claude", '{"hook_event_name": "PostToolBatch", "session_id": "s", "tool_results": [{"tool_name": "a", '
               '"tool_use_id": 1}]}', "tool_results[0]: `tool_use_id` is a int, not a string"),
    ("claude", '{"hook_event_name": "Stop", "session_id": "s", "agent_id": 5}',
     "the event: `agent_id` is a int, not a string"),
    ("copilot", "{}", "unknown host `copilot` (known: claude, codex, gemini, cursor)"),
])
def test_parse_errors_are_one_line(host_name, payload, message):
    with pytest.raises(HookError) as error:
        parse(host_name, payload)
    assert str(error.value) == message


def entry(text: str) -> ContextEntry:
    return ContextEntry.of(Reminder("g", "repeat-tool-reminder", "Bash", 3, "first", "Bash × 3"), text)


@pytest.mark.parametrize(("host_name", "event", "expected"), [
    ("claude", "PostToolUse", {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "a\n\nb"}}),
    ("claude", "PostToolBatch",
     {"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "a\n\nb"}}),
    ("codex", "PostToolUse", {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "a\n\nb"}}),
    ("gemini", "AfterTool", {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "a\n\nb"}}),
    ("cursor", "postToolUseFailure", {"additional_context": "a\n\nb"}),
])
def test_render(host_name, event, expected):
    request = HookRequest(host_name, event, "count", "s", "main")
    assert render(request, [entry("a"), entry(""), entry("b")]) == json.dumps(expected)
    assert render(request, []) == render(request, [entry("")]) == ""
    for action in ("reset", "ignore"):
        assert render(HookRequest(host_name, event, action, "s", "main"), [entry("a")]) == ""


@pytest.mark.parametrize(("texts", "limit", "expected"), [
    (["aaa", "bb"], 7, "aaa\n\nbb"),  # exactly the limit
    (["aaa", "bb"], 6, "aaa"),  # the second does not fit whole: dropped
    (["aaa", "bb", "c"], 6, "aaa"),  # nothing after a reminder that was dropped
    (["abcdefgh"], 5, "abcd…"),  # a first reminder too long alone is cut, with a marker
    (["ab😀cd"], 4, "ab…"),  # a character above U+FFFF is two units, as in JavaScript, and never split
    (["ab😀cd"], 5, "ab😀…"),
    (["😀😀"], 4, "😀😀"),
])
def test_fit(texts, limit, expected):
    found = driver.fit(texts, limit)
    assert found == expected
    assert len(found.encode("utf-16-le")) // 2 <= limit


def test_a_huge_reminder_is_cut_to_the_hosts_limit(tmp_path):
    guards = tmp_path / "wide.yaml"
    guards.write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [2, 3]\n"
                      "      argumentsPreviewChars: 100000\n")
    arguments = {"text": "é" * 30000}
    shown = detailed("Write", 3, json.dumps(arguments, ensure_ascii=False, separators=(",", ":")))
    calls = [{"tool_name": "Write", "tool_input": arguments, "tool_use_id": f"w{i}"} for i in range(3)]
    for host_name in HOSTS:
        assert host(host_name).CONTEXT_LIMIT == 10_000
    batch = parse("claude", json.dumps({"hook_event_name": "PostToolBatch", "session_id": "s", "tool_calls": calls}))
    contexts = apply(toolguards.load(guards), batch)
    assert [c.text for c in contexts] == [FIRST, shown]
    text = json.loads(render(batch, contexts))["hookSpecificOutput"]["additionalContext"]
    assert text == FIRST  # whole reminders only, in order, as many as fit
    engine = toolguards.load(guards)
    single = [parse("claude", json.dumps({"hook_event_name": "PostToolUse", "session_id": "s"} | call)) for call in calls]
    contexts = [apply(engine, request) for request in single][2]
    text = json.loads(render(single[2], contexts))["hookSpecificOutput"]["additionalContext"]
    assert text == shown[:9_999] + "…"  # alone and too long: cut, with a marker


def test_apply_counts_in_order_and_resets_the_agent():
    engine = toolguards.load_default()
    event = {"hook_event_name": "AfterTool", "session_id": "g", "tool_name": "grep", "tool_input": {"q": 1}}
    count = parse("gemini", json.dumps(event))
    assert [len(apply(engine, count)) for _ in range(3)] == [0, 0, 1]
    assert apply(engine, parse("gemini", json.dumps({"hook_event_name": "BeforeAgent", "session_id": "g"}))) == ()
    assert [len(apply(engine, count)) for _ in range(3)] == [0, 0, 1]  # the reset started the chain afresh
    assert [c.text for c in apply(engine, parse("gemini", json.dumps(event | {"tool_name": "x"})))] == []


def test_every_host_module_provides_the_protocol():
    for name in HOSTS:
        module = host(name)
        assert name == module.NAME
        assert set(module.EVENTS.values()) <= {"count", "reset"}
        registered = module.register(module.handler("cmd"))
        assert sorted(registered) == sorted(module.EVENTS)
        assert set(module.SINCE) <= set(registered) and (module.PROGRAM is not None or not module.SINCE)
        assert module.USER_FOLDER_ENV is None or module.USER_FOLDER_ENV.isidentifier()
        assert all(hasattr(module, member) for member in protocol.MEMBERS), name
        assert module.__all__ == list(protocol.MEMBERS)
        assert module.STATE_FILE.endswith(".sqlite3")
    assert len({host(name).STATE_FILE for name in HOSTS}) == len(HOSTS)
