"""``toolguards mcp install|uninstall CLIENT SERVER``: one entry of each client's MCP config runs through the proxy."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolguards.cli import main
from toolguards.hooks.install import BACKUP_SUFFIX
from toolguards.mcp_proxy.client_config import EntryStatus, entry_status, proxied, unwrap, wrap
from toolguards.mcp_proxy.clients import CLIENTS, client

TOOLGUARDS = str(Path(sys.executable).with_name("toolguards"))
FILES = {"claude-code": ".mcp.json", "vscode": ".vscode/mcp.json", "cursor": ".cursor/mcp.json"}
KEY = {"claude-desktop": "mcpServers", "claude-code": "mcpServers", "vscode": "servers", "cursor": "mcpServers"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    return tmp_path


def path_of(name: str) -> Path:
    return Path(client(name).config_path()).resolve()


def existing(name: str) -> dict[str, Any]:
    servers = {
        "time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time", "--local-timezone", "UTC"],
                 "env": {"TZ": "UTC"}},
        "remote": {"type": "http", "url": "https://example.invalid/mcp"},
        "bare": {"command": "my-server"},
    }
    document: dict[str, Any] = {KEY[name]: servers}
    if name == "vscode":
        document["inputs"] = [{"type": "promptString", "id": "key"}]
    document["other"] = {"kept": True}
    return document


def proxied_time(name: str = "time") -> dict[str, Any]:
    return {"type": "stdio", "command": TOOLGUARDS,
            "args": ["mcp", "--name", name, "--", "uvx", "mcp-server-time", "--local-timezone", "UTC"],
            "env": {"TZ": "UTC"}}


def test_the_clients_files():
    assert {name: client(name).SERVERS_KEY for name in CLIENTS} == KEY
    for name, file in FILES.items():
        assert client(name).config_path() == os.path.join(*file.split("/"))


@pytest.mark.parametrize("name", list(CLIENTS))
def test_install_one_server_into_an_existing_file_then_uninstall_restores_it_byte_for_byte(project, capsys, name):
    path = path_of(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    original = json.dumps(existing(name), indent=4) + "\n"
    path.write_text(original, encoding="utf-8")
    assert main(["mcp", "install", name, "time"]) == 0
    written = json.loads(path.read_text(encoding="utf-8"))
    expected = existing(name)
    expected[KEY[name]]["time"] = proxied_time()
    assert written == expected
    assert list(written[KEY[name]]) == ["time", "remote", "bare"]
    assert path.read_text(encoding="utf-8").startswith('{\n    "')  # its indentation kept
    assert Path(f"{path}{BACKUP_SUFFIX}").read_text(encoding="utf-8") == original
    assert capsys.readouterr().err == (f"toolguards mcp install: {client(name).config_path()}: server time run through "
                                       f"toolguards mcp (the previous file is {client(name).config_path()}"
                                       f"{BACKUP_SUFFIX})\n")
    assert main(["mcp", "install", name, "time"]) == 0  # again: the same entry, never wrapped twice
    assert json.loads(path.read_text(encoding="utf-8")) == expected
    assert main(["mcp", "uninstall", name, "time"]) == 0
    assert path.read_text(encoding="utf-8") == original


def test_all_skips_remote_servers_and_uninstall_all_gives_each_back(project, capsys):
    path = Path(".mcp.json")
    path.write_text(json.dumps(existing("claude-code")), encoding="utf-8")
    assert main(["mcp", "install", "claude-code", "--all"]) == 0
    servers = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
    assert servers["time"] == proxied_time()
    assert servers["remote"] == existing("claude-code")["mcpServers"]["remote"]
    assert servers["bare"] == {"command": TOOLGUARDS, "args": ["mcp", "--name", "bare", "--", "my-server"]}
    path.write_text(path.read_text(encoding="utf-8").replace("\n", "\r\n"), encoding="utf-8")  # edited since
    assert main(["mcp", "uninstall", "claude-code", "--all"]) == 0
    assert json.loads(path.read_text(encoding="utf-8")) == existing("claude-code")  # "args" absent again for bare
    assert capsys.readouterr().err.splitlines()[-1].startswith(
        "toolguards mcp uninstall: .mcp.json: servers time, bare run directly again")


@pytest.mark.parametrize(("text", "problem"), [
    ("{not json", ".mcp.json: is not valid JSON (line 1, column 2: Expecting property name enclosed in double quotes); "
                  "left untouched"),
    ('{"mcpServers": {"time": {"command": "a"}}, // comment\n}',
     ".mcp.json: is not valid JSON (line 1, column 44: Expecting property name enclosed in double quotes); "
     "left untouched"),
    ('{"mcpServers": {}, "mcpServers": {}}', ".mcp.json: the key `mcpServers` appears twice; left untouched"),
    ("[]", ".mcp.json: holds a JSON list, not an object; left untouched"),
    ('{"mcpServers": []}', ".mcp.json: `mcpServers` is not an object; left untouched"),
    ('{"mcpServers": {"other": {"command": "x"}}}',
     ".mcp.json: no server `time` in `mcpServers` (servers: other); left untouched"),
    ('{"mcpServers": {"time": {"url": "http://127.0.0.1:1/mcp"}}}',
     ".mcp.json: the server `time` is a remote server (it has a `url`); only servers the client starts can be proxied"),
    ("", ".mcp.json: no server `time` in `mcpServers` (servers: none); left untouched"),
])
def test_a_broken_or_unsuitable_file_is_refused_and_left_untouched(project, capsys, text, problem):
    Path(".mcp.json").write_text(text, encoding="utf-8")
    assert main(["mcp", "install", "claude-code", "time"]) == 1
    assert capsys.readouterr().err == f"toolguards mcp install: {problem}\n"
    assert Path(".mcp.json").read_text(encoding="utf-8") == text
    assert not Path(f".mcp.json{BACKUP_SUFFIX}").exists()


def test_a_missing_file_has_no_server(project, capsys):
    assert main(["mcp", "install", "cursor", "time"]) == 1
    assert capsys.readouterr().err == (f"toolguards mcp install: {os.path.join('.cursor', 'mcp.json')}: no server "
                                       "`time` in `mcpServers` (servers: none); left untouched\n")
    assert main(["mcp", "install", "cursor", "--all"]) == 0  # nothing to do
    assert not Path(".cursor").exists()


def test_a_dry_run_prints_and_writes_nothing(project, capsys):
    text = json.dumps({"servers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}})
    Path("other.json").write_text(text, encoding="utf-8")
    assert main(["mcp", "install", "vscode", "time", "--settings", "other.json", "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"servers": {"time": {
        "command": TOOLGUARDS, "args": ["mcp", "--name", "time", "--", "uvx", "mcp-server-time"]}}}
    assert err == "toolguards mcp install: other.json (dry run, nothing written): server time run through toolguards mcp\n"
    assert Path("other.json").read_text(encoding="utf-8") == text


def test_a_guard_file_is_checked_and_passed_by_its_absolute_path(project, capsys):
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"t": {"command": "srv"}}}), encoding="utf-8")
    Path("bad.yaml").write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: []\n",
                                encoding="utf-8")
    assert main(["mcp", "install", "claude-code", "t", "--config", "bad.yaml"]) == 1
    assert capsys.readouterr().err == (
        "toolguards mcp install: the guard file has problems, so nothing was installed: "
        f"{project / 'bad.yaml'}:4:19: guards[0].config.thresholds: `thresholds` must not be empty\n")
    Path("good.yaml").write_text("guards:\n  - id: repeat-tool-reminder\n", encoding="utf-8")
    assert main(["mcp", "install", "claude-code", "t", "--config", "good.yaml"]) == 0
    assert json.loads(Path(".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["t"]["args"] == [
        "mcp", "--name", "t", "--config", str(project / "good.yaml"), "--", "srv"]


@pytest.mark.parametrize(("argv", "message"), [
    (["install", "claude-code"], "name one SERVER or give --all"),
    (["install", "claude-code", "a", "--all"], "name one SERVER or give --all"),
])
def test_usage_errors(project, capsys, argv, message):
    with pytest.raises(SystemExit) as caught:
        main(["mcp", *argv])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"toolguards mcp {argv[0]}: {message}"


@pytest.mark.parametrize(("entry", "expected"), [
    ({"command": "uvx", "args": ["a"]}, None),
    ({"command": "/x/toolguards", "args": ["mcp", "--name", "n", "--", "uvx", "a"]}, ("uvx", ["a"])),
    ({"command": "toolguards.exe", "args": ["mcp", "--", "srv"]}, ("srv", [])),
    ({"command": "python", "args": ["-m", "toolguards", "mcp", "--", "srv", "--", "x"]}, ("srv", ["--", "x"])),
    ({"command": "toolguards", "args": ["hook", "claude"]}, None),
    ({"command": "toolguards", "args": ["mcp", "--"]}, None),
    ({"command": "toolguards", "args": ["mcp", 3]}, None),
    ({"url": "http://x"}, None),
    ("toolguards", None),
])
def test_which_entries_are_proxied(entry, expected):
    assert proxied(entry) == expected
    if expected is None and isinstance(entry, dict) and "command" in entry:
        assert unwrap(entry) == entry


def test_wrap_and_unwrap_keep_the_other_keys_in_place():
    entry = {"type": "stdio", "command": "uvx", "env": {"A": "1"}}
    wrapped = wrap(entry, "t", "/bin/toolguards")
    assert list(wrapped) == ["type", "command", "env", "args"]
    assert unwrap(wrapped) == entry


def test_entry_status_for_doctor(tmp_path):
    program = tmp_path / "srv"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    assert entry_status({"command": str(program)}) == EntryStatus(False, str(program), True, True)
    assert entry_status({"command": "no-such-program-here"}) == EntryStatus(False, "no-such-program-here", False, True)
    assert entry_status(wrap({"command": str(program)}, "s", TOOLGUARDS)) == EntryStatus(True, str(program), True,
                                                                                           True)
    assert entry_status(wrap({"command": str(tmp_path / "gone")}, "s", str(tmp_path / "toolguards"))) == EntryStatus(
        True, str(tmp_path / "gone"), False, False)
    assert entry_status({"url": "http://127.0.0.1:1/mcp"}) == EntryStatus(False, None, False, True)


def test_an_installed_entry_is_one_the_client_can_start(project):
    """What each client does with an entry: start its command with its args and env, then speak MCP to it."""
    pytest.importorskip("mcp", reason="the mcp extra is not installed (pip install 'toolguards[mcp]')")
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    from support.mcp_servers import time_server

    command = time_server()
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"time": {"command": command[0], "env": {"TZ": "UTC"}}}}),
                                 encoding="utf-8")
    assert main(["mcp", "install", "claude-code", "time"]) == 0
    entry = json.loads(Path(".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["time"]
    assert entry["command"] == TOOLGUARDS

    async def names() -> list[str]:
        server = StdioServerParameters(command=entry["command"], args=entry["args"], env=entry["env"])
        async with Client(server, mode="legacy") as session:
            return [tool.name for tool in (await session.list_tools()).tools]

    assert anyio.run(names) == ["get_current_time", "convert_time"]
