"""The anthropic importer on real request messages (llm-anthropic, pydantic-ai), and on synthetic lists for the edges."""

from __future__ import annotations

import io
import json

import pytest

from conftest import SHARED_FIXTURES, require_shared
from toolguards.replay.importers import read_records
from toolguards.replay.records import InputError, Record

FIXTURES = SHARED_FIXTURES / "transcripts"


def read_fixture(name: str) -> list[Record | InputError]:
    path = FIXTURES / name
    require_shared()
    with path.open(encoding="utf-8") as stream:
        return list(read_records("anthropic", name, stream))


def call(line: int, tool: str, arguments: object, call_id: str, result: object = None, error: str | None = None) -> Record:
    return Record("post-execute", line, agent="main", tool=tool, arguments=arguments, call_id=call_id, result=result, error=error)


PROMPT = Record("pre-step", 2, agent="main", user_prompt=True)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "anthropic-llm-anthropic-test-tools.json",
            [
                PROMPT,
                call(11, "pelican_name_generator", {}, "toolu_01LtHJmixrs9NcWQkK8hu8hj", "Charles"),
                call(11, "pelican_name_generator", {}, "toolu_01N8a4jWyf116qKTMqKKmjyt", "Sammy"),
            ],
        ),
        (
            "anthropic-pydantic-ai-parallel-tool-calls.json",
            [
                PROMPT,
                call(11, "retrieve_entity_info", {"name": "Alice"}, "toolu_0167cfEnoQaPviGdVXA95zcu", "alice is bob's wife"),
                call(11, "retrieve_entity_info", {"name": "Bob"}, "toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "bob is alice's husband"),
                call(11, "retrieve_entity_info", {"name": "Charlie"}, "toolu_01XFyAjstT3966qvRynZyVPo", "charlie is alice's son"),
                call(
                    11, "retrieve_entity_info", {"name": "Daisy"}, "toolu_013mnQZbgtK2oe3Mo3XKJsx3",
                    "daisy is bob's daughter and charlie's younger sister",
                ),
            ],
        ),
    ],
)
def test_real_request_messages(name, expected):
    assert read_fixture(name) == expected


def read(text: str, name: str = "messages.json") -> list[Record | InputError]:
    return list(read_records("anthropic", name, io.StringIO(text)))


def use(call_id: str, name: str, arguments: object) -> dict[str, object]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def answer(call_id: str, content: object, is_error: bool | None = None) -> dict[str, object]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


CONVERSATION = [
    {"role": "user", "content": "Check both."},
    {"role": "assistant", "content": [{"type": "text", "text": "On it."}, use("a", "read", {"p": 1}), use("b", "read", {"p": 2})]},
    {
        "role": "user",
        "content": [
            answer("b", [{"type": "text", "text": "no "}, {"type": "text", "text": "such file"}], is_error=True),
            answer("a", "one", is_error=False),
            {"type": "text", "text": "And then stop."},
        ],
    },
    {"role": "assistant", "content": [use("c", "list", {})]},
    {"role": "user", "content": [answer("c", [{"type": "image", "source": {"type": "base64", "data": "AA=="}}])]},
    {"role": "assistant", "content": "Stopped."},
]


def test_json_lines_with_errors_results_and_a_prompt_beside_them():
    text = "\n".join(json.dumps(message) for message in CONVERSATION) + "\n"
    assert read(text, "messages.jsonl") == [
        Record("pre-step", 1, agent="main", user_prompt=True),
        call(2, "read", {"p": 1}, "a", "one"),
        call(2, "read", {"p": 2}, "b", error="no such file"),
        Record("pre-step", 3, agent="main", user_prompt=True),
        call(4, "list", {}, "c", [{"type": "image", "source": {"type": "base64", "data": "AA=="}}]),
    ]


def test_a_request_body_with_a_system_prompt_and_tools():
    body = {"model": "claude", "max_tokens": 100, "system": "Be brief.", "tools": [], "messages": CONVERSATION[:2]}
    assert read(json.dumps(body, indent=1)) == [
        Record("pre-step", 7, agent="main", user_prompt=True),
        call(11, "read", {"p": 1}, "a"),
        call(11, "read", {"p": 2}, "b"),
    ]


def test_bad_messages_come_in_their_place_and_reading_carries_on():
    lines = [
        json.dumps({"role": "assistant", "content": [use("a", "t", {})]}),
        json.dumps({"role": "assistant", "content": [{"type": "tool_use", "id": "x", "input": {}}, use("y", "u", {})]}),
        json.dumps({"role": "user", "content": [{"type": "tool_result", "content": "?"}]}),
        json.dumps({"role": "user", "content": 5}),
        "5",
        json.dumps({"role": "critic", "content": "no"}),
        json.dumps({"role": ["user"], "content": "hi"}),
        json.dumps({"role": "system", "content": "be brief"}),
        json.dumps({"role": "user", "content": [answer("a", "late")]}),
    ]
    items = read("\n".join(lines), "messages.jsonl")
    assert [str(item) if isinstance(item, InputError) else item for item in items] == [
        call(1, "t", {}, "a"),
        Record("skipped", 2, text='a tool_use block needs a string "name"'),
        call(2, "u", {}, "y"),
        Record("skipped", 3, text='a tool_result block needs a string "tool_use_id"'),
        Record("skipped", 4, text='the "content" of a message must be a string or a list of blocks, not a number'),
        "messages.jsonl:5: expected a message object, not a number",
        Record("skipped", 6, text='role "critic"'),
        'messages.jsonl:7: a message needs a string "role"',
    ]


def test_a_conversation_with_no_tool_calls():
    messages = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "content": "hello"}]
    assert read(json.dumps(messages)) == [Record("pre-step", 1, agent="main", user_prompt=True)]


# --- usage: the Messages API's response objects, logged as the assistant messages --------------------------------


def response(content: list[dict[str, object]], usage_object: object, model: object = "claude-sonnet-4-5-20250929") -> dict[str, object]:
    """A Messages API response object, as the API returns it: itself an assistant message."""
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": "tool_use", "stop_sequence": None, "usage": usage_object}


def counts(fresh: object, created: object, read_tokens: object, output: object) -> dict[str, object]:
    return {"input_tokens": fresh, "cache_creation_input_tokens": created, "cache_read_input_tokens": read_tokens,
            "output_tokens": output, "service_tier": "standard",
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}}


TURN = Record("usage", 1, agent="main", model="claude-sonnet-4-5-20250929", input_tokens=1234, output_tokens=56)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        pytest.param(response([use("t1", "grep", {"q": "x"})], counts(4, 230, 1000, 56)),
                     [TURN, call(1, "grep", {"q": "x"}, "t1")],
                     id="input_tokens + cache_creation_input_tokens + cache_read_input_tokens in, before the calls"),
        pytest.param(response([{"type": "text", "text": "Done."}], {"input_tokens": 1234, "output_tokens": 56}),
                     [TURN], id="a turn with no call; no cache counts: 0"),
        pytest.param(response([], counts(1234, None, "9", 56), model=7), [TURN._replace(model=None)],
                     id="a count that is not an integer is 0; a model that is not a string is none"),
        pytest.param({"role": "assistant", "content": "Done.", "usage": counts(1, 2, 3, 4)},
                     [Record("usage", 1, agent="main", input_tokens=6, output_tokens=4)],
                     id="a plain assistant message with usage, without a model"),
        pytest.param(response([use("t1", "grep", {})], None), [call(1, "grep", {}, "t1")], id="usage null: no turn"),
        pytest.param(response([use("t1", "grep", {})], [1, 2]),
                     [Record("skipped", 1, text='"usage" must be an object, not an array'), call(1, "grep", {}, "t1")],
                     id="usage of another type: skipped, the calls read"),
        pytest.param({"role": "user", "content": "hi", "usage": counts(1, 1, 1, 1)},
                     [Record("pre-step", 1, agent="main", user_prompt=True)], id="a user message's usage is not a turn"),
    ],
)
def test_an_assistant_messages_usage_is_its_turn(message, expected):
    assert read(json.dumps(message) + "\n", "messages.jsonl") == expected


def test_a_list_of_requests_and_responses_keeps_each_turns_line():
    messages = [{"role": "user", "content": "Go."},
                response([use("t1", "grep", {"q": "x"})], counts(4, 230, 1000, 56)),
                {"role": "user", "content": [answer("t1", "found")]},
                response([{"type": "text", "text": "Found."}], counts(1300, 0, 0, 7))]
    text = json.dumps(messages, indent=1)
    starts = [number for number, line in enumerate(text.split("\n"), 1) if line == " {"]
    assert read(text) == [
        Record("pre-step", starts[0], agent="main", user_prompt=True),
        TURN._replace(line=starts[1]),
        call(starts[1], "grep", {"q": "x"}, "t1", "found"),
        Record("usage", starts[3], agent="main", model="claude-sonnet-4-5-20250929", input_tokens=1300, output_tokens=7),
    ]
