"""The Gemini API as Gemini CLI calls it, for ``ScriptedModel``: turns, side requests, and the settings that point the
CLI at the server and keep all its traffic on 127.0.0.1.

Gemini CLI (through ``@google/genai``) sends ``POST /v1beta/models/<model>:<method>`` with the API key in
``x-goog-api-key``:

- a **turn** is ``:streamGenerateContent?alt=sse`` carrying the chat: ``contents`` (``user``/``model`` messages of
  ``text``, ``functionCall`` and ``functionResponse`` parts), the tools as ``functionDeclarations``, and a free-text
  answer; the reply is a server-sent-events stream of ``GenerateContentResponse`` chunks;
- a **side request** is anything else: ``:generateContent`` calls that ask for JSON (``responseJsonSchema``: the model
  router's complexity classifier before each new prompt, and where they are on, the next-speaker check and the
  loop-detection double check after 30 turns of one prompt), ``:countTokens``, and a stream that asks for JSON. A
  JSON side request is answered with a least value of its schema (required properties only, the first of an enum,
  empty strings, numbers at their minimum, else integers 1, as the classifier's score runs from 1, and other numbers
  0, so the loop check's confidence is nil), a plain one with a short text, ``countTokens`` with a size estimate,
  anything else with a 404.

``cli_environment`` and ``user_settings`` give what a test hands Gemini CLI: a dummy key, the server's URL as
``GOOGLE_GEMINI_BASE_URL``, the API-key auth type (the CLI refuses its ``gateway`` type in headless mode), and
telemetry, usage statistics, update checks and the auto-update switched off by the CLI's own settings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from support.scripted_model import Reply, Request, Text, ToolCall, Turn, sse

__all__ = ["GeminiApi", "cli_environment", "function_responses", "texts", "user_settings"]

#: A usage block like the real API's, so that the CLI's token accounting has numbers to add.
_USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}


def _method(request: Request) -> str:
    """``streamGenerateContent``, ``generateContent``, ``countTokens``… from ``/v1beta/models/<model>:<method>?…``."""
    path = request.path.split("?", 1)[0]
    return path.rsplit(":", 1)[1] if ":" in path.rsplit("/", 1)[-1] else ""


def _asks_for_json(body: Any) -> bool:
    config = body.get("generationConfig") if isinstance(body, dict) else None
    if not isinstance(config, dict):
        return False
    return ("responseJsonSchema" in config or "responseSchema" in config
            or config.get("responseMimeType") == "application/json")


def _declares_functions(body: Any) -> bool:
    tools = body.get("tools") if isinstance(body, dict) else None
    return isinstance(tools, list) and any(isinstance(tool, dict) and tool.get("functionDeclarations")
                                           for tool in tools)


def _smallest(schema: Any) -> Any:
    """A least value of a (Gemini or JSON Schema) schema: required properties only, first enum values."""
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: _smallest(properties.get(name)) for name in schema.get("required", list(properties))}
    if kind == "integer":
        return schema.get("minimum", 1)  # the classifier's score, 1 to 100, says so only in its description
    if kind == "number":
        return schema.get("minimum", 0)  # the loop check's confidence: 0, no loop
    return {"array": [], "string": "", "boolean": False}.get(kind)


def _chunk(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": _USAGE, "modelVersion": "scripted"}


class GeminiApi:
    """The Gemini API's wire format (a function call goes out without an id: Gemini CLI gives each call its own)."""

    def is_turn(self, request: Request) -> bool:
        """A chat turn: a streamed generation over the tools that does not ask for JSON."""
        return (_method(request) == "streamGenerateContent" and _declares_functions(request.body)
                and not _asks_for_json(request.body))

    def reply(self, request: Request, turn: Turn, index: int) -> Reply:
        """One SSE chunk that holds the whole turn: a function call, or a text."""
        if isinstance(turn, ToolCall):
            part: dict[str, Any] = {"functionCall": {"name": turn.tool, "args": dict(turn.arguments)}}
        else:
            assert isinstance(turn, Text)
            part = {"text": turn.text}
        return Reply(200, "text/event-stream", sse([(None, _chunk([part]))]))

    def side_reply(self, request: Request) -> Reply:
        """Token counts, JSON answers that satisfy the asked schema, a short text for anything else generated."""
        method = _method(request)
        body = request.body if isinstance(request.body, dict) else {}
        if method == "countTokens":
            return _json(200, {"totalTokens": len(json.dumps(body)) // 4})
        if method in ("generateContent", "streamGenerateContent"):
            config = body.get("generationConfig", {})
            if _asks_for_json(body):
                schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
                text = json.dumps(_smallest(schema))
            else:
                text = "(a side answer of the scripted model)"
            chunk = _chunk([{"text": text}])
            if method == "streamGenerateContent":
                return Reply(200, "text/event-stream", sse([(None, chunk)]))
            return _json(200, chunk)
        return _json(404, {"error": {"code": 404, "message": f"the scripted model has no {request.path}",
                                     "status": "NOT_FOUND"}})


def _json(status: int, value: Any) -> Reply:
    return Reply(status, "application/json", json.dumps(value).encode())


def cli_environment(url: str, home: str, path: str) -> dict[str, str]:
    """The whole environment of a Gemini CLI run against ``url`` with ``home`` as its home folder (nothing inherited
    but ``PATH``, so no real key, proxy or CI variable changes what it does)."""
    return {
        "PATH": path,
        "HOME": home,
        "GEMINI_API_KEY": "scripted-model-key",
        "GOOGLE_GEMINI_BASE_URL": url,
        "TERM": "dumb",
        "NO_COLOR": "1",
    }


def user_settings(**more: Any) -> dict[str, Any]:
    """``~/.gemini/settings.json`` for a test run: API-key auth, and nothing that phones home; ``more`` adds sections
    (merged one level deep)."""
    settings: dict[str, Any] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "ide": {"enabled": False},
    }
    for section, values in more.items():
        settings[section] = {**settings.get(section, {}), **values} if isinstance(values, Mapping) else values
    return settings


def texts(request: Request) -> list[tuple[str, str]]:
    """``(role, text)`` of every text part of a turn's ``contents``, in order."""
    return [(content.get("role", ""), part["text"])
            for content in request.body.get("contents", [])
            for part in content.get("parts", []) if isinstance(part.get("text"), str)]


def function_responses(request: Request) -> list[dict[str, Any]]:
    """Every ``functionResponse`` part of a turn's ``contents``, in order."""
    return [part["functionResponse"]
            for content in request.body.get("contents", [])
            for part in content.get("parts", []) if isinstance(part.get("functionResponse"), dict)]
