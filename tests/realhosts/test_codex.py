"""toolguards inside the real Codex CLI (``@openai/codex`` 0.171), headless, against a scripted model on loopback.

In a fresh HOME with its own ``CODEX_HOME`` and a trusted git project, toolguards is installed as a user would
(``toolguards hook install codex --trust`` in the project), then ``codex exec`` runs a scripted model that makes the
agent call its shell tool six times with the same command, then end. A second home does the same without ``--trust``.
One run of each is shared by the tests below (module-scoped fixtures), so the module costs a few seconds.

Beside toolguards' hooks, each home has a recorder hook in the user's ``hooks.json`` (trusted by the test through
``toolguards.hooks.codex_trust``): it appends the stdin Codex gives a hook to a file, so the tests read the events
exactly as Codex sends them, and see that Codex ran the hooks it trusts even where it skipped ours.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from conftest import FIRST, FIXTURES, detailed, require
from support.after_reminder import figures, one_tools_cost, report, rows, shown, summary
from support.codex_app_server import hooks_list
from support.hooks import codex_problems
from support.openai_responses_api import MODEL, SHELL_TOOL, ResponsesApi, config_toml, input_items, message_text
from support.real_hosts import host_program
from support.scripted_model import Request, ScriptedModel, Text, ToolCall
from toolguards.hooks import codex
from toolguards.hooks.codex_trust import hook_entries, hook_states, trust_status
from toolguards.resources import default_guard_file

TOOLGUARDS = Path(sys.executable).parent / "toolguards"
COMMAND = "echo probe"
PROMPT = "run the probe"
TURNS = [ToolCall(SHELL_TOOL, {"cmd": COMMAND})] * 6 + [Text("done")]
GENTLE = FIRST
DETAILED = detailed("Bash", 5, json.dumps({"command": COMMAND}, separators=(",", ":")))
FIXTURE = FIXTURES / "codex" / "hook-stdin-0.171.jsonl"
RECORDER = "import os, sys; open(os.environ['HOOK_STDIN'], 'a').write(sys.stdin.read().replace('\\n', ' ') + '\\n')"


@dataclass
class Run:
    """One ``codex exec`` run in its own home, and everything it left behind."""

    home: Path
    codex_home: Path
    project: Path
    env: dict[str, str]
    installed: subprocess.CompletedProcess[str]
    done: subprocess.CompletedProcess[str]
    requests: list[Request] = field(default_factory=list)

    @property
    def stdin(self) -> list[dict[str, Any]]:
        """Each hook event Codex sent (the recorder's file), in order."""
        path = self.home / "hook-stdin.jsonl"
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []

    def rollout(self) -> Path:
        (found,) = (self.codex_home / "sessions").rglob("rollout-*.jsonl")
        return found


@pytest.fixture(scope="module")
def codex_program() -> Path:
    return host_program("codex")


def environment(home: Path, codex_home: Path) -> dict[str, str]:
    """A clean environment: the home folders, a plain PATH, and nothing of the developer's own Codex or OpenAI."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("CODEX_", "OPENAI_")) and key not in ("HOME", "VIRTUAL_ENV")}
    return env | {"HOME": str(home), "CODEX_HOME": str(codex_home), "HOOK_STDIN": str(home / "hook-stdin.jsonl"),
                  "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}


def trust_text(source: Path, document: dict[str, Any]) -> str:
    """``[hooks.state]`` tables trusting every hook of a hooks file (the test's recorder)."""
    return "".join(f'\n[hooks.state."{entry.key}"]\ntrusted_hash = "{entry.hash}"\n'
                   for entry in hook_entries(str(source), document))


def run(root: Path, codex_program: Path, *install_args: str) -> Run:
    require("git", "the project Codex runs in is a git repository", "git")
    home, project = root / "home", root / "home" / "project"
    codex_home = home / "codex-home"  # not ~/.codex: Codex and install must both honour CODEX_HOME
    for folder in (codex_home, project):
        folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = environment(home, codex_home)
    recorder = {"hooks": {event: [{"hooks": [{"type": "command", "command": f"{shlex.quote(sys.executable)} -c "
                                                                            f"{shlex.quote(RECORDER)}"}]}]
                          for event in ("PostToolUse", "UserPromptSubmit")}}
    (codex_home / "hooks.json").write_text(json.dumps(recorder), encoding="utf-8")
    with ScriptedModel(ResponsesApi(), TURNS) as model:
        (codex_home / "config.toml").write_text(
            config_toml(model.url) + f'\n[projects."{project}"]\ntrust_level = "trusted"\n'
            + trust_text(codex_home / "hooks.json", recorder), encoding="utf-8")
        installed = subprocess.run([str(TOOLGUARDS), "hook", "install", "codex", *install_args], cwd=project, env=env,
                                   capture_output=True, text=True, timeout=60)
        assert installed.returncode == 0, installed.stderr
        done = subprocess.run([str(codex_program), "exec", "--strict-config", "--json", PROMPT], cwd=project, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        return Run(home, codex_home, project, env, installed, done, list(model.turn_requests))


@pytest.fixture(scope="module")
def trusted(tmp_path_factory, codex_program) -> Run:
    return run(tmp_path_factory.mktemp("codex-trusted"), codex_program, "--trust")


@pytest.fixture(scope="module")
def untrusted(tmp_path_factory, codex_program) -> Run:
    return run(tmp_path_factory.mktemp("codex-plain"), codex_program)


def reminders(request: Request) -> list[tuple[str, str]]:
    """Each ``developer`` message that sits between a function call and its output: (the call's id, its text)."""
    items = input_items(request)
    found = []
    for before, item, after in zip(items, items[1:], items[2:], strict=False):
        if item.get("type") == "message" and item.get("role") == "developer" and before.get("type") == "function_call":
            assert after.get("type") == "function_call_output" and after["call_id"] == before["call_id"]
            found.append((before["call_id"], message_text(item)))
    return found


def mentions(request: Request, text: str) -> int:
    return json.dumps(request.body).count(json.dumps(text)[1:-1])


def test_the_reminders_reach_the_model_at_its_4th_and_6th_requests_between_the_call_and_its_output(trusted):
    assert len(trusted.requests) == len(TURNS)
    gentle, both = [("call_2", GENTLE)], [("call_2", GENTLE), ("call_4", DETAILED)]
    assert [reminders(request) for request in trusted.requests] == [[], [], [], gentle, gentle, both, both]
    # nowhere else in any request: the 4th is the first to hold the gentle one, the 6th the first with the detailed
    assert [(mentions(request, GENTLE), mentions(request, DETAILED)) for request in trusted.requests] == [
        (0, 0), (0, 0), (0, 0), (1, 0), (1, 0), (1, 1), (1, 1)]


def test_install_with_trust_says_nothing_more_is_needed(trusted):
    hooks_file = trusted.project / ".codex" / "hooks.json"
    config = trusted.codex_home / "config.toml"
    assert trusted.installed.stderr == (
        f"toolguards hook install: {hooks_file}: PostToolUse, UserPromptSubmit run {TOOLGUARDS} hook codex\n"
        f"toolguards hook install: {config}: recorded Codex's trust of 2 hooks, as its /hooks review does "
        f"(the previous file is {config}.toolguards.bak)\n")


def test_without_trust_codex_skips_our_hooks_without_a_word_and_install_says_so(untrusted):
    assert len(untrusted.requests) == len(TURNS)
    assert [mentions(request, GENTLE) + mentions(request, DETAILED) for request in untrusted.requests] == [0] * 7
    assert [event["hook_event_name"] for event in untrusted.stdin] == ["UserPromptSubmit"] + ["PostToolUse"] * 6
    said = untrusted.done.stderr + untrusted.done.stdout
    assert not re.search(r"\b(hooks?|review(ed)?|(un)?trust(ed)?)\b", said, re.IGNORECASE), said
    hooks_file = untrusted.project / ".codex" / "hooks.json"
    assert untrusted.installed.stderr == (
        f"toolguards hook install: {hooks_file}: PostToolUse, UserPromptSubmit run {TOOLGUARDS} hook codex\n"
        "toolguards hook install: Codex will not run these hooks until they are reviewed: trust them in /hooks in "
        "`codex`, or install again with --trust\n")


def test_codex_lists_our_hooks_trusted_with_the_hash_we_computed_and_the_others_untrusted(trusted, untrusted,
                                                                                         codex_program):
    for done, status in ((trusted, "trusted"), (untrusted, "untrusted")):
        hooks_file = done.project / ".codex" / "hooks.json"
        ours = hook_entries(str(hooks_file), json.loads(hooks_file.read_text(encoding="utf-8")))
        listed = [hook for hook in hooks_list(codex_program, done.env, done.project) if hook["source"] == "project"]
        assert [(hook["key"], hook["currentHash"], hook["trustStatus"]) for hook in listed] == [
            (entry.key, entry.hash, status) for entry in ours]


def sanitized(event: dict[str, Any], done: Run) -> dict[str, Any]:
    """An event without what differs from run to run: ids and this machine's paths."""
    found = dict(event)
    found["session_id"], found["turn_id"] = "<session id>", "<turn id>"
    transcript = Path(event["transcript_path"])
    assert transcript.is_relative_to(done.codex_home / "sessions") and transcript.name.endswith(
        f"-{event['session_id']}.jsonl")
    found["transcript_path"] = "$CODEX_HOME/sessions/<date>/rollout-<time>-<session id>.jsonl"
    assert event["cwd"] == str(done.project)
    found["cwd"] = "<project>"
    return found


def test_the_hook_stdin_codex_sends_is_what_the_codex_module_reads(trusted):
    events = trusted.stdin
    assert [event["hook_event_name"] for event in events] == ["UserPromptSubmit"] + ["PostToolUse"] * 6
    session = events[0]["session_id"]
    for number, event in enumerate(events):
        schema = "user-prompt-submit" if number == 0 else "post-tool-use"
        assert codex_problems(f"{schema}.command.input", event) == []
        assert codex.read(event) == (event["hook_event_name"], session, "main")
    calls = [codex.calls("PostToolUse", event) for event in events[1:]]
    assert calls == [[("Bash", {"command": COMMAND}, f"call_{n}", "probe\n", None)] for n in range(6)]
    # the recorded fixture (tests/hooks) is these events, sanitized: Codex still sends exactly that
    recorded = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    assert [sanitized(event, trusted) for event in events] == recorded


def replayed(path: Path, env: dict[str, str]) -> list[tuple[str, str]]:
    """``toolguards replay`` of a rollout, as (call id, reminder text) for each reminder it gives."""
    done = subprocess.run([str(TOOLGUARDS), "replay", str(path), "--format", "jsonl"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("replayed 1 session: "), done.stderr  # totals
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for text in done.stdout.splitlines():
        outcome = json.loads(text)
        call = json.loads(lines[outcome["line"] - 1])["payload"]
        found += [(call["call_id"], context["text"]) for context in outcome["contexts"]]
    return found


def live(path: Path) -> Iterator[tuple[str, str]]:
    """The developer messages the live hook put after each call, as the rollout recorded them."""
    last_call = None
    for text in path.read_text(encoding="utf-8").splitlines():
        payload = json.loads(text)["payload"]
        if payload.get("type") == "function_call":
            last_call = payload["call_id"]
        elif payload.get("type") == "message" and payload.get("role") == "developer" and last_call is not None:
            yield last_call, "".join(part["text"] for part in payload["content"])


def test_replaying_the_rollout_gives_the_live_reminders_at_the_same_calls(trusted, untrusted):
    expected = [("call_2", GENTLE), ("call_4", DETAILED)]
    assert list(live(trusted.rollout())) == expected == reminders(trusted.requests[-1])
    assert replayed(trusted.rollout(), trusted.env) == expected
    # the untrusted run's rollout holds the same calls: replay shows what the hook would have said
    assert list(live(untrusted.rollout())) == []
    assert replayed(untrusted.rollout(), untrusted.env) == expected


def installed_guard_file(done: Run) -> Path:
    """The guard file the installed hook ran with: its command's ``--config``, else the shipped default (what
    ``toolguards hook`` reads without one)."""
    hooks = json.loads((done.project / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    (command,) = {handler["command"] for groups in hooks["hooks"].values() for group in groups
                  for handler in group["hooks"]}
    words = shlex.split(command)
    return Path(words[words.index("--config") + 1]) if "--config" in words else default_guard_file()


def test_the_delivered_reminders_and_what_followed_them_beside_the_untrusted_runs_control(trusted, untrusted,
                                                                                          tmp_path):
    """``replay --summary`` finds the two developer messages of the trusted run as delivered reminders, with their
    outcomes and the turns' tokens; the untrusted run, the same calls with nothing delivered, gives the same points
    as would-fire ones, the control; ``report`` shows the same figures."""
    found = summary(trusted.rollout(), installed_guard_file(trusted), env=trusted.env)
    # after call_2 (the 3rd call: the first reminder) the model sent the same command three more times, and after
    # call_4 (the 5th: the detailed one) once more; its next turn was the text answer, which ended the task: both
    # were repeated
    expected = [
        ("repeat-tool-reminder", "detailed", "Bash", MODEL, True, 1, 0, 1, 0, 1),
        ("repeat-tool-reminder", "first", "Bash", MODEL, True, 1, 0, 1, 0, 3),
    ]
    assert rows(found) == expected
    # every turn says 10 in, 5 out (token_usage_record, from the scripted model's response.completed): seven turns,
    # the six that made the calls in the loop, the 4th to 6th after the first reminder
    assert found["cost"] == one_tools_cost("Bash", {"input": 10, "output": 5}, 7, 6, 3)
    control = summary(untrusted.rollout(), installed_guard_file(untrusted), env=untrusted.env)
    assert rows(control) == [(*row[:4], False, *row[5:]) for row in expected]
    assert control["cost"] == found["cost"]
    for name, done, document in (("trusted", trusted, found), ("untrusted", untrusted, control)):
        page = report(done.rollout(), installed_guard_file(done), tmp_path / f"{name}.html", env=done.env)
        assert shown(page) == figures(document)


#: Handlers of every shape the hash normalizes: defaults, a timeout of 0, matchers (none, empty, ignored), the
#: context limit (default, other, on an event that cannot use it), commandWindows, skipped handlers before one that
#: runs, an MCP tool with numbers in its input, the short-timeout SessionEnd and Interrupt, a command with a U+2028
#: and quotes, and an event Codex does not read.
SHAPES: dict[str, Any] = {"hooks": {
    "PostToolUse": [
        {"hooks": [{"type": "command", "command": "toolguards hook codex"}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "a", "timeout": 30, "statusMessage": "checking"},
                                      {"type": "command", "command": "b", "timeout": 0, "async": True}]},
        {"matcher": "", "hooks": [{"type": "command", "command": "c", "additionalContextLimit": 2500}]},
        {"matcher": "*", "hooks": [{"type": "command", "command": "d", "additionalContextLimit": 100,
                                    "commandWindows": "d.exe"}]},
        {"hooks": [{"type": "prompt"}, {"type": "command", "command": "   "}, {"type": "command", "command": "e"}]},
    ],
    "UserPromptSubmit": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "toolguards hook codex",
                                                           "additionalContextLimit": 10}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "f", "additionalContextLimit": 10}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "g"}]}],
    "PreToolUse": [{"matcher": "^apply_patch$", "hooks": [{"type": "mcp_tool", "server": "s", "tool": "t",
                                                           "input": {"x": [1, "é", {"y": 2.5}], "z": True}}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "h", "timeout": 10}]}],
    "SubagentStop": [{"hooks": [{"type": "command", "command": "i"}]}],
    "PreCompact": [{"hooks": [{"type": "command", "command": 'j\u2028"q"'}]}],
    "Interrupt": [{"hooks": [{"type": "command", "command": "k"}]}],
    "PreModelRequest": [{"hooks": [{"type": "command", "command": "l", "additionalContextLimit": 10}]}],
    "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "not an event of Codex's"}]}],
}}


def test_codex_keys_and_hashes_every_shape_of_hook_as_codex_trust_computes_them(tmp_path, codex_program):
    home = tmp_path / "home"
    codex_home, project = home / ".codex", home / "project"
    for folder in (codex_home, project):
        folder.mkdir(parents=True)
    hooks_file = codex_home / "hooks.json"
    hooks_file.write_text(json.dumps(SHAPES), encoding="utf-8")
    entries = hook_entries(str(hooks_file), SHAPES)
    trusted, modified, disabled = entries[0], entries[1], entries[2]
    (codex_home / "config.toml").write_text(
        f'[hooks.state."{trusted.key}"]\ntrusted_hash = "{trusted.hash}"\n'
        f'[hooks.state."{modified.key}"]\ntrusted_hash = "sha256:{"0" * 64}"\n'
        f'[hooks.state."{disabled.key}"]\nenabled = false\ntrusted_hash = "{disabled.hash}"\n', encoding="utf-8")
    env = environment(home, codex_home)
    del env["CODEX_HOME"]  # unset: ~/.codex, as $HOME spells it
    listed = hooks_list(codex_program, env, project, warnings=True)
    states = hook_states(tomlkit.parse((codex_home / "config.toml").read_text(encoding="utf-8")).unwrap())
    assert sorted((hook["key"], hook["currentHash"], hook["trustStatus"], hook["enabled"]) for hook in listed) == sorted(
        (entry.key, entry.hash, trust_status(entry, states).replace("disabled", "trusted"), entry is not disabled)
        for entry in entries)
    assert len(entries) == 15 and trust_status(disabled, states) == "disabled"


def test_user_scope_installs_under_codex_home_through_its_symlink_and_uninstall_takes_only_our_trust(tmp_path,
                                                                                                    codex_program):
    home, real = tmp_path / "home", tmp_path / "real-codex-home"
    for folder in (home / "project", real):
        folder.mkdir(parents=True)
    (home / "linked").symlink_to(real)
    env = environment(home, home / "linked")
    (real / "config.toml").write_text('# mine\nmodel = "o3"\n\n[hooks.state."elsewhere:stop:0:0"]\n'
                                      'trusted_hash = "sha256:kept"\n', encoding="utf-8")
    before = (real / "config.toml").read_text(encoding="utf-8")
    done = subprocess.run([str(TOOLGUARDS), "hook", "install", "codex", "--scope", "user", "--trust"],
                          cwd=home / "project", env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (real / "hooks.json").is_file() and not (home / ".codex").exists()
    listed = hooks_list(codex_program, env, home / "project")
    assert [(hook["key"], hook["source"], hook["trustStatus"]) for hook in listed] == [
        (f"{real}/hooks.json:post_tool_use:0:0", "user", "trusted"),
        (f"{real}/hooks.json:user_prompt_submit:0:0", "user", "trusted")]
    done = subprocess.run([str(TOOLGUARDS), "hook", "uninstall", "codex", "--scope", "user"], cwd=home / "project",
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (real / "config.toml").read_text(encoding="utf-8") == before
    assert hooks_list(codex_program, env, home / "project") == []


# --- toolguards doctor, beside the real runs ----------------------------------------------------------------------


def doctor(done: Run) -> subprocess.CompletedProcess[str]:
    """``toolguards doctor codex`` in the run's project, with the environment its ``codex exec`` had."""
    return subprocess.run([str(TOOLGUARDS), "doctor", "codex"], cwd=done.project, env=done.env, capture_output=True,
                          text=True, timeout=120)


def problems(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith("codex: problem: ")]


def not_reviewed(hooks_file: Path) -> list[str]:
    return [f"codex: problem: {hooks_file}:{event}:0:0: Codex has not reviewed this hook, so it skips it (without a "
            "word under `codex exec`); fix: toolguards hook install codex --trust, or review it in /hooks in `codex`"
            for event in ("post_tool_use", "user_prompt_submit")]


def test_doctor_gives_the_trust_fix_where_codex_skipped_our_hooks_and_exits_0_where_it_ran_them(trusted, untrusted):
    before = doctor(untrusted)
    assert (before.returncode, problems(before)) == (1, not_reviewed(untrusted.project / ".codex" / "hooks.json"))
    assert [mentions(request, GENTLE) for request in untrusted.requests] == [0] * 7  # the real run agrees: none
    after = doctor(trusted)
    assert (after.returncode, problems(after)) == (0, []), after.stdout
    assert after.stdout.splitlines()[-1] == (
        f"codex: ok: {trusted.project / '.codex' / 'hooks.json'}: the command answers as the host expects: the "
        "reminder at the 3rd identical call")
    assert [mentions(request, GENTLE) for request in trusted.requests] == [0, 0, 0, 1, 1, 1, 1]  # and so does this one


def test_doctor_before_and_after_install_trust_agrees_with_codex_s_own_list(tmp_path, codex_program):
    home = tmp_path / "home"
    codex_home, project = home / ".codex", home / "project"
    for folder in (codex_home, project / ".git"):
        folder.mkdir(parents=True)
    (codex_home / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    env = environment(home, codex_home)
    del env["CODEX_HOME"]  # unset: ~/.codex
    run_in = Run(home, codex_home, project, env, subprocess.CompletedProcess([], 0), subprocess.CompletedProcess([], 0))

    def install(*options: str) -> None:
        done = subprocess.run([str(TOOLGUARDS), "hook", "install", "codex", *options], cwd=project, env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr

    install()
    before = doctor(run_in)
    assert (before.returncode, problems(before)) == (1, not_reviewed(project / ".codex" / "hooks.json"))
    assert {hook["trustStatus"] for hook in hooks_list(codex_program, env, project)} == {"untrusted"}
    install("--trust")  # the fix doctor gave
    after = doctor(run_in)
    assert (after.returncode, problems(after)) == (0, []), after.stdout
    assert {hook["trustStatus"] for hook in hooks_list(codex_program, env, project)} == {"trusted"}
