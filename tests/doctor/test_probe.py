"""A registered command tried as the host runs it: read from its command line, then its program, guard file, state
folder and answers, each with the exact line doctor prints."""

from __future__ import annotations

import os
import shlex
import stat
from functools import partial
from pathlib import Path

import pytest

from support.doctor_homes import Home, command, lines
from support.hooks import TOOLGUARDS
from toolguards.doctor import codex
from toolguards.doctor.probe import HookCommand, Trial, check_command, expand, read_command, state_folder
from toolguards.resources import default_guard_file

T = str(TOOLGUARDS)
DEFAULT_GUARD_FILE = default_guard_file()


@pytest.mark.parametrize(("text", "expected"), [
    ("toolguards hook codex", HookCommand("toolguards hook codex", ("toolguards", "hook", "codex"), None, None, None,
                                          True)),
    ("/v/bin/toolguards hook codex --config g.yaml --locale=zh --state-dir /s",
     HookCommand("/v/bin/toolguards hook codex --config g.yaml --locale=zh --state-dir /s",
                 ("/v/bin/toolguards", "hook", "codex", "--config", "g.yaml", "--locale=zh", "--state-dir", "/s"),
                 "g.yaml", "zh", "/s", True)),
    ("python3 -m toolguards hook codex --config 'my guards.yaml'",
     HookCommand("python3 -m toolguards hook codex --config 'my guards.yaml'",
                 ("python3", "-m", "toolguards", "hook", "codex", "--config", "my guards.yaml"), "my guards.yaml",
                 None, None, True)),
    ("toolguards hook codex 2>/dev/null", HookCommand("toolguards hook codex 2>/dev/null",
                                                      ("toolguards", "hook", "codex", "2>/dev/null"), None, None, None,
                                                      False)),
    ("toolguards hook codex --config", HookCommand("toolguards hook codex --config",
                                                   ("toolguards", "hook", "codex", "--config"), None, None, None,
                                                   False)),
    ("toolguards hook claude", None),
    ("env X=1 toolguards hook codex", None),
    ("toolguards hook 'codex", None),
    ("curl -X POST http://127.0.0.1:8787/hooks/codex", None),
])
def test_a_registered_command_line_is_read(text, expected):
    assert read_command(text, "codex") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("$GEMINI_PROJECT_DIR/g.yaml", "/p/g.yaml"),
    ("${GEMINI_PROJECT_DIR}/g.yaml", "/p/g.yaml"),
    ("$UNSET/g.yaml", "$UNSET/g.yaml"),
])
def test_variables_are_expanded_from_the_host_environment(text, expected):
    assert expand(text, {"GEMINI_PROJECT_DIR": "/p"}) == expected


@pytest.mark.parametrize(("text", "env", "expected"), [
    ("toolguards hook codex --state-dir s", {"HOME": "/h"}, "/p/s"),
    ("toolguards hook codex --state-dir ~/s", {"HOME": "/h"}, os.path.expanduser("~/s")),
    ("toolguards hook codex", {"HOME": "/h"}, "/h/.cache/toolguards"),
    ("toolguards hook codex", {"HOME": "/h", "XDG_CACHE_HOME": "/c"}, "/c/toolguards"),
    ("toolguards hook codex", {"HOME": "/h", "XDG_CACHE_HOME": "relative"}, "/h/.cache/toolguards"),
])
def test_the_state_folder_is_the_hook_s_own(text, env, expected, monkeypatch):
    monkeypatch.setattr("sys.platform", "linux")
    read = read_command(text, "codex")
    assert read is not None
    assert str(state_folder(read, env, __import__("pathlib").Path("/p"))) == expected


def trial(home: Home, fix: str = "register it again") -> Trial:
    context = home.context()
    cwd = str(home.project)
    return Trial("codex", "codex", home.project, context.env, partial(codex.reset_event, cwd=cwd),
                 partial(codex.call_event, cwd=cwd), codex.validate, fix)


def tried(home: Home, text: str, timeout: float | None = None) -> list[str]:
    read = read_command(text, "codex")
    assert read is not None
    return lines(check_command(trial(home), read, "hooks.json", home.context(), timeout))


GUARD = "guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: {thresholds}\n{more}"


def test_a_command_that_works(tmp_path):
    home = Home.fresh(tmp_path)
    home.write("project/g.yaml", GUARD.format(thresholds="[2, 3]", more=""))
    assert tried(home, command("codex", "--config", "g.yaml")) == [
        f"codex: ok: {home.project}/g.yaml: the guard file validates",
        f"codex: ok: {home.home}/.cache/toolguards: the state folder is writable",
        "codex: ok: hooks.json: the command answers as the host expects: the reminder at the 2nd identical call"]
    assert not (home.home / ".cache").exists()


def test_a_program_that_is_gone(tmp_path):
    home = Home.fresh(tmp_path)
    gone = home.home / "old-venv" / "bin" / "toolguards"
    assert tried(home, f"{gone} hook codex") == [
        f"codex: problem: hooks.json: the command's program {gone} is not found, so the host cannot run it; fix: "
        "register it again",
        "codex: ok: hooks.json: no --config: the hook runs the shipped default guard file",
        f"codex: ok: {home.home}/.cache/toolguards: the state folder is writable"]


@pytest.mark.parametrize("found", [True, False])
def test_a_program_looked_up_on_the_host_path(tmp_path, found):
    home = Home.fresh(tmp_path)
    path = str(TOOLGUARDS.parent if found else home.home)
    on_path = Trial("codex", "codex", home.project, {"HOME": str(home.home), "PATH": path}, codex.reset_event,
                    codex.call_event, codex.validate, "register it again")
    read = read_command("toolguards hook codex 2>/dev/null", "codex")
    assert read is not None
    assert lines(check_command(on_path, read, "hooks.json", home.context()))[0] == (
        "codex: ok: hooks.json: no --config: the hook runs the shipped default guard file" if found else
        "codex: problem: hooks.json: the command's program toolguards is not found, so the host cannot run it; fix: "
        "register it again")


def test_a_guard_file_with_problems(tmp_path):
    home = Home.fresh(tmp_path)
    home.write("project/g.yaml", GUARD.format(thresholds="[]", more="      bogus: 1\n"))
    assert tried(home, command("codex", "--config", "g.yaml"))[0] == (
        f"codex: problem: {home.project}/g.yaml: the guard file does not validate: {home.project}/g.yaml:4:19: "
        f"guards[0].config.thresholds: `thresholds` must not be empty (and 1 more); fix: toolguards validate "
        f"{home.project}/g.yaml, and fix what it says")


def test_a_state_folder_that_cannot_be_written(tmp_path):
    home = Home.fresh(tmp_path)
    # Root writes into any folder of its own, whatever its mode: there, a folder of the kernel's that refuses even root
    # (/proc/self) stands for the locked one.
    as_root = os.geteuid() == 0
    locked = Path("/proc/self") if as_root else home.home / "locked"
    if not as_root:
        locked.mkdir()
        locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert tried(home, command("codex", "--state-dir", str(locked / "state")))[1] == (
            f"codex: problem: {locked}/state: the hook cannot keep its state here ({locked} is not writable): it "
            "answers nothing; fix: make the folder writable, or give the registered command --state-dir DIR")
    finally:
        if not as_root:
            locked.chmod(stat.S_IRWXU)


def test_a_state_folder_that_is_a_file(tmp_path):
    home = Home.fresh(tmp_path)
    blocker = home.write("blocker", "not a folder")
    assert tried(home, command("codex", "--state-dir", str(blocker / "state")))[1] == (
        f"codex: problem: {blocker}/state: the hook cannot keep its state here ({blocker} is not a folder): it answers "
        "nothing; fix: make the folder writable, or give the registered command --state-dir DIR")


def test_a_command_line_with_more_than_toolguards_options_is_not_run(tmp_path):
    home = Home.fresh(tmp_path)
    assert tried(home, f"{shlex.quote(T)} hook codex 2>/dev/null")[2:] == [
        "codex: note: hooks.json: the command line holds more than toolguards' own options, so it was not run (a "
        "throwaway state folder cannot be added to it safely)"]


def test_a_guard_file_that_gives_no_reminder_for_the_synthetic_call(tmp_path):
    home = Home.fresh(tmp_path)
    home.write("project/g.yaml", GUARD.format(thresholds="[3]", more="      exclude: [Bash]\n"))
    assert tried(home, command("codex", "--config", "g.yaml"))[2:] == [
        "codex: note: hooks.json: the command answers as the host expects, but its guard file gives no reminder within "
        "10 identical calls of Bash; fix: check the guard file's thresholds and include/exclude"]


def test_a_hook_that_cannot_answer(tmp_path):
    home = Home.fresh(tmp_path)
    assert tried(home, command("codex", "--locale", "xx"))[2:] == [
        f"codex: problem: hooks.json: the hook cannot answer: {DEFAULT_GUARD_FILE}: locale `xx` has no templates "
        "(available: en, zh); fix: register it again"]


def test_a_command_slower_than_the_registration_s_timeout(tmp_path):
    home = Home.fresh(tmp_path)
    found = tried(home, command("codex"), timeout=0.001)[2]
    assert found.startswith("codex: problem: hooks.json: the command took ")
    assert found.endswith(" s to answer, more than the registration's timeout of 0.001 s: the host gives up on it; fix: "
                          "raise the registration's timeout")


def script(home: Home, body: str) -> str:
    """A program named toolguards (another installation of it, as the host would find it) running ``body``."""
    path = home.write("other/bin/toolguards", f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(("body", "expected"), [
    ("exit 3", "exits 3 at the new-prompt event"),
    ("echo 'toolguards hook: something broke' >&2", "says 'toolguards hook: something broke' on stderr at the "
                                                   "new-prompt event"),
    ("cat >/dev/null; echo 'plain text'", "answers 'plain text' where nothing is due at the new-prompt event"),
    ('read line; case "$line" in *UserPromptSubmit*) ;; *) echo not-json ;; esac',
     "answers 'not-json' where nothing is due at the 1st identical call"),
    ('read line; case "$line" in *UserPromptSubmit*) ;; *) case "$line" in *call-3*) echo not-json ;; esac ;; esac',
     "answers 'not-json', which is not JSON at the 3rd identical call"),
    ('read line; case "$line" in *call-3*) echo \'{"additional_context": "x"}\' ;; esac',
     "answers JSON the host refuses (`top level` has a key the schema does not know: `additional_context`) at the "
     "3rd identical call"),
    ("cat >/dev/null", "answers nothing where the guard file gives a reminder at the 3rd identical call"),
])
def test_answers_the_host_would_not_take(tmp_path, body, expected):
    home = Home.fresh(tmp_path)
    assert tried(home, f"{script(home, body)} hook codex")[2:] == [
        f"codex: problem: hooks.json: the command, run as registered, {expected}; fix: run it by hand to see why, or "
        "register it afresh: register it again"]


def test_another_installation_whose_reminder_differs(tmp_path):
    home = Home.fresh(tmp_path)
    other = script(home, f'{shlex.quote(T)} "$@" | sed s/repeating/REPEATING/')
    assert tried(home, f"{other} hook codex")[2:] == [
        "codex: ok: hooks.json: the command answers as the host expects: the reminder at the 3rd identical call",
        "codex: note: hooks.json: the command's reminder differs from this installation's: it runs another version of "
        "toolguards or another guard file; fix: install the hook again from the toolguards you use"]


def test_a_command_that_hangs_is_given_up_on_once(tmp_path):
    home = Home.fresh(tmp_path)
    read = read_command(f"{script(home, 'sleep 30')} hook codex", "codex")
    assert read is not None
    context = home.context()
    impatient = type(context)(context.cwd, context.env, context.scratch, timeout=1)
    assert lines(check_command(trial(home), read, "hooks.json", impatient))[2:] == [
        "codex: problem: hooks.json: the command, run as registered, gives no answer within 1 s at the new-prompt "
        "event; fix: run it by hand to see why, or register it afresh: register it again"]
