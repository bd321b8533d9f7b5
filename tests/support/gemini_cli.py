"""The real Gemini CLI run headless against the scripted model, in a fresh home folder, with toolguards installed by
``toolguards hook install gemini`` as a user installs it.

``run_gemini(folder, turns, ...)`` lays out ``<folder>/home`` (the CLI's ``HOME``: its ``~/.gemini/settings.json``
from ``gemini_api.user_settings``, and ``~/.gemini/trustedFolders.json`` when ``trust`` names a trust level) and the
project ``<folder>/home/project``; runs the install there; adds a recording hook (``record_hook.py``) for ``AfterTool``
and ``BeforeAgent`` to the *user* settings, so the project's file stays as install wrote it and every hook input
Gemini CLI sends is kept; then runs ``gemini -p PROMPT --approval-mode yolo --output-format json`` in the project
against a ``ScriptedModel`` playing ``turns``. Nothing leaves 127.0.0.1 (see ``gemini_api``).

``sanitize`` replaces the run's folders by ``/home/user`` and ``/home/user/project`` in any text the run left, so a
recorded payload can be kept as a fixture without a machine path. ``SCRIPT`` is the loop the real-host test plays (a
failing command, then one command six times), and ``python tests/support/gemini_cli.py`` plays it once more and
rewrites ``tests/fixtures/gemini/`` from what that run left.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: the support package is beside this file
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.gemini_api import GeminiApi, cli_environment, user_settings
from support.real_hosts import host_program
from support.scripted_model import Request, ScriptedModel, Text, ToolCall, Turn

__all__ = ["FAILING", "FIXTURES", "LOOP", "PROMPT", "SCRIPT", "Run", "run_gemini", "sanitize", "toolguards_command",
           "write_fixtures"]

PROMPT = "Run the smoke check until it passes."
#: A command that fails (its result names the missing file and exit code 1), then the one the agent loops on.
FAILING = ToolCall("run_shell_command", {"command": "cat smoke-result.txt",
                                         "description": "Read the smoke check's result."})
LOOP = ToolCall("run_shell_command", {"command": "echo smoke check failed", "description": "Run the smoke check."})
SCRIPT: Sequence[Turn] = (FAILING, *[LOOP] * 6, Text("The smoke check still fails; I stop here."))
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gemini"
RECORDER = Path(__file__).with_name("record_hook.py")
HOME_STANDIN = "/home/user"


def toolguards_command() -> Path:
    """The ``toolguards`` script of the environment running the tests (the one a user's install would use)."""
    found = Path(sys.executable).parent / "toolguards"
    assert found.is_file(), f"no toolguards script beside {sys.executable}: pip install -e . first"
    return found


@dataclass(frozen=True)
class Run:
    """What one Gemini CLI run left: its process, the model's requests, the hook inputs, the home folder's files."""

    home: Path
    project: Path
    install: subprocess.CompletedProcess[str]
    process: subprocess.CompletedProcess[str]
    requests: Sequence[Request]
    turns: Sequence[Request]
    hook_inputs: Sequence[dict[str, Any]]

    @property
    def output(self) -> dict[str, Any]:
        """The ``--output-format json`` document on stdout."""
        found: dict[str, Any] = json.loads(self.process.stdout)
        return found

    def chat_files(self) -> list[Path]:
        """The session recordings Gemini CLI wrote (``~/.gemini/tmp/<project>/chats/session-*.jsonl``)."""
        return sorted((self.home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))


def _recording_hooks(log: Path) -> dict[str, Any]:
    hook = {"name": "recorder", "type": "command", "command": f"{sys.executable} {RECORDER} {log}"}
    return {"AfterTool": [{"matcher": "*", "hooks": [hook]}], "BeforeAgent": [{"hooks": [hook]}]}


def run_gemini(
    folder: Path,
    turns: Sequence[Turn],
    *,
    trust: str | None = "TRUST_FOLDER",
    install: Sequence[str] | None = (),
    settings: Mapping[str, Any] | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> Run:
    """Install toolguards (``install``: the options after ``toolguards hook install gemini``; None: no install) and
    run Gemini CLI once; ``trust`` is the project's entry in ``trustedFolders.json`` (None: no file)."""
    program = host_program("gemini")
    home, project = folder / "home", folder / "home" / "project"
    (home / ".gemini").mkdir(parents=True)
    project.mkdir()
    log = folder / "hook-inputs.jsonl"
    user = user_settings(**(settings or {}))
    user["hooks"] = _recording_hooks(log)
    (home / ".gemini" / "settings.json").write_text(json.dumps(user, indent=2), encoding="utf-8")
    if trust is not None:
        trusted = {str(project): trust}
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted, indent=2), encoding="utf-8")
    plain = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home)}
    installed = subprocess.run(
        [str(toolguards_command()), "hook", "install", "gemini", *(install or ())],
        cwd=project, env=plain, capture_output=True, text=True, timeout=60, check=False,
    ) if install is not None else subprocess.CompletedProcess([], 0, "", "")
    assert installed.returncode == 0, installed.stderr
    with ScriptedModel(GeminiApi(), turns) as model:
        environment = {**cli_environment(model.url, str(home), plain["PATH"]), **(env or {})}
        process = subprocess.run(
            [str(program), "-p", PROMPT, "--approval-mode", "yolo", "--output-format", "json", *args],
            cwd=project, env=environment, capture_output=True, text=True, timeout=timeout, check=False,
            stdin=subprocess.DEVNULL,
        )
        requests, turn_requests = list(model.requests), list(model.turn_requests)
    inputs = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    return Run(home, project, installed, process, requests, turn_requests, inputs)


def sanitize(text: str, run: Run) -> str:
    """``text`` with the run's folders (as given and as resolved) replaced by ``/home/user`` and its project."""
    for home in dict.fromkeys((str(run.home.resolve()), str(run.home))):
        text = text.replace(home, HOME_STANDIN)
    return text


def write_fixtures(run: Run, folder: Path = FIXTURES) -> list[Path]:
    """Keep a run's chat recording and hook inputs, sanitized, as ``chat.jsonl`` and ``hook-inputs.jsonl``."""
    (chat,) = run.chat_files()
    inputs = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in run.hook_inputs)
    written = []
    for name, text in (("chat.jsonl", chat.read_text(encoding="utf-8")), ("hook-inputs.jsonl", inputs)):
        path = folder / name
        path.write_text(sanitize(text, run), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as temporary:
        for path in write_fixtures(run_gemini(Path(temporary), SCRIPT)):
            print(f"wrote {path}")
