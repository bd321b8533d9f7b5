"""Where the real host programs are: Claude Code, Codex CLI and Gemini CLI (and the MCP reference server the proxy's
tests run), installed from npm by ``.ci/install-hosts`` into ``$TOOLGUARDS_HOSTS_DIR`` (by default
``~/.cache/toolguards/hosts``).

``host_program(name)`` gives the path of a host's command; where it is absent the test skips with the reason on a
developer's machine and fails under CI (``CI`` set), whose ``.ci/run`` installs it: a real part is never skipped there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HOSTS_DIR = Path(os.environ.get("TOOLGUARDS_HOSTS_DIR") or Path.home() / ".cache" / "toolguards" / "hosts")

# command name -> the npm package and the version range that .ci/install-hosts installs
PROGRAMS = {
    "claude": ("@anthropic-ai/claude-code", "2.1"),
    "codex": ("@openai/codex", "0.171"),
    "gemini": ("@google/gemini-cli", "0.61"),
    "mcp-server-everything": ("@modelcontextprotocol/server-everything", "2026.8"),
}


def host_program(name: str) -> Path:
    """The installed command ``name`` (``claude``, ``codex``, ``gemini``, ``mcp-server-everything``)."""
    package, version = PROGRAMS[name]
    found = HOSTS_DIR / "node_modules" / ".bin" / name
    if not found.exists():
        message = (f"{package}@{version} is not installed in {HOSTS_DIR}: the real-host tests run the real program "
                   "(.ci/install-hosts installs it)")
        if os.environ.get("CI"):
            pytest.fail(f"{message}; .ci/run installs it")
        pytest.skip(message)
    return found
