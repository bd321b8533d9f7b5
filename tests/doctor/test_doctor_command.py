"""``toolguards doctor`` as a user runs it: the hosts it picks, its output in text and JSON, and its exit codes."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from support.docs_blocks import marked
from support.doctor_homes import Home, registration
from support.hooks import TOOLGUARDS


def doctor(home: Home, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home.home), "PATH": path if path is not None else os.environ.get("PATH", os.defpath),
           "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(home.home / "etc" / "gemini.json")}
    return subprocess.run([str(TOOLGUARDS), "doctor", *args], cwd=home.project, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("args", "message"), [
    (["bogus"], "unknown host `bogus` (known: claude, codex, gemini, cursor, mcp)"),
    (["codex", "gemini", "hooks"], "unknown host `hooks` (known: claude, codex, gemini, cursor, mcp)"),
    (["--formt", "json"], "unrecognized arguments: --formt"),
    (["--format"], "argument --format: expected one argument"),
])
def test_a_usage_error_is_one_line_and_exit_2(tmp_path, args, message):
    done = doctor(Home.fresh(tmp_path), *args)
    lines = done.stderr.splitlines()  # the usage, as every command gives it with a usage error, then the one line
    assert (done.returncode, done.stdout, lines[-1]) == (2, "", f"toolguards doctor: {message}")
    assert lines[0].startswith("usage: toolguards doctor ") and len(lines) <= 3


def test_help_lists_the_hosts_and_the_exit_codes(tmp_path):
    done = doctor(Home.fresh(tmp_path), "--help")
    assert done.returncode == 0
    assert done.stdout.endswith("exit codes:\n  0 the guard will work in every host checked\n  1 it will not somewhere: "
                                "a finding is a problem (or no host has toolguards registered)\n  2 a usage error\n")


def test_with_no_host_to_check_it_says_so_and_exits_1(tmp_path):
    home = Home.fresh(tmp_path)
    done = doctor(home, path=str(home.home))
    assert (done.returncode, done.stdout, done.stderr) == (
        1, f"toolguards: problem: {home.project}: no host here has a toolguards registration, and no host's program is "
           "on PATH; fix: toolguards hook install HOST (or name the host: toolguards doctor HOST)\n",
        "toolguards doctor: no host: 1 problem, 0 notes\n")


def test_by_default_it_checks_the_hosts_registered_here_or_on_path(tmp_path):
    home = Home.fresh(tmp_path)
    home.write("project/.cursor/hooks.json", registration("cursor"))
    program = home.write("bin/gemini", "#!/bin/sh\n")
    program.chmod(0o755)
    done = doctor(home, "--format", "json", path=f"{program.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    report = json.loads(done.stdout)
    assert report["hosts"] == ["gemini", "cursor"]
    assert {finding["host"] for finding in report["findings"]} == {"gemini", "cursor"}
    assert done.stderr == "toolguards doctor: gemini, cursor: 2 problems, 0 notes\n"  # gemini: not trusted, no hook
    assert done.returncode == 1


def test_json_for_scripts_and_the_exit_code_follow_the_problems(tmp_path):
    home = Home.fresh(tmp_path)
    home.write("project/.cursor/hooks.json", registration("cursor"))
    done = doctor(home, "cursor", "--format", "json")
    report = json.loads(done.stdout)
    assert (done.returncode, report["ok"], report["hosts"]) == (0, True, ["cursor"])
    assert report["findings"][0] == {
        "host": "cursor", "status": "ok", "where": f"{home.project}/.cursor/hooks.json",
        "message": f"project scope: postToolUse, postToolUseFailure, beforeSubmitPrompt run {TOOLGUARDS} hook cursor",
        "fix": None}
    text = doctor(home, "cursor")
    assert text.returncode == 0
    assert text.stdout.splitlines() == [
        f"{finding['host']}: {finding['status']}: {finding['where']}: {finding['message']}" for finding in
        report["findings"]]
    (home.project / ".cursor" / "hooks.json").write_text("{", encoding="utf-8")
    broken = doctor(home, "cursor", "--format", "json")
    assert (broken.returncode, json.loads(broken.stdout)["ok"]) == (1, False)


def test_the_report_docs_doctor_md_shows_is_the_one_doctor_prints(tmp_path):
    """The block marked ``tested: doctor:report`` of docs/doctor.md, with the page's folders for this test's."""
    shown = marked("docs/doctor.md", "tested: doctor:report").text
    home = Home.fresh(tmp_path)
    home.write("project/.codex/hooks.json", registration("codex"))
    home.write(".codex/config.toml", f'[projects."{home.project}"]\ntrust_level = "trusted"\n')
    done = doctor(home, "codex")
    printed = (done.stdout.replace(str(TOOLGUARDS), "/home/me/.venv/bin/toolguards")
               .replace(str(home.project), "/home/me/app").replace(str(home.home), "/home/me"))
    assert (done.returncode, printed) == (1, shown)
