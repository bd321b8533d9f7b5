"""``toolguards doctor cursor`` and ``toolguards doctor mcp``: their checks with the exact lines they print."""

from __future__ import annotations

import shlex
import sys

import pytest

from support.doctor_homes import Home, command, lines, registration
from support.hooks import TOOLGUARDS
from toolguards.doctor import cursor, mcp_clients

T = str(TOOLGUARDS)
CURSOR_NONE = ("cursor: problem: {project}/.cursor/hooks.json: no toolguards hook in the hooks files Cursor reads here; "
               "fix: toolguards hook install cursor")

CURSOR_CASES = {
    "nothing registered": (lambda home: None, [CURSOR_NONE]),
    "installed in the project": (
        lambda home: home.write("project/.cursor/hooks.json", registration("cursor")),
        [f"cursor: ok: {{project}}/.cursor/hooks.json: project scope: postToolUse, postToolUseFailure, "
         f"beforeSubmitPrompt run {T} hook cursor"]),
    "without the version, and only postToolUse": (
        lambda home: home.write(".cursor/hooks.json", {"hooks": {"postToolUse": [{"command": command("cursor")}]}}),
        [f"cursor: ok: {{home}}/.cursor/hooks.json: user scope: postToolUse run {T} hook cursor",
         'cursor: problem: {home}/.cursor/hooks.json: the file has no "version": 1, which Cursor reads hooks with; '
         "fix: add it, or install again: toolguards hook install cursor",
         "cursor: note: postToolUseFailure: no toolguards hook answers postToolUseFailure: a failing call is not "
         "counted; fix: toolguards hook install cursor",
         "cursor: note: beforeSubmitPrompt: no toolguards hook answers beforeSubmitPrompt: a new prompt does not start "
         "the chains afresh; fix: toolguards hook install cursor"]),
    "a file that is not JSON": (
        lambda home: home.write("project/.cursor/hooks.json", "{"),
        ["cursor: problem: {project}/.cursor/hooks.json: is not valid JSON (line 1, column 2: Expecting property name "
         "enclosed in double quotes): Cursor cannot use it; fix: correct the file", CURSOR_NONE]),
}


@pytest.mark.parametrize(("setup", "expected"), CURSOR_CASES.values(), ids=CURSOR_CASES.keys())
def test_what_cursor_files_say(tmp_path, setup, expected):
    home = Home.fresh(tmp_path)
    setup(home)
    found, _ = cursor.from_files(home.context())
    assert lines(found) == [item.format(home=home.home, project=home.project) for item in expected]


def test_the_full_cursor_check_runs_the_registered_command(tmp_path):
    home = Home.fresh(tmp_path)
    home.write("project/.cursor/hooks.json", registration("cursor"))
    assert lines(cursor.check(home.context()))[-1] == (
        f"cursor: ok: {home.project}/.cursor/hooks.json: the command answers as the host expects: the reminder at the "
        "3rd identical call")


def proxied(server: list[str], *options: str) -> dict[str, object]:
    return {"command": T, "args": ["mcp", "--name", "time", *options, "--", *server]}


BAD_GUARD = "guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: []\n"
MCP_NONE = ("mcp: problem: {project}: no MCP client's config file here runs a server through toolguards mcp; fix: "
            "toolguards mcp install CLIENT SERVER")
MCP_CASES = {
    "no proxied server": (
        lambda home: home.write("project/.mcp.json", {"mcpServers": {"time": {"command": "uvx"}}}), [MCP_NONE]),
    "a proxied server whose program is found": (
        lambda home: home.write("project/.mcp.json", {"mcpServers": {"time": proxied([sys.executable, "-V"])}}),
        [f"mcp:claude-code: ok: {{project}}/.mcp.json: time: runs {sys.executable} through {T} mcp"]),
    "a proxied server whose program is gone, in VS Code's file with comments": (
        lambda home: home.write("project/.vscode/mcp.json", "// mine\n" + __import__("json").dumps(
            {"servers": {"time": proxied(["/gone/mcp-server-time"])}})),
        [f"mcp:vscode: ok: {{project}}/.vscode/mcp.json: time: runs /gone/mcp-server-time through {T} mcp",
         "mcp:vscode: problem: {project}/.vscode/mcp.json: time: the server's own program /gone/mcp-server-time is "
         "not found, so the proxy cannot start it; fix: install the server, or correct the entry"]),
    "a proxy that is gone": (
        lambda home: home.write("project/.cursor/mcp.json", {"mcpServers": {"time": {
            "command": "/old/venv/bin/toolguards", "args": ["mcp", "--name", "time", "--", sys.executable]}}}),
        [f"mcp:cursor: ok: {{project}}/.cursor/mcp.json: time: runs {sys.executable} through /old/venv/bin/toolguards "
         "mcp",
         "mcp:cursor: problem: {project}/.cursor/mcp.json: time: /old/venv/bin/toolguards is not found, so the client "
         "cannot start the server; fix: install again from the toolguards you use: toolguards mcp install cursor "
         "time"]),
    "the proxy's guard file": (
        lambda home: (home.write("project/g.yaml", BAD_GUARD), home.write("project/.mcp.json", {"mcpServers": {
            "time": proxied([sys.executable], "--config", "g.yaml")}})),
        [f"mcp:claude-code: ok: {{project}}/.mcp.json: time: runs {sys.executable} through {T} mcp",
         "mcp:claude-code: problem: g.yaml: the proxy's guard file does not validate: {project}/g.yaml:4:19: "
         "guards[0].config.thresholds: `thresholds` must not be empty; fix: toolguards validate g.yaml, and fix what "
         "it says"]),
    "a client file that is not JSON": (
        lambda home: home.write("project/.mcp.json", "{"),
        ["mcp:claude-code: problem: {project}/.mcp.json: is not valid JSON (line 1, column 2: Expecting property name "
         "enclosed in double quotes): the client cannot start its servers; fix: correct the file", MCP_NONE]),
}


@pytest.mark.parametrize(("setup", "expected"), MCP_CASES.values(), ids=MCP_CASES.keys())
def test_what_the_mcp_clients_files_say(tmp_path, setup, expected):
    home = Home.fresh(tmp_path)
    setup(home)
    context = home.context()
    assert mcp_clients.registered(context) is (expected[-1] != MCP_NONE)
    assert lines(mcp_clients.check(context)) == [item.format(home=home.home, project=home.project)
                                                 for item in expected]


def test_the_guard_file_quoted_in_the_fix(tmp_path):
    home = Home.fresh(tmp_path)
    home.write("project/my guards.yaml", BAD_GUARD)
    home.write("project/.mcp.json", {"mcpServers": {"time": proxied([sys.executable], "--config", "my guards.yaml")}})
    assert lines(mcp_clients.check(home.context()))[-1].endswith(
        f"fix: toolguards validate {shlex.quote('my guards.yaml')}, and fix what it says")
