"""The OpenAI Responses API as Codex CLI calls it, for ``ScriptedModel``: ``POST <base_url>/responses`` streamed as
server-sent events.

Codex reaches it through a custom model provider in ``$CODEX_HOME/config.toml`` (``config_toml(url)`` writes one,
with ``base_url`` on loopback and everything of Codex's own that would leave loopback switched off). What Codex 0.171
sends, seen by recording every request of a headless ``codex exec`` run:

- ``POST /v1/responses`` with ``stream: true``: the conversation so far as ``input`` items (``message`` items with a
  role, ``function_call`` items, ``function_call_output`` items) and its tools (the shell tool is ``exec_command``, its
  argument ``cmd``). The header ``x-codex-turn-metadata`` (JSON) names the request's kind, ``"turn"`` for an agent
  turn; any other kind (a compaction, a title) is a side request;
- nothing else once ``config_toml`` is used: no model list, no update check, no plugin sync, no telemetry.

A turn's reply is one ``response.created``, one ``response.output_item.done`` (a ``function_call`` item for a
``ToolCall``, an assistant ``message`` for a ``Text``) and one ``response.completed`` with token usage.
"""

from __future__ import annotations

import json
from typing import Any

from support.scripted_model import Reply, Request, Text, ToolCall, Turn, sse

#: The model name the provider announces; Codex has no metadata for it and says so once on stderr.
MODEL = "scripted-model"

#: Codex's shell tool, and how a call of it names its command.
SHELL_TOOL = "exec_command"


def config_toml(url: str) -> str:
    """A ``config.toml`` pointing Codex at the scripted model at ``url`` and keeping all its traffic on loopback."""
    return f"""\
model = "{MODEL}"
model_provider = "scripted"
# the release check (api.github.com)
check_for_update_on_startup = false
web_search = "disabled"

[model_providers.scripted]
name = "scripted"
base_url = "{url}/v1"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false

# the default metrics exporter posts to ab.chatgpt.com
[otel]
exporter = "none"
trace_exporter = "none"
metrics_exporter = "none"

[features]
# plugins: a git ls-remote of github.com/openai/plugins; apps and remote plugins: chatgpt.com
plugins = false
apps = false
remote_plugin = false
in_app_updates = false
"""


def request_kind(request: Request) -> str | None:
    """The request kind Codex names in ``x-codex-turn-metadata`` (``"turn"`` for an agent turn), if any."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    try:
        metadata = json.loads(headers.get("x-codex-turn-metadata", ""))
    except ValueError:
        return None
    kind = metadata.get("request_kind") if isinstance(metadata, dict) else None
    return kind if isinstance(kind, str) else None


class ResponsesApi:
    """``ModelApi`` for Codex CLI's Responses API requests."""

    def is_turn(self, request: Request) -> bool:
        return (request.method == "POST" and request.path.rstrip("/").endswith("/responses")
                and request_kind(request) in (None, "turn"))

    def reply(self, request: Request, turn: Turn, index: int) -> Reply:
        response_id = f"resp_{index}"
        item: dict[str, Any]
        if isinstance(turn, ToolCall):
            item = {"type": "function_call", "id": f"fc_{index}", "call_id": f"call_{index}", "name": turn.tool,
                    "arguments": json.dumps(dict(turn.arguments))}
        else:
            assert isinstance(turn, Text)
            item = {"type": "message", "id": f"msg_{index}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": turn.text, "annotations": []}]}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        return Reply(200, "text/event-stream", sse([
            ("response.created", {"type": "response.created", "response": {"id": response_id}}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed",
                                    "response": {"id": response_id, "usage": usage}}),
        ]))

    def side_reply(self, request: Request) -> Reply:
        # Nothing else is expected; a 404 makes any new side request visible in the recorded requests.
        return Reply(404, "application/json", json.dumps({"error": {"message": f"no {request.path}"}}).encode())


def input_items(request: Request) -> list[dict[str, Any]]:
    """The ``input`` items of a recorded Responses request."""
    body = request.body
    assert isinstance(body, dict) and isinstance(body.get("input"), list), f"not a Responses request: {body!r}"
    return [item for item in body["input"] if isinstance(item, dict)]


def message_text(item: dict[str, Any]) -> str:
    """The text of a ``message`` input item (its text parts joined)."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))
