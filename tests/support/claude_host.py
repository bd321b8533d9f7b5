"""Run the real Claude Code headless (``claude -p``) against a scripted model, in a fresh home folder of its own.

::

    home = ClaudeHome.fresh(tmp_path)                  # an empty HOME, with a project folder inside
    home.write(".mcp.json", {...})                     # any file the run needs, relative to the project
    run = run_claude(home, [ToolCall("Bash", {...}), Text("Done.")], "the prompt")
    run.turns[3]                                       # the 4th request of the agent's loop, as Claude Code sent it
    hook_contexts(run.turns[3])                        # the hooks' additional context in it, where Claude Code put it
    run.transcript                                     # the session file Claude Code wrote

Claude Code gets an environment built from nothing but ``PATH`` and these, so nothing of the developer's own (an API
key, ``CLAUDE_CONFIG_DIR``, an ``XDG_*`` folder) leaks in, and its traffic stays on 127.0.0.1:

- ``HOME`` the fresh home: its ``~/.claude`` (settings, transcripts) and ``~/.claude.json`` start empty, and so does
  the toolguards hook's state in ``~/.cache/toolguards``. ``env={"CLAUDE_CONFIG_DIR": …}`` moves Claude Code's own
  folder (user settings, transcripts) elsewhere, as it does for a user;
- ``ANTHROPIC_BASE_URL`` the scripted model (``anthropic_api.AnthropicMessages``), ``ANTHROPIC_API_KEY`` a dummy;
- ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``, Claude Code's own switch for everything but model requests (the
  auto-updater, telemetry, error reporting, feature flags, the session-title request); without it, 2.1.197 connects
  to ``api.anthropic.com:443`` six times in a six-call run and asks the model for a title. ``DISABLE_AUTOUPDATER``,
  ``DISABLE_TELEMETRY`` and ``DISABLE_ERROR_REPORTING`` are set as well, the older switches of the same things;
- ``HTTPS_PROXY``/``HTTP_PROXY`` a ``LoopbackProxy`` that refuses and records whatever else tries to leave
  (``NO_PROXY`` keeps loopback direct): ``run.escaped`` lists it, and must be empty.

Claude Code 2.1.197 hands the model a hook's ``additionalContext`` right after the tool results it follows, in one of
two forms, which ``hook_contexts`` both finds:

- a ``PostToolUse`` or ``PostToolUseFailure`` hook's: a text block of the user message that carries the results,
  after the call's ``tool_result``: ``<system-reminder>\n{hook} hook additional context: {text}\n</system-reminder>``
  with ``{hook}`` ``PostToolUse:<tool>`` (or ``PostToolUseFailure:<tool>``);
- a ``PostToolBatch`` hook's: a message of its own after that user message, ``{"role": "system", "content":
  "PostToolBatch hook additional context: {text}"}`` (Claude Code sends the beta ``mid-conversation-system-…``).

The command is ``claude -p PROMPT --output-format json --allowedTools …`` (root refuses
``--dangerously-skip-permissions``; a tool named in ``--allowedTools`` runs without a prompt), run in the project
folder with stdin closed. ``-p`` skips the workspace-trust dialog, so the project's ``.claude/settings.json`` hooks
run with no trust step.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.anthropic_api import AnthropicMessages, Batch
from support.loopback_proxy import LoopbackProxy
from support.real_hosts import host_program
from support.scripted_model import Request, ScriptedModel, Turn

__all__ = ["QUIET", "ClaudeHome", "ClaudeRun", "HookContext", "hook_contexts", "run_claude", "sanitized"]

#: Claude Code's own switches that keep a run to its model requests (see the module docstring).
QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
TIMEOUT = 120.0
_CONTEXT = re.compile(r"(\S+) hook additional context: (.*)", re.DOTALL)
_REMINDER = re.compile(r"<system-reminder>\n(.*)\n</system-reminder>", re.DOTALL)


@dataclass(frozen=True)
class ClaudeHome:
    """A home folder for one Claude Code run and the project folder inside it."""

    home: Path
    project: Path

    @classmethod
    def fresh(cls, folder: Path) -> ClaudeHome:
        """An empty home in ``folder`` (which must not hold one yet), with an empty ``project`` folder."""
        home = folder / "home"
        project = home / "project"
        project.mkdir(parents=True)
        return cls(home, project)

    def write(self, relative: str, content: str | Mapping[str, Any], *, under: str = "project") -> Path:
        """Write a file relative to the project (``under="home"``: to the home folder): text, or a JSON object."""
        path = (self.project if under == "project" else self.home) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2) + "\n",
                        encoding="utf-8")
        return path

    def environment(self, **more: str) -> dict[str, str]:
        """The environment of a program run "as the user" of this home (``toolguards hook install``, say)."""
        return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(self.home), "LANG": "C.UTF-8", **more}


@dataclass(frozen=True)
class ClaudeRun:
    """What one ``claude -p`` run left: its JSON result, every request the model received, the transcript."""

    home: ClaudeHome
    result: Mapping[str, Any]
    requests: Sequence[Request]
    turns: Sequence[Request]
    escaped: Sequence[str]
    stderr: str
    config_dir: Path
    transcript: Path = field(init=False)

    def __post_init__(self) -> None:
        session = self.result["session_id"]
        found = sorted((self.config_dir / "projects").glob(f"*/{session}.jsonl"))
        assert len(found) == 1, f"no single transcript of session {session}: {found}"
        object.__setattr__(self, "transcript", found[0])

    @property
    def session_id(self) -> str:
        return str(self.result["session_id"])

    def entries(self) -> list[dict[str, Any]]:
        """The transcript's entries, in order."""
        with self.transcript.open(encoding="utf-8") as file:
            return [json.loads(line) for line in file if line.strip()]


def run_claude(home: ClaudeHome, turns: Sequence[Turn | Batch], prompt: str, *,
               allowed_tools: Sequence[str] = ("Bash",), arguments: Sequence[str] = (),
               env: Mapping[str, str] | None = None, timeout: float = TIMEOUT) -> ClaudeRun:
    """Run ``claude -p prompt`` in the home's project against a model playing ``turns``; AssertionError with its
    output when it fails (see the module docstring)."""
    program = host_program("claude")
    with LoopbackProxy() as proxy, ScriptedModel(AnthropicMessages(), turns) as model:
        environment = home.environment(ANTHROPIC_BASE_URL=model.url, ANTHROPIC_API_KEY="sk-ant-scripted",
                                       **QUIET, **proxy.environment(), **(env or {}))
        command = [str(program), "-p", prompt, "--output-format", "json", "--allowedTools", ",".join(allowed_tools),
                   *arguments]
        done = subprocess.run(command, cwd=home.project, env=environment, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)
        requests, turn_requests = list(model.requests), list(model.turn_requests)
    assert done.returncode == 0, f"claude exited {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    result = json.loads(done.stdout)
    assert result.get("is_error") is False, f"claude reported an error: {done.stdout}"
    config_dir = Path(environment.get("CLAUDE_CONFIG_DIR") or home.home / ".claude")
    return ClaudeRun(home, result, requests, turn_requests, list(proxy.targets), done.stderr, config_dir)


@dataclass(frozen=True)
class HookContext:
    """A hook's additional context as the model received it: where (message index, and block index in it; 0 for a
    message of text), in which form (``"system-reminder"`` or ``"system message"``), from which hook
    (``PostToolUse:Bash``), and the text."""

    message: int
    block: int
    form: str
    hook: str
    text: str


def hook_contexts(request: Request) -> list[HookContext]:
    """Every hook's additional context in a model request, in order (see the module docstring)."""
    body = request.body if isinstance(request.body, dict) else {}
    found = []
    for number, message in enumerate(body.get("messages") or ()):
        content = message.get("content")
        if message.get("role") == "system" and isinstance(content, str):
            matched = _CONTEXT.fullmatch(content)
            if matched:
                found.append(HookContext(number, 0, "system message", matched[1], matched[2]))
            continue
        for position, block in enumerate(content if isinstance(content, list) else ()):
            reminder = _REMINDER.fullmatch(block.get("text", "")) if block.get("type") == "text" else None
            matched = _CONTEXT.fullmatch(reminder[1]) if reminder else None
            if matched:
                found.append(HookContext(number, position, "system-reminder", matched[1], matched[2]))
    return found


def sanitized(value: Any, home: ClaudeHome) -> Any:
    """``value`` with the run's folders written as a user's would be (``/home/user``, ``/home/user/project``), in every
    string, including Claude Code's folder names made from a path (``-tmp-…-project``): for a fixture."""
    if isinstance(value, dict):
        return {key: sanitized(item, home) for key, item in value.items()}
    if isinstance(value, list):
        return [sanitized(item, home) for item in value]
    if not isinstance(value, str):
        return value
    real = str(home.home)
    return value.replace(real, "/home/user").replace(re.sub(r"[^A-Za-z0-9]", "-", real), "-home-user")
