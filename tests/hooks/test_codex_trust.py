"""``toolguards.hooks.codex_trust``: Codex's hook keys and hashes, hook states, and project trust, from its files.

The expected hashes are the ``currentHash`` the real Codex 0.171 reported through ``codex app-server``'s
``hooks/list`` for these very handlers (``tests/realhosts/test_codex.py`` checks a larger set against the running
program); the tests here run without Codex.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import require
from toolguards.hooks.codex_trust import (
    HookState,
    ProjectTrust,
    codex_home,
    event_label,
    handler_hash,
    hook_entries,
    hook_key,
    hook_states,
    hooks_enabled,
    project_hooks_file,
    project_trust,
    trust_status,
)


@pytest.mark.parametrize(("event", "label"), [
    ("PostToolUse", "post_tool_use"), ("UserPromptSubmit", "user_prompt_submit"), ("PreToolUse", "pre_tool_use"),
    ("PermissionRequest", "permission_request"), ("SessionStart", "session_start"), ("Stop", "stop"),
    ("SubagentStop", "subagent_stop"), ("PreCompact", "pre_compact"), ("SessionEnd", "session_end"),
])
def test_event_labels(event, label):
    assert event_label(event) == label


def test_a_key_names_the_file_event_group_and_handler():
    assert hook_key("/home/u/p/.codex/hooks.json", "PostToolUse", 3, 1) == "/home/u/p/.codex/hooks.json:post_tool_use:3:1"


def command(text: str, **fields: Any) -> dict[str, Any]:
    return {"type": "command", "command": text, **fields}


@pytest.mark.parametrize(("event", "matcher", "handler", "expected"), [
    ("PostToolUse", None, command("toolguards hook codex"),
     "sha256:aa18351a2fe1485fcaeb8f91201c928a2a48946396a1eeb86f7c409821afe249"),
    ("PostToolUse", "Bash", command("a", timeout=30, statusMessage="checking"),
     "sha256:fb776414196282e41a08ff5d07c9a9f2276592c08e206755bbd909ecb3d4fa1b"),
    ("PostToolUse", "Bash", command("b", timeout=0, **{"async": True}),
     "sha256:96e33589c8e4b349cd19822506d017a112f65ed0bce4718403078821f7e71df7"),
    ("PostToolUse", "", command("c", additionalContextLimit=2500),
     "sha256:981556af01cbff78f9ef822356f9d5c93a8edee10ea9d11c0a491eb23654c4b8"),
    ("PostToolUse", "*", command("d", additionalContextLimit=100, commandWindows="d.exe"),
     "sha256:3d0f1b556dd5d91826f334c251c43a073b766a819ef563d43fff5b541edbca53"),
    ("UserPromptSubmit", "ignored", command("toolguards hook codex", additionalContextLimit=10),
     "sha256:22d4e8a8ce87edcf959834f1f0a3e0ac2c168b489b0d681d9383e041ede407f9"),
    ("Stop", None, command("f", additionalContextLimit=10),
     "sha256:91592e3e9a7f424224d0a12015af603ab18598ae4ebd63263af16b8e21acef09"),
    ("SessionEnd", None, command("h", timeout=10),
     "sha256:b34503e1ec7697378c1ab71b819c1a4367d548e7f670db77eaac610bd0f54a23"),
    ("PreCompact", None, command('j\u2028"q"'),
     "sha256:16a03ea5269be44960d45c2580697503bb2b9123dcfaaac00f7fae7dc671bf9d"),
    ("PreToolUse", None, {"type": "mcp_tool", "server": "s", "tool": "t"},
     "sha256:512cf58fb1a288c356a4eac3a7960c4fa4beef61cd5c4259b54760eaf8665f18"),
])
def test_hashes_as_codex_reports_them(event, matcher, handler, expected):
    assert handler_hash(event, matcher, handler) == expected


@pytest.mark.parametrize("handler", [
    {"type": "prompt"}, {"type": "agent"}, command("   "), command(""), {"type": "command"},
    {"type": "mcp_tool", "server": "s", "tool": " "}, {"command": "no type"},
])
def test_handlers_codex_skips_have_no_hash(handler):
    assert handler_hash("PostToolUse", None, handler) is None


def test_entries_count_positions_over_every_group_and_handler_codex_reads():
    document = {"hooks": {
        "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "prompt"}, command(" "), command("a")]},
            "not a group",
            {"hooks": [command("b"), "not a handler", command("c")]},
        ],
        "Stop": "not a list",
        "PostToolUseFailure": [{"hooks": [command("an event of Claude Code's, not Codex's")]}],
        "UserPromptSubmit": [{"hooks": [command("d")]}],
    }}
    found = [(entry.key, entry.event, entry.handler["command"]) for entry in hook_entries("/f", document)]
    assert found == [("/f:post_tool_use:0:2", "PostToolUse", "a"), ("/f:post_tool_use:2:0", "PostToolUse", "b"),
                     ("/f:post_tool_use:2:2", "PostToolUse", "c"), ("/f:user_prompt_submit:0:0", "UserPromptSubmit", "d")]
    assert hook_entries("/f", document)[0].hash == handler_hash("PostToolUse", "Bash", command("a"))
    assert hook_entries("/f", {"hooks": []}) == hook_entries("/f", {}) == []


def test_states_and_what_they_make_of_a_hook():
    (entry,) = hook_entries("/f", {"hooks": {"Stop": [{"hooks": [command("x")]}]}})
    config = {"hooks": {"state": {
        "/f:stop:0:0": {"trusted_hash": entry.hash}, " padded ": {"enabled": False},
        "wrong": {"enabled": "no"}, "also wrong": "x", "old": {"trusted_hash": "sha256:old"},
    }}}
    states = hook_states(config)
    assert states == {"/f:stop:0:0": HookState(None, entry.hash), "padded": HookState(False, None),
                      "old": HookState(None, "sha256:old")}
    assert trust_status(entry, states) == "trusted"
    assert trust_status(entry, {"/f:stop:0:0": HookState(None, "sha256:old")}) == "modified"
    assert trust_status(entry, {}) == "untrusted"
    assert trust_status(entry, {"/f:stop:0:0": HookState(False, entry.hash)}) == "disabled"
    assert hook_states({}) == hook_states({"hooks": {"state": []}}) == hook_states({"hooks": 1}) == {}


@pytest.mark.parametrize(("config", "enabled"), [
    ({}, True), ({"features": {"hooks": True}}, True), ({"features": {"hooks": False}}, False),
    ({"features": {"codex_hooks": False}}, False), ({"features": "x"}, True),
])
def test_the_hooks_feature(config, enabled):
    assert hooks_enabled(config) is enabled


def test_codex_home_is_codex_home_resolved_or_the_home_folders(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert codex_home({"CODEX_HOME": str(tmp_path / "link"), "HOME": "/h"}) == tmp_path / "real"
    assert codex_home({"CODEX_HOME": "", "HOME": str(tmp_path / "link")}) == tmp_path / "link" / ".codex"


def git(*args: str) -> None:
    subprocess.run([require("git", "the tests make git repositories and worktrees", "git"), *args], check=True,
                   capture_output=True)


def trusted(*pairs: tuple[Path | str, str]) -> dict[str, Any]:
    return {"projects": {str(folder): {"trust_level": level} for folder, level in pairs}}


def test_project_trust_looks_up_the_folder_then_its_root_then_the_main_checkout(tmp_path):
    repo = tmp_path / "repo"
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    git("init", "-q", str(repo))
    git("-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
    git("-C", str(repo), "worktree", "add", "-q", str(tmp_path / "linked"))
    assert project_trust(sub, {}) == ProjectTrust(None, str(repo))
    assert project_trust(sub, trusted((repo, "trusted"))) == ProjectTrust("trusted", str(repo))
    assert project_trust(sub, trusted((repo, "trusted"), (sub, "untrusted"))) == ProjectTrust("untrusted", str(sub))
    assert project_trust(tmp_path / "linked", {}) == ProjectTrust(None, str(repo))  # to add: the main checkout
    assert project_trust(tmp_path / "linked", trusted((repo, "trusted"))).trusted
    assert project_trust(tmp_path / "linked", trusted((tmp_path / "linked", "trusted"))).trusted
    # a linked worktree's hooks are read from the main checkout, at the same place below its root
    (tmp_path / "linked" / "src").mkdir()
    assert project_hooks_file(tmp_path / "linked" / "src") == repo / "src" / ".codex" / "hooks.json"
    assert project_hooks_file(sub) == sub / ".codex" / "hooks.json"
    assert project_hooks_file(tmp_path) == tmp_path / ".codex" / "hooks.json"


def test_project_trust_by_the_resolved_path_and_without_markers(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert project_trust(tmp_path / "link", trusted((tmp_path / "real", "trusted"))) == ProjectTrust(
        "trusted", str(tmp_path / "real"))
    assert project_trust(tmp_path / "link", trusted((tmp_path / "link", "trusted"))).trusted
    folder = tmp_path / "real" / "a"
    folder.mkdir()
    (tmp_path / "real" / "marker").touch()
    config = trusted((tmp_path / "real", "trusted")) | {"project_root_markers": ["marker"]}
    assert project_trust(folder, config).trusted
    assert not project_trust(folder, config | {"project_root_markers": []}).trusted
    assert project_trust(os.path.relpath(folder), config).trusted
