"""``toolguards hook install|uninstall HOST``: the registration merged into each host's own config file."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import FIRST, REPO
from support import docs_blocks
from support.hooks import TOOLGUARDS, codex_problems
from support.programs import CLAUDE_VERSION, on_path, program_printing
from toolguards.cli import main
from toolguards.guardfile.loader import check_file
from toolguards.hooks import HOSTS
from toolguards.hooks.install import BACKUP_SUFFIX, ours
from toolguards.resources import shipped_guard_file

CONFIG = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json",
          "cursor": ".cursor/hooks.json"}


def entries(host: str, hook: dict[str, Any]) -> dict[str, Any]:
    """What each host's registration must be, written out by hand from the hosts' documentation."""
    if host == "claude":
        return {"PostToolUse": {"matcher": "*", "hooks": [hook]}, "PostToolUseFailure": {"matcher": "*", "hooks": [hook]},
                "PostToolBatch": {"hooks": [hook]}, "UserPromptSubmit": {"hooks": [hook]}}
    if host == "codex":
        return {"PostToolUse": {"hooks": [hook]}, "UserPromptSubmit": {"hooks": [hook]}}
    if host == "gemini":
        return {"AfterTool": {"matcher": "*", "hooks": [hook]}, "BeforeAgent": {"hooks": [hook]}}
    return {"postToolUse": hook, "postToolUseFailure": hook, "beforeSubmitPrompt": hook}


def registered(host: str) -> str:
    """The command install registers: Gemini CLI's with the guard file that reminds before its own loop detection."""
    shipped = f" --config {shipped_guard_file('gemini-cli.yaml')}" if host == "gemini" else ""
    return f"{TOOLGUARDS} hook {host}{shipped}"


def handler(host: str, command: str | None = None) -> dict[str, Any]:
    command = command or registered(host)
    if host == "gemini":
        return {"name": "toolguards", "type": "command", "command": command}
    if host == "cursor":
        return {"command": command}
    return {"type": "command", "command": command}


def fresh(host: str) -> dict[str, Any]:
    found: dict[str, Any] = {"version": 1} if host == "cursor" else {}
    found["hooks"] = {event: [entry] for event, entry in entries(host, handler(host)).items()}
    return found


EXISTING: dict[str, dict[str, Any]] = {
    "claude": {
        "$schema": "https://json.schemastore.org/claude-code-settings.json",
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
            "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}],
        },
        "model": "opus",
    },
    "codex": {
        "description": "team hooks",
        "hooks": {
            "PostToolUse": [{"matcher": "apply_patch", "hooks": [{"type": "command", "command": "cargo fmt",
                                                                  "timeout": 30}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
    },
    "gemini": {
        "general": {"vimMode": True},
        "hooksConfig": {"enabled": True},
        "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"name": "lint", "type": "command",
                                                                      "command": "eslint --fix"}]}]},
        "ui": {"theme": "GitHub"},
    },
    "cursor": {
        "version": 1,
        "hooks": {"afterFileEdit": [{"command": "./format.sh"}], "postToolUse": [{"command": "./audit.sh", "timeout": 5}]},
    },
}


def merged(host: str) -> dict[str, Any]:
    """EXISTING[host] with our entries appended: other hooks first and in their order, new events last."""
    found = json.loads(json.dumps(EXISTING[host]))
    for event, entry in entries(host, handler(host)).items():
        found["hooks"].setdefault(event, []).append(entry)
    return found


def ordered(value: Any) -> str:
    return json.dumps(value)  # keeps key order: equal texts mean equal documents in the same order


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["hook", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    trusted = tmp_path / "home" / ".gemini" / "trustedFolders.json"  # else install notes that Gemini CLI would not run it
    trusted.parent.mkdir(parents=True)
    trusted.write_text(json.dumps({str(tmp_path): "TRUST_FOLDER"}))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    # install asks `claude --version` whether to register PostToolBatch: a current one answers (tests/hooks has the rest)
    program_printing(tmp_path / "bin", "claude", CLAUDE_VERSION)
    monkeypatch.setenv("PATH", on_path(tmp_path / "bin"))
    return tmp_path


def codex_notes(host: str, project: Path) -> str:
    """What install adds for Codex in a folder it does not trust, with hooks it has not reviewed (tests/hooks has
    the other cases)."""
    if host != "codex":
        return ""
    config = project / "home" / ".codex" / "config.toml"
    return ("toolguards hook install: Codex will not run these hooks until they are reviewed: trust them in /hooks in "
            "`codex`, or install again with --trust\n"
            f"toolguards hook install: Codex loads no hooks of {project} until the project is trusted: trust it when "
            f'`codex` asks there, or add [projects."{project}"] trust_level = "trusted" to {config}\n')


@pytest.mark.parametrize("host", HOSTS)
def test_install_into_a_missing_file_then_again(project, capsys, host):
    path = project / CONFIG[host]
    code, out, err = run(capsys, "install", host)
    assert (code, out) == (0, "")
    events = ", ".join(entries(host, {}))
    notes = codex_notes(host, project)
    assert err == f"toolguards hook install: {path}: {events} run {registered(host)}\n" + notes
    assert path.read_text(encoding="utf-8") == json.dumps(fresh(host), indent=2) + "\n"
    assert not (project / (CONFIG[host] + BACKUP_SUFFIX)).exists()
    code, out, err = run(capsys, "install", host)
    assert (code, err) == (0, f"toolguards hook install: {path} unchanged: {events} run {registered(host)}\n"
                              + notes)
    assert path.read_text(encoding="utf-8") == json.dumps(fresh(host), indent=2) + "\n"


@pytest.mark.parametrize("host", HOSTS)
def test_install_into_an_empty_file_keeps_a_backup(project, capsys, host):
    path = project / CONFIG[host]
    path.parent.mkdir(parents=True)
    path.write_text("")
    assert run(capsys, "install", host)[0] == 0
    assert ordered(json.loads(path.read_text())) == ordered(fresh(host))
    assert (project / (CONFIG[host] + BACKUP_SUFFIX)).read_text() == ""


@pytest.mark.parametrize("host", HOSTS)
def test_install_into_an_existing_file_keeps_everything_and_its_order(project, capsys, host):
    path = project / CONFIG[host]
    path.parent.mkdir(parents=True)
    original = json.dumps(EXISTING[host], indent=4) + "\n"
    path.write_text(original)
    path.chmod(0o640)
    code, _, err = run(capsys, "install", host)
    assert code == 0
    assert err.removesuffix(codex_notes(host, project)).endswith(f" (the previous file is {path}{BACKUP_SUFFIX})\n")
    assert path.read_text() == json.dumps(merged(host), indent=4) + "\n"  # its indentation too
    assert path.stat().st_mode & 0o777 == 0o640
    assert (project / (CONFIG[host] + BACKUP_SUFFIX)).read_text() == original
    run(capsys, "install", host)
    assert path.read_text() == json.dumps(merged(host), indent=4) + "\n"  # twice: still one entry per event
    code, _, err = run(capsys, "uninstall", host)
    removed = len(entries(host, {}))
    assert (code, err) == (0, f"toolguards hook uninstall: {path}: removed {removed} hooks of toolguards hook {host}"
                              f" (the previous file is {path}{BACKUP_SUFFIX})\n")
    assert path.read_text() == original  # only our entries, and the lists that held nothing else, are gone
    code, _, err = run(capsys, "uninstall", host)
    assert (code, err) == (0, f"toolguards hook uninstall: {path} unchanged: removed 0 hooks of toolguards hook {host}\n")


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize(("text", "problem"), [
    ('{"hooks": {}', "is not valid JSON (line 1, column 13: Expecting ',' delimiter)"),
    ('{\n  // mine\n  "hooks": {}\n}', "is not valid JSON (line 2, column 3: Expecting property name enclosed in "
                                      "double quotes)"),
    ('{"hooks": {}, "hooks": {}}', "the key `hooks` appears twice"),
    ("[]", "holds a JSON list, not an object"),
    ('{"hooks": []}', "`hooks` is a list, not an object"),
    ("\xff", "is not UTF-8 text (invalid start byte at byte 0)"),
])
def test_a_broken_file_is_refused_and_left_untouched(project, capsys, host, text, problem):
    path = project / CONFIG[host]
    path.parent.mkdir(parents=True)
    raw = text.encode("latin-1") if text == "\xff" else text.encode("utf-8")
    path.write_bytes(raw)
    for action in ("install", "uninstall"):
        code, out, err = run(capsys, action, host)
        assert (code, out, err) == (1, "", f"toolguards hook {action}: {path}: {problem}; left untouched\n")
        assert path.read_bytes() == raw
    assert not (project / (CONFIG[host] + BACKUP_SUFFIX)).exists()


def test_an_event_list_of_another_shape_is_refused(project, capsys):
    path = project / CONFIG["claude"]
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {"PostToolUse": {"matcher": "*"}}}')
    assert run(capsys, "install", "claude") == (
        1, "", f"toolguards hook install: {path}: `hooks.PostToolUse` is a object, not a list; left untouched\n")


@pytest.mark.parametrize("host", HOSTS)
def test_an_older_registration_is_updated_where_it_stands(project, capsys, host):
    path = project / CONFIG[host]
    path.parent.mkdir(parents=True)
    old = handler(host, f"/old/venv/bin/toolguards hook {host} --locale zh")
    first = next(iter(entries(host, {})))
    before = {"hooks": {first: [entries(host, old)[first] | ({"timeout": 9} if host == "cursor" else {})]}}
    path.write_text(json.dumps(before))
    assert run(capsys, "install", host)[0] == 0
    found = json.loads(path.read_text())
    updated = found["hooks"][first][0]
    if host == "cursor":
        assert updated == {"command": f"{TOOLGUARDS} hook {host}", "timeout": 9}  # what the user added stays
    else:
        assert updated["hooks"] == [handler(host)]
    assert path.read_text().count(" hook ") == len(entries(host, {}))
    assert "\n" not in path.read_text().strip()  # a one-line file stays one line


def test_the_user_scope_and_an_explicit_settings_file_and_a_dry_run(project, capsys):
    code, _, _ = run(capsys, "install", "codex", "--scope", "user")
    assert code == 0
    assert json.loads((project / "home" / ".codex" / "hooks.json").read_text()) == fresh("codex")
    other = project / "elsewhere.json"
    code, out, err = run(capsys, "install", "gemini", "--settings", str(other), "--dry-run")
    assert (code, out) == (0, json.dumps(fresh("gemini"), indent=2) + "\n")
    assert err == (f"toolguards hook install: {other} (dry run, nothing written): AfterTool, BeforeAgent run "
                   f"{registered('gemini')}\n")
    assert not other.exists()


def test_claude_http_hooks_for_toolguards_serve(project, capsys):
    url = "http://127.0.0.1:8787/hooks/claude"
    path = project / CONFIG["claude"]
    assert run(capsys, "install", "claude")[0] == 0
    assert run(capsys, "install", "claude", "--http", url)[0] == 0  # replaces the command hooks: one way in
    http = {"type": "http", "url": url}
    assert ordered(json.loads(path.read_text())) == ordered(
        {"hooks": {event: [entry] for event, entry in entries("claude", http).items()}})
    assert run(capsys, "uninstall", "claude", "--http", url)[0] == 0
    assert json.loads(path.read_text()) == {}
    with pytest.raises(SystemExit) as exit_code:
        run(capsys, "install", "codex", "--http", url)
    assert exit_code.value.code == 2
    assert capsys.readouterr().err.endswith(f"\ntoolguards hook install: --http: {url!r} does not end in /hooks/codex, "
                                            "the endpoint of toolguards serve for codex\n")  # codex's own: tests/hooks/test_curl_hook


def test_claude_http_hooks_carry_the_served_token_from_the_environment(project, capsys):
    url = "http://127.0.0.1:8787/hooks/claude"
    path = project / CONFIG["claude"]
    assert run(capsys, "install", "claude", "--http", url)[0] == 0
    assert run(capsys, "install", "claude", "--http", url, "--token-env", "TOOLGUARDS_TOKEN")[0] == 0  # in place
    http = {"type": "http", "url": url, "headers": {"Authorization": "Bearer ${TOOLGUARDS_TOKEN}"},
            "allowedEnvVars": ["TOOLGUARDS_TOKEN"]}
    assert ordered(json.loads(path.read_text())) == ordered(
        {"hooks": {event: [entry] for event, entry in entries("claude", http).items()}})
    assert run(capsys, "uninstall", "claude", "--http", url)[0] == 0
    assert json.loads(path.read_text()) == {}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--token-env", "T"], "\ntoolguards hook install: --token-env: only with --http\n"),
        (["--http", "http://127.0.0.1:1/hooks/claude", "--token-env", "A-B"],
         "\ntoolguards hook install: --token-env: 'A-B' is not an environment variable name (letters, digits, _)\n"),
        (["--http", "http://127.0.0.1:1/hooks/claude", "--token-env", "1A"],
         "\ntoolguards hook install: --token-env: '1A' is not an environment variable name (letters, digits, _)\n"),
    ],
)
def test_token_env_is_checked(project, capsys, args, message):
    with pytest.raises(SystemExit) as exit_code:
        run(capsys, "install", "claude", *args)
    assert exit_code.value.code == 2
    assert capsys.readouterr().err.endswith(message)
    assert not (project / CONFIG["claude"]).exists()


def test_a_guard_file_is_checked_and_passed_by_its_absolute_path(project, capsys):
    good = project / "g.yaml"
    good.write_text("guards:\n  - id: repeat-tool-reminder\n")
    bad = project / "bad.yaml"
    bad.write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: []\n")
    code, _, err = run(capsys, "install", "cursor", "--config", "bad.yaml")
    assert (code, err) == (1, f"toolguards hook install: the guard file has problems, so nothing was installed: "
                              f"{bad}:4:19: guards[0].config.thresholds: `thresholds` must not be empty\n")
    assert not (project / CONFIG["cursor"]).exists()
    assert run(capsys, "install", "cursor", "--config", "g.yaml")[0] == 0
    command = json.loads((project / CONFIG["cursor"]).read_text())["hooks"]["postToolUse"][0]["command"]
    assert command == f"{TOOLGUARDS} hook cursor --config {good}"


@pytest.mark.parametrize(("command", "expected"), [
    ("toolguards hook claude", True),
    ("/a b/venv/bin/toolguards hook claude --config x", False),  # unquoted spaces: another program's arguments
    ("'/a b/venv/bin/toolguards' hook claude --config x", True),
    ("python -m toolguards hook claude", True),
    ("toolguards hook codex", False),
    ("toolguards validate", False),
    ("my-toolguards hook claude", False),
    ("echo toolguards hook claude", False),
    ("toolguards hook 'claude", False),
])
def test_which_handlers_are_ours(command, expected):
    assert ours({"type": "command", "command": command}, "claude") is expected


def test_the_registered_command_runs_from_another_folder(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    done = subprocess.run([str(TOOLGUARDS), "hook", "install", "codex"], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (group,) = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]["PostToolUse"]
    command = group["hooks"][0]["command"] + f" --state-dir {tmp_path / 'state'}"
    events = [COUNTED["codex"] | {"tool_use_id": f"c{i}"} for i in range(3)]
    assert [codex_problems("post-tool-use.command.input", event) for event in events] == [[], [], []]
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"} | {"PATH": "/usr/bin:/bin"}
    said = [subprocess.run(command, shell=True, cwd=tmp_path, input=json.dumps(event), capture_output=True, text=True,
                           env=env).stdout for event in events]
    assert said[:2] == ["", ""]
    reply = json.loads(said[2])
    assert reply == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": FIRST}}
    assert codex_problems("post-tool-use.command.output", reply) == []


EXAMPLES = {"claude": "claude-code-settings.json", "codex": "codex-hooks.json", "gemini": "gemini-settings.json",
            "cursor": "cursor-hooks.json"}
COUNTED = {
    "claude": {"hook_event_name": "PostToolUseFailure", "session_id": "s", "tool_name": "Bash",
               "tool_input": {"command": "make"}, "error": "exit 2"},
    "codex": {"hook_event_name": "PostToolUse", "session_id": "s", "turn_id": "t", "transcript_path": None,
              "cwd": "/p", "model": "gpt-5.1-codex", "permission_mode": "default", "tool_name": "Bash",
              "tool_input": {"command": "make"}, "tool_response": "exit 2"},
    "gemini": {"hook_event_name": "AfterTool", "session_id": "s", "tool_name": "run_shell_command",
               "tool_input": {"command": "make"}, "tool_response": {"llmContent": "", "returnDisplay": ""}},
    "cursor": {"hook_event_name": "postToolUse", "conversation_id": "c", "tool_name": "Shell",
               "tool_input": {"command": "make"}, "tool_output": '{"output": "", "exitCode": 0}'},
}
ANSWER_KEY = {"claude": "hookSpecificOutput", "codex": "hookSpecificOutput", "gemini": "hookSpecificOutput",
              "cursor": "additional_context"}


@pytest.mark.parametrize("host", HOSTS)
def test_each_example_is_what_install_writes_with_a_bare_command_and_it_runs(tmp_path, host):
    example = json.loads((REPO / "examples" / EXAMPLES[host]).read_text(encoding="utf-8"))
    bare = fresh(host)
    for event, entry in entries(host, handler(host, f"toolguards hook {host}")).items():
        bare["hooks"][event] = [entry]
    assert ordered(example) == ordered(bare)
    command = next(iter(example["hooks"].values()))[0]
    command = (command["hooks"][0] if "hooks" in command else command)["command"]
    env = {**os.environ, "PATH": f"{TOOLGUARDS.parent}{os.pathsep}{os.environ['PATH']}"}
    events = [COUNTED[host] | {"tool_use_id": f"x{i}"} for i in range(3)]
    if host == "codex":
        assert [codex_problems("post-tool-use.command.input", event) for event in events] == [[], [], []]
    said = [subprocess.run(f"{command} --state-dir {tmp_path}", shell=True, env=env, capture_output=True, text=True,
                           input=json.dumps(event)) for event in events]
    assert [(done.returncode, done.stderr) for done in said] == [(0, "")] * 3
    assert [done.stdout for done in said[:2]] == ["", ""]
    assert list(json.loads(said[2].stdout)) == [ANSWER_KEY[host]]
    if host == "codex":
        assert codex_problems("post-tool-use.command.output", json.loads(said[2].stdout)) == []


def test_the_docs_guard_files_for_each_host_are_valid(tmp_path):
    page = docs_blocks.blocks(REPO / "docs" / "coding-agents.md")
    blocks = [block.text for block in page if block.language == "yaml"]
    installs = [block.text for block in page if block.language == "sh"]
    assert installs == [f"toolguards hook install {host}\n" for host in HOSTS]
    shell_tools = ["Bash", "Bash", "run_shell_command", "Shell"]
    assert len(blocks) == len(shell_tools)
    for block, tool in zip(blocks, shell_tools, strict=True):
        assert f"- tools: [{tool}]" in block
        path = tmp_path / "g.yaml"
        path.write_text(block, encoding="utf-8")
        assert check_file(path) == []
