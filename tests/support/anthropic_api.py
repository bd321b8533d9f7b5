"""The Anthropic Messages API as Claude Code 2.1 calls it, played by a ``ScriptedModel`` (``scripted_model.py``).

Claude Code posts every model request to ``POST {ANTHROPIC_BASE_URL}/v1/messages?beta=true`` with ``"stream": true``
and reads the answer as server-sent events (``message_start``, ``content_block_start`` / ``_delta`` / ``_stop`` per
block, ``message_delta`` with the stop reason, ``message_stop``). Not every request is a turn of the agent:

- a **turn** is a ``/v1/messages`` request that offers the agent's tools (a non-empty ``tools`` list) and asks for no
  structured output. Every request of the agent's loop offers its tools, seen in 2.1.197;
- a **side request** is anything else: the session title (no tools, ``output_config.format`` a JSON Schema asking for
  ``{"title": …}``; Claude Code sends it unless non-essential traffic is switched off), other small-model calls such as
  summaries (no tools), and token counting (``/v1/messages/count_tokens``). A side request gets a plain answer — its
  structured object with every required string ``"scripted"``, or the text ``scripted`` — and never uses up a turn.

A turn plays one ``ToolCall`` (one ``tool_use`` block, stop reason ``tool_use``), a ``Batch`` (several ``tool_use``
blocks in one response: the parallel calls of one step, in this order) or a ``Text`` (a ``text`` block, stop reason
``end_turn``). The ``tool_use`` ids are ``tool_use_id(turn index, position)``, so a test knows which result answers
which call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from support.scripted_model import Reply, Request, Text, ToolCall, Turn, sse

__all__ = ["AnthropicMessages", "Batch", "blocks", "tool_use_id"]


@dataclass(frozen=True)
class Batch:
    """The model calls these tools in one response (a parallel batch), in this order."""

    calls: tuple[ToolCall, ...]


def tool_use_id(index: int, position: int = 0) -> str:
    """The id of the ``position``-th call of the ``index``-th turn (both from 0)."""
    return f"toolu_{index:02d}_{position}"


def blocks(request: Request) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Every content block of a request's messages: (message index, block index, block), a string content as one
    ``text`` block."""
    body = request.body if isinstance(request.body, dict) else {}
    for number, message in enumerate(body.get("messages") or ()):
        content = message.get("content")
        if isinstance(content, str):
            yield number, 0, {"type": "text", "text": content}
            continue
        for position, block in enumerate(content or ()):
            yield number, position, block


def _path(request: Request) -> str:
    return request.path.split("?", 1)[0]


class AnthropicMessages:
    """The ``ModelApi`` of the Anthropic Messages API, streaming, as Claude Code calls it (see the module docstring)."""

    def is_turn(self, request: Request) -> bool:
        body = request.body
        if request.method != "POST" or _path(request) != "/v1/messages" or not isinstance(body, dict):
            return False
        structured = (body.get("output_config") or {}).get("format")
        return bool(body.get("tools")) and structured is None

    def reply(self, request: Request, turn: Turn | Batch, index: int) -> Reply:
        if isinstance(turn, Text):
            content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}]
            stop = "end_turn"
        else:
            calls: Sequence[ToolCall] = turn.calls if isinstance(turn, Batch) else (turn,)
            content = [{"type": "tool_use", "id": tool_use_id(index, position), "name": call.tool,
                        "input": dict(call.arguments)} for position, call in enumerate(calls)]
            stop = "tool_use"
        return self._message(request, f"msg_scripted_{index:02d}", content, stop)

    def side_reply(self, request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if _path(request) == "/v1/messages/count_tokens":
            return Reply(200, "application/json", json.dumps({"input_tokens": 1}).encode())
        if request.method != "POST" or _path(request) != "/v1/messages":
            error = {"type": "error", "error": {"type": "not_found_error", "message": f"no {request.path} here"}}
            return Reply(404, "application/json", json.dumps(error).encode())
        schema = ((body.get("output_config") or {}).get("format") or {}).get("schema")
        text = json.dumps(_instance(schema)) if isinstance(schema, dict) else "scripted"
        return self._message(request, "msg_scripted_side", [{"type": "text", "text": text}], "end_turn")

    def _message(self, request: Request, message_id: str, content: list[dict[str, Any]], stop: str) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        usage = {"input_tokens": 1, "output_tokens": 1}
        if not body.get("stream"):
            whole = {"id": message_id, "type": "message", "role": "assistant", "model": body.get("model"),
                     "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}
            return Reply(200, "application/json", json.dumps(whole).encode())
        start = {"id": message_id, "type": "message", "role": "assistant", "model": body.get("model"), "content": [],
                 "stop_reason": None, "stop_sequence": None, "usage": usage}
        events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": start})]
        for position, block in enumerate(content):
            events += _block_events(position, block)
        events += [
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 1}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        return Reply(200, "text/event-stream", sse(events))


def _block_events(position: int, block: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """A content block as the stream sends it: started empty, its content in one delta, stopped."""
    if block["type"] == "tool_use":
        empty = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        empty = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    return [
        ("content_block_start", {"type": "content_block_start", "index": position, "content_block": empty}),
        ("content_block_delta", {"type": "content_block_delta", "index": position, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": position}),
    ]


def _instance(schema: dict[str, Any]) -> dict[str, Any]:
    """The smallest object a structured-output schema asks for: each required string property ``"scripted"``."""
    properties = schema.get("properties") or {}
    return {name: "scripted" for name in schema.get("required") or () if properties.get(name, {}).get("type") == "string"}
