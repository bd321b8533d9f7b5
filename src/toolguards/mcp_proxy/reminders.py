"""Where a reminder goes in a ``tools/call`` result, and how a result becomes the event the engine counts.

The proxy never replaces what the server said; a result that draws a reminder gains it in two places, chosen from
what the clients are documented to show the model (``docs/mcp.md`` has the table and its sources):

- a text content block, ``{"type": "text", "text": <the reminders>}``, put FIRST in ``content``: clients cap long
  outputs by cutting (or moving to a file) what comes last, so the beginning is where a cap does not reach;
- when the result has ``structuredContent`` (an object), the key ``toolguards_reminder`` first in it — Claude Code,
  VS Code, Cursor and Codex show the model only the structured content when there is one. It is added only when the
  tool's ``outputSchema`` (as this proxy saw it in a ``tools/list`` answer) still accepts the result with the key;
  a schema that forbids extra properties, a tool the proxy never saw listed, or a result that already has the key
  leaves ``structuredContent`` exactly as it was (and those clients then miss the reminder).

The reminders of one call are joined by blank lines. ``isError`` results are counted as failed calls, their text
being the error the ``repeated-error-reminder`` guard compares.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..events import ToolEvent

__all__ = ["STRUCTURED_KEY", "call_event", "error_text", "schema_accepts", "with_reminder"]

#: The key a reminder takes in ``structuredContent``.
STRUCTURED_KEY = "toolguards_reminder"


def error_text(result: Mapping[str, Any]) -> str:
    """The error an ``isError`` result reports: its text blocks joined by line breaks, else its content as JSON."""
    content = result.get("content")
    blocks = content if isinstance(content, list) else []
    texts = [block["text"] for block in blocks
             if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)]
    if texts:
        return "\n".join(texts)
    return json.dumps(content, ensure_ascii=False, sort_keys=True)


def call_event(agent: str, params: Mapping[str, Any], result: Mapping[str, Any]) -> ToolEvent | None:
    """The event of one answered ``tools/call``: tool, arguments and outcome; None when the request names no tool."""
    name = params.get("name")
    if not isinstance(name, str):
        return None
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}  # MCP's absent arguments and `{}` are the same call
    if result.get("isError") is True:
        return ToolEvent(name, arguments, agent, error=error_text(result))
    return ToolEvent(name, arguments, agent, result=dict(result))


def schema_accepts(schema: Mapping[str, Any], instance: Any) -> bool:
    """Whether ``instance`` is valid under the JSON Schema ``schema``; False for a schema that cannot be used."""
    from jsonschema import validators  # noqa: PLC0415 - only for a result that draws a reminder

    try:
        validator_class = validators.validator_for(schema)
        validator_class.check_schema(dict(schema))
        return bool(validator_class(dict(schema)).is_valid(instance))
    except Exception:  # a bad schema, an unresolvable $ref: the key is not added rather than risked
        return False


def with_reminder(result: Mapping[str, Any], texts: Sequence[str], *, listed: bool,
                  output_schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of ``result`` carrying the reminders (see the module docstring). ``listed``: the proxy saw the tool in a
    ``tools/list`` answer, with ``output_schema`` (None: the tool declares none, so nothing validates the result)."""
    text = "\n\n".join(texts)
    changed = dict(result)
    content = result.get("content")
    changed["content"] = [{"type": "text", "text": text}, *(content if isinstance(content, list) else [])]
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and listed and STRUCTURED_KEY not in structured:
        candidate = {STRUCTURED_KEY: text, **structured}
        if output_schema is None or schema_accepts(output_schema, candidate):
            changed["structuredContent"] = candidate
    return changed
