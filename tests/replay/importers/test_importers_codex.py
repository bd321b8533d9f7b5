"""The codex importer on real Codex CLI rollouts (0.39, 0.77, 0.125 and a 0.146 schema-coverage file) and on synthetic
ones: calls paired with their outputs, prompts, threads and sub-agents, polls, and records it passes over."""

from __future__ import annotations

import collections
import contextlib
import io
import json
from pathlib import Path

import pytest

from conftest import REPO, SHARED_FIXTURES, require_shared, wrong_typed
from toolguards.cli import main
from toolguards.guardfile.loader import load
from toolguards.replay.feed import Outcome, replay
from toolguards.replay.importers import codex
from toolguards.replay.records import DEFAULT_OPTIONS, ImportOptions, InputError, Record
from toolguards.resources import default_guard_file

FIXTURES = SHARED_FIXTURES / "hosts" / "sessions" / "codex-rollout"
GUARD_FILES = (default_guard_file(), REPO / "examples" / "reference-mount.yaml")
POLLS = ImportOptions(count_polls=True)


def fixture(name: str) -> Path:
    path = FIXTURES / name
    require_shared()
    return path


def read(text: str, options: ImportOptions = DEFAULT_OPTIONS, name: str = "rollout-x.jsonl") -> list[object]:
    """The importer's items, an InputError as ("error", line, message)."""
    items = codex.read(name, io.StringIO(text), options)
    return [("error", item.line, item.message) if isinstance(item, InputError) else item for item in items]


def lines(*entries: object) -> str:
    return "".join((entry if isinstance(entry, str) else json.dumps(entry)) + "\n" for entry in entries)


def item(record_type: str, /, **payload: object) -> dict[str, object]:
    return {"timestamp": "2026-01-02T16:39:45.349Z", "type": record_type, "payload": payload}


def meta(thread: str, **extra: object) -> dict[str, object]:
    return item("session_meta", id=thread, cwd="/repo", cli_version="0.125.0", **extra)


def prompt(text: str = "go on", **extra: object) -> dict[str, object]:
    return item("event_msg", type="user_message", message=text, **extra)


def call(name: str, arguments: object, call_id: str, **extra: object) -> dict[str, object]:
    return item("response_item", type="function_call", name=name, arguments=arguments, call_id=call_id, **extra)


def output(call_id: object, value: object, kind: str = "function_call_output") -> dict[str, object]:
    return item("response_item", type=kind, call_id=call_id, output=value)


def post(line: int, agent: str, tool: str, arguments: object, call_id: str | None, result: object = None,
         error: str | None = None) -> Record:
    return Record("post-execute", line, agent=agent, tool=tool, arguments=arguments, call_id=call_id, result=result,
                  error=error)


def step(line: int, agent: str) -> Record:
    return Record("pre-step", line, agent=agent, user_prompt=True)


def skipped(line: int, label: str) -> Record:
    return Record("skipped", line, text=label)


# --- the real rollouts, against counts made here from the raw JSON -------------------------------------------------


def raw_events(path: Path, *, count_polls: bool) -> list[tuple[object, ...]]:
    """("call", agent, tool, arguments) and ("prompt", agent) from the raw file, read with plain json."""
    agent, events = path.stem, []
    for text in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(text)
        payload = entry["payload"]
        if entry["type"] == "session_meta":
            source = payload.get("source")
            spawned = (isinstance(source, dict) and "subagent" in source) or payload.get("thread_source") == "subagent"
            agent = ("subagent:" if spawned else "") + payload["id"]
        elif entry["type"] == "event_msg" and payload["type"] == "user_message" and payload.get("kind", "plain") == "plain":
            events.append(("prompt", agent))
        elif entry["type"] == "response_item" and payload["type"] in ("function_call", "custom_tool_call"):
            if payload["name"] == "write_stdin" and not count_polls:
                continue
            name = payload["name"]
            if payload.get("namespace"):
                name = payload["namespace"] + "__" + name
            arguments = payload["input"] if payload["type"] == "custom_tool_call" else payload["arguments"]
            if payload["type"] == "function_call":
                with contextlib.suppress(ValueError):  # the raw text where it is not JSON
                    arguments = json.loads(arguments or "{}")
            if name == "exec_command":  # as Codex's hooks report it: Bash, with the command alone
                name, arguments = "Bash", {"command": arguments["cmd"]}
            events.append(("call", agent, name, arguments))
    return events


def raw_reminders(events: list[tuple[object, ...]], excluded: frozenset[str]) -> int:
    """Reminders by the reference's rule: a run of identical consecutive calls of one agent reminds at 3, 5 and 8."""
    runs: dict[object, tuple[object, int]] = {}
    reminders = 0
    for event in events:
        if event[0] == "prompt":
            runs.pop(event[1], None)
        elif event[2] not in excluded:
            key = (event[2], json.dumps(event[3], sort_keys=True))
            last, count = runs.get(event[1], (None, 0))
            count = count + 1 if key == last else 1
            runs[event[1]] = (key, count)
            reminders += count in (3, 5, 8)
    return reminders


def replayed(path: Path, options: ImportOptions, guard_file: Path) -> tuple[list[Record], int]:
    with path.open(encoding="utf-8") as stream:
        records = [item for item in codex.read(path.name, stream, options) if isinstance(item, Record)]
    outcomes = [item for item in replay(records, [load(guard_file)]) if isinstance(item, Outcome)]
    return records, sum(len(outcome.contexts) for outcome in outcomes)


@pytest.mark.parametrize(
    ("name", "count_polls", "calls", "agents", "reminders"),
    [
        ("codemie-rollout-2026-05-11T11-26-55.jsonl", False, 48, 1, 0),
        ("codemie-rollout-2026-05-11T11-26-55.jsonl", True, 102, 1, 2),
        ("codemie-rollout-2026-01-02T18-39-45.jsonl", False, 3, 1, 0),
        ("vibecodingtracker-codex.jsonl", False, 19, 1, 0),
        ("agent-sessions-small.jsonl", False, 4, 2, 0),
    ],
)
def test_real_rollouts_match_a_count_from_the_raw_file(name, count_polls, calls, agents, reminders):
    path = fixture(name)
    events = raw_events(path, count_polls=count_polls)
    raw_calls = [event[1:] for event in events if event[0] == "call"]
    for guard_file, excluded in zip(GUARD_FILES, (frozenset({"todo_write"}), frozenset()), strict=True):
        records, counted = replayed(path, ImportOptions(count_polls=count_polls), guard_file)
        posts = [record for record in records if record.kind == "post-execute"]
        assert [(record.agent, record.tool, record.arguments) for record in posts] == raw_calls
        assert (len(posts), len({record.agent for record in posts}), counted) == (calls, agents, reminders)
        assert counted == raw_reminders(events, excluded)
        prompts = [record.agent for record in records if record.kind == "pre-step"]
        assert prompts == [event[1] for event in events if event[0] == "prompt"]


def test_the_six_identical_polls_remind_at_3_and_5_only_when_polls_count():
    path = fixture("codemie-rollout-2026-05-11T11-26-55.jsonl")
    entries = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    calls = [(number, entry["payload"]) for number, entry in enumerate(entries, 1)
             if entry["type"] == "response_item" and entry["payload"]["type"] in ("function_call", "custom_tool_call")]
    polls = [(number, payload) for number, payload in calls if payload["name"] == "write_stdin"
             and json.loads(payload["arguments"])["session_id"] == 98003 and json.loads(payload["arguments"])["chars"] == ""]
    run = [number for number, _ in polls]
    for options, expected in ((POLLS, [(run[2], 1), (run[4], 1)]), (ImportOptions(), [])):
        with path.open(encoding="utf-8") as stream:
            records = [item for item in codex.read(path.name, stream, options) if isinstance(item, Record)]
        outcomes = [item for item in replay(records, [load(default_guard_file())]) if isinstance(item, Outcome)]
        assert [(o.record.line, len(o.contexts)) for o in outcomes if o.contexts] == expected
    # six calls in a row, with nothing but their outputs and other records between them, all alike
    assert len(run) == 6 and [number for number, _ in calls if run[0] <= number <= run[-1]] == run
    assert len({payload["arguments"] for _, payload in polls}) == 1


def test_each_output_reaches_its_call_in_the_real_rollouts():
    for name in ("codemie-rollout-2026-05-11T11-26-55.jsonl", "codemie-rollout-2026-01-02T18-39-45.jsonl",
                 "vibecodingtracker-codex.jsonl"):
        path = fixture(name)
        outputs, shell = {}, set()
        for text in path.read_text(encoding="utf-8").splitlines():
            payload = json.loads(text)["payload"]
            if payload.get("type") == "function_call" and payload["name"] == "exec_command":
                shell.add(payload["call_id"])
            if payload.get("type") in ("function_call_output", "custom_tool_call_output"):
                output = payload["output"]
                if payload["call_id"] in shell:  # the hook's tool_response: what follows the header's Output: line
                    assert output.startswith("Chunk ID: ") and "\nOutput:\n" in output
                    output = output.split("\nOutput:\n", 1)[1]
                outputs[payload["call_id"]] = output
        with path.open(encoding="utf-8") as stream:
            posts = [item for item in codex.read(name, stream, POLLS) if isinstance(item, Record) and item.kind == "post-execute"]
        assert [record.result for record in posts] == [outputs[record.call_id] for record in posts]
        assert all(record.error is None for record in posts)


def test_the_schema_coverage_fixture_reads_with_nothing_left_unread():
    # Codex 0.146's record types, one or two of each: every one is read or known to hold no call.
    path = fixture("agent-sessions-small.jsonl")
    kinds = collections.Counter()
    for text in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(text)
        kinds[(entry["type"], entry["payload"].get("type"))] += 1
    with path.open(encoding="utf-8") as stream:
        items = list(codex.read(path.name, stream))
    assert not [item for item in items if isinstance(item, InputError)]
    assert [item for item in items if isinstance(item, Record) and item.kind == "skipped"] == []
    assert len(kinds) == 47
    # a token_count is read as a turn's usage when its total grew; the others repeat it
    assert len([item for item in items if isinstance(item, Record) and item.kind == "usage"]) == 2
    assert sum(1 for item in items if isinstance(item, Record) and item.kind == "post-execute") == 4


# --- synthetic rollouts --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            lines(meta("T"), prompt(), call("shell", '{"command": ["ls"]}', "c1"), output("c1", "a.txt\n")),
            [step(2, "T"), post(3, "T", "shell", {"command": ["ls"]}, "c1", "a.txt\n")],
            id="an old shell call with an array command",
        ),
        pytest.param(
            lines(meta("T"), call("exec_command", '{"cmd": "ls"}', "c1"), call("exec_command", '{"cmd": "pwd"}', "c2"),
                  output("c2", "/repo"), output("c1", [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}])),
            [post(2, "T", "Bash", {"command": "ls"}, "c1", "ab"), post(3, "T", "Bash", {"command": "pwd"}, "c2", "/repo")],
            id="parallel outputs in another order keep the calls in emitted order",
        ),
        pytest.param(
            lines(meta("T"), call("exec_command", '{"cmd": "make", "workdir": "/repo", "yield_time_ms": 1000}', "c1"),
                  output("c1", "Chunk ID: d2a3bf\nWall time: 0.0000 seconds\nProcess exited with code 2\n"
                               "Original token count: 3\nOutput:\nmake: *** [all] Error 2\n"),
                  call("exec_command", '{"cmd": "make", "yield_time_ms": 250}', "c2"),
                  output("c2", "Chunk ID: 6c114e\nWall time: 0.1 seconds\nOutput:\nOutput:\n")),
            [post(2, "T", "Bash", {"command": "make"}, "c1", "make: *** [all] Error 2\n"),
             post(4, "T", "Bash", {"command": "make"}, "c2", "Output:\n")],
            id="exec_command as Codex's hooks report it: Bash with the command alone, the output without its header",
        ),
        pytest.param(
            lines(meta("T"), call("exec_command", '{"cmd": ["ls"]}', "c1"), output("c1", "Chunk ID: 1\nOutput:\nx"),
                  call("shell_command", '{"command": "ls"}', "c2"), output("c2", "Chunk ID: 1\nWall time: 0\nOutput:\n")),
            [post(2, "T", "exec_command", {"cmd": ["ls"]}, "c1", "Chunk ID: 1\nOutput:\nx"),
             post(4, "T", "shell_command", {"command": "ls"}, "c2", "Chunk ID: 1\nWall time: 0\nOutput:\n")],
            id="an exec_command call whose cmd is not a string, and other tools, keep their names and outputs",
        ),
        pytest.param(
            lines(meta("T"), item("event_msg", type="item_completed", item={"type": "UserMessage", "content": []}),
                  call("exec_command", '{"cmd": "ls"}', "c1"),
                  item("event_msg", type="item_completed", item={"type": "AgentMessage", "content": []}),
                  item("event_msg", type="item_completed", item={"type": "UserMessage", "content": []})),
            [step(2, "T"), post(3, "T", "Bash", {"command": "ls"}, "c1"), step(5, "T")],
            id="Codex 0.171 marks a prompt with the item_completed of a UserMessage only",
        ),
        pytest.param(
            lines(meta("T"), prompt(), item("event_msg", type="item_completed", item={"type": "UserMessage"}),
                  call("shell", "{}", "c1")),
            [step(2, "T"), post(4, "T", "shell", {}, "c1")],
            id="where user_message events mark the prompts, a UserMessage item repeats one",
        ),
        pytest.param(
            lines(meta("T"), item("response_item", type="custom_tool_call", name="apply_patch", input="*** Begin Patch",
                                  call_id="p1", status="completed"),
                  output("p1", '{"output":"Success."}', kind="custom_tool_call_output")),
            [post(2, "T", "apply_patch", "*** Begin Patch", "p1", '{"output":"Success."}')],
            id="a custom tool call keeps its free-text input",
        ),
        pytest.param(
            lines(meta("T"), item("response_item", type="local_shell_call", call_id="s1", status="completed",
                                  action={"type": "exec", "command": ["ls"]}),
                  output("s1", {"content": "permission denied", "success": False})),
            [post(2, "T", "local_shell", {"type": "exec", "command": ["ls"]}, "s1", None, "permission denied")],
            id="a local shell call, and an output object marked unsuccessful",
        ),
        pytest.param(
            lines(meta("T"), call("list", "{}", "m1", namespace="mcp__github_"), call("raw", "not json", "m2"),
                  call("empty", "", "m3"), call("none", None, "m4")),
            [post(2, "T", "mcp__github__list", {}, "m1"), post(3, "T", "raw", "not json", "m2"),
             post(4, "T", "empty", {}, "m3"), post(5, "T", "none", {}, "m4")],
            id="namespaced names, and arguments parsed as the reference parses them",
        ),
        pytest.param(
            lines(meta("T"), call("shell", '{"command": ["sleep"]}', "c1"), prompt(), output("c1", "late")),
            [post(2, "T", "shell", {"command": ["sleep"]}, "c1"), step(3, "T")],
            id="a call without an output is released at the next prompt, and keeps no result",
        ),
        pytest.param(
            lines(meta("T"), call("shell", "{}", "c1")),
            [post(2, "T", "shell", {}, "c1")],
            id="a call without an output at the end of the input",
        ),
        pytest.param(
            lines(prompt(), call("shell", "{}", "c1"), output("c1", "ok")),
            [step(1, "rollout-x"), post(2, "rollout-x", "shell", {}, "c1", "ok")],
            id="before any session_meta the file name labels the agent",
        ),
        pytest.param(
            lines(prompt("<environment_context>", kind="environment_context"), prompt(kind="plain"),
                  item("response_item", type="message", role="user", content=[{"type": "input_text", "text": "hi"}])),
            [step(2, "rollout-x")],
            id="only plain user messages are prompts",
        ),
    ],
)
def test_synthetic_rollouts(text, expected):
    assert read(text) == expected


POLL_RUN = lines(
    meta("T"),
    call("exec_command", '{"cmd": "npm test"}', "c1"),
    output("c1", "Process running with session ID 7"),
    *[entry for n in range(2, 5) for entry in (call("write_stdin", '{"session_id": 7, "chars": ""}', f"c{n}"),
                                               output(f"c{n}", "..."))],
)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (ImportOptions(), [post(2, "T", "Bash", {"command": "npm test"}, "c1", "Process running with session ID 7")]),
        (POLLS, [post(2, "T", "Bash", {"command": "npm test"}, "c1", "Process running with session ID 7")]
         + [post(line, "T", "write_stdin", {"session_id": 7, "chars": ""}, f"c{n}", "...")
            for n, line in ((2, 4), (3, 6), (4, 8))]),
    ],
    ids=["polls left out by default", "polls counted with count_polls"],
)
def test_write_stdin_polls(options, expected):
    assert read(POLL_RUN, options) == expected


def test_sub_agents_and_forked_history_are_their_own_agents():
    text = lines(
        meta("child", forked_from_id="parent", source={"subagent": {"thread_spawn": {"parent_thread_id": "parent"}}}),
        meta("parent"),  # the parent's history, copied into the fork
        prompt(),
        call("shell", "{}", "c1"),
        output("c1", "copied"),
        meta("child", source={"subagent": {"thread_spawn": {"parent_thread_id": "parent"}}}),
        call("shell", "{}", "c2"),
        output("c2", "own"),
        meta("guardian", source="exec", thread_source="subagent"),
        call("shell", "{}", "c3"),
    )
    assert read(text) == [
        step(3, "parent"),
        post(4, "parent", "shell", {}, "c1", "copied"),
        post(7, "subagent:child", "shell", {}, "c2", "own"),
        post(10, "subagent:guardian", "shell", {}, "c3"),
    ]


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (item("a_record_from_next_year", x=1), skipped(1, "a_record_from_next_year")),
        (item("response_item", type="a_call_from_next_year", name="shell"), skipped(1, "response_item:a_call_from_next_year")),
        ({"timestamp": "t", "type": "compacted", "payload": "summary text"}, skipped(1, "compacted")),
        ({"timestamp": "t", "payload": {}}, skipped(1, "(no type)")),
        ({"type": ["session_meta"], "payload": {}}, skipped(1, "(no type)")),
        (item("session_meta", id=["T"]), skipped(1, "session_meta")),
        (item("session_meta", id=""), skipped(1, "session_meta")),
        (item("response_item", type=["function_call"]), skipped(1, "response_item")),
        (call(["shell"], "{}", "c1"), skipped(1, "response_item:function_call")),
        (call("", "{}", "c1"), skipped(1, "response_item:function_call")),
        (call("shell", "{}", ["c1"]), skipped(1, "response_item:function_call")),
        (call("shell", "{}", "c1", namespace=["mcp"]), skipped(1, "response_item:function_call")),
        (item("response_item", type="custom_tool_call", name={"n": 1}, input="x", call_id="c"), skipped(1, "response_item:custom_tool_call")),
        (item("response_item", type="local_shell_call", action=["ls"], call_id="c"), skipped(1, "response_item:local_shell_call")),
        (output(["c1"], "x"), skipped(1, "response_item:function_call_output")),
        ("[1, 2]", ("error", 1, "expected a JSON object, not an array")),
        ('{"type": "session_meta", "payload": {', ("error", 1, "not JSON: Expecting property name enclosed in double quotes at column 38")),
    ],
)
def test_records_it_does_not_read_are_skipped_and_labelled(entry, expected):
    assert read(lines(entry)) == [expected]


@pytest.mark.parametrize("entry", [
    item("turn_context", cwd="/repo"),
    item("world_state", full=True, state={}),
    item("compacted", message="summary", replacement_history=[]),
    item("inter_agent_communication_metadata", trigger_turn=False),
    item("event_msg", type="task_started", model_context_window=1),
    item("event_msg", type="token_count", info=None),
    item("event_msg", type="exec_command_end", call_id="c1", exit_code=0),  # the call itself is a response_item
    item("event_msg", type="an_event_from_next_year"),
    item("event_msg", message="no type"),
    item("event_msg", type="user_message", message="<environment_context>", kind="environment_context"),
    *(item("response_item", type=kind) for kind in (
        "message", "reasoning", "agent_message", "ghost_snapshot", "compaction", "compaction_summary",
        # tools the model's API runs itself: Codex fires no hook for them, so replay counts none
        "web_search_call", "image_generation_call", "tool_search_call", "tool_search_output")),
], ids=lambda entry: f"{entry['type']}:{entry['payload'].get('type')}")
def test_records_that_hold_no_tool_call_pass_in_silence(entry):
    assert read(lines(entry)) == []


@pytest.mark.needs_shared
@pytest.mark.parametrize("name", sorted(path.name for path in FIXTURES.glob("*.jsonl")) or ["(none)"])
def test_every_real_rollout_replays_under_strict(capsys, name):
    assert main(["replay", "--strict", str(fixture(name))]) == 0, capsys.readouterr().err
    assert " not read" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([{"type": "input_text", "text": ["a"]}], [{"type": "input_text", "text": ["a"]}]),
        ([{"type": ["input_text"], "text": "a"}], [{"type": ["input_text"], "text": "a"}]),
        ([{"type": "input_image", "image_url": "data:"}], [{"type": "input_image", "image_url": "data:"}]),
        ({"type": "input_text", "text": "one item"}, "one item"),
        ({"content": [{"type": "output_text", "text": "ok"}], "success": True}, "ok"),
        (None, None),
        ([], []),
    ],
)
def test_outputs_of_other_shapes_are_kept_as_logged(value, expected):
    [record] = read(lines(meta("T"), call("t", "{}", "c1"), output("c1", value)))
    assert isinstance(record, Record) and (record.result, record.error) == (expected, None)


def test_an_unsuccessful_output_that_is_not_text_is_its_json():
    [record] = read(lines(meta("T"), call("t", "{}", "c1"), output("c1", {"content": {"code": 1}, "success": False})))
    assert isinstance(record, Record) and (record.result, record.error) == (None, '{"code": 1}')


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (item("session_meta", id="T"), True),
        (item("response_item", type="function_call"), True),
        ({"timestamp": "t", "type": "a_record_from_next_year", "payload": {}}, True),
        ({"timestamp": "t", "type": "a_record_from_next_year", "payload": {}, "uuid": "u"}, False),
        ({"type": "event_msg", "payload": "x"}, False),
        ({"type": ["event_msg"], "payload": {}}, False),
        ({"type": "user", "message": {"role": "user", "content": "hi"}, "sessionId": "s"}, False),
        ({"type": "tool/call", "data": {"name": "x"}}, False),
        ([item("session_meta", id="T")], False),
        ("session_meta", False),
        (None, False),
    ],
)
def test_identifies(value, expected):
    assert codex.identifies(value) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl", True),
        ("rollout-x.jsonl", True),
        ("rollout-2026-05-11.json", False),
        ("my-rollout-2026.jsonl", False),
    ],
)
def test_file_name(name, expected):
    assert codex.FILE_NAME is not None
    assert bool(codex.FILE_NAME.fullmatch(name)) is expected


SEED = [
    meta("T", source={"subagent": {"thread_spawn": {"parent_thread_id": "P"}}}),
    prompt(kind="plain"),
    call("shell", '{"command": ["ls"]}', "c1", namespace="ns"),
    item("response_item", type="custom_tool_call", name="apply_patch", input="x", call_id="c2"),
    item("response_item", type="local_shell_call", action={"type": "exec", "command": ["ls"]}, call_id="c3"),
    output("c1", {"content": "e", "success": False}),
    output("c2", [{"type": "input_text", "text": "ok"}], kind="custom_tool_call_output"),
    call("write_stdin", "{}", "c4"),
]
def test_no_field_of_the_wrong_type_raises():
    for index, entry in enumerate(SEED):
        for path, wrong, variant in wrong_typed(entry):
            text = lines(*SEED[:index], variant, *SEED[index + 1:])
            for options in (DEFAULT_OPTIONS, POLLS):
                for record in read(text, options):
                    if isinstance(record, Record):
                        assert record.kind == "skipped" or isinstance(record.agent, str), (path, wrong)
                        assert isinstance(record.text, str), (path, wrong)
                        assert record.kind != "post-execute" or (isinstance(record.tool, str) and record.tool), (path, wrong)
                        assert record.call_id is None or isinstance(record.call_id, str), (path, wrong)
                        assert record.error is None or isinstance(record.error, str), (path, wrong)
