"""The gemini importer on real Gemini CLI recordings (the older single-JSON file and the current JSON Lines form) and on
synthetic ones: calls once with the first result their message carries, prompts, sessions, and lines it passes over."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conftest import REPO, SHARED_FIXTURES, require_shared, wrong_typed
from toolguards.guardfile.loader import load
from toolguards.replay.feed import Outcome, replay
from toolguards.replay.importers import gemini
from toolguards.replay.records import InputError, Record
from toolguards.resources import default_guard_file

FIXTURES = SHARED_FIXTURES / "hosts" / "sessions" / "gemini-cli"
GUARD_FILES = (default_guard_file(), REPO / "examples" / "reference-mount.yaml")


def fixture(name: str) -> Path:
    path = FIXTURES / name
    require_shared()
    return path


def read(text: str, name: str = "session-x.jsonl") -> list[object]:
    """The importer's items, an InputError as ("error", line, message)."""
    return [("error", item.line, item.message) if isinstance(item, InputError) else item
            for item in gemini.read(name, io.StringIO(text))]


def lines(*entries: object) -> str:
    return "".join((entry if isinstance(entry, str) else json.dumps(entry)) + "\n" for entry in entries)


META = {"sessionId": "S", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "kind": "main"}


def user(message_id: str, text: str = "go on") -> dict[str, object]:
    return {"id": message_id, "timestamp": "t", "type": "user", "content": [{"text": text}]}


def model(message_id: str, *calls: dict[str, object]) -> dict[str, object]:
    message: dict[str, object] = {"id": message_id, "timestamp": "t", "type": "gemini", "content": ""}
    if calls:
        message["toolCalls"] = list(calls)
    return message


def tool(call_id: str, name: str, args: object, response: object = None, status: str = "success") -> dict[str, object]:
    entry: dict[str, object] = {"id": call_id, "name": name, "args": args, "status": status, "timestamp": "t"}
    if response is not None:
        entry["result"] = [{"functionResponse": {"id": call_id, "name": name, "response": response}}]
    return entry


def post(line: int, agent: str, name: str, arguments: object, call_id: str, result: object = None,
         error: str | None = None) -> Record:
    return Record("post-execute", line, agent=agent, tool=name, arguments=arguments, call_id=call_id, result=result,
                  error=error)


def step(line: int, agent: str = "S") -> Record:
    return Record("pre-step", line, agent=agent, user_prompt=True)


def skipped(line: int, label: str) -> Record:
    return Record("skipped", line, text=label)


# --- the real recordings, against counts made here from the raw JSON -----------------------------------------------


def raw_events(path: Path) -> list[tuple[object, ...]]:
    """("call", agent, tool, arguments, result) and ("prompt", agent), read with plain json: for the JSON Lines form,
    each message's last version, in the order the messages first appear."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        document = json.loads(text)
        agent, messages = document["sessionId"], document["messages"]
    else:
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
        agent = records[0]["sessionId"]
        latest: dict[str, dict[str, object]] = {}
        for record in records:
            if "id" in record:
                latest[record["id"]] = record  # a dict keeps the order of first insertion
        messages = list(latest.values())
    events: list[tuple[object, ...]] = []
    for message in messages:
        if message["type"] == "user":
            events.append(("prompt", agent))
        for call in message.get("toolCalls", []) if message["type"] == "gemini" else []:
            output = call["result"][0]["functionResponse"]["response"]["output"]
            events.append(("call", agent, call["name"], call["args"], output))
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


@pytest.mark.parametrize(
    ("name", "calls", "prompts", "skipped_labels"),
    [
        ("codemie-session-2025-12-01T21-45-5b959dae.json", 10, 3, []),
        ("vibecodingtracker-gemini.jsonl", 12, 3, []),
    ],
)
def test_real_recordings_match_a_count_from_the_raw_file(name, calls, prompts, skipped_labels):
    path = fixture(name)
    events = raw_events(path)
    for guard_file, excluded in zip(GUARD_FILES, (frozenset({"todo_write"}), frozenset()), strict=True):
        with path.open(encoding="utf-8") as stream:
            items = list(gemini.read(name, stream))
        assert all(isinstance(item, Record) for item in items)
        records = [item for item in items if isinstance(item, Record)]
        outcomes = [item for item in replay(records, [load(guard_file)]) if isinstance(item, Outcome)]
        reminders = sum(len(outcome.contexts) for outcome in outcomes)
        read_events = [("call", r.agent, r.tool, r.arguments, r.result) if r.kind == "post-execute" else ("prompt", r.agent)
                       for r in records if r.kind in ("post-execute", "pre-step")]
        assert read_events == events
        posts = [record for record in records if record.kind == "post-execute"]
        assert (len(posts), len({record.agent for record in posts}), reminders) == (calls, 1, 0)
        assert reminders == raw_reminders(events, excluded)
        assert sum(record.kind == "pre-step" for record in records) == prompts
        assert [record.text for record in records if record.kind == "skipped"] == skipped_labels


def test_a_real_single_json_recording_keeps_each_messages_line():
    path = fixture("codemie-session-2025-12-01T21-45-5b959dae.json")
    text = path.read_text(encoding="utf-8")
    starts = [number for number, line in enumerate(text.splitlines(), 1) if line.startswith('    {')]
    with path.open(encoding="utf-8") as stream:
        lines_read = sorted({item.line for item in gemini.read(path.name, stream) if isinstance(item, Record)})
    assert lines_read and set(lines_read) <= set(starts)


# --- synthetic recordings ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            lines(META, user("m1"), {"$set": {"lastUpdated": "t2"}},
                  model("m2", tool("c1", "read_file", {"file_path": "a"}, {"output": "A"}),
                        tool("c2", "read_file", {"file_path": "b"}, {"output": "B"}))),
            [step(2), post(4, "S", "read_file", {"file_path": "a"}, "c1", "A"),
             post(4, "S", "read_file", {"file_path": "b"}, "c2", "B")],
            id="a message with two calls and their results",
        ),
        pytest.param(
            lines(META, model("m1"), model("m1", tool("c1", "ls", {}, status="executing")),
                  model("m1", tool("c1", "ls", {}, {"output": "x"})), model("m1", tool("c1", "ls", {}, {"output": "y"}))),
            [post(3, "S", "ls", {}, "c1", "x")],
            id="a message written again: each call once, with the first result it carries",
        ),
        pytest.param(
            lines(META, model("m1", tool("c1", "run_shell_command", {"command": "false"}, {"error": "exit 1"}, status="error"))),
            [post(2, "S", "run_shell_command", {"command": "false"}, "c1", None, "exit 1")],
            id="an error in the response is the call's error",
        ),
        pytest.param(
            lines(META, model("m1", tool("c1", "x", {}, {"error": {"code": 7}}))),
            [post(2, "S", "x", {}, "c1", None, '{"code": 7}')],
            id="an error that is not text is its JSON",
        ),
        pytest.param(
            lines(META, model("m1", tool("c1", "x", {}, {"llmContent": "z"}))),
            [post(2, "S", "x", {}, "c1", {"llmContent": "z"})],
            id="a response without output is kept as it is",
        ),
        pytest.param(
            lines(META, model("m1", tool("c1", "ls", {}, status="executing")), model("m2"), model("m1", tool("c1", "ls", {}, {"output": "late"}))),
            [post(2, "S", "ls", {}, "c1")],
            id="a call without a result keeps none once the next message starts",
        ),
        pytest.param(
            lines(META, model("m1", tool("c1", "ls", {}, status="executing"))),
            [post(2, "S", "ls", {}, "c1")],
            id="a call without a result at the end of the input",
        ),
        pytest.param(
            lines(META, model("m1", tool("c1", "grep", '{"q": "x"}', {"output": ""}), tool("c2", "grep", "not json", {"output": ""}))),
            [post(2, "S", "grep", {"q": "x"}, "c1", ""), post(2, "S", "grep", "not json", "c2", "")],
            id="arguments given as a JSON string are parsed",
        ),
        pytest.param(
            lines(META, user("m1"), user("m1"), {"$set": {"messages": [user("m1"), model("m2", tool("c1", "ls", {}, {"output": "x"}))]}},
                  model("m3", tool("c1", "ls", {}, {"output": "x"}))),
            [step(2), post(4, "S", "ls", {}, "c1", "x")],
            id="a rewritten history counts only what it has not seen",
        ),
        pytest.param(
            lines(user("m1"), model("m2", tool("c1", "ls", {}, {"output": "x"}))),
            [step(1, "session-x"), post(2, "session-x", "ls", {}, "c1", "x")],
            id="before the metadata line the file name labels the agent",
        ),
        pytest.param(
            lines(META, model("m1", tool("c1", "ls", {}, {"output": "x"})), {"$set": {"sessionId": "T"}},
                  model("m2", tool("c2", "ls", {}, {"output": "x"}))),
            [post(2, "S", "ls", {}, "c1", "x"), post(4, "T", "ls", {}, "c2", "x")],
            id="a $set of another sessionId starts another agent",
        ),
        pytest.param(
            lines({**META, "messages": [user("m1"), model("m2", tool("c1", "ls", {}, {"output": "x"}))]}),
            [step(1), post(1, "S", "ls", {}, "c1", "x")],
            id="a single-JSON recording on one line",
        ),
        pytest.param(
            json.dumps({"sessionId": "S", "projectHash": "h",
                        "messages": [user("m1"), model("m2", tool("c1", "ls", {"p": 1}, {"output": "x"}))]}, indent=2),
            [step(5), post(15, "S", "ls", {"p": 1}, "c1", "x")],
            id="a single-JSON recording spread over lines: each record at its message's line",
        ),
        pytest.param(
            json.dumps({"messages": [user("m1")], "sessionId": "S", "projectHash": "h"}, indent=1),
            [step(3)],
            id="the session id labels the agent wherever the document puts it",
        ),
    ],
)
def test_synthetic_recordings(text, expected):
    assert read(text) == expected


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"id": "i1", "timestamp": "t", "type": "info", "content": "Request cancelled."}, []),  # no call: in silence
        ({"id": "e1", "timestamp": "t", "type": "error", "content": "quota"}, []),
        ({"id": "w1", "timestamp": "t", "type": "warning", "content": "slow"}, []),
        ({"id": "x1", "timestamp": "t", "type": "summary", "content": "s"}, [skipped(2, "summary")]),
        ({"$rewindTo": "m1"}, []),  # the calls it takes back were run: replay keeps them
        ({"something": "else"}, [skipped(2, "(unknown line)")]),
        ({"id": "x1", "type": ["gemini"]}, [skipped(2, "message")]),
        ({"id": "x1", "type": "gemini", "toolCalls": {"id": "c1"}}, [skipped(2, "message")]),
        (model("m1", {"id": ["c1"], "name": "ls", "args": {}}), [skipped(2, "toolCall")]),
        (model("m1", {"id": "c1", "name": ["ls"], "args": {}}), [skipped(2, "toolCall")]),
        (model("m1", {"id": "c1", "name": "", "args": {}}), [skipped(2, "toolCall")]),
        ({"id": "m1", "type": "gemini", "toolCalls": ["c1"]}, [skipped(2, "toolCall")]),
        ({"$set": {"messages": [1, {"type": "user"}]}}, [skipped(2, "message"), skipped(2, "message")]),
        ({"$set": {"sessionId": ["T"]}}, []),
        ('"text"', [("error", 2, "expected a JSON object, not a string")]),
        ("{oops", [("error", 2, "not JSON: Expecting property name enclosed in double quotes at column 2")]),
    ],
)
def test_lines_it_does_not_read_are_skipped_and_labelled(entry, expected):
    assert read(lines(META, entry)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "sessionId": "S",\n  "messages": {"m": 1}\n}', [("error", 3, '"messages" must be an array, not an object')]),
        ('{\n  "other": 1\n}', [("error", 1, 'not a Gemini CLI recording: no "sessionId" and no "messages"')]),
        ('[\n  {"id": "m1"}\n]', [("error", 1, "expected a JSON object at column 1")]),
        ('{\n  "sessionId": "S",\n  "messages": [1]\n}', [skipped(3, "message")]),
        ('{\n  "sessionId": "S",\n  "messages": [\n', [("error", 4, "not JSON: Expecting value")]),
        ("", []),
        ("\n\n", []),
    ],
)
def test_single_json_documents_of_the_wrong_shape(text, expected):
    assert read(text, "session-x.json") == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (META, True),
        ({"sessionId": "S", "projectHash": "h", "messages": []}, True),
        ({"$set": {"lastUpdated": "t"}}, True),
        ({"$rewindTo": "m1"}, True),
        (model("m1"), True),
        ({"$set": {"lastUpdated": "t"}, "type": "x"}, False),
        ({"sessionId": "S"}, False),
        ({"sessionId": ["S"], "projectHash": "h"}, False),
        (user("m1"), False),
        ({"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}}, False),
        ({"role": "user", "content": "hi"}, False),
        ([META], False),
        (None, False),
    ],
)
def test_identifies(value, expected):
    assert gemini.identifies(value) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("session-2025-12-01T21-45-5b959dae.json", True),
        ("session-2026-04-23T12-52-0ab84937.jsonl", True),
        ("session-x.jsonl", False),
        ("0ab84937-9fe7-4284-986a-33c832af0b6a.jsonl", False),
    ],
)
def test_file_name(name, expected):
    assert gemini.FILE_NAME is not None
    assert bool(gemini.FILE_NAME.fullmatch(name)) is expected


SEED = [
    META,
    user("m1"),
    model("m2", tool("c1", "read_file", {"file_path": "a"}, status="executing")),
    model("m2", tool("c1", "read_file", {"file_path": "a"}, {"output": "A"}), tool("c2", "x", "{}", {"error": "E"})),
    {"$set": {"sessionId": "T", "messages": [user("m3"), model("m4", tool("c3", "ls", {}, {"output": "x"}))]}},
    {"$rewindTo": "m1"},
]


def well_typed(items: list[object]) -> bool:
    return all(
        not isinstance(record, Record)
        or (
            (record.kind == "skipped" or isinstance(record.agent, str))
            and (record.kind != "post-execute" or (isinstance(record.tool, str) and record.tool != ""))
            and (record.call_id is None or isinstance(record.call_id, str))
            and (record.error is None or isinstance(record.error, str))
        )
        for record in items
    )


def test_no_field_of_the_wrong_type_raises():
    for index, entry in enumerate(SEED):
        for path, wrong, variant in wrong_typed(entry):
            assert well_typed(read(lines(*SEED[:index], variant, *SEED[index + 1:]))), (index, path, wrong)
    document = {"sessionId": "S", "projectHash": "h", "messages": SEED[1:4]}
    for path, wrong, variant in wrong_typed(document):
        assert well_typed(read(json.dumps(variant, indent=1), "session-x.json")), (path, wrong)
