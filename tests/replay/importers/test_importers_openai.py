"""The openai importer on a real GPT-4o trajectory (tau-bench), and on synthetic message lists for the edge cases."""

from __future__ import annotations

import io
import json

import pytest

from conftest import SHARED_FIXTURES, require_shared
from toolguards.replay.importers import detect_format, read_records
from toolguards.replay.records import InputError, Record

FIXTURES = SHARED_FIXTURES / "transcripts"
THINK = {
    "thought": "The original flight from ATL to DFW (HAT252) departs at 01:00 EST. The user prefers a new flight to LAS "
    "within 3-4 hours of this time. The available flights to LAS are HAT052 (03:00 EST), HAT102 (21:00 EST), HAT174 "
    "(01:00 EST), HAT178 (08:00 EST), and HAT281 (22:00 EST). The flight HAT052 at 03:00 EST is within the preferred "
    "time range."
}
DATES = {"HAT030": "2024-05-13", "HAT223": "2024-05-14", "HAT052": "2024-05-21", "HAT124": "2024-05-21"}


def update(*flights: str) -> dict[str, object]:
    return {
        "reservation_id": "XEWRD9",
        "cabin": "economy",
        "flights": [{"flight_number": flight, "date": DATES[flight]} for flight in flights],
        "payment_id": "gift_card_4643416",
    }


def summary(item: Record | InputError) -> tuple[object, ...]:
    if isinstance(item, InputError):
        return ("error", item.line, item.message)
    if item.kind == "skipped":
        return (item.kind, item.line, item.text)
    assert item.agent == "main" and not item.denied
    if item.kind == "pre-step":
        assert item.user_prompt
        return ("pre-step", item.line)
    assert item.error is None
    return (item.line, item.tool, item.arguments, item.call_id, item.result[:40] if isinstance(item.result, str) else item.result)


def test_tau_bench_trajectory():
    path = FIXTURES / "openai-tau-bench-airline-13.json"
    require_shared()
    with path.open(encoding="utf-8") as stream:
        items = [summary(item) for item in read_records("openai", path.name, stream)]
    assert items == [
        ("pre-step", 6),
        ("pre-step", 14),
        (18, "get_reservation_details", {"reservation_id": "XEWRD9"}, "call_ORFOG4jtgQK83YBzrDBgOTUy", "{\"reservation_id\": \"XEWRD9\", \"user_id\": "),
        ("pre-step", 42),
        ("pre-step", 50),
        (54, "search_direct_flight", {"origin": "ATL", "destination": "LAS", "date": "2024-05-21"}, "call_5NUHKfu77eErzyKd2eLkgRnS", "[{\"flight_number\": \"HAT052\", \"origin\": \""),
        ("pre-step", 78),
        ("pre-step", 86),
        (90, "get_reservation_details", {"reservation_id": "XEWRD9"}, "call_CK5ZeWCSWReaBkIU5ZD47j3i", "{\"reservation_id\": \"XEWRD9\", \"user_id\": "),
        (110, "search_direct_flight", {"origin": "ATL", "destination": "DFW", "date": "2024-05-21"}, "call_dhYivf6VRUVJfU9DItC2EQ95", "[{\"flight_number\": \"HAT004\", \"origin\": \""),
        (130, "think", THINK, "call_sumFTucxMOyQNc2iud9dAHdy", ""),
        ("pre-step", 154),
        (158, "update_reservation_flights", update("HAT030", "HAT223", "HAT052"), "call_z1nwOn0cffR3IvZ3L5iSYmAW", "Error: flight HAT030 not available on da"),
        ("pre-step", 182),
        (186, "update_reservation_flights", update("HAT030", "HAT223", "HAT052"), "call_dhYivf6VRUVJfU9DItC2EQ95", "Error: flight HAT030 not available on da"),
        (206, "search_direct_flight", {"origin": "LAX", "destination": "ORD", "date": "2024-05-13"}, "call_Ab7YHfneXdQk4tCXNRPh0C8u", "[]"),
        (226, "search_onestop_flight", {"origin": "LAX", "destination": "ORD", "date": "2024-05-13"}, "call_rm5jSDLBM7l5YEKUiw4lLc5g", "[]"),
        ("pre-step", 250),
        (254, "update_reservation_flights", update("HAT030", "HAT223", "HAT052", "HAT124"), "call_79goaWVFKtpR6WYbdt4clISJ", "Error: flight HAT030 not available on da"),
        ("pre-step", 278),
        (282, "update_reservation_flights", update("HAT030", "HAT223", "HAT052"), "call_oIHazX6yQrB8hUwl4cRilFKj", "Error: flight HAT030 not available on da"),
        ("pre-step", 306),
        ("pre-step", 314),
        (318, "update_reservation_flights", update("HAT030", "HAT223", "HAT052", "HAT124"), "call_VusDN6ekzbqpoU5uT6i3QRAH", "Error: flight HAT030 not available on da"),
        ("pre-step", 342),
        (346, "update_reservation_flights", update("HAT223", "HAT052"), "call_D2zYj9KB0nNdJvLTTOcopGjr", "Error: flight HAT223 not available on da"),
        ("pre-step", 370),
        (374, "update_reservation_flights", update("HAT052"), "call_VusDN6ekzbqpoU5uT6i3QRAH", "{\"reservation_id\": \"XEWRD9\", \"user_id\": "),
        ("pre-step", 398),
    ]


def read(text: str, name: str = "chat.json") -> list[Record | InputError]:
    return list(read_records("openai", name, io.StringIO(text)))


def assistant(*calls: tuple[str, str, str], content: str | None = None) -> dict[str, object]:
    tool_calls = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]
    return {"role": "assistant", "content": content, "tool_calls": tool_calls}


def tool(call_id: str, content: object) -> dict[str, object]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


CONVERSATION = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Look twice."},
    assistant(("a", "read", '{"p": 1}'), ("b", "read", ""), ("c", "grep", '{"q": ')),
    tool("c", "found"),
    tool("b", [{"type": "text", "text": "two "}, {"type": "text", "text": "parts"}]),
    tool("a", "one"),
    {"role": "assistant", "content": "Done."},
]
EXPECTED = [
    Record("pre-step", 2, agent="main", user_prompt=True),
    Record("post-execute", 3, agent="main", tool="read", arguments={"p": 1}, call_id="a", result="one"),
    Record("post-execute", 3, agent="main", tool="read", arguments={}, call_id="b", result="two parts"),
    Record("post-execute", 3, agent="main", tool="grep", arguments='{"q": ', call_id="c", result="found"),
]


def test_json_lines_with_parallel_results_in_another_order():
    assert read("\n".join(json.dumps(m) for m in CONVERSATION) + "\n", "chat.jsonl") == EXPECTED


def test_a_json_array_gives_each_message_the_line_where_it_starts():
    items = read(json.dumps(CONVERSATION, indent=1))
    lines = json.dumps(CONVERSATION, indent=1).split("\n")
    starts = [number for number, line in enumerate(lines, 1) if line == " {"]
    assert [item.line for item in items if isinstance(item, Record)] == [starts[1]] + [starts[2]] * 3
    assert [(item.tool, item.result) for item in items if isinstance(item, Record)] == [
        ("", None), ("read", "one"), ("read", "two parts"), ("grep", "found")
    ]


def test_a_request_body_reads_its_messages():
    body = {"model": "gpt-4o", "messages": CONVERSATION[:3], "tools": [{"type": "function"}], "stream": False}
    assert read(json.dumps(body)) == [
        Record("pre-step", 1, agent="main", user_prompt=True),
        Record("post-execute", 1, agent="main", tool="read", arguments={"p": 1}, call_id="a"),
        Record("post-execute", 1, agent="main", tool="read", arguments={}, call_id="b"),
        Record("post-execute", 1, agent="main", tool="grep", arguments='{"q": ', call_id="c"),
    ]
    spread = json.dumps(body, indent=2)
    assert [item.line for item in read(spread) if isinstance(item, Record)] == [8, 12, 12, 12]


def test_a_legacy_function_call_is_a_call():
    message = {"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": '{"k": 1}'}}
    assert read(json.dumps(message) + "\n") == [Record("post-execute", 1, agent="main", tool="lookup", arguments={"k": 1})]


def test_bad_messages_come_in_their_place_and_reading_carries_on():
    lines = [
        json.dumps(assistant(("a", "t", "{}"))),
        '{"role": "tool", "tool_call_id": "a", "content": "ok"',
        json.dumps(tool("a", "ok")),
        "[]",
        '{"content": "who am I"}',
        json.dumps({"role": "tool", "content": "?"}),
        json.dumps({"role": "assistant", "tool_calls": [{"id": "x", "function": {"arguments": "{}"}}]}),
        json.dumps({"role": "assistant", "tool_calls": {"id": "x"}}),
        json.dumps({"role": "critic", "content": "no"}),
        json.dumps({"role": [], "content": "no"}),
        json.dumps({"role": "user", "content": "again"}),
    ]
    assert [summary(item) for item in read("\n".join(lines), "chat.jsonl")] == [
        (1, "t", {}, "a", "ok"),
        ("error", 2, "not JSON: Expecting ',' delimiter at column 54"),
        ("error", 4, "expected a message object, not an array"),
        ("error", 5, 'a message needs a string "role"'),
        ("skipped", 6, 'a tool message needs a string "tool_call_id"'),
        ("skipped", 7, 'a tool_calls entry needs a string "function.name"'),
        ("skipped", 8, '"tool_calls" must be a list, not an object'),
        ("skipped", 9, 'role "critic"'),
        ("error", 10, 'a message needs a string "role"'),
        ("pre-step", 11),
    ]


def test_a_bad_entry_among_the_calls_of_a_message_leaves_the_others_read():
    message = assistant(("a", "t", "{}"), ("b", "u", "{}"))
    message["tool_calls"].insert(1, {"id": "x", "function": {"name": 7}})
    assert [summary(item) for item in read(json.dumps(message) + "\n")] == [
        (1, "t", {}, "a", None),
        ("skipped", 1, 'a tool_calls entry needs a string "function.name"'),
        (1, "u", {}, "b", None),
    ]


def test_a_syntax_error_ends_a_one_document_input_after_the_messages_before_it():
    text = '[\n {"role": "user", "content": "hi"},\n {"role": "assistant", "content": null,\n]\n'
    items = read(text)
    assert [summary(item) for item in items] == [
        ("pre-step", 2),
        ("error", 4, "not JSON: Expecting property name enclosed in double quotes at column 1"),
    ]
    assert [summary(item) for item in read('[{"role": "user", "content": "hi"} {"role": "user"}]')] == [
        ("pre-step", 1),
        ("error", 1, "expected ',' or ']' after an array element, found '{' at column 36"),
    ]
    assert [summary(item) for item in read('{\n "model": "m"\n}\n')] == [
        ("error", 1, 'expected a JSON array of messages, or an object with a "messages" array'),
    ]
    assert [summary(item) for item in read('{"model": "m"}')] == [("error", 1, 'a message needs a string "role"')]


def test_a_conversation_with_no_tool_calls():
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert read(json.dumps(messages)) == [Record("pre-step", 1, agent="main", user_prompt=True)]
    assert read("") == []
    assert read("[]") == []


# --- usage: on an assistant message, or a Chat Completions response object ------------------------------------

GPT = "gpt-4o-2024-08-06"


def chat_usage(prompt: object = 1234, completion: object = 56) -> dict[str, object]:
    """A Chat Completions usage object: cached and reasoning tokens are parts of the two counts, not added to them."""
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": 1290,
            "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 20, "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0}}


def completion(message: object, usage_object: object = None, **members: object) -> dict[str, object]:
    """A Chat Completions response object, as the API returns it."""
    response: dict[str, object] = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": GPT,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls"}],
        "usage": chat_usage() if usage_object is None else usage_object, "service_tier": "default",
        "system_fingerprint": "fp_1",
    }
    return response | members


TURN = Record("usage", 1, agent="main", model=GPT, input_tokens=1234, output_tokens=56)
GREP = Record("post-execute", 1, agent="main", tool="grep", arguments={"q": "x"}, call_id="a")
WITH_CALL = assistant(("a", "grep", '{"q": "x"}'))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(WITH_CALL | {"model": GPT, "usage": chat_usage()}, [TURN, GREP],
                     id="prompt_tokens in, completion_tokens out, before the calls"),
        pytest.param(WITH_CALL | {"model": GPT, "usage": {"input_tokens": 1234, "output_tokens": 56, "total_tokens": 1290,
                                                          "input_tokens_details": {"cached_tokens": 1024},
                                                          "output_tokens_details": {"reasoning_tokens": 20}}},
                     [TURN, GREP], id="the Responses API's input_tokens and output_tokens"),
        pytest.param(WITH_CALL | {"model": GPT, "usage": {"prompt_tokens": 1234, "input_tokens": 9, "output_tokens": 56}},
                     [TURN, GREP], id="prompt_tokens before input_tokens; each count on its own"),
        pytest.param({"role": "assistant", "content": "Done.", "usage": chat_usage("12", True), "model": ["gpt"]},
                     [TURN._replace(model=None, input_tokens=0, output_tokens=0)],
                     id="a count that is not an integer is 0; a model that is not a string is none"),
        pytest.param(WITH_CALL | {"usage": None}, [GREP], id="usage null: no turn"),
        pytest.param(WITH_CALL | {"usage": 7}, [Record("skipped", 1, text='"usage" must be an object, not a number'), GREP],
                     id="usage of another type: skipped, the calls read"),
        pytest.param({"role": "user", "content": "hi", "usage": chat_usage()},
                     [Record("pre-step", 1, agent="main", user_prompt=True)], id="a user message's usage is not a turn"),
        pytest.param(completion(WITH_CALL), [TURN, GREP],
                     id="a response object: its first choice's message, its usage and its model"),
        pytest.param(completion({"role": "assistant", "content": "Done."}) | {"choices": [
                         {"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"},
                         {"index": 1, "message": WITH_CALL, "finish_reason": "tool_calls"}]},
                     [TURN], id="the other choices are not read"),
        pytest.param(completion(WITH_CALL, {"prompt_tokens": 5}, model=None),
                     [TURN._replace(model=None, input_tokens=5, output_tokens=0), GREP],
                     id="a response without a model, and a usage without completion_tokens"),
        pytest.param(completion(WITH_CALL) | {"usage": None}, [GREP], id="a response with usage null"),
        pytest.param(completion(None), [Record("skipped", 1, text='a chat.completion needs an object "choices[0].message"')],
                     id="a response without a message"),
        pytest.param(completion(WITH_CALL) | {"choices": []},
                     [Record("skipped", 1, text='a chat.completion needs an object "choices[0].message"')],
                     id="a response without choices"),
        pytest.param(completion(WITH_CALL) | {"object": "chat.completion.chunk"}, [("error", 1, 'a message needs a string "role"')],
                     id="a streamed chunk is not read"),
    ],
)
def test_an_assistant_messages_usage_is_its_turn(value, expected):
    found = [("error", item.line, item.message) if isinstance(item, InputError) else item
             for item in read(json.dumps(value) + "\n", "chat.jsonl")]
    assert found == expected


def test_response_objects_among_messages_keep_their_lines_and_get_their_results():
    messages = [{"role": "user", "content": "Go."}, completion(WITH_CALL), tool("a", "found"),
                completion({"role": "assistant", "content": "Found."}, chat_usage(1300, 7))]
    text = json.dumps(messages, indent=1)
    starts = [number for number, line in enumerate(text.split("\n"), 1) if line == " {"]
    assert read(text) == [
        Record("pre-step", starts[0], agent="main", user_prompt=True),
        TURN._replace(line=starts[1]),
        GREP._replace(line=starts[1], result="found"),
        Record("usage", starts[3], agent="main", model=GPT, input_tokens=1300, output_tokens=7),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (json.dumps(completion(WITH_CALL)) + "\n", "openai"),
        (json.dumps([completion(WITH_CALL)], indent=1), "openai"),
        (json.dumps(completion({"role": "assistant", "content": "Done."})) + "\n", "openai"),
        (json.dumps({"type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
                     "content": [{"type": "tool_use", "id": "t", "name": "grep", "input": {}}],
                     "usage": {"input_tokens": 1, "output_tokens": 1}}) + "\n", "anthropic"),
    ],
    ids=["a response object a line", "a list of response objects", "a response with no call resembles openai",
         "an Anthropic response object"],
)
def test_response_objects_are_detected(text, expected):
    assert detect_format("log.jsonl", text).format == expected
