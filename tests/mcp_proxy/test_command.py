"""``toolguards mcp``'s refusals: each a one-line message and an exit code, before anything is started."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from support.mcp_servers import TOOLGUARDS
from toolguards.cli import main

pytest.importorskip("mcp", reason="the mcp extra is not installed (pip install 'toolguards[mcp]')")

TOKEN = "0123456789abcdef0123"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "token").write_text(TOKEN + "\n", encoding="utf-8")
    (tmp_path / "short").write_text("abc\n", encoding="utf-8")
    (tmp_path / "bad.yaml").write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: []\n",
                                       encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("argv", "code", "message"), [
    ([], 2, "no server: give its command after `--` (toolguards mcp -- COMMAND [ARGS...]) or --upstream URL"),
    (["--upstream", "http://127.0.0.1:1/mcp", "--", "srv"], 2,
     "give the server as `-- COMMAND` or as --upstream URL, not both"),
    (["--upstream", "127.0.0.1:1"], 2, "--upstream must be an http:// or https:// URL, not '127.0.0.1:1'"),
    (["--token-file", "token", "--", "srv"], 2, "--token-file: only with --listen"),
    (["--store", "nosuch://x", "--", "srv"], 2,
     "--store: unknown store 'nosuch://x' (known: memory:, sqlite:, mapping:, redis:, rediss:, redis+cluster:, rediss+cluster:)"),
    (["--listen", "8788", "--", "srv"], 2, "--listen must be HOST:PORT (a port from 0 to 65535), not '8788'"),
    (["--listen", "127.0.0.1:99999", "--", "srv"], 2,
     "--listen must be HOST:PORT (a port from 0 to 65535), not '127.0.0.1:99999'"),
    (["--listen", "0.0.0.0:0", "--", "srv"], 2,
     "--listen 0.0.0.0 is not a loopback address: binding it requires --token-file (every request must then carry "
     "`Authorization: Bearer <token>`)"),
    (["--listen", "127.0.0.1:0", "--token-file", "short", "--", "srv"], 2,
     "the token in short has 3 characters; use at least 16 (`openssl rand -hex 32` makes one)"),
    (["--config", "bad.yaml", "--", "srv"], 1, "the guard file has 1 problem"),
])
def test_refusals(folder, capsys, argv, code, message):
    assert main(["mcp", *argv]) == code
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1] == f"toolguards mcp: {message}"
    assert TOKEN not in err


@pytest.mark.parametrize(("command", "code", "message"), [
    (["no-such-server-program"], 127, "cannot run no-such-server-program: not found"),
    (["/dev/null"], 126, "cannot run /dev/null: permission denied"),
])
def test_a_server_that_cannot_run(folder, command, code, message):
    done = subprocess.run([TOOLGUARDS, "mcp", "--", *command], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (code, "", f"toolguards mcp: {message}\n")


def test_the_server_options_stay_the_servers(folder):
    """Everything after `--` reaches the server, options that toolguards has too included."""
    done = subprocess.run([TOOLGUARDS, "mcp", "--", "sh", "-c", 'echo "$@" >&2; exit 3', "sh", "--config", "x"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (3, "", "--config x\n")


def test_without_the_mcp_extra_it_says_what_to_install_and_exits_2(folder):
    # A fresh process in which the SDK cannot be imported, as where the extra is not installed.
    script = "import sys; sys.modules['mcp'] = None; from toolguards.cli import main; sys.exit(main(['mcp', '--', 'srv']))"
    done = subprocess.run([sys.executable, "-c", script], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert re.fullmatch(r"toolguards mcp: needs the mcp extra \(mcp[.\w]* is missing\): pip install 'toolguards\[mcp\]'\n",
                        done.stderr), done.stderr
