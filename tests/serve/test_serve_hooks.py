"""``POST /hooks/HOST``: each host's own hook events in, byte for byte what ``toolguards hook HOST`` prints out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from conftest import FIRST, detailed
from support.docs_blocks import marked
from support.programs import CLAUDE_VERSION, on_path, program_printing
from support.servers import Serve, start_all

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'toolguards[serve]')")

Event = dict[str, Any]


def claude(event: str, session: str = "sess-1", agent_id: str | None = None, **fields: Any) -> Event:
    found: Event = {"session_id": session, "transcript_path": f"/home/u/.claude/projects/p/{session}.jsonl",
                    "cwd": "/home/u/p", "permission_mode": "default", "hook_event_name": event}
    if agent_id is not None:
        found |= {"agent_id": agent_id, "agent_type": "general-purpose"}
    return found | fields


def claude_call(call_id: str, session: str = "sess-1", agent_id: str | None = None) -> Event:
    return claude("PostToolUse", session, agent_id, tool_name="Bash",
                  tool_input={"command": "ls -la", "description": "List files"},
                  tool_response={"stdout": "total 0", "stderr": "", "interrupted": False, "isImage": False},
                  tool_use_id=call_id)


def codex(event: str, **fields: Any) -> Event:
    session = "019e1625-789d-76c0-80ab-3724b5ddb799"
    return {"session_id": session, "transcript_path": f"/home/u/.codex/sessions/rollout-{session}.jsonl",
            "cwd": "/home/u/p", "hook_event_name": event, "model": "gpt-5.1-codex", "turn_id": "turn-7",
            "permission_mode": "default"} | fields


def gemini(event: str, **fields: Any) -> Event:
    session = "5b959dae-0f0e-4d57-9c53-7f4a8d8e2e01"
    return {"session_id": session, "transcript_path": f"/home/u/.gemini/tmp/abc/chats/session-{session}.json",
            "cwd": "/home/u/p", "hook_event_name": event, "timestamp": "2026-05-11T11:26:55.123Z"} | fields


def cursor(event: str, **fields: Any) -> Event:
    conversation = "6c1b5a7e-2f36-4d0c-9a1e-1f2d3c4b5a69"
    return {"conversation_id": conversation, "generation_id": "gen-456", "model": "claude-4.5-sonnet",
            "hook_event_name": event, "cursor_version": "2.1.20", "workspace_roots": ["/home/u/p"],
            "user_email": "u@example.com", "transcript_path": f"/home/u/.cursor/projects/p/{conversation}.txt"} | fields


SESSIONS: dict[str, tuple[list[Event], str]] = {  # each host: five calls, a new prompt, three calls; the tool name
    "claude": ([claude_call(f"t{i}") for i in range(5)] + [claude("UserPromptSubmit", prompt="again")]
               + [claude_call(f"t{i}") for i in range(5, 8)], "Bash"),
    "codex": ([codex("PostToolUse", tool_name="Bash", tool_input={"command": "ls -la"}, tool_use_id=f"call_{i}",
                     tool_response="total 0\n") for i in range(5)]
              + [codex("UserPromptSubmit", prompt="again")]
              + [codex("PostToolUse", tool_name="Bash", tool_input={"command": "ls -la"}, tool_use_id=f"call_{i}",
                       tool_response="total 0\n") for i in range(5, 8)], "Bash"),
    "gemini": ([gemini("AfterTool", tool_name="run_shell_command", tool_input={"command": "ls -la"},
                       tool_response={"llmContent": "total 0", "returnDisplay": "total 0"})] * 5
               + [gemini("BeforeAgent", prompt="again")]
               + [gemini("AfterTool", tool_name="run_shell_command", tool_input={"command": "ls -la"},
                         tool_response={"llmContent": "total 0", "returnDisplay": "total 0"})] * 3,
               "run_shell_command"),
    "cursor": ([cursor("postToolUse", tool_name="Shell", tool_input={"command": "ls -la"}, tool_use_id=f"c{i}",
                       tool_output=json.dumps({"output": "total 0\n", "exitCode": 0})) for i in range(5)]
               + [cursor("beforeSubmitPrompt", prompt="again", attachments=[])]
               + [cursor("postToolUse", tool_name="Shell", tool_input={"command": "ls -la"}, tool_use_id=f"c{i}",
                         tool_output=json.dumps({"output": "total 0\n", "exitCode": 0})) for i in range(5, 8)],
               "Shell"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    (running,) = start_all(Serve(cwd=tmp_path_factory.mktemp("serve")))
    yield running
    running.stop()


def hook_command(host: str, state_dir, event: Event | bytes) -> subprocess.CompletedProcess[bytes]:
    data = event if isinstance(event, bytes) else json.dumps(event).encode()
    return subprocess.run([sys.executable, "-m", "toolguards", "hook", host, "--state-dir", str(state_dir)],
                          input=data, capture_output=True, timeout=120)


@pytest.mark.parametrize("host", list(SESSIONS))
def test_the_answers_are_what_the_command_prints(server, tmp_path, host):
    events, tool = SESSIONS[host]
    over_http = []
    for event in events:
        status, body = server.request("POST", f"/hooks/{host}", event)
        assert status == 200
        over_http.append(body)
    printed = []
    for event in events:
        done = hook_command(host, tmp_path, event)
        assert (done.returncode, done.stderr) == (0, b"")
        printed.append(done.stdout)
    assert over_http == printed
    assert [bool(body) for body in over_http] == [False, False, True, False, True, False, False, False, True]
    arguments = json.dumps(events[0]["tool_input"], separators=(",", ":"), sort_keys=True)
    assert json.dumps(FIRST)[1:-1] in over_http[2].decode()
    assert json.dumps(detailed(tool, 5, arguments))[1:-1] in over_http[4].decode()
    assert over_http[8] == over_http[2]  # the new prompt started the chain afresh


def test_sessions_and_subagents_keep_their_own_chains_and_a_prompt_resets_only_its_own(server):
    def post(event: Event) -> bytes:
        status, body = server.request("POST", "/hooks/claude", event)
        assert status == 200
        return body

    for n in range(2):
        assert post(claude_call(f"a{n}", session="s-a")) == b""
        assert post(claude_call(f"b{n}", session="s-b")) == b""
        assert post(claude_call(f"c{n}", session="s-a", agent_id="sub")) == b""
    assert post(claude("UserPromptSubmit", session="s-b", prompt="again")) == b""
    assert post(claude_call("b2", session="s-b")) == b""  # started afresh: 1
    assert post(claude_call("a2", session="s-a")) != b""  # 3 in its own session
    assert post(claude_call("a2", session="s-a")) == b""  # a call delivered twice counts once
    assert post(claude_call("c2", session="s-a", agent_id="sub")) != b""  # the subagent: its own 3


@pytest.mark.parametrize(("host", "body"), [
    ("claude", b"not json"),
    ("claude", json.dumps({"hook_event_name": "PostToolUse"}).encode()),
    ("codex", json.dumps(["an", "array"]).encode()),
    ("gemini", json.dumps(gemini("AfterTool", tool_name=7)).encode()),
    ("cursor", json.dumps(cursor("postToolUse")).encode()),
])
def test_an_event_the_host_module_cannot_read_is_a_400_with_the_commands_message(server, tmp_path, host, body):
    done = hook_command(host, tmp_path, body)
    line = done.stderr.decode()
    assert (done.returncode, done.stdout) == (0, b"")
    assert line.startswith("toolguards hook: ") and line.endswith("\n") and line.count("\n") == 1
    status, answer = server.request("POST", f"/hooks/{host}", body)
    assert (status, json.loads(answer)) == (400, {"error": line.removeprefix("toolguards hook: ").rstrip("\n")})


def test_an_ignored_event_is_an_empty_answer_counted_in_the_metrics(server):
    connection = server.connect()
    connection.request("POST", "/hooks/cursor", json.dumps(cursor("stop", status="completed")))
    response = connection.getresponse()
    assert (response.status, response.read(), response.getheader("Content-Type")) == (200, b"", None)
    connection.close()
    status, text = server.request("GET", "/metrics")
    assert status == 200
    hooks = {}
    for line in text.decode().splitlines():
        if line.startswith("toolguards_hook_events_total{"):
            labels, value = line.removeprefix("toolguards_hook_events_total{").split("} ")
            hooks[frozenset(labels.split(","))] = float(value)  # the text format does not fix the labels' order
    assert hooks[frozenset({'host="cursor"', 'action="ignore"'})] == 1.0
    assert hooks[frozenset({'host="claude"', 'action="reset"'})] >= 1.0


def test_unknown_hosts_have_no_endpoint(server):
    assert server.request("POST", "/hooks/vim", {}) == (404, b'{"error":"no such endpoint: POST /hooks/vim"}')


def test_the_docs_settings_are_what_hook_install_writes(tmp_path):
    shown = json.loads(marked("docs/service.md", "tested: serve:claude-http").text)
    url = shown["hooks"]["PostToolUse"][0]["hooks"][0]["url"]
    program_printing(tmp_path / "bin", "claude", CLAUDE_VERSION)  # a current Claude Code: PostToolBatch is registered
    done = subprocess.run([sys.executable, "-m", "toolguards", "hook", "install", "claude", "--http", url, "--dry-run"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          env={**os.environ, "PATH": on_path(tmp_path / "bin")})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == shown
