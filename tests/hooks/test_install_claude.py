"""``toolguards hook install claude``: the parts that depend on the Claude Code installed (``PostToolBatch`` only where
it is accepted) and on its environment (``CLAUDE_CONFIG_DIR`` at user scope).

Claude Code before 2.1.101 drops a whole settings file that names an event it does not know (2.1.100 does so with
``PostToolBatch``, without a word; 2.1.101 and 2.1.118 keep the file; seen by running those versions). So install asks
the ``claude`` on PATH for its version. Here a stand-in ``claude`` prints the version a test gives it; the real program
is asked in ``tests/realhosts/test_claude_code.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import FIRST
from support.docs_blocks import marked
from support.hooks import TOOLGUARDS
from support.programs import program_printing
from toolguards.cli import main

COMMAND = f"{TOOLGUARDS} hook claude"
HANDLER = {"type": "command", "command": COMMAND}
WITH_BATCH = {
    "PostToolUse": [{"matcher": "*", "hooks": [HANDLER]}],
    "PostToolUseFailure": [{"matcher": "*", "hooks": [HANDLER]}],
    "PostToolBatch": [{"hooks": [HANDLER]}],
    "UserPromptSubmit": [{"hooks": [HANDLER]}],
}
WITHOUT_BATCH = {event: entries for event, entries in WITH_BATCH.items() if event != "PostToolBatch"}


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no other claude: the stand-in's scripts name /bin/sh
    return tmp_path


def claude_printing(project: Path, text: str, code: int = 0) -> None:
    """A ``claude`` on PATH that prints ``text`` and exits ``code``."""
    program_printing(project / "bin", "claude", text, code)


def install(capsys, *args: str) -> tuple[int, str]:
    code = main(["hook", "install", "claude", *args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("version", ["2.1.101 (Claude Code)", "2.1.197 (Claude Code)", "2.2.0 (Claude Code)",
                                     "3.0.0"])
def test_post_tool_batch_is_registered_where_claude_code_accepts_it(project, capsys, version):
    claude_printing(project, version)
    path = project / ".claude" / "settings.json"
    assert install(capsys) == (0, f"toolguards hook install: {path}: PostToolUse, PostToolUseFailure, PostToolBatch, "
                                  f"UserPromptSubmit run {COMMAND}\n")
    assert json.dumps(json.loads(path.read_text())) == json.dumps({"hooks": WITH_BATCH})


LEFT_OUT = "PostToolBatch left out: {} (claude before 2.1.101 drops a config file that names it)"


@pytest.mark.parametrize(("output", "code", "why"), [
    ("2.1.100 (Claude Code)", 0, "claude 2.1.100 is older than 2.1.101"),
    ("2.0.76 (Claude Code)", 0, "claude 2.0.76 is older than 2.1.101"),
    ("Claude Code", 0, "`claude --version` printed no version"),
    ("2.1.197 (Claude Code)", 3, "`claude --version` exited 3"),
    (None, 0, "no `claude` on PATH to tell its version"),
])
def test_post_tool_batch_is_left_out_where_claude_code_would_drop_the_file(project, capsys, output, code, why):
    if output is not None:
        claude_printing(project, output, code)
    path = project / ".claude" / "settings.json"
    assert install(capsys) == (0, f"toolguards hook install: {path}: PostToolUse, PostToolUseFailure, UserPromptSubmit "
                                  f"run {COMMAND}; {LEFT_OUT.format(why)}\n")
    assert json.dumps(json.loads(path.read_text())) == json.dumps({"hooks": WITHOUT_BATCH})


def test_installing_again_for_an_older_claude_code_takes_our_batch_entry_out(project, capsys):
    path = project / ".claude" / "settings.json"
    claude_printing(project, "2.1.197 (Claude Code)")
    theirs = {"type": "command", "command": "./audit-batch.sh"}
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"PostToolBatch": [{"hooks": [theirs]}]}}))
    assert install(capsys)[0] == 0
    assert json.loads(path.read_text())["hooks"]["PostToolBatch"] == [{"hooks": [theirs]}, {"hooks": [HANDLER]}]
    claude_printing(project, "2.1.100 (Claude Code)")
    assert install(capsys)[0] == 0
    assert json.loads(path.read_text())["hooks"]["PostToolBatch"] == [{"hooks": [theirs]}]  # theirs is theirs
    path.write_text(json.dumps({"hooks": {"PostToolBatch": [{"hooks": [HANDLER]}]}}))
    assert install(capsys)[0] == 0
    assert json.dumps(json.loads(path.read_text())) == json.dumps({"hooks": WITHOUT_BATCH})


def test_http_hooks_follow_the_same_rule(project, capsys):
    url = "http://127.0.0.1:8787/hooks/claude"
    claude_printing(project, "2.1.100 (Claude Code)")
    code, err = install(capsys, "--http", url, "--dry-run")
    assert code == 0 and err.endswith(f"; {LEFT_OUT.format('claude 2.1.100 is older than 2.1.101')}\n")
    claude_printing(project, "2.1.197 (Claude Code)")
    code, err = install(capsys, "--http", url)
    document = json.loads((project / ".claude" / "settings.json").read_text())
    assert list(document["hooks"]) == list(WITH_BATCH)
    assert document["hooks"]["PostToolBatch"] == [{"hooks": [{"type": "http", "url": url}]}]


@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_the_user_scope_is_claude_config_dir_when_it_is_set(project, capsys, monkeypatch, action):
    claude_printing(project, "2.1.197 (Claude Code)")
    folder = project / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    if action == "uninstall":
        assert install(capsys, "--scope", "user")[0] == 0
    code = main(["hook", action, "claude", "--scope", "user"])
    err = capsys.readouterr().err
    assert code == 0 and err.startswith(f"toolguards hook {action}: {folder / 'settings.json'}: ")
    assert not (project / "home" / ".claude").exists()
    expected = {"hooks": WITH_BATCH} if action == "install" else {}
    assert json.loads((folder / "settings.json").read_text()) == expected


def test_the_user_scope_is_the_home_folder_without_claude_config_dir(project, capsys, monkeypatch):
    claude_printing(project, "2.1.197 (Claude Code)")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "")  # empty: as unset
    assert install(capsys, "--scope", "user")[0] == 0
    assert json.loads((project / "home" / ".claude" / "settings.json").read_text()) == {"hooks": WITH_BATCH}


DOCS = "docs/hosts/claude-code.md"


def test_the_docs_show_what_install_writes(project, capsys):
    claude_printing(project, "2.1.197 (Claude Code)")
    assert install(capsys)[0] == 0
    shown = json.loads(marked(DOCS, "tested: claude:settings").text.replace("/abs/path/toolguards", str(TOOLGUARDS)))
    assert json.dumps(shown) == json.dumps(json.loads((project / ".claude" / "settings.json").read_text()))


def test_the_docs_show_the_summary_line_without_claude_on_path(project, capsys):
    path = project / ".claude" / "settings.json"
    said = install(capsys)[1].replace(str(path.parent.parent), "/home/me/app").replace(str(TOOLGUARDS.parent),
                                                                                       "/home/me/.venv/bin")
    assert said == marked(DOCS, "tested: claude:left-out").text


def test_the_docs_check_prints_the_reminder_at_the_third_event(tmp_path):
    script = marked(DOCS, "run").text.replace("/tmp/tg-check", str(tmp_path / "state"))
    done = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{TOOLGUARDS.parent}{os.pathsep}{os.environ['PATH']}"})
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout) == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": FIRST}}
