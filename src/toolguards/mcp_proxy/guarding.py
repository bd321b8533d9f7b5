"""The guards behind one proxy process: the engine of the guard file, and the tools' output schemas it has seen.

``ToolGuard.answer(agent, params, result)`` counts one answered ``tools/call`` and gives the result to forward: the
same object when nothing fires, a copy with the reminders when something does (``toolguards.mcp_proxy.reminders``).
It never raises: a guard that fails (a store that is down, a bug of ours) forwards the result unchanged and is told
once on stderr through the ``toolguards`` logger.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..warnings_once import WarnOnce
from .reminders import call_event, with_reminder

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["ToolGuard"]


class ToolGuard:
    """One guard file's engine, shared by every session of a proxy process, and the tools each server listed."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: tool name -> its outputSchema (None: declares none), from the tools/list answers this process saw
        self.output_schemas: dict[str, Mapping[str, Any] | None] = {}
        self._warn_once = WarnOnce()

    def listed(self, result: Mapping[str, Any]) -> None:
        """Remember the output schemas of a ``tools/list`` answer."""
        tools = result.get("tools")
        if not isinstance(tools, list):
            return
        for tool in tools:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                schema = tool.get("outputSchema")
                self.output_schemas[tool["name"]] = schema if isinstance(schema, dict) else None

    def answer(self, agent: str, params: Mapping[str, Any], result: dict[str, Any]) -> dict[str, Any]:
        """Count one answered call of ``agent``; the result to forward (``result`` itself when nothing fires)."""
        try:
            event = call_event(agent, params, result)
            if event is None:
                return result
            texts = [entry.text for entry in self.engine.post_execute(event).additional_contexts if entry.text]
            if not texts:
                return result
            return with_reminder(result, texts, listed=event.tool in self.output_schemas,
                                 output_schema=self.output_schemas.get(event.tool))
        except Exception as exc:  # advisory: a failure forwards the server's answer as it came
            self._warn_once("mcp", exc)
            return result
