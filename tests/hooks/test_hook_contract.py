"""What every ``toolguards hook HOST`` call keeps to: exit 0, one JSON object or nothing on stdout, any failure one
line on stderr; one transaction per event; and a process that imports only what its event needs."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from conftest import FIRST, FIRST_ZH, detailed
from support.hooks import TOOLGUARDS, command, hook, outputs
from toolguards.cli import main
from toolguards.commands import hook as hook_command
from toolguards.hooks import command as invocation
from toolguards.stores import sqlite as sqlite_store

LS = '{"command":"ls -la"}'


def bash(call_id: str, command_line: str = "ls -la", session: str = "s1") -> dict[str, Any]:
    return {"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": command_line}, "tool_response": "total 0", "tool_use_id": call_id}


def answer(text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}})


@pytest.fixture
def reminding(tmp_path) -> bytes:
    """The third identical call, after two: its process has a reminder to print."""
    outputs("claude", tmp_path, [bash("c1"), bash("c2")])
    return json.dumps(bash("c3")).encode()


def shell(line: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["/bin/sh", "-c", line], input=stdin, capture_output=True, timeout=60)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_stdout_on_a_full_disk_is_one_line(tmp_path, reminding):
    with open("/dev/full", "wb") as full:
        done = subprocess.run(command("claude", tmp_path), input=reminding, stdout=full, stderr=subprocess.PIPE,
                              timeout=60)
    assert (done.returncode, done.stderr) == (0, b"toolguards hook: cannot write the answer to stdout (No space left "
                                                 b"on device)\n")


@pytest.mark.skipif(os.name != "posix", reason="POSIX shells and pipes")
def test_a_closed_stdout_and_a_pipe_nobody_reads_are_one_line(tmp_path, reminding):
    done = shell(f"exec '{TOOLGUARDS}' hook claude --state-dir '{tmp_path}' >&-", reminding)
    assert (done.returncode, done.stderr) == (0, b"toolguards hook: cannot write the answer to stdout (stdout is "
                                                 b"closed)\n")
    assert outputs("claude", tmp_path, [bash("c4")]) == [""]  # the third call was counted all the same
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(command("claude", tmp_path), input=json.dumps(bash("c5")).encode(), stdout=write_end,
                              stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, b"toolguards hook: cannot write the answer to stdout (Broken pipe)\n")


@pytest.mark.skipif(os.name != "posix", reason="POSIX shells")
def test_a_closed_stdin_is_one_line(tmp_path):
    done = shell(f"exec '{TOOLGUARDS}' hook gemini --state-dir '{tmp_path}' <&-")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"toolguards hook: stdin is closed\n")


def test_a_10000_call_batch_is_one_transaction(tmp_path, monkeypatch):
    statements: list[str] = []
    connect = sqlite3.connect

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = connect(*args, **kwargs)
        connection.set_trace_callback(statements.append)
        return connection

    monkeypatch.setattr(sqlite_store.sqlite3, "connect", traced)
    calls = [{"tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": f"b{i}",
              "tool_response": "total 0"} for i in range(10_000)]
    batch = json.dumps({"session_id": "s1", "hook_event_name": "PostToolBatch", "tool_calls": calls})
    text, notices = invocation.run("claude", batch, state_dir=tmp_path)
    assert (json.loads(text), notices) == ({"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext":
        "\n\n".join([FIRST, detailed("Bash", 5, LS), detailed("Bash", 8, LS)])}}, ())
    begins = [s for s in statements if s.startswith("BEGIN")]
    assert (begins, statements.count("COMMIT")) == (["BEGIN IMMEDIATE", "BEGIN IMMEDIATE"], 2)  # the open, the batch
    assert sum(s.startswith("INSERT OR REPLACE INTO toolguards_state") for s in statements) == 10_000


def test_a_store_failure_half_way_rolls_the_whole_batch_back(tmp_path, monkeypatch):
    calls = [{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": f"b{i}"} for i in range(10)]
    batch = json.dumps({"session_id": "s1", "hook_event_name": "PostToolBatch", "tool_calls": calls})
    update = sqlite_store.SqliteStore.update
    seen = []

    def failing(self: Any, agent: Any, step: Any) -> Any:
        seen.append(agent)
        if len(seen) == 6:
            with self.database.transaction() as connection:
                connection.execute("INSERT INTO no_such_table VALUES (1)")
        return update(self, agent, step)

    monkeypatch.setattr(sqlite_store.SqliteStore, "update", failing)
    with pytest.raises(invocation.HookError) as error:
        invocation.run("claude", batch, state_dir=tmp_path)
    assert str(error.value) == ("repeat-tool-reminder.observe failed and was skipped (OperationalError: no such table: "
                                "no_such_table)")
    assert len(seen) == 10  # the engine went on, and nothing more was written after the failure
    with sqlite3.connect(tmp_path / "claude-code.sqlite3") as connection:
        assert connection.execute("SELECT count(*) FROM toolguards_state").fetchone() == (0,)
    connection.close()  # the with block commits, never closes (Python 3.13 warns of an unclosed one)


def test_a_stored_state_of_another_version_is_one_notice_and_a_fresh_chain(tmp_path):
    outputs("claude", tmp_path, [bash("v1")])
    with sqlite3.connect(tmp_path / "claude-code.sqlite3") as connection:
        connection.execute("UPDATE toolguards_state SET state = ?",
                           (json.dumps({"kind": "repeat-tool-reminder", "version": 0, "state": [1, 2]}),))
    connection.close()
    done = hook("claude", tmp_path, bash("v2"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", (
        "toolguards hook: a stored repeat-tool-reminder state of version 0 was discarded (this version reads version "
        "1); that chain starts afresh\n"))
    assert outputs("claude", tmp_path, [bash("v3"), bash("v4")]) == ["", answer(FIRST) + "\n"]


def test_a_guard_that_fails_is_one_line_and_no_output(tmp_path):
    guards = tmp_path / "g.yaml"
    guards.write_text("templateDirs: [t]\nguards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [2]}\n")
    first = tmp_path / "t" / "en" / "repeat-tool-reminder" / "first.j2"
    first.parent.mkdir(parents=True)
    first.write_text("{{ tool }} {{ 10 // (count - 2) }}")  # renders with the sample count (5), fails at 2
    assert outputs("claude", tmp_path, [bash("f1")], "--config", str(guards)) == [""]
    done = hook("claude", tmp_path, bash("f2"), "--config", str(guards))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "toolguards hook: repeat-tool-reminder.observe "
                                                                  "failed and was skipped (ZeroDivisionError: "
                                                                  "integer division or modulo by zero)\n")


def test_an_internal_error_is_one_line(monkeypatch, capsys):
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("surprise")

    monkeypatch.setattr(invocation, "run_event", broken)
    event = {"session_id": "g", "hook_event_name": "AfterTool", "tool_name": "read_file", "tool_input": {}}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(event).encode())))
    assert main(["hook", "gemini", "--state-dir", "x"]) == 0
    assert capsys.readouterr() == ("", "toolguards hook: internal error (KeyError: 'surprise')\n")


@pytest.mark.parametrize("argv", [
    ["claude"],
    ["codex", "--config", "g.yaml"],
    ["gemini", "--config=g.yaml", "--locale", "zh", "--state-dir", "/var/lib/s"],
    ["cursor", "--state-dir=", "--config", ""],
    ["claude", "--locale", "a", "--locale", "b"],
    ["claude", "--config", "a=b.yaml"],
])
def test_the_fast_reader_reads_every_command_line_as_argparse_does(argv):
    fast = hook_command._fast(argv)
    assert fast is not None
    assert fast == dict(vars(hook_command._options().parse_args(argv)))


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["claude", "--conf", "x"], ["claude", "--config"], ["claude", "--config", "-x"], ["claude", "x"],
    ["claude", "--", "x"], ["claud"],
])
def test_anything_else_is_left_to_argparse(argv):
    assert hook_command._fast(argv) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fast path is Linux's XDG rule")
@pytest.mark.parametrize("environ", [
    {"HOME": "/home/u"},
    {"HOME": "/home/u/"},
    {"HOME": "/"},
    {"HOME": "/home/u", "XDG_CACHE_HOME": "/var/cache/me"},
    {"HOME": "/home/u", "XDG_CACHE_HOME": "/var/cache/me/"},
    {"HOME": "/home/u", "XDG_CACHE_HOME": "relative/cache"},
    {"HOME": "/home/u", "XDG_CACHE_HOME": ""},
    {"HOME": "/home/u", "XDG_CACHE_HOME": " "},
])
def test_the_xdg_fast_path_agrees_with_platformdirs(monkeypatch, environ):
    for name in ("HOME", "XDG_CACHE_HOME", "ANDROID_DATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert invocation.xdg_cache_dir() == platformdirs.user_cache_dir("toolguards", appauthor=False)
    assert invocation.default_state_dir() == platformdirs.user_cache_dir("toolguards", appauthor=False)


def test_where_the_fast_path_does_not_answer_platformdirs_does(monkeypatch):
    monkeypatch.setenv("HOME", "relative")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert invocation.xdg_cache_dir() is None
    assert invocation.default_state_dir() == platformdirs.user_cache_dir("toolguards", appauthor=False)


IMPORTS = """
import io, json, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from toolguards.cli import main
main(sys.argv[2:])
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def imported(tmp_path: Path, event: dict[str, Any], *argv: str) -> set[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", IMPORTS, json.dumps(event), *argv], capture_output=True, text=True,
                          env=env, timeout=60)
    return set(json.loads(done.stderr.splitlines()[-1]))


def test_an_ignored_event_imports_neither_the_engine_nor_the_state(tmp_path):
    found = imported(tmp_path, {"session_id": "s", "hook_event_name": "PreToolUse"}, "hook", "claude")
    assert sorted(m for m in found if m.startswith("toolguards")) == [
        "toolguards", "toolguards.cli", "toolguards.commands", "toolguards.commands.hook", "toolguards.hooks",
        "toolguards.hooks.claude", "toolguards.hooks.protocol"]
    assert sorted(found & {"sqlite3", "dataclasses", "typing", "logging", "argparse", "platformdirs", "pathlib"}) == []


def test_a_counted_event_imports_no_loader_schema_templates_or_plugins(tmp_path):
    imported(tmp_path, bash("w1"), "hook", "claude")  # compiles the guard file
    found = imported(tmp_path, bash("w2"), "hook", "claude")
    assert "toolguards.engine" in found
    heavy = {"ruamel", "jsonschema", "jinja2", "importlib.metadata", "platformdirs", "toolguards.guardfile.loader", "argparse",
             "toolguards.kinds.cycle_reminder", "toolguards.commands.replay", "hashlib", "urllib.parse",
             # standard-library modules the engine's own modules no longer import on this path (each costs
             # milliseconds against a bare interpreter's twenty): logging only for a warning, threading for its lock,
             # the diagnostics (and their regex) only for a guard file with problems
             "logging", "traceback", "threading", "decimal", "toolguards.guardfile.diagnostics",
             # dataclasses imports inspect (with ast, dis and tokenize): the hook's values are toolguards.values';
             # weakref only for the canonical form's first warning
             "dataclasses", "inspect", "weakref"}
    assert sorted(found & heavy) == []


def test_help_lists_every_command_and_a_command_imports_only_itself(capsys, monkeypatch):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(f"    {name}" in out for name in ("hook", "validate", "replay", "schema"))
    done = subprocess.run([sys.executable, "-c", "import sys; from toolguards.cli import main; main(['schema']); "
                           "print(sorted(m for m in sys.modules if m.startswith('toolguards.commands.')), "
                           "file=sys.stderr)"], capture_output=True, text=True, timeout=60)
    # the one command, and the vocabulary every command's parser is made of
    assert done.stderr.splitlines()[-1] == (
        "['toolguards.commands.options', 'toolguards.commands.parser', 'toolguards.commands.schema']")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX feature")
def test_a_guard_file_that_is_a_named_pipe_is_one_line_and_never_waited_on(tmp_path):
    # The compiled cache reads the guard file to key its entry: as the loader does, it refuses a pipe at once.
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    event = {"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"},
             "tool_response": "", "tool_use_id": "c1"}
    done = hook("claude", tmp_path / "state", event, "--config", str(pipe))
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == f"toolguards hook: {pipe}: not a regular file (a named pipe)\n"


def host_call(host: str, call_id: str) -> dict[str, Any]:
    """A call as each host writes the event on the hook's stdin (the third identical one draws a reminder)."""
    shell = {"tool_input": {"command": "ls"}}
    if host == "claude":
        return bash(call_id)
    if host == "codex":
        return {"session_id": "s1", "turn_id": "t1", "transcript_path": None, "cwd": "/p", "model": "gpt-5",
                "hook_event_name": "PostToolUse", "permission_mode": "default", "tool_name": "Bash", **shell,
                "tool_response": "total 0", "tool_use_id": call_id}
    if host == "gemini":
        return {"session_id": "s1", "transcript_path": "/t.json", "cwd": "/p", "hook_event_name": "AfterTool",
                "timestamp": "2026-05-11T11:26:55.123Z", "tool_name": "run_shell_command", **shell,
                "tool_response": {"llmContent": "total 0", "returnDisplay": ""}}
    return {"conversation_id": "s1", "generation_id": "g", "hook_event_name": "postToolUse", "tool_name": "Shell",
            **shell, "tool_use_id": call_id, "tool_output": "total 0"}


@pytest.mark.parametrize(("host", "raw"), [("claude", True), ("codex", True), ("gemini", False), ("cursor", False)])
def test_non_ascii_goes_out_as_utf8_where_the_host_decodes_the_whole_stdout(tmp_path, host, raw):
    # Claude Code decodes stdout with a stream decoder (setEncoding("utf8")), Codex the whole output at once
    # (String::from_utf8_lossy): UTF-8 as is. Gemini CLI decodes each chunk apart (a character cut between two reads
    # would be lost) and Cursor's reader cannot be read: JSON's \u escapes, which no reader gets wrong.
    done = [subprocess.run(command(host, tmp_path, "--locale", "zh"), input=json.dumps(host_call(host, f"c{n}")).encode(),
                           capture_output=True, timeout=60) for n in range(3)]
    assert [(d.returncode, d.stderr) for d in done] == [(0, b"")] * 3
    stdout = done[2].stdout
    assert FIRST_ZH in json.dumps(json.loads(stdout), ensure_ascii=False)
    assert (FIRST_ZH.encode("utf-8") in stdout) is raw
    assert (b"\\u4f60" in stdout) is not raw


def test_a_lone_surrogate_in_a_tool_name_is_written_as_its_json_escape(tmp_path):
    # JSON may escape a lone surrogate into a tool name; UTF-8 cannot hold one: it goes out as JSON writes it, \\udxxx.
    twice = tmp_path / "twice.yaml"
    twice.write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [2, 3]\n", encoding="utf-8")
    events = [json.dumps({**bash(f"c{n}"), "tool_name": "Bash\ud800"}).encode() for n in range(3)]
    done = [subprocess.run(command("claude", tmp_path, "--config", str(twice)), input=event, capture_output=True,
                           timeout=60) for event in events]
    assert [(d.returncode, d.stderr) for d in done] == [(0, b"")] * 3
    assert b"- tool: Bash\\ud800\\n" in done[2].stdout
    assert "- tool: Bash\ud800\n" in json.loads(done[2].stdout)["hookSpecificOutput"]["additionalContext"]
