"""doctor on the hook that starts no Python: ``hook install HOST --http URL`` registers a curl command for a host with
command hooks only, and doctor says whether a ``toolguards serve`` answers at its URL (a real service, then none)."""

from __future__ import annotations

import os
import subprocess

from conftest import require
from support.doctor_homes import Home
from support.hooks import TOOLGUARDS
from support.servers import Serve


def run(home: Home, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home.home), "PATH": os.environ.get("PATH", os.defpath),
           "CODEX_HOME": str(home.home / ".codex")}
    return subprocess.run([str(TOOLGUARDS), *args], cwd=home.project, env=env, capture_output=True, text=True,
                          timeout=120)


def test_doctor_asks_the_service_a_curl_hook_posts_to(tmp_path):
    require("curl", "the command hook without Python runs curl", "curl")
    home = Home.fresh(tmp_path)
    server = Serve().ready()
    try:
        url = f"http://127.0.0.1:{server.port}/hooks/codex"
        installed = run(home, "hook", "install", "codex", "--http", url, "--trust")
        assert installed.returncode == 0, installed.stderr
        with (home.home / ".codex" / "config.toml").open("a", encoding="utf-8") as config:  # the user trusts it
            config.write(f'[projects."{home.project}"]\ntrust_level = "trusted"\n')
        up = run(home, "doctor", "codex")
        hooks = home.project / ".codex" / "hooks.json"
        assert (up.returncode, up.stderr) == (0, "toolguards doctor: codex: 0 problems, 0 notes\n"), up.stdout
        assert f"codex: ok: {hooks}: the service at {url} answers the host's events\n" in up.stdout
    finally:
        server.stop()
    down = run(home, "doctor", "codex")
    assert down.returncode == 1
    assert (f"codex: problem: {hooks}: nothing answers at {url} (Connection refused): the host goes on without "
            "reminders, without a word; fix: start `toolguards serve` at that address before the host starts, or "
            "install the hook again with the URL the service listens on\n") in down.stdout
