"""What ``toolguards.hooks.claude`` reads from hook events the real Claude Code 2.1.197 sent (``tests/fixtures/claude-code``,
recorded and kept in shape by ``tests/realhosts/test_claude_code.py``)."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from toolguards.events import ToolEvent
from toolguards.hooks.driver import HookRequest, parse

RECORDED = FIXTURES / "claude-code"
SIX = "dff25df0-cc32-40ef-901f-b860736cc122"
REFUSED = "ab1187ce-144b-4fda-8a97-97441fdce8f3"
LOOPING = {"command": "echo looping", "description": "Print a word"}
FAILING = {"command": "ls no-such-file", "description": "List a missing file"}
BASH_RESULT = {"stdout": "looping", "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
REFUSAL = "Claude requested permissions to write to /home/user/project/notes.txt, but you haven't granted it yet."


def call(tool, arguments, call_id, result=None, error=None) -> ToolEvent:
    return ToolEvent(tool, arguments, "main", False, call_id, result, error)


@pytest.mark.parametrize(("name", "expected"), [
    ("UserPromptSubmit", HookRequest("claude", "UserPromptSubmit", "reset", SIX, "main")),
    ("PostToolUse", HookRequest("claude", "PostToolUse", "count", SIX, "main",
                                (call("Bash", LOOPING, "toolu_00_0", BASH_RESULT),))),
    ("PostToolBatch", HookRequest("claude", "PostToolBatch", "count", SIX, "main",
                                  (call("Bash", LOOPING, "toolu_00_0", "looping"),))),
    ("PostToolUseFailure", HookRequest("claude", "PostToolUseFailure", "count", REFUSED, "main", (
        call("Bash", FAILING, "toolu_03_0",
             error="Exit code 2\nls: cannot access 'no-such-file': No such file or directory"),))),
    ("PostToolBatch-refused", HookRequest("claude", "PostToolBatch", "count", REFUSED, "main", (
        call("Write", {"file_path": "/home/user/project/notes.txt", "content": "x"}, "toolu_00_0", REFUSAL),))),
])
def test_the_protocol_module_reads_what_claude_code_sent(name, expected):
    assert parse("claude", (RECORDED / f"{name}.json").read_bytes()) == expected


def test_every_recorded_event_is_one_the_module_acts_on():
    names = {json.loads(path.read_text(encoding="utf-8"))["hook_event_name"] for path in RECORDED.glob("*.json")}
    assert names == {"UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "PostToolBatch"}
