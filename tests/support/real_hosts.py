"""Where the real host programs are: Claude Code, Codex CLI and Gemini CLI (and the MCP reference server the proxy's
tests run), installed from npm by ``.ci/install-hosts`` into ``$TOOLGUARDS_HOSTS_DIR`` (by default
``~/.cache/toolguards/hosts``).

``host_program(name)`` gives the path of a host's command; where it is absent the test skips with the reason on a
developer's machine and fails under CI (``CI`` set), whose ``.ci/run`` installs it: a real part is never skipped there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HOSTS_DIR = Path(os.environ.get("TOOLGUARDS_HOSTS_DIR") or Path.home() / ".cache" / "toolguards" / "hosts")

# command name -> the npm package and the version that .ci/install-hosts installs (tests/test_real_hosts_pins.py keeps
# the two lists equal)
PROGRAMS = {
    "claude": ("@anthropic-ai/claude-code", "2.1.197"),
    "codex": ("@openai/codex", "0.171.0"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
    "mcp-server-everything": ("@modelcontextprotocol/server-everything", "2026.8.31"),
}


def host_program(name: str) -> Path:
    """The installed command ``name`` (``claude``, ``codex``, ``gemini``, ``mcp-server-everything``)."""
    package, version = PROGRAMS[name]
    found = HOSTS_DIR / "node_modules" / ".bin" / name
    installed = installed_version(package)
    if not found.exists() or installed != version:
        what = "is not installed" if installed is None else f"is not installed (found {installed})"
        message = (f"{package}@{version} {what} in {HOSTS_DIR}: the real-host tests run the real program, at the "
                   "version they were written against (.ci/install-hosts installs it)")
        if os.environ.get("CI"):
            pytest.fail(f"{message}; .ci/run installs it")
        pytest.skip(message)
    return found


def installed_version(package: str) -> str | None:
    """The version of ``package`` in the hosts folder, None where it is not there."""
    try:
        manifest = json.loads((HOSTS_DIR / "node_modules" / package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = manifest.get("version") if isinstance(manifest, dict) else None
    return version if isinstance(version, str) else None
