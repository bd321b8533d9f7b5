"""toolguards inside the real Claude Code (``claude -p``, 2.1.x), installed as a user installs it, against a scripted model.

Each run starts from a fresh home folder: ``toolguards hook install claude`` writes the project's
``.claude/settings.json`` (a command hook, or ``--http`` hooks posting to a ``toolguards serve`` this module starts),
with the guard file below; a recorder registered in the user's own settings beside it (``support/hook_recorder.py``)
keeps the exact hook stdin Claude Code sends. The model's script: six identical Bash calls, then a text answer.
Claude Code runs the six commands, and the test reads what it sent the model.

One run per registration serves every test of the module (module-scoped fixtures), so the module costs seconds.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import FIRST, FIXTURES, detailed
from support.after_reminder import figures, one_tools_cost, report, rows, shown, summary
from support.anthropic_api import tool_use_id
from support.claude_host import ClaudeHome, ClaudeRun, HookContext, hook_contexts, run_claude, sanitized
from support.hooks import TOOLGUARDS
from support.programs import on_path
from support.real_hosts import HOSTS_DIR, host_program
from support.scripted_model import Request, Text, ToolCall
from support.servers import Serve
from toolguards.hooks import claude
from toolguards.hooks.driver import parse_event

RECORDER = Path(__file__).resolve().parent.parent / "support" / "hook_recorder.py"
KEPT = FIXTURES / "claude-code"
GUARD_FILE = """\
guards:
  - id: repeat-tool-reminder
    config:
      thresholds: [3, 5, 8]
      exclude: [TodoWrite]
"""
BASH = {"command": "echo looping", "description": "Print a word"}
ARGUMENTS = '{"command":"echo looping","description":"Print a word"}'
#: Every event a recorder is registered for: toolguards' own and the ones around them.
RECORDED = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Stop")


def six(home: ClaudeHome) -> list[Any]:
    return [ToolCall("Bash", BASH)] * 6 + [Text("Done.")]


@dataclass(frozen=True)
class Live:
    """One real run: what Claude Code did, the hook events it sent, and the guard file toolguards ran with."""

    run: ClaudeRun
    events: list[dict[str, Any]]
    guard_file: Path
    settings: dict[str, Any]


def prepared(folder: Path, install: tuple[str, ...], guard_file: Path | None,
             events: tuple[str, ...] = RECORDED) -> tuple[ClaudeHome, Path]:
    """A fresh home whose project has toolguards installed with ``install`` options (and, for a command hook, the
    project's guard file), and a recorder of ``events`` in the user's settings; the home and the guard file."""
    home = ClaudeHome.fresh(folder)
    if guard_file is None:
        guard_file = home.write("guards.yaml", GUARD_FILE)
        install = (*install, "--config", str(guard_file))
    # as a user would: from the project folder, with claude on PATH (install asks it for its version)
    path = on_path(HOSTS_DIR / "node_modules" / ".bin", home.environment()["PATH"])
    done = subprocess.run([str(TOOLGUARDS), "hook", "install", "claude", *install], cwd=home.project,
                          env=home.environment(PATH=path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "PostToolBatch, UserPromptSubmit run " in done.stderr and "left out" not in done.stderr, done.stderr
    words = (sys.executable, str(RECORDER), str(home.home / "hook-stdin"))
    recorder = {"type": "command", "command": " ".join(map(shlex.quote, words))}
    home.write(".claude/settings.json", {"hooks": {event: [{"matcher": "*", "hooks": [recorder]}] for event in events}},
               under="home")
    return home, guard_file


def recorded(home: ClaudeHome) -> list[dict[str, Any]]:
    folder = home.home / "hook-stdin"
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))]


def live_run(folder: Path, turns: Callable[[ClaudeHome], list[Any]], install: tuple[str, ...] = (),
             guard_file: Path | None = None) -> Live:
    home, guard_file = prepared(folder, install, guard_file)
    run = run_claude(home, turns(home), "Run the command until it works.", allowed_tools=("Bash",))
    settings = json.loads((home.project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    return Live(run, recorded(home), guard_file, settings)


@pytest.fixture(scope="module", params=["command", "http"])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """Six identical Bash calls in the real Claude Code, with the command hook or the http hook."""
    host_program("claude")
    folder = tmp_path_factory.mktemp(f"claude-{request.param}")
    if request.param == "command":
        yield live_run(folder, six)
        return
    guard_file = folder / "served.yaml"
    guard_file.write_text(GUARD_FILE, encoding="utf-8")
    serve = Serve("--config", str(guard_file)).ready()
    try:
        yield live_run(folder, six, ("--http", f"http://127.0.0.1:{serve.port}/hooks/claude"), guard_file)
    finally:
        serve.stop()


def tail(request: Request) -> int:
    """Where the messages new in a request start: after the model's last turn (the rest is history, sent again)."""
    messages = request.body["messages"]
    return max((number for number, message in enumerate(messages) if message["role"] == "assistant"), default=-1) + 1


def new_contexts(request: Request) -> list[HookContext]:
    """The hook contexts new in a request."""
    return [context for context in hook_contexts(request) if context.message >= tail(request)]


def contexts_by_request(run: ClaudeRun) -> list[list[tuple[str, str]]]:
    return [[(context.hook, context.text) for context in new_contexts(request)] for request in run.turns]


def test_the_reminders_reach_the_4th_and_6th_requests_and_nothing_else(live):
    found = contexts_by_request(live.run)
    assert len(found) == 7
    assert found == [[], [], [], [("PostToolUse:Bash", FIRST)], [], [("PostToolUse:Bash", detailed("Bash", 5, ARGUMENTS))],
                     []]
    # and nowhere else: no side request, no other block carries a reminder
    everything = json.dumps([request.body for request in live.run.requests])
    assert everything.count("You are repeating the exact same tool call") == 4  # request 4, then 5, 6, 7 repeat it
    assert everything.count("Repeated tool call detected") == 2  # request 6, then 7


def test_a_reminder_is_a_system_reminder_right_after_the_tool_result(live):
    for number, call in ((4, 2), (6, 4)):
        request = live.run.turns[number - 1]
        last = request.body["messages"][-1]
        (context,) = new_contexts(request)
        assert (last["role"], context.message, context.form) == ("user", len(request.body["messages"]) - 1,
                                                                 "system-reminder")
        result, reminder = last["content"]
        assert (result["type"], result["tool_use_id"], result["is_error"]) == ("tool_result", tool_use_id(call), False)
        assert reminder["type"] == "text"
        assert reminder["text"].startswith("<system-reminder>\nPostToolUse:Bash hook additional context: ")
        assert reminder["text"].endswith("\n</system-reminder>")


def test_nothing_left_loopback(live):
    assert live.run.escaped == []
    assert {request.path for request in live.run.requests} == {"/v1/messages?beta=true"}


def test_install_registered_every_event_claude_code_sends(live):
    assert set(live.settings["hooks"]) == {"PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit"}
    names = [event["hook_event_name"] for event in live.events]
    assert names.count("UserPromptSubmit") == 1
    assert names.count("PostToolUse") == names.count("PostToolBatch") == 6
    assert "PostToolUseFailure" not in names


def test_the_events_carry_what_the_protocol_module_reads(live):
    """Every field ``toolguards.hooks.claude`` reads is there, in the type it expects; what it does not read (a
    subagent's ``agent_id``) is absent on the main thread."""
    session = live.run.session_id
    requests = []
    for event in live.events:
        assert event["session_id"] == session
        assert "agent_id" not in event and "hookEventName" not in event and "sessionId" not in event
        if event["hook_event_name"] in claude.EVENTS:
            requests.append(parse_event("claude", event))
    counted = [request for request in requests if request.action == "count"]
    calls = [call for request in counted if request.event == "PostToolUse" for call in request.calls]
    assert [(call.tool, call.arguments, call.call_id, call.agent) for call in calls] == [
        ("Bash", BASH, tool_use_id(index), "main") for index in range(6)]
    assert [call.result for call in calls] == [
        {"stdout": "looping", "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}] * 6
    batches = [request.calls for request in counted if request.event == "PostToolBatch"]
    assert [[(call.tool, call.call_id, call.result) for call in batch] for batch in batches] == [
        [("Bash", tool_use_id(index), "looping")] for index in range(6)]
    (reset,) = [request for request in requests if request.action == "reset"]
    assert (reset.event, reset.session, reset.agent) == ("UserPromptSubmit", session, "main")


def shape(value: Any) -> Any:
    """The keys and value types of a JSON value, not its values."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value[:1]]
    return type(value).__name__


@pytest.mark.parametrize("name", ["UserPromptSubmit", "PostToolUse", "PostToolBatch"])
def test_the_recorded_fixtures_have_the_shape_claude_code_sends_today(live, name):
    """``tests/fixtures/claude-code/`` holds sanitized events of this run (``sanitized``); their shape must stay
    the shape of what the installed Claude Code sends."""
    sent = next(event for event in live.events if event["hook_event_name"] == name)
    kept = json.loads((KEPT / f"{name}.json").read_text(encoding="utf-8"))
    assert shape(sanitized(sent, live.run.home)) == shape(kept)


def replayed(transcript: Path, guard_file: Path) -> dict[str, list[str]]:
    """The reminders ``toolguards replay`` gives each call of a transcript, by the call's ``tool_use`` id."""
    done = subprocess.run([str(TOOLGUARDS), "replay", "--format", "jsonl", "--strict", "--config", str(guard_file),
                           str(transcript)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = transcript.read_text(encoding="utf-8").splitlines()
    found = {}
    for record in map(json.loads, done.stdout.splitlines()):
        entry = json.loads(lines[record["line"] - 1])
        (block,) = [block for block in entry["message"]["content"] if block["type"] == "tool_use"]
        found[block["id"]] = [context["text"] for context in record["contexts"]]
    return found


def delivered(run: ClaudeRun) -> dict[str, list[str]]:
    """The reminders the model received after each call's result, by call id (from the live run's requests)."""
    found: dict[str, list[str]] = {}
    for request in run.turns[1:]:
        new = request.body["messages"][tail(request):]
        ids = [block["tool_use_id"] for message in new if isinstance(message["content"], list)
               for block in message["content"] if block["type"] == "tool_result"]
        for call_id in ids:
            found.setdefault(call_id, [])
        found[ids[-1]] += [context.text for context in new_contexts(request)]
    return found


def test_replaying_the_transcript_gives_the_same_reminders_at_the_same_calls(live):
    live_reminders = delivered(live.run)
    assert sum(map(len, live_reminders.values())) == 2
    assert replayed(live.run.transcript, live.guard_file) == live_reminders


def test_the_transcript_records_the_reminders_the_hook_added(live):
    """Claude Code logs each hook's context as a ``hook_additional_context`` attachment naming the call."""
    attached = {}
    for entry in live.run.entries():
        attachment = entry.get("attachment") or {}
        if entry["type"] == "attachment" and attachment.get("type") == "hook_additional_context":
            attached[attachment["toolUseID"]] = attachment["content"]
    assert attached == {call_id: texts for call_id, texts in delivered(live.run).items() if texts}


def test_the_delivered_reminders_and_what_followed_them(live, tmp_path):
    """``replay --summary`` finds the two reminders the transcript records (the attachments above) as delivered,
    with their outcomes and the turns' tokens, and ``report`` shows the same figures."""
    found = summary(live.run.transcript, live.guard_file, "--strict")
    model = live.run.turns[0].body["model"]  # the scripted model names itself after the request's
    # after the 3rd call (the first reminder) the model sent the same call three more times, and after the 5th (the
    # detailed one) once more; its next turn was the text answer, which ended the prompt: both were repeated
    assert rows(found) == [
        ("repeat-tool-reminder", "detailed", "Bash", model, True, 1, 0, 1, 0, 1),
        ("repeat-tool-reminder", "first", "Bash", model, True, 1, 0, 1, 0, 3),
    ]
    # every turn says 1 in, 1 out (message.usage, as the scripted model streams it): seven turns, the six that made
    # the calls in the loop, the 4th to 6th after the first reminder
    assert found["cost"] == one_tools_cost("Bash", {"input": 1, "output": 1}, 7, 6, 3)
    assert shown(report(live.run.transcript, live.guard_file, tmp_path / "page.html")) == figures(found)


# A call Claude Code refuses at its permission step (Write, not in --allowedTools) fires no PostToolUse and no
# PostToolUseFailure: only PostToolBatch reports it. Three refused calls in a row, then one that fails.
FAILING = {"command": "ls no-such-file", "description": "List a missing file"}


def three_refused_then_a_failure(home: ClaudeHome) -> list[Any]:
    write = {"file_path": str(home.project / "notes.txt"), "content": "x"}
    return [ToolCall("Write", write)] * 3 + [ToolCall("Bash", FAILING), Text("Done.")]


@pytest.fixture(scope="module")
def refused(tmp_path_factory: pytest.TempPathFactory) -> Live:
    host_program("claude")
    return live_run(tmp_path_factory.mktemp("claude-refused"), three_refused_then_a_failure)


def test_refused_calls_count_through_the_batch_event(refused):
    names = [event["hook_event_name"] for event in refused.events]
    assert names.count("PostToolUse") == 0
    assert names.count("PostToolUseFailure") == 1
    assert names.count("PostToolBatch") == 4
    found = contexts_by_request(refused.run)
    assert found == [[], [], [], [("PostToolBatch", FIRST)], []]
    assert refused.run.escaped == []


def test_replaying_the_refused_run_gives_the_same_reminder_at_the_same_call(refused):
    live_reminders = delivered(refused.run)
    assert live_reminders == {tool_use_id(0): [], tool_use_id(1): [], tool_use_id(2): [FIRST], tool_use_id(3): []}
    assert replayed(refused.run.transcript, refused.guard_file) == live_reminders


def test_the_reminder_delivered_with_the_batch_and_what_followed_it(refused, tmp_path):
    """The reminder a ``PostToolBatch`` hook gave (Claude Code hands it over as a system message of its own) is found
    in the transcript as delivered, with its outcome, and ``report`` shows the same figures."""
    found = summary(refused.run.transcript, refused.guard_file, "--strict")
    model = refused.run.turns[0].body["model"]
    # after the 3rd refused Write (the first reminder) the model's next call was the failing Bash: another call
    assert rows(found) == [("repeat-tool-reminder", "first", "Write", model, True, 1, 1, 0, 0, 0)]
    # five turns of 1 in, 1 out; the three Writes' turns are the loop, and no turn of it came after the reminder
    assert found["cost"] == one_tools_cost("Write", {"input": 1, "output": 1}, 5, 3, 0)
    assert shown(report(refused.run.transcript, refused.guard_file, tmp_path / "page.html")) == figures(found)


def kinds(entries: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """Each transcript entry's type, and its attachment's."""
    return [(entry["type"], (entry.get("attachment") or {}).get("type")) for entry in entries]


def test_the_kept_batch_transcript_is_what_claude_code_writes_today(refused):
    """``tests/fixtures/claude-code/outcomes-batch.jsonl`` is a transcript of this run, sanitized (the unit tests
    replay it): Claude Code still writes the same entries, the batch hook's context in the same shape, under an id
    of its own rather than the call's."""
    kept = [json.loads(line) for line in (KEPT / "outcomes-batch.jsonl").read_text(encoding="utf-8").splitlines()]
    written = refused.run.entries()
    assert kinds(written) == kinds(kept)
    (context,), (kept_context,) = ([entry for entry in entries if entry.get("attachment", {}).get("type")
                                    == "hook_additional_context"] for entries in (written, kept))
    assert shape(context) == shape(kept_context)
    assert context["attachment"]["hookName"] == "PostToolBatch"
    assert context["attachment"]["toolUseID"].startswith("hook-")


def test_a_failing_call_is_reported_with_its_error(refused):
    (event,) = [event for event in refused.events if event["hook_event_name"] == "PostToolUseFailure"]
    (call,) = parse_event("claude", event).calls
    assert (call.tool, call.arguments, call.call_id) == ("Bash", FAILING, tool_use_id(3))
    assert call.error is not None and call.error.startswith("Exit code 2\nls: cannot access 'no-such-file'")
    assert call.result is None


@pytest.mark.parametrize("name", ["PostToolUseFailure", "PostToolBatch-refused"])
def test_the_refused_run_fixtures_have_the_shape_claude_code_sends_today(refused, name):
    event_name, _, _ = name.partition("-")
    sent = next(event for event in refused.events if event["hook_event_name"] == event_name)
    kept = json.loads((KEPT / f"{name}.json").read_text(encoding="utf-8"))
    assert shape(sanitized(sent, refused.run.home)) == shape(kept)


def three(home: ClaudeHome) -> list[Any]:
    return [ToolCall("Bash", BASH)] * 3 + [Text("Done.")]


@pytest.mark.parametrize(("change", "reminded"), [
    (lambda text: text.replace('"hooks"', '"model": 3,\n  "hooks"', 1), False),  # a known key of the wrong type
    (lambda text: "// toolguards\n" + text, False),  # not strict JSON
    (lambda text: text.replace('"hooks"', '"notASetting": true,\n  "hooks"', 1), True),  # an unknown key
], ids=["wrong-type", "comment", "unknown-key"])
def test_claude_p_drops_a_settings_file_it_rejects_without_a_word(tmp_path, change, reminded):
    """What ``toolguards doctor`` must catch: ``claude -p`` says nothing of a settings file it rejects, and runs none
    of its hooks."""
    host_program("claude")
    home, _ = prepared(tmp_path, (), None, ("PostToolUse",))
    settings = home.project / ".claude" / "settings.json"
    settings.write_text(change(settings.read_text(encoding="utf-8")), encoding="utf-8")
    run = run_claude(home, three(home), "Run the command until it works.")
    assert (run.result["subtype"], run.stderr) == ("success", "")
    assert contexts_by_request(run)[3] == ([("PostToolUse:Bash", FIRST)] if reminded else [])
    assert any(event["hook_event_name"] == "PostToolUse" for event in recorded(home))  # the user's file still runs
