"""The claude-code importer on real Claude Code transcripts (spotter's test fixtures, 2.1.38), and on synthetic ones."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conftest import SHARED_FIXTURES, require_shared
from toolguards.replay.importers import read_records
from toolguards.replay.records import InputError, Record

FIXTURES = SHARED_FIXTURES / "transcripts"
SUB = "subagent:afb92ff"


def fixture(name: str) -> Path:
    path = FIXTURES / name
    require_shared()
    return path


def summary(item: Record | InputError, main: str) -> tuple[object, ...]:
    """The fields a test compares: the main agent as MAIN, the subagent as SUB, long texts cut to their start."""
    if isinstance(item, InputError):
        return ("error", item.line, item.message)
    agent = {main: "MAIN", SUB: "SUB"}.get(item.agent or "", item.agent)
    if item.kind == "pre-step":
        assert item.user_prompt
        return ("pre-step", item.line, agent)
    arguments = json.dumps(item.arguments, ensure_ascii=False)
    return (
        item.line,
        agent,
        item.tool,
        item.arguments if len(arguments) <= 70 else arguments[:50],
        item.call_id,
        item.denied,
        item.result[:30] if isinstance(item.result, str) else item.result,
        item.error[:30] if isinstance(item.error, str) else item.error,
    )




@pytest.mark.parametrize(
    ("name", "session", "expected"),
    [
        (
            "claude-code-spotter-short.jsonl",
            "55604662-cf2a-4331-851a-ec234028f8ca",
            [
                ("pre-step", 4, "MAIN"),
                (8, "MAIN", "Bash", {"command": "mix phx.server 2>&1 | head -80", "timeout": 30000}, "toolu_0116Hyi5v8ut7Ffb7d8qV1Sc", True, None, "The user doesn't want to proce"),
                (10, "MAIN", "Glob", {"pattern": "mix.exs", "path": "/home/marco/projects/spotter"}, "toolu_01FdQ8qTyVyZjE3Kw4dguQGx", True, None, "The user doesn't want to proce"),
                ("pre-step", 13, "MAIN"),
            ],
        ),
        (
            "claude-code-spotter-tool_heavy.jsonl",
            "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
            [
                ("pre-step", 4, "MAIN"),
                (5, "MAIN", "Bash", "{\"command\": \"mix phx.server\", \"description\": \"Star", "toolu_018GZVh9ymkrdx1TnR8reg5Y", False, "Command running in background ", None),
                (13, "MAIN", "Bash", "{\"command\": \"tail -5 /tmp/claude-1000/-home-marco-", "toolu_01FZ9TWbiy1LPzHm1AAyUazo", False, "  Serializer: Phoenix.Socket.V", None),
                ("pre-step", 18, "MAIN"),
                ("pre-step", 21, "MAIN"),
                ("pre-step", 22, "MAIN"),
                ("pre-step", 26, "MAIN"),
                (29, "MAIN", "WebSearch", "{\"query\": \"xterm.js scroll not working embedded pa", "toolu_01DKTWcKpZ2ksZQmoKKfxiw6", False, "Web search results for query: ", None),
                (30, "MAIN", "Glob", {"pattern": "assets/js/**/*.js"}, "toolu_01JJds55jYrYwd9TktNGndRY", False, "/home/marco/projects/spotter/a", None),
                (34, "MAIN", "Read", {"file_path": "/home/marco/projects/spotter/assets/js/app.js"}, "toolu_01VpPeBD2ziigLLpybShAGoU", False, "     1→import \"phoenix_html\"\n ", None),
                (37, "MAIN", "WebFetch", "{\"url\": \"https://github.com/xtermjs/xterm.js/issue", "toolu_017Q5Sr8KaSgowYhbKXBnfV2", False, "# Scroll Issues in xterm.js - ", None),
                ("pre-step", 39, "MAIN"),
            ],
        ),
        (
            "claude-code-spotter-subagent.jsonl",
            "491e126e-1e71-469c-ade2-fcc8af567c74",
            [
                ("pre-step", 4, "MAIN"),
                (9, "MAIN", "WebFetch", "{\"url\": \"https://github.com/bradleygolden/claude-m", "toolu_01UBumkyGa4vv7EbMVke2AiH", False, "# Claude Marketplace for Elixi", None),
                (10, "MAIN", "WebSearch", {"query": "credo elixir igniter installer 2025 2026"}, "toolu_01FqWwvYWkHZHuD78wSmgc6r", False, "Web search results for query: ", None),
                (11, "MAIN", "WebSearch", {"query": "dialyxir igniter install elixir"}, "toolu_01PPH5xRopN6EKFruBKc1giM", False, "Web search results for query: ", None),
                (12, "MAIN", "WebSearch", {"query": "mix_audit hex elixir setup"}, "toolu_01DgymFTXTDEthJ9vJBG4n59", False, "Web search results for query: ", None),
                (19, "MAIN", "Glob", {"pattern": "**/mix.exs"}, "toolu_01MumzJGYTo26Ds3LsuSkd5Z", False, "/home/marco/projects/spotter/d", None),
                (22, "MAIN", "WebSearch", {"query": "sobelow igniter install elixir phoenix security"}, "toolu_01CkmsUg9TVXxxnkGnRKFVNk", False, "Web search results for query: ", None),
                (24, "MAIN", "Read", {"file_path": "/home/marco/projects/spotter/mix.exs"}, "toolu_014agb5uL5BwdxcLJpnS4JUd", False, "     1→defmodule Spotter.MixPr", None),
                (29, "MAIN", "WebSearch", {"query": "\"mix igniter.install\" credo dialyxir sobelow"}, "toolu_01EcCBzhKAPi47WXHsQkEv32", False, "Web search results for query: ", None),
                (33, "MAIN", "AskUserQuestion", "{\"questions\": [{\"question\": \"Which rig do these be", "toolu_01RsKEmE8Mc3wD8Vex5b6Zne", False, "User has answered your questio", None),
                (36, "MAIN", "Task", "{\"description\": \"Draft beads for linting setup\", \"", "toolu_01Cz2Pnv7qNcnK1ZiocxWhQX", False, "Excellent! Now I have all the ", None),
                ("pre-step", 37, "SUB"),
                (38, "SUB", "Read", {"file_path": "/home/marco/projects/spotter"}, "toolu_01LdecmEM8HVNM6T4ht7x8Gi", False, None, "EISDIR: illegal operation on a"),
                (40, "SUB", "Read", {"file_path": "/home/marco/projects/spotter/mix.exs"}, "toolu_01QDUftK7MweJaWSx65d9Cmb", False, None, "<tool_use_error>Sibling tool c"),
                (42, "SUB", "Bash", "{\"command\": \"git log --oneline -10\", \"description\"", "toolu_0196nfvQm6Ung2nWD72F1YcU", False, None, "<tool_use_error>Sibling tool c"),
                (44, "SUB", "Bash", "{\"command\": \"find /home/marco/projects/spotter -na", "toolu_01JQF2JAhE4ZbRmFe8odwUvR", False, "/home/marco/projects/spotter/m", None),
                (46, "SUB", "Bash", "{\"command\": \"ls -la /home/marco/projects/spotter/\"", "toolu_01JbpY44DjAFUQm9gKyzGPe3", False, "total 124\ndrwxrwxr-x 13 marco ", None),
                (48, "SUB", "Read", {"file_path": "/home/marco/projects/spotter/mix.exs"}, "toolu_01AM34FdmwmbPjxJqk29sSmt", False, "     1→defmodule Spotter.MixPr", None),
                (50, "SUB", "Bash", "{\"command\": \"ls -la /home/marco/projects/spotter/.", "toolu_015JLaKRmvYneJjpKF3G8pZn", False, "total 436\ndrwxr-x---  4 marco ", None),
                (52, "SUB", "Read", {"file_path": "/home/marco/projects/spotter/.beads/issues.jsonl"}, "toolu_01C7itVcwgAGmWrtwYhENnDP", False, "     1→{\"id\":\"spotter-0rt\",\"ti", None),
                (54, "SUB", "Read", {"file_path": "/home/marco/projects/spotter/config/config.exs"}, "toolu_01U12JTabbxFpbtwuGwATRYr", False, "     1→import Config\n     2→\n ", None),
                (58, "MAIN", "Write", "{\"file_path\": \"/home/marco/projects/spotter/plan.m", "toolu_01K3VJ686txYhQVcAH8FETHo", False, "File created successfully at: ", None),
                (67, "MAIN", "ExitPlanMode", {}, "toolu_01ADkZx631DtfWJKXE19LZLP", False, "User has approved exiting plan", None),
                ("pre-step", 69, "MAIN"),
                ("pre-step", 71, "MAIN"),
                (72, "MAIN", "Bash", "{\"command\": \"bd create --title=\\\"Setup Code Qualit", "toolu_01JiAqi3oMwSdD6kFEgKmstd", False, "✓ Created issue: spotter-0p7\n ", None),
                (77, "MAIN", "Bash", "{\"command\": \"bd create --title=\\\"Install quality t", "toolu_01QAoBrMN6wkULkVPWiqotBU", False, "✓ Created issue: spotter-0p7.1", None),
                (81, "MAIN", "Bash", "{\"command\": \"bd create --title=\\\"Add mix quality a", "toolu_011M8RRpDyyej4gUFf7q2zv8", False, "✓ Created issue: spotter-0p7.2", None),
                (87, "MAIN", "Bash", {"command": "bd dep add spotter-0p7.2 spotter-0p7.1"}, "toolu_01GQF49Kuk9RfLFgjBJFeD8H", False, "✓ Added dependency: spotter-0p", None),
            ],
        ),
    ],
)
def test_real_transcripts(name, session, expected):
    with fixture(name).open(encoding="utf-8") as stream:
        items = list(read_records("claude-code", name, stream))
    # the turns' usage records are checked on their own (test_importers_usage.py)
    assert [summary(item, session) for item in items if not (isinstance(item, Record) and item.kind == "usage")] == (
        expected)


def test_each_call_of_the_real_transcripts_is_counted_once():
    for name in ("claude-code-spotter-short.jsonl", "claude-code-spotter-tool_heavy.jsonl", "claude-code-spotter-subagent.jsonl"):
        ids = []
        with fixture(name).open(encoding="utf-8") as stream:
            for line in stream:
                entry = json.loads(line)
                if entry["type"] == "progress" and entry["data"].get("type") == "agent_progress":
                    entry = entry["data"]["message"]
                content = entry.get("message", {}).get("content") if entry["type"] == "assistant" else None
                ids += [block["id"] for block in content or () if block["type"] == "tool_use"]
        with fixture(name).open(encoding="utf-8") as stream:
            calls = [item.call_id for item in read_records("claude-code", name, stream) if item.kind == "post-execute"]
        assert calls == ids and len(set(ids)) == len(ids)


def line(kind: str, content: object, *, message_id: str | None = None, session: str | None = "s1", **extra: object) -> str:
    message: dict[str, object] = {"role": kind, "content": content}
    if message_id:
        message["id"] = message_id
    entry: dict[str, object] = {"type": kind, "message": message, "uuid": "u", **extra}
    if session:
        entry["sessionId"] = session
    return json.dumps(entry)


def use(call_id: str, name: str, arguments: object) -> list[dict[str, object]]:
    return [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]


def answer(call_id: str, content: object, is_error: bool = False) -> list[dict[str, object]]:
    return [{"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}]


def progress(agent_id: str, inner: str) -> str:
    data = {"type": "agent_progress", "agentId": agent_id, "message": json.loads(inner), "normalizedMessages": []}
    return json.dumps({"type": "progress", "sessionId": "s1", "data": data, "uuid": "p"})


def read(*lines: str, name: str = "s1.jsonl") -> list[Record | InputError]:
    return list(read_records("claude-code", name, io.StringIO("\n".join(lines) + "\n")))


def test_parallel_calls_keep_their_order_whatever_order_the_results_come_in():
    items = read(
        json.dumps({"type": "summary", "summary": "x", "leafUuid": "u"}),
        line("user", "go"),
        line("assistant", [{"type": "text", "text": "Both."}], message_id="m1"),
        line("assistant", use("a", "Read", {"file_path": "a"}), message_id="m1"),
        line("assistant", use("b", "Read", {"file_path": "b"}), message_id="m1"),
        line("user", answer("b", [{"type": "text", "text": "B"}])),
        line("user", answer("a", "A")),
        line("assistant", use("c", "Grep", {}), message_id="m2"),
    )
    assert items == [
        Record("pre-step", 2, agent="s1", user_prompt=True),
        Record("post-execute", 4, agent="s1", tool="Read", arguments={"file_path": "a"}, call_id="a", result="A"),
        Record("post-execute", 5, agent="s1", tool="Read", arguments={"file_path": "b"}, call_id="b", result="B"),
        Record("post-execute", 8, agent="s1", tool="Grep", arguments={}, call_id="c"),
    ]


def test_a_new_response_ends_the_step_of_calls_with_no_result():
    items = read(
        line("assistant", use("a", "Bash", {"command": "x"}), message_id="m1"),
        line("assistant", use("b", "Bash", {"command": "y"}), message_id="m2"),
        line("user", answer("a", "too late")),
        line("user", answer("b", "ok")),
    )
    assert [(item.call_id, item.result) for item in items if isinstance(item, Record)] == [("a", None), ("b", "ok")]


def test_a_subagent_is_its_own_agent_in_the_main_file_and_in_its_own_file():
    sub_prompt = line("user", "Find it.", session="s1", isSidechain=True, agentId="abc")
    sub_call = line("assistant", use("s", "Glob", {"pattern": "*"}), message_id="m9", isSidechain=True, agentId="abc")
    sub_result = line("user", answer("s", "x.py"), isSidechain=True, agentId="abc")
    main = [
        line("assistant", use("t", "Task", {"prompt": "Find it."}), message_id="m1"),
        progress("abc", sub_prompt),
        progress("abc", sub_call),
        progress("abc", sub_result),
        line("user", answer("t", "Found x.py")),
    ]
    assert read(*main) == [
        Record("post-execute", 1, agent="s1", tool="Task", arguments={"prompt": "Find it."}, call_id="t", result="Found x.py"),
        Record("pre-step", 2, agent="subagent:abc", user_prompt=True),
        Record("post-execute", 3, agent="subagent:abc", tool="Glob", arguments={"pattern": "*"}, call_id="s", result="x.py"),
    ]
    assert read(sub_prompt, sub_call, sub_result, name="agent-abc.jsonl") == [
        Record("pre-step", 1, agent="subagent:abc", user_prompt=True),
        Record("post-execute", 2, agent="subagent:abc", tool="Glob", arguments={"pattern": "*"}, call_id="s", result="x.py"),
    ]
    older = line("assistant", use("o", "Read", {}), message_id="m3", isSidechain=True)
    assert [item.agent for item in read(older)] == ["subagent"]


def test_a_call_logged_twice_is_counted_once():
    call = line("assistant", use("a", "Read", {}), message_id="m1")
    items = read(call, call, line("user", answer("a", "r")))
    assert items == [Record("post-execute", 1, agent="s1", tool="Read", arguments={}, call_id="a", result="r")]


@pytest.mark.parametrize(
    ("entry", "prompt"),
    [
        (line("user", "fix the bug"), True),
        (line("user", [{"type": "text", "text": "fix it"}, {"type": "image", "source": {}}]), True),
        (line("user", "[Request interrupted by user]"), True),
        (line("user", "<local-command-caveat>Caveat</local-command-caveat>", isMeta=True), False),
        (line("user", "This session is being continued from a previous conversation.", isCompactSummary=True), False),
        (line("user", answer("zz", "orphan result")), False),
        (line("user", [{"type": "image", "source": {}}]), False),
    ],
)
def test_what_counts_as_a_user_prompt(entry, prompt):
    expected = [Record("pre-step", 1, agent="s1", user_prompt=True)] if prompt else []
    assert read(entry) == expected


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        ("The user doesn't want to proceed with this tool use. The tool use was rejected.", True),
        ("Permission to use Bash with command rm -rf /tmp/x has been denied.", True),
        ("Exit code 1\nPermission to use it has been denied", False),
        ("EISDIR: illegal operation on a directory, read", False),
    ],
)
def test_a_refusal_marks_the_call_denied(text, denied):
    items = read(line("assistant", use("a", "Bash", {}), message_id="m1"), line("user", answer("a", text, is_error=True)))
    assert items == [Record("post-execute", 1, agent="s1", tool="Bash", arguments={}, call_id="a", error=text, denied=denied)]


def test_bad_lines_come_in_their_place_and_reading_carries_on():
    items = read(
        line("assistant", use("a", "Read", {}), message_id="m1"),
        '{"type": "user", "message": ',
        json.dumps({"type": "assistant", "sessionId": "s1", "message": "hi"}),
        line("assistant", [{"type": "tool_use", "id": "b", "input": {}}], message_id="m1"),
        line("user", [{"type": "tool_result", "content": "?"}]),
        '"just a string"',
        line("user", answer("a", "r")),
        line("assistant", use("c", "Read", {}), message_id="m2", session=None),
    )
    assert [str(item) if isinstance(item, InputError) else item for item in items] == [
        Record("post-execute", 1, agent="s1", tool="Read", arguments={}, call_id="a", result="r"),
        "s1.jsonl:2: not JSON: Expecting value at column 29",
        Record("skipped", 3, text='an assistant entry needs an object "message"'),
        Record("skipped", 4, text='a tool_use block needs a string "name"'),
        Record("skipped", 5, text='a tool_result block needs a string "tool_use_id"'),
        "s1.jsonl:6: expected a JSON object, not a string",
        Record("post-execute", 8, agent="s1", tool="Read", arguments={}, call_id="c"),
    ]


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"type": "permission-mode", "permissionMode": "default", "sessionId": "s1"}, []),
        ({"type": "attachment", "attachment": {"type": "hook_additional_context"}, "sessionId": "s1"}, []),
        ({"type": "last-prompt", "lastPrompt": "fix it", "sessionId": "s1"}, []),
        ({"type": "progress", "data": {"type": "bash_progress"}, "sessionId": "s1"}, []),
        ({"type": "made-up-in-2.9", "sessionId": "s1"}, [Record("skipped", 1, text="made-up-in-2.9")]),
        ({"type": ["user"], "sessionId": "s1"}, ['s1.jsonl:1: an entry needs a string "type", not an array']),
        ({"sessionId": "s1"}, ['s1.jsonl:1: an entry needs a string "type"']),
        ({"type": "assistant", "sessionId": "s1", "message": {"id": [], "content": use("a", "Read", {})}},
         [Record("post-execute", 1, agent="s1", tool="Read", arguments={}, call_id="a")]),
    ],
)
def test_entry_types_it_does_not_know_never_break_reading(entry, expected):
    items = read(json.dumps(entry))
    assert [str(item) if isinstance(item, InputError) else item for item in items] == expected


def test_a_transcript_with_no_tool_calls():
    items = read(
        json.dumps({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False}),
        line("user", "hello", session=None),
        line("assistant", [{"type": "text", "text": "hi"}], message_id="m1", session=None),
        json.dumps({"type": "system", "subtype": "local_command", "content": "x", "sessionId": "s1"}),
        name="/tmp/projects/0b9c.jsonl",
    )
    assert items == [Record("pre-step", 2, agent="0b9c", user_prompt=True)]
