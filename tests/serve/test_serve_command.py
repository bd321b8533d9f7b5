"""``toolguards serve``'s refusals: each a one-line message and an exit code, before anything is served."""

from __future__ import annotations

import sys

import pytest

from toolguards.cli import main
from toolguards.serve.security import is_loopback

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'toolguards[serve]')")

TOKEN = "0123456789abcdef0123"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "token").write_text(TOKEN + "\n", encoding="utf-8")
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    (tmp_path / "short").write_text("abc\n", encoding="utf-8")
    (tmp_path / "two").write_text("abcdefghijklmnopqrst uvw\n", encoding="utf-8")
    (tmp_path / "binary").write_bytes(b"\xff" * 20)
    (tmp_path / "bad.yaml").write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: []\n",
                                       encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["--host", "0.0.0.0"], 2,
     "--host 0.0.0.0 is not a loopback address: binding it requires --token-file (every request must then carry "
     "`Authorization: Bearer <token>`)"),
    (["--host", "::"], 2,
     "--host :: is not a loopback address: binding it requires --token-file (every request must then carry "
     "`Authorization: Bearer <token>`)"),
    (["--token-file", "missing"], 2, "cannot read the token file missing: No such file or directory"),
    (["--token-file", "empty"], 2, "the token file empty is empty"),
    (["--token-file", "short"], 2,
     "the token in short has 3 characters; use at least 16 (`openssl rand -hex 32` makes one)"),
    (["--token-file", "two"], 2,
     "the token file two must hold one token: printable ASCII without spaces, at most 4096 characters"),
    (["--token-file", "binary"], 2, "the token file binary must hold printable ASCII only"),
    (["--idle-ttl", "60"], 2, "--idle-ttl applies to a redis:// or redis+cluster:// store, not to memory"),
    (["--store", "nosuch://x"], 2, "--store: unknown store 'nosuch://x' (known: memory:, sqlite:, mapping:, redis:, rediss:, "
     "redis+cluster:, rediss+cluster:)"),
    (["--store", "redis+cluster://h:7000/3"], 2,
     "--store: a Redis Cluster has only database 0, not '3': redis+cluster://HOST:PORT[,HOST:PORT…]"),
    (["--store", "redis://h:6379/x"], 2,
     "--store: the database of a Redis store URL is a number (redis://HOST:PORT/DB), not 'x'"),
    (["--store", "memory://somewhere"], 2,
     "--store: the memory store takes no location: 'memory://somewhere' (write `memory`)"),
    (["--config", "bad.yaml"], 1, "the guard file has 1 problem"),
    (["--config", "nowhere.yaml"], 1, "the guard file has 1 problem"),
])
def test_refusals(folder, capsys, argv, code, message):
    assert main(["serve", "--port", "0", *argv]) == code
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1] == f"toolguards serve: {message}"
    assert TOKEN not in err


def test_a_guard_file_with_problems_prints_each_one(folder, capsys):
    assert main(["serve", "--port", "0", "--config", "bad.yaml"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "bad.yaml:4:19: guards[0].config.thresholds: `thresholds` must not be empty",
        "toolguards serve: the guard file has 1 problem",
    ]


@pytest.mark.parametrize(("argv", "message"), [
    (["--port", "70000"], "argument --port: --port must be from 0 to 65535, not 70000"),
    (["--port", "http"], "argument --port: --port must be a whole number, not 'http'"),
    (["--max-body", "0"], "argument --max-body: --max-body must be at least 1, not 0"),
    (["--idle-ttl", "1.5"], "argument --idle-ttl: --idle-ttl must be a whole number, not '1.5'"),
])
def test_usage_errors_exit_2(capsys, argv, message):
    with pytest.raises(SystemExit) as caught:
        main(["serve", *argv])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1]== f"toolguards serve: {message}"


def test_without_the_serve_extra_it_says_what_to_install(folder, capsys, monkeypatch):
    monkeypatch.delitem(sys.modules, "toolguards.serve.server", raising=False)
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve", "--port", "0"]) == 2
    assert capsys.readouterr().err == (
        "toolguards serve: needs the serve extra (uvicorn is missing): pip install 'toolguards[serve]'\n"
    )


@pytest.mark.parametrize(("address", "loopback"), [
    ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("0.0.0.0", False),
    ("::", False), ("192.168.1.2", False), ("fe80::1%eth0", False), ("localhost", False),
])
def test_loopback_addresses(address, loopback):
    assert is_loopback(address) is loopback
