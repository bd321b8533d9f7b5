"""Codex's own view of its hooks, asked of the real program: ``codex app-server`` (JSON-RPC over stdio) ``hooks/list``.

``hooks_list`` answers, for a working folder, every hook Codex discovered there, each with its ``key``, ``source``
(``user``, ``project``…), ``currentHash`` and ``trustStatus`` (``trusted``, ``untrusted``, ``modified``, ``managed``)
and ``enabled``: the ground truth the trust computation of ``toolguards.hooks.codex_trust`` is checked against. The
app server reads the same ``$CODEX_HOME`` and project files ``codex exec`` does and makes no model request.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def hooks_list(codex: Path, env: Mapping[str, str], cwd: Path, warnings: bool = False) -> list[dict[str, Any]]:
    """The hooks Codex lists for ``cwd``, as ``hooks/list`` reports them; its warnings must be none unless
    ``warnings`` allows them, and its errors none."""
    with subprocess.Popen([str(codex), "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=dict(env), cwd=cwd, text=True) as server:
        assert server.stdin is not None and server.stdout is not None

        def ask(number: int, method: str, params: Mapping[str, Any]) -> Any:
            server.stdin.write(json.dumps({"id": number, "method": method, "params": params}) + "\n")
            server.stdin.flush()
            for line in server.stdout:
                message = json.loads(line)
                if message.get("id") == number:
                    assert "error" not in message, message
                    return message["result"]
            raise AssertionError(f"codex app-server ended before answering {method}")

        try:
            ask(1, "initialize", {"clientInfo": {"name": "toolguards-tests", "version": "0"}})
            server.stdin.write(json.dumps({"method": "initialized"}) + "\n")
            (listed,) = ask(2, "hooks/list", {"cwds": [str(cwd)]})["data"]
        finally:
            server.stdin.close()
            server.terminate()
    assert listed["errors"] == [] and (warnings or listed["warnings"] == []), listed
    hooks: list[dict[str, Any]] = listed["hooks"]
    return hooks
