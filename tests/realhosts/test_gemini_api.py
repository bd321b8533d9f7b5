"""``support.gemini_api``: which of Gemini CLI's requests are the script's turns, and what a side request is answered
(the real CLI's requests are in test_gemini_cli.py; these are their forms, written out)."""

from __future__ import annotations

import json

import pytest

from support.gemini_api import GeminiApi
from support.scripted_model import Request, Text, ToolCall

CHAT = {"contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}], "generationConfig": {"temperature": 1}}
CLASSIFIER = {"contents": CHAT["contents"], "generationConfig": {
    "responseMimeType": "application/json",
    "responseJsonSchema": {"type": "OBJECT", "properties": {"complexity_reasoning": {"type": "STRING"},
                                                            "complexity_score": {"type": "INTEGER"}},
                           "required": ["complexity_reasoning", "complexity_score"]}}}
NEXT_SPEAKER = {"contents": CHAT["contents"], "generationConfig": {"responseJsonSchema": {
    "type": "object", "properties": {"reasoning": {"type": "string"},
                                     "next_speaker": {"type": "string", "enum": ["user", "model"]}},
    "required": ["next_speaker", "reasoning"]}}}


def request(method: str, body: object) -> Request:
    suffix = "?alt=sse" if method == "streamGenerateContent" else ""
    return Request("POST", f"/v1beta/models/gemini-3.8-flash:{method}{suffix}", {}, body)


@pytest.mark.parametrize(
    ("method", "body", "turn"),
    [
        ("streamGenerateContent", CHAT, True),
        ("streamGenerateContent", {**CHAT, "generationConfig": CLASSIFIER["generationConfig"]}, False),
        ("streamGenerateContent", {"contents": CHAT["contents"]}, False),
        ("generateContent", CHAT, False),
        ("generateContent", CLASSIFIER, False),
        ("countTokens", {"contents": CHAT["contents"]}, False),
    ],
    ids=["the chat", "a stream that asks for JSON", "a stream without tools", "no stream", "the classifier",
         "a token count"],
)
def test_turns_are_the_chats_streams(method, body, turn):
    assert GeminiApi().is_turn(request(method, body)) is turn


def answer(reply_body: bytes) -> object:
    return json.loads(json.loads(reply_body)["candidates"][0]["content"]["parts"][0]["text"])


def test_side_answers_fit_the_schema_they_ask_for():
    api = GeminiApi()
    assert answer(api.side_reply(request("generateContent", CLASSIFIER)).body) == {
        "complexity_reasoning": "", "complexity_score": 1}
    assert answer(api.side_reply(request("generateContent", NEXT_SPEAKER)).body) == {
        "next_speaker": "user", "reasoning": ""}
    loop_check = {"generationConfig": {"responseJsonSchema": {"type": "object", "properties": {
        "unproductive_state_analysis": {"type": "string"}, "unproductive_state_confidence": {"type": "number"}},
        "required": ["unproductive_state_analysis", "unproductive_state_confidence"]}}}
    assert answer(api.side_reply(request("generateContent", loop_check)).body) == {
        "unproductive_state_analysis": "", "unproductive_state_confidence": 0}
    counted = api.side_reply(request("countTokens", {"contents": []}))
    assert (counted.status, json.loads(counted.body)) == (200, {"totalTokens": 4})
    assert api.side_reply(Request("GET", "/v1beta/models", {}, None)).status == 404


def test_a_turn_is_one_sse_chunk_with_the_call_or_the_text():
    api = GeminiApi()
    call = api.reply(request("streamGenerateContent", CHAT), ToolCall("run_shell_command", {"command": "ls"}), 0)
    text = api.reply(request("streamGenerateContent", CHAT), Text("done"), 1)
    for reply, part in ((call, {"functionCall": {"name": "run_shell_command", "args": {"command": "ls"}}}),
                        (text, {"text": "done"})):
        assert reply.content_type == "text/event-stream"
        (line,) = reply.body.decode().strip().splitlines()
        chunk = json.loads(line.removeprefix("data: "))
        assert chunk["candidates"][0]["content"] == {"role": "model", "parts": [part]}
