"""``hook install HOST --http URL`` for a host with only command hooks: the registered curl command, run by a shell as
the host runs it, against a real ``toolguards serve`` — the same answers as the Python hook, and silence with a success
exit whenever the service cannot answer."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import FIRST, require
from support.docs_blocks import marked
from support.hooks import hook
from support.servers import Serve, free_port
from toolguards.cli import main
from toolguards.hooks import curl as curl_hook
from toolguards.hooks.curl import MAX_TIME, is_curl_hook

TOKEN = "0123456789abcdef-s3cret-token"
TOKEN_ENV = "TOOLGUARDS_TEST_TOKEN"
SHELLS = ("/bin/sh", "bash")  # Cursor and Gemini CLI run `sh -c` / `bash -c`; Codex runs `$SHELL -lc`


def events(host: str, session: str) -> dict[str, Any]:
    """A counted call, a new prompt, an ignored event and a failed call of ``host``, in its own shapes."""
    if host == "codex":
        base = {"session_id": session, "transcript_path": "/home/u/.codex/s.jsonl", "cwd": "/home/u/p", "turn_id": "t"}
        return {"call": base | {"hook_event_name": "PostToolUse", "tool_name": "Bash", "permission_mode": "default",
                                "tool_input": {"command": "ls -la"}, "tool_response": "total 0\n"},
                "prompt": base | {"hook_event_name": "UserPromptSubmit", "prompt": "again"},
                "ignored": base | {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}}
    if host == "gemini":
        base = {"session_id": session, "transcript_path": "/home/u/.gemini/c.json", "cwd": "/home/u/p",
                "timestamp": "2026-05-11T10:00:00.000Z"}
        return {"call": base | {"hook_event_name": "AfterTool", "tool_name": "run_shell_command",
                                "tool_input": {"command": "ls -la"},
                                "tool_response": {"llmContent": "total 0", "returnDisplay": "total 0"}},
                "prompt": base | {"hook_event_name": "BeforeAgent", "prompt": "again"},
                "ignored": base | {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}}
    base = {"conversation_id": session, "generation_id": "g", "model": "m", "cursor_version": "1.7",
            "workspace_roots": ["/home/u/p"], "user_email": None, "transcript_path": None}
    return {"call": base | {"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": {"command": "ls -la"},
                            "tool_output": json.dumps({"output": "total 0", "exitCode": 0})},
            "prompt": base | {"hook_event_name": "beforeSubmitPrompt", "prompt": "again"},
            "ignored": base | {"hook_event_name": "preToolUse", "tool_name": "Shell"}}


def script(host: str, session: str) -> list[str]:
    """A session's events as the host writes them on stdin: reminders at the 3rd and 5th identical call, a new prompt
    that starts afresh, an ignored event, events the hook cannot read, and a call whose result is 200 KB."""
    found = events(host, session)
    call, with_id = found["call"], lambda n: found["call"] | ({} if host == "gemini" else {"tool_use_id": f"c{n}"})
    big = dict(with_id(99))
    big["tool_response" if host != "cursor" else "tool_output"] = "x" * 200_000
    lines = [with_id(n) for n in range(5)] + [found["prompt"], found["ignored"]] + [with_id(n) for n in range(5, 8)]
    texts = [json.dumps(event) for event in lines]
    texts += ["not json", json.dumps({k: v for k, v in call.items() if k not in ("session_id", "conversation_id")}),
              json.dumps(big)]
    return texts


def stdins_session(stdins: list[str]) -> str:
    """The session id of a script's events."""
    first = json.loads(stdins[0])
    return str(first.get("session_id") or first["conversation_id"])


@pytest.fixture(scope="module")
def curl() -> str:
    return require("curl", "the command hook without Python runs curl", "curl")


@pytest.fixture(scope="module")
def served(curl) -> Iterator[Serve]:
    server = Serve().ready()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def guarded(curl, tmp_path_factory) -> Iterator[Serve]:
    token_file = tmp_path_factory.mktemp("token") / "token"
    token_file.write_text(TOKEN + "\n")
    server = Serve("--token-file", str(token_file)).ready()
    yield server
    server.stop()


def registered(tmp_path: Path, host: str, url: str, *more: str) -> str:
    """The command ``hook install HOST --http URL`` writes into the host's file (one for every event)."""
    path = tmp_path / f"{host}-hooks.json"
    assert main(["hook", "install", host, "--settings", str(path), "--http", url, *more]) == 0
    found = {handler["command"] for entries in json.loads(path.read_text())["hooks"].values()
             for entry in entries for handler in entry.get("hooks", [entry])}
    assert len(found) == 1 and is_curl_hook(next(iter(found)), host)
    return found.pop()


def run(command: str, stdin: str, shell: str = "/bin/sh", env: dict[str, str] | None = None
        ) -> tuple[int, str, str]:
    done = subprocess.run([shell, "-c", command], input=stdin, capture_output=True, text=True, timeout=30,
                          env=env)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("host", ["codex", "gemini", "cursor"])
def test_the_curl_hook_answers_what_the_python_hook_answers(tmp_path, served, host):
    command = registered(tmp_path, host, f"http://127.0.0.1:{served.port}/hooks/{host}")
    stdins = script(host, str(uuid.uuid4()))
    expected = []
    for stdin in stdins:
        done = hook(host, tmp_path / "state", stdin)
        expected.append((done.returncode, done.stdout))
    reminders = [out for _, out in expected if out]
    assert len(reminders) == 3 and FIRST in reminders[0]  # the 3rd and 5th identical call, the 3rd after the prompt
    session = stdins_session(stdins)
    for n, name in enumerate(SHELLS):
        shell = require(name, "the hosts run their hooks in it", name) if n else name
        # Each shell on a session of its own: the service counts each session afresh, as the Python hook did.
        found = [run(command, stdin.replace(session, f"{session}-{n}"), shell) for stdin in stdins]
        assert [(code, out) for code, out, _ in found] == expected
        assert {err for _, _, err in found} == {""}


@pytest.mark.parametrize("host", ["codex", "gemini", "cursor"])
def test_a_service_that_is_down_is_silence_and_success(tmp_path, curl, host):
    down = registered(tmp_path, host, f"http://127.0.0.1:{free_port()}/hooks/{host}")
    assert {run(down, stdin) for stdin in script(host, "down")} == {(0, "", "")}


def test_a_stopped_service_is_silence_and_success(tmp_path, curl):
    server = Serve().ready()
    try:
        command = registered(tmp_path, "codex", f"http://127.0.0.1:{server.port}/hooks/codex")
        calls = script("codex", str(uuid.uuid4()))[:3]
        assert [bool(run(command, stdin)[1]) for stdin in calls] == [False, False, True]  # answered: a reminder
    finally:
        server.stop()
    assert {run(command, stdin) for stdin in calls} == {(0, "", "")}


def test_a_service_that_never_answers_is_silence_and_success_after_max_time(tmp_path, curl):
    with socket.socket() as listener:  # takes the connection into its backlog, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        hanging = registered(tmp_path, "gemini", f"http://127.0.0.1:{listener.getsockname()[1]}/hooks/gemini")
        started = time.monotonic()
        assert run(hanging, script("gemini", "hangs")[0]) == (0, "", "")
        assert MAX_TIME <= time.monotonic() - started < MAX_TIME + 5


def test_the_token_comes_from_the_environment_and_a_wrong_one_is_silence(tmp_path, guarded):
    command = registered(tmp_path, "codex", f"http://127.0.0.1:{guarded.port}/hooks/codex", "--token-env", TOKEN_ENV)
    assert TOKEN not in command and f'"Authorization: Bearer ${TOKEN_ENV}"' in command
    calls = script("codex", str(uuid.uuid4()))[:3]
    environ = {key: value for key, value in os.environ.items() if key != TOKEN_ENV}
    for env in (environ, {**environ, TOKEN_ENV: "wrong"}):
        assert {run(command, stdin, env=env) for stdin in calls} == {(0, "", "")}  # each a 401: nothing counted
    answers = [run(command, stdin, env={**environ, TOKEN_ENV: TOKEN}) for stdin in calls]
    assert [(code, bool(out), err) for code, out, err in answers] == [(0, False, ""), (0, False, ""), (0, True, "")]


class Recorder(http.server.BaseHTTPRequestHandler):
    """Answers one request with a fixed body and keeps what it received."""

    seen: list[tuple[dict[str, str], bytes]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append((dict(self.headers), body))
        answer = b'{"additional_context": "recorded"}\n'
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


def test_what_curl_sends_and_what_of_the_callers_setup_it_ignores(tmp_path, curl):
    server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        command = registered(tmp_path, "cursor", f"http://127.0.0.1:{server.server_address[1]}/hooks/cursor")
        (tmp_path / ".curlrc").write_text("verbose\noutput = /dev/null\n")  # would print to stderr, drop stdout
        dead_proxy = f"http://127.0.0.1:{free_port()}"
        env = {**os.environ, "HOME": str(tmp_path), "CURL_HOME": str(tmp_path), "http_proxy": dead_proxy,
               "HTTP_PROXY": dead_proxy, "all_proxy": dead_proxy}
        body = json.dumps({"tool_output": "y" * 1_500_000})  # a large body: curl would wait for a 100 Continue first
        assert run(command, body, env=env) == (0, '{"additional_context": "recorded"}\n', "")
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
    headers, received = Recorder.seen[-1]
    assert received == body.encode()
    assert headers["Content-Type"] == "application/json" and "Expect" not in headers


@pytest.mark.parametrize("host", ["codex", "gemini", "cursor"])
def test_one_way_in_switching_between_the_python_hook_and_curl(tmp_path, curl, host, capsys):
    path, url = tmp_path / "hooks.json", f"http://127.0.0.1:8787/hooks/{host}"

    def install(*more: str) -> set[str]:
        assert main(["hook", "install", host, "--settings", str(path), *more]) == 0
        document = json.loads(path.read_text())
        return {handler["command"] for entries in document["hooks"].values() for entry in entries
                for handler in entry.get("hooks", [entry])}

    python = install()
    assert len(python) == 1 and not is_curl_hook(next(iter(python)), host)
    python_file = path.read_text()
    relayed = install("--http", url)
    assert len(relayed) == 1 and is_curl_hook(next(iter(relayed)), host)
    assert install("--http", url) == relayed  # twice: still one entry per event
    assert install() == python and path.read_text() == python_file  # back where it stood
    install("--http", url)
    assert main(["hook", "uninstall", host, "--settings", str(path)]) == 0
    assert "hooks" not in json.loads(path.read_text())
    capsys.readouterr()


@pytest.mark.parametrize(("line", "ours"), [
    ("/usr/bin/curl -q -s -f --data-binary @- http://h:1/hooks/codex || true", True),
    ("curl -s --data-binary @- 'https://h/x/hooks/codex?a=1' || true", True),
    ("/usr/bin/curl -q -s -f --data-binary @- http://h:1/hooks/gemini || true", False),
    ("/usr/bin/curl -q -s -f --data-binary @- http://h:1/hooks/codex", False),
    ("wget --post-file - http://h:1/hooks/codex || true", False),
    ("curl 'unbalanced", False),
])
def test_install_knows_its_own_curl_command(line, ours):
    assert is_curl_hook(line, "codex") is ours


def test_install_refuses_what_the_command_cannot_carry(tmp_path, capsys):
    for url, message in [
        ("ftp://127.0.0.1/hooks/codex", "'ftp://127.0.0.1/hooks/codex' is not an http:// or https:// URL"),
        ("http://127.0.0.1:8787/hooks/gemini",
         "'http://127.0.0.1:8787/hooks/gemini' does not end in /hooks/codex, the endpoint of toolguards serve for codex"),
        ("http://127.0.0.1:8787/it's/hooks/codex", "the URL \"http://127.0.0.1:8787/it's/hooks/codex\" holds a quote, "
         "a backslash or a control character, which not every shell would keep"),
    ]:
        with pytest.raises(SystemExit) as exit_code:
            main(["hook", "install", "codex", "--settings", str(tmp_path / "h.json"), "--http", url])
        assert exit_code.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == f"toolguards hook install: --http: {message}"
    assert not (tmp_path / "h.json").exists()


def test_the_page_shows_the_command_install_registers():
    shown = marked("docs/hooks-over-http.md", "tested: curl:command").text
    assert shown == curl_hook.command("/usr/bin/curl", "http://127.0.0.1:8787/hooks/codex", None) + "\n"
