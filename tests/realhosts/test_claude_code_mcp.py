"""``toolguards mcp`` inside the real Claude Code: a project's MCP server, proxied by ``toolguards mcp install``.

As a user would: the project's ``.mcp.json`` names server-everything (npm) over stdio; ``toolguards mcp install
claude-code everything`` rewrites that entry to run through the proxy; a headless ``claude -p`` (its project servers
allowed by ``enableAllProjectMcpServers``, as the "approve" answer records it) then waits for its MCP servers (Claude
Code connects them while the session starts; ``WaitForMcpServers`` is its own tool for that) and calls the server's
``echo`` tool five times with the same arguments, against the scripted model. The model must read the gentle reminder in the result
of the third call and the detailed one in the fifth, in the tool result itself (the proxy's one place), and nothing
anywhere else. One real run serves every test of the module.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import FIRST, detailed
from support.claude_host import ClaudeHome, ClaudeRun, hook_contexts, run_claude
from support.mcp_servers import TOOLGUARDS, everything
from support.scripted_model import Request, Text, ToolCall

TOOL = "mcp__everything__echo"
ARGUMENTS = {"message": "is the build green yet?"}
CALLS = 5


def tool_results(request: Request) -> dict[str, list[str]]:
    """The texts of every ``tool_result`` block of an ``echo`` call in a model request, by the call id it answers."""
    body = request.body if isinstance(request.body, dict) else {}
    found: dict[str, list[str]] = {}
    echoes = set()
    for message in body.get("messages") or ():
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "tool_use" and block.get("name") == TOOL:
                echoes.add(block["id"])
            if block.get("type") != "tool_result" or block.get("tool_use_id") not in echoes:
                continue
            inner = block.get("content")
            texts = [inner] if isinstance(inner, str) else [part.get("text", "") for part in inner or ()
                                                           if isinstance(part, dict) and part.get("type") == "text"]
            found[block["tool_use_id"]] = texts
    return found


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> tuple[ClaudeHome, ClaudeRun, dict[str, Any]]:
    home = ClaudeHome.fresh(tmp_path_factory.mktemp("claude-mcp"))
    server = everything()
    home.write(".mcp.json", {"mcpServers": {"everything": {"command": server[0], "args": server[1:]}}})
    home.write(".claude/settings.local.json", {"enableAllProjectMcpServers": True})
    done = subprocess.run([TOOLGUARDS, "mcp", "install", "claude-code", "everything"], cwd=home.project,
                          env=home.environment(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    installed = json.loads((home.project / ".mcp.json").read_text(encoding="utf-8"))
    turns = [ToolCall("WaitForMcpServers", {}), *(ToolCall(TOOL, ARGUMENTS) for _ in range(CALLS)),
             Text("The build is not green; I stop asking.")]
    run = run_claude(home, turns, "Ask the echo tool about the build until it says yes.",
                     allowed_tools=("WaitForMcpServers", TOOL))
    return home, run, installed


def test_install_runs_the_server_through_the_proxy(live):
    _, _, installed = live
    entry = installed["mcpServers"]["everything"]
    assert Path(entry["command"]).name == "toolguards"
    assert entry["args"][:1] == ["mcp"] and entry["args"][-3:] == ["--", *everything()]


def test_the_reminders_reach_the_model_in_the_third_and_fifth_results(live):
    _, run, _ = live
    assert run.escaped == []
    assert len(run.turns) == CALLS + 2
    last = tool_results(run.turns[-1])  # the final request carries every result so far
    ids = list(last)
    assert len(ids) == CALLS
    reminders = {n: [text for text in last[call] if "Repeated tool call" in text or text == FIRST]
                 for n, call in enumerate(ids, start=1)}
    canonical = json.dumps(ARGUMENTS, separators=(",", ":"), sort_keys=True)
    assert reminders == {1: [], 2: [], 3: [FIRST], 4: [], 5: [detailed(TOOL.removeprefix("mcp__everything__"), 5,
                                                                       canonical)]}


def test_each_reminder_arrives_in_the_request_after_its_call_and_the_echo_still_answers(live):
    _, run, _ = live
    for number, request in enumerate(run.turns[2:], start=1):
        results = list(tool_results(request).values())
        assert len(results) == number
        newest = results[-1]
        assert any(ARGUMENTS["message"] in text for text in newest), newest  # the server's own answer is kept
        has_reminder = any(text == FIRST or text.startswith("Repeated tool call detected:") for text in newest)
        assert has_reminder == (number in (3, 5)), (number, newest)
    assert all(hook_contexts(request) == [] for request in run.turns)  # no hook: the proxy alone did it
