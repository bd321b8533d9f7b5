"""``toolguards doctor claude`` against the real Claude Code (``@anthropic-ai/claude-code`` 2.1): in ``claude -p`` a
settings file that fails Claude Code's checks is ignored without a word, hooks and all; doctor must say so exactly
for the files Claude Code ignores.

Each case is a project's ``.claude/settings.json`` as ``toolguards hook install claude`` writes it, plus a
``SessionStart`` hook that touches a marker file, with one change. ``claude -p`` runs once per case, the cases side by
side, against a model server on 127.0.0.1 that refuses every request, so each run ends right after its
``SessionStart`` hooks; its traffic stays on loopback (Claude Code's own switches for everything else, and a proxy
address where nothing listens). The marker says whether Claude Code used the file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from support.doctor_homes import Home, registration
from support.real_hosts import host_program
from support.scripted_model import Reply, Request, ScriptedModel, Turn
from toolguards.doctor import claude

IGNORED = "Claude Code ignores the whole file"


class Refusing:
    """A model API whose every request is refused (400): the run stops before any turn."""

    def is_turn(self, request: Request) -> bool:
        return False

    def reply(self, request: Request, turn: Turn, index: int) -> Reply:
        raise AssertionError("no turn is played")

    def side_reply(self, request: Request) -> Reply:
        body = {"type": "error", "error": {"type": "invalid_request_error", "message": "refused by the test"}}
        return Reply(400, "application/json", json.dumps(body).encode())


def changed(**change: Any) -> Callable[[dict[str, Any]], Any]:
    def edit(document: dict[str, Any]) -> dict[str, Any]:
        return {**document, **change}
    return edit


def handler(**change: Any) -> Callable[[dict[str, Any]], Any]:
    def edit(document: dict[str, Any]) -> dict[str, Any]:
        document["hooks"]["PostToolUse"][0]["hooks"][0].update(change)
        return document
    return edit


#: name -> how the settings file changes (a function of the parsed file: the new file, or its text)
CASES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "as installed": lambda document: document,
    "an unknown setting": changed(notASetting=[1]),
    "a bad value Claude Code drops alone": changed(effortLevel="extreme"),
    "a comment": lambda document: "// mine\n" + json.dumps(document),
    "a setting of the wrong type": changed(model=3),
    "a handler type Claude Code does not know": handler(type="shell"),
}


def prepared(folder: Path, edit: Callable[[dict[str, Any]], Any]) -> Home:
    home = Home.fresh(folder)
    document = registration("claude")
    marker = {"type": "command", "command": f"{sys.executable} -c \"open('{folder / 'marker'}', 'w')\""}
    document["hooks"]["SessionStart"] = [{"hooks": [marker]}]
    home.write("project/.claude/settings.json", edit(document))
    return home


def run_claude(program: Path, home: Home, url: str) -> bool:
    """Whether Claude Code used the project's settings (its SessionStart hook ran)."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home.home), "ANTHROPIC_BASE_URL": url,
           "ANTHROPIC_API_KEY": "test-key", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
           "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1,localhost"}
    subprocess.run([str(program), "-p", "hello", "--output-format", "json"], cwd=home.project, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False)
    return (home.home.parent / "marker").exists()


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[bool, list[str]]]:
    """For each case: whether the real Claude Code used the file, and doctor's problems about it."""
    program = host_program("claude")
    homes = {name: prepared(tmp_path_factory.mktemp("claude-settings"), edit) for name, edit in CASES.items()}
    with ScriptedModel(Refusing(), []) as model, ThreadPoolExecutor(max_workers=len(homes)) as pool:
        used = dict(zip(homes, pool.map(lambda home: run_claude(program, home, model.url), homes.values()),
                        strict=True))
        assert model.requests, "Claude Code asked the model server nothing"
    found = {}
    for name, home in homes.items():
        findings, _ = claude.from_files(home.context())
        found[name] = (used[name], [str(finding) for finding in findings if finding.status == "problem"])
    return found


@pytest.mark.parametrize("name", CASES)
def test_doctor_calls_a_settings_file_ignored_exactly_when_claude_code_ignores_it(verdicts, name):
    used, problems = verdicts[name]
    assert (used, any(IGNORED in problem for problem in problems)) in ((True, False), (False, True)), problems
    if used:
        assert problems == []


def test_the_cases_cover_both_verdicts(verdicts):
    assert {used for used, _ in verdicts.values()} == {True, False}
