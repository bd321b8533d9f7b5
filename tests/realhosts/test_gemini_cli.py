"""toolguards inside the real Gemini CLI (``@google/gemini-cli`` 0.61), headless against the scripted model.

One run (module-scoped, a few seconds) plays ``gemini_cli.SCRIPT`` in a trusted project where ``toolguards hook
install gemini`` wrote its registration: a failing command, then one command repeated. What it shows:

- the gentle reminder reaches the model after the 3rd identical call and the detailed one after the 4th, each appended
  to that call's ``functionResponse`` output as ``<hook_context>…</hook_context>``, and nothing earlier;
- Gemini CLI's own loop detection then takes the 5th identical call: it is never run, the CLI tells the model
  "Potential loop detected" instead, and stops at the 6th; so the registered guard reminds at 3 and 4, below it;
- the hook inputs Gemini CLI really sends are what ``toolguards.hooks.gemini`` reads, and the recorded fixture in
  ``tests/fixtures/gemini`` still has their shape;
- replaying the chat file the run left gives the same reminders at the same calls.

Separate short runs show trust: a project's hooks run only in a trusted folder (``gemini -p`` refuses an untrusted
one, and ``--skip-trust`` drops the project's hooks without a word, while the user's hooks still run).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from typing import Any

import pytest

from conftest import FIRST, detailed
from support.gemini_api import function_responses, texts
from support.gemini_cli import FIXTURES, LOOP, PROMPT, SCRIPT, Run, run_gemini, sanitize, toolguards_command
from support.scripted_model import Request, Text
from toolguards.canonical import canonicalize
from toolguards.hooks import gemini
from toolguards.hooks.driver import parse_event
from toolguards.hooks.gemini_settings import folder_trust
from toolguards.resources import shipped_guard_file

CONTEXT = re.compile(r"\n\n<hook_context>(.*?)</hook_context>", re.DOTALL)
LOOP_NOTE = "System: Potential loop detected. Details: Repeated tool call: run_shell_command with arguments "
DETAILED_4 = detailed("run_shell_command", 4, canonicalize(dict(LOOP.arguments)))


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> Run:
    run = run_gemini(tmp_path_factory.mktemp("gemini-loop"), SCRIPT)
    assert run.process.returncode == 0, run.process.stderr
    return run


def reminders(request: Request) -> list[tuple[int, str]]:
    """(index of the call among the request's function responses, hook context) for each context in the request."""
    return [(index, text) for index, response in enumerate(function_responses(request))
            for text in CONTEXT.findall(str(response["response"].get("output", "")))]


def registered_command(run: Run) -> str:
    settings = json.loads((run.project / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    commands = {handler["command"] for entries in settings["hooks"].values() for entry in entries
                for handler in entry["hooks"]}
    (command,) = commands
    return str(command)


# --- the loop run -------------------------------------------------------------------------------------------------


def test_install_registered_the_gemini_guard_file_in_the_project(loop):
    command = f"{toolguards_command()} hook gemini --config {shipped_guard_file('gemini-cli.yaml')}"
    handler = {"name": "toolguards", "type": "command", "command": command}
    settings = json.loads((loop.project / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert settings == {"hooks": {"AfterTool": [{"matcher": "*", "hooks": [handler]}],
                                  "BeforeAgent": [{"hooks": [handler]}]}}
    assert loop.install.stderr.splitlines() == [  # a trusted folder: no note
        f"toolguards hook install: {loop.project / '.gemini' / 'settings.json'}: AfterTool, BeforeAgent run {command}"]
    assert folder_trust(str(loop.project), {"HOME": str(loop.home)}).trusted is True


def test_the_reminders_reach_the_model_after_the_3rd_and_4th_identical_call_and_nothing_before(loop):
    # the turns: the prompt, then one after each call that ran (the failing one, four loop calls), then the one after
    # Gemini CLI's own loop note; function response 0 is the failing call's, 1 to 4 the loop calls'
    assert [reminders(request) for request in loop.turns] == [
        [], [], [], [],
        [(3, FIRST)],
        [(3, FIRST), (4, DETAILED_4)],
        [(3, FIRST), (4, DETAILED_4)],
    ]


def test_each_reminder_is_appended_to_the_result_of_the_call_that_drew_it(loop):
    request = loop.turns[5]
    contents = request.body["contents"]
    last = contents[-1]
    assert last["role"] == "user"
    (part,) = last["parts"]
    response = part["functionResponse"]
    assert response["name"] == "run_shell_command"
    call = contents[-2]["parts"][0]["functionCall"]
    assert (contents[-2]["role"], call["id"], call["args"]) == ("model", response["id"], dict(LOOP.arguments))
    output = response["response"]["output"]
    result, context = output.split("\n\n<hook_context>")
    assert (result.startswith("<untrusted_context>\nOutput: smoke check failed\nProcess Group PGID: "),
            context) == (True, f"{DETAILED_4}</hook_context>")


def test_gemini_cli_takes_the_5th_identical_call_itself_and_stops_at_the_6th(loop):
    after_tool = [item for item in loop.hook_inputs if item["hook_event_name"] == "AfterTool"]
    assert [item["tool_input"]["command"] for item in after_tool] == ["cat smoke-result.txt"] + [
        "echo smoke check failed"] * 4  # the 5th was never run
    assert len(loop.turns) == 7  # the 6th loop call stopped the prompt: the script's last turns were never asked
    role, note = texts(loop.turns[6])[-1]
    assert (role, note.startswith(LOOP_NOTE)) == ("user", True)
    assert not any(text.startswith(LOOP_NOTE) for request in loop.turns[:6] for _, text in texts(request))
    assert loop.output["warnings"] == ["Loop detected, stopping execution"]


def test_the_side_requests_are_told_from_the_turns(loop):
    side = [request for request in loop.requests if request not in loop.turns]
    assert side, "the model router's classifier asks first"
    assert all(":generateContent" in request.path and "responseJsonSchema" in request.body["generationConfig"]
               for request in side)
    assert all(":streamGenerateContent" in request.path for request in loop.turns)


def test_the_hook_inputs_are_what_the_gemini_protocol_reads(loop):
    inputs = loop.hook_inputs
    assert [item["hook_event_name"] for item in inputs] == ["BeforeAgent"] + ["AfterTool"] * 5
    envelope = {"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp"}
    assert set(inputs[0]) == envelope | {"prompt"}
    assert inputs[0]["prompt"] == PROMPT
    (chat,) = loop.chat_files()
    assert {(item["session_id"], item["transcript_path"], item["cwd"]) for item in inputs} == {
        (loop.output["session_id"], str(chat), str(loop.project))}
    assert parse_event("gemini", inputs[0]).action == "reset"
    results = [str(response["response"]["output"]).split("\n\n<hook_context>")[0]
               for response in function_responses(loop.turns[6])]
    for item, result in zip(inputs[1:], results, strict=True):
        assert set(item) == envelope | {"tool_name", "tool_input", "tool_response"}
        assert set(item["tool_response"]) == {"llmContent", "returnDisplay"}  # no `error`, even for exit code 1
        request = parse_event("gemini", item)
        assert (request.action, request.session, request.agent) == ("count", item["session_id"], "main")
        assert gemini.calls("AfterTool", item) == [("run_shell_command", item["tool_input"], None, result, None)]


def shape(value: Any) -> Any:
    """A hook input or chat line with what changes from run to run left out: ids, times, process groups."""
    if isinstance(value, dict):
        return {key: type(item).__name__ if key in {"session_id", "sessionId", "timestamp", "startTime", "lastUpdated",
                                                    "id", "transcript_path", "projectHash"} else shape(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    if isinstance(value, str):
        value = re.sub(r"Today's date is [^(]*\(", "Today's date is DATE (", value)
        return re.sub(r"(Process Group PGID: |_)\d+", r"\1N", value)
    return value


def test_the_recorded_fixtures_have_the_shape_of_this_run(loop):
    recorded = [json.loads(line) for line in (FIXTURES / "hook-inputs.jsonl").read_text("utf-8").splitlines()]
    live = [json.loads(sanitize(json.dumps(item), loop)) for item in loop.hook_inputs]
    assert [shape(item) for item in recorded] == [shape(item) for item in live]
    (chat,) = loop.chat_files()
    recorded_chat = [json.loads(line) for line in (FIXTURES / "chat.jsonl").read_text("utf-8").splitlines()]
    live_chat = [json.loads(line) for line in sanitize(chat.read_text("utf-8"), loop).splitlines()]
    assert [shape(line) for line in recorded_chat] == [shape(line) for line in live_chat]
    assert all(re.search(r"\nProcess Group PGID: \d+\n</untrusted_context>$", item["tool_response"]["llmContent"])
               for item in recorded[1:])


def test_replaying_the_chat_gives_the_live_reminders_at_the_same_calls(loop):
    (chat,) = loop.chat_files()
    words = shlex.split(registered_command(loop))
    config = words[words.index("--config") + 1]
    done = subprocess.run([str(toolguards_command()), "replay", "--config", config, "--format", "jsonl", str(chat)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    replayed = [json.loads(line) for line in done.stdout.splitlines()]
    assert [[entry["text"] for entry in item["contexts"]] for item in replayed] == [
        [], [], [], [FIRST], [DETAILED_4]]
    live = reminders(loop.turns[-1])
    assert [(index, text) for index, item in enumerate(replayed) for text in
            (entry["text"] for entry in item["contexts"])] == live


# --- trust --------------------------------------------------------------------------------------------------------


def doctor(run: Run) -> subprocess.CompletedProcess[str]:
    """``toolguards doctor gemini`` in the run's project, with the environment the run's Gemini CLI had."""
    return subprocess.run([str(toolguards_command()), "doctor", "gemini"], cwd=run.project, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={"PATH": os.environ.get("PATH", os.defpath), "HOME": str(run.home)})


def problems(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith("gemini: problem: ")]


@pytest.mark.parametrize("trust", [None, "DO_NOT_TRUST"], ids=["no rule", "distrusted"])
def test_headless_gemini_refuses_a_folder_it_does_not_trust_and_doctor_says_so(tmp_path, trust):
    run = run_gemini(tmp_path, SCRIPT, trust=trust)
    assert run.process.returncode == 55
    assert "Gemini CLI is not running in a trusted directory" in run.process.stderr
    assert (run.requests, run.hook_inputs) == ([], [])
    verdict = folder_trust(str(run.project), {"HOME": str(run.home)})
    assert verdict.trusted is (None if trust is None else False)
    notes = run.install.stderr.splitlines()[1:]
    assert len(notes) == 1
    assert notes[0].startswith(f"toolguards hook install: note: Gemini CLI runs no hooks in {run.project} until")
    rules = run.home / ".gemini" / "trustedFolders.json"
    why = f"no rule for it in {rules}" if trust is None else f"{rules} gives {run.project} DO_NOT_TRUST"
    done = doctor(run)
    assert (done.returncode, problems(done)) == (1, [
        f"gemini: problem: {run.project}: Gemini CLI runs no hooks in this folder until it is trusted ({why}); "
        f'`gemini -p` exits 55 here; fix: start `gemini` here once and choose "Trust folder", or add '
        f'"{run.project}": "TRUST_FOLDER" to {rules}'])
    rules.write_text(json.dumps({str(run.project): "TRUST_FOLDER"}), encoding="utf-8")  # the fix, as said
    done = doctor(run)
    assert (done.returncode, problems(done)) == (0, []), done.stdout


def test_doctor_says_the_guard_works_where_the_real_run_gave_the_reminders(loop):
    done = doctor(loop)
    assert (done.returncode, problems(done)) == (0, []), done.stdout
    assert done.stdout.splitlines()[-1] == (
        f"gemini: ok: {loop.project / '.gemini' / 'settings.json'}: the command answers as the host expects: the "
        "reminder at the 3rd identical call")
    assert reminders(loop.turns[-1]) == [(3, FIRST), (4, DETAILED_4)]  # and the real Gemini CLI agreed


THREE = (LOOP, LOOP, LOOP, Text("Still failing."))


def test_skip_trust_drops_the_projects_hooks_without_a_word(tmp_path):
    run = run_gemini(tmp_path, THREE, trust=None, args=["--skip-trust"])
    assert run.process.returncode == 0, run.process.stderr
    assert len(run.turns) == 4
    assert [reminders(request) for request in run.turns] == [[], [], [], []]
    # the user's (recording) hook ran: Gemini CLI ran hooks, only not the project's
    assert [item["hook_event_name"] for item in run.hook_inputs] == ["BeforeAgent"] + ["AfterTool"] * 3
    assert not (run.home / ".cache" / "toolguards").exists()  # toolguards never ran
    assert "warnings" not in run.output


def test_a_user_scope_install_runs_under_skip_trust(tmp_path):
    run = run_gemini(tmp_path, THREE, trust=None, install=["--scope", "user"], args=["--skip-trust"])
    assert run.process.returncode == 0, run.process.stderr
    assert [reminders(request) for request in run.turns] == [[], [], [], [(2, FIRST)]]
    assert not (run.project / ".gemini").exists()
    settings = json.loads((run.home / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert [entry["hooks"][0]["name"] for entry in settings["hooks"]["AfterTool"]] == ["recorder", "toolguards"]

