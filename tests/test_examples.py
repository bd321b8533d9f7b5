"""The runnable examples the docs point at actually run, with the command the docs show (docs/frameworks.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import PYDANTIC_AI_MISSING, REPO
from support.docs_blocks import marked

EXAMPLES = REPO / "examples"


def documented(marker: str) -> list[str]:
    """The command docs/frameworks.md shows under ``<!-- tested: MARKER -->``, to run with this interpreter."""
    words = marked("docs/frameworks.md", f"tested: {marker}").text.split()
    assert words[:1] == ["python"] and len(words) == 2, words
    return [sys.executable, "-W", "error", str(REPO / words[1])]


def test_langchain_example_runs_and_reminds():
    pytest.importorskip("langchain", reason="the langchain extra is not installed: pip install -e '.[langchain]'")
    done = subprocess.run(documented("examples:langchain"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "human toolguards You are repeating the exact same tool call" in done.stdout


def test_pydantic_ai_example_runs_and_reminds():
    pytest.importorskip("pydantic_ai", reason=PYDANTIC_AI_MISSING)
    done = subprocess.run(documented("examples:pydantic-ai"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert " user-prompt toolguards You are repeating the exact same tool call" in done.stdout
    assert done.stdout.count("tool-return") == 3


def test_openai_agents_example_runs_and_reminds():
    pytest.importorskip("agents", reason="the openai-agents extra is not installed: pip install -e '.[openai-agents]'")
    done = subprocess.run(documented("examples:openai-agents"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[-2].startswith("                user You are repeating the exact same tool call")
    assert lines[-3] == "function_call_output no results"
    assert lines[-1] == "              answer The docs do not say."


def test_claude_code_settings_example_registers_the_hook_command(tmp_path):
    settings = json.loads((EXAMPLES / "claude-code-settings.json").read_text(encoding="utf-8"))
    assert set(settings["hooks"]) == {"PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit"}
    commands = {h["command"] for entries in settings["hooks"].values() for entry in entries for h in entry["hooks"]}
    assert commands == {"toolguards hook claude"}
    event = {"hook_event_name": "PostToolUseFailure", "session_id": "s1", "tool_name": "Bash",
             "tool_input": {"command": "make test"}, "error": "exit 2"}
    outputs = []
    for i in range(3):
        done = subprocess.run([sys.executable, "-m", "toolguards", "hook", "claude", "--state-dir", str(tmp_path)],
                              input=json.dumps({**event, "tool_use_id": f"t{i}"}), capture_output=True, text=True)
        assert done.returncode == 0 and done.stderr == ""
        outputs.append(done.stdout)
    assert outputs[:2] == ["", ""]
    reply = json.loads(outputs[2])
    assert reply["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    assert reply["hookSpecificOutput"]["additionalContext"].startswith("You are repeating the exact same tool call")
