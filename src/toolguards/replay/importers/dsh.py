"""The ``dsh`` format: session logs of the reference harness (deepseek-harness ``session.jsonl``), JSON Lines.

Each line is one event, ``{"type": ..., "data": {...}}``; the first is ``{"type": "session", "id": ...}``. What this
importer reads:

- ``session`` — labels the agent: one log is one agent, named by the ``id`` as written (the reference's test
  snapshots keep the placeholder ``{{sessionId}}``); before any session line, the file name without its extension.
- ``tool/call`` — a post-execute: ``data.name``, ``data.callId``, and ``data.arguments``, the raw JSON text the model
  sent, parsed as the reference parses it: ``{}`` for an empty string, the raw string when it is not JSON.
- ``tool/result`` — the outcome of the calls it answers, in either of the two shapes the harness has written: each
  ``tool-result`` block of ``data.message.content`` (``toolCallId``, ``content``, ``isError``), or, in newer logs,
  ``data.callId`` with the result's ``data.content`` list and ``data.isError``. The result is the content's text, and
  ``isError: true`` makes the text the call's error instead.
- ``hook/result`` with ``point: "PreToolUse"`` and ``decision: "block"`` (or ``"deny"``) — a pre-tool hook denied a
  call. The event names no call, and the harness runs a call's pre-tool hooks before its result is logged, so the
  denied call is the oldest call of the step still awaiting its result (exact when a step's calls run one after
  another; with calls run in parallel it is a best guess). A call denied by any other pre-execute listener leaves no
  trace in the log and stays ``denied: false``.
- ``user/message`` — with ``data.source.kind: "user"``: a pre-step with a user prompt; with ``"plugin"``: a reminder
  the log records (a plugin's injected context), with its text blocks joined and ``data.source`` as its source. Every
  plugin's message is yielded, the harness's own runtime-context snapshot included: the caller picks its guard's by
  ``source["plugin"]``.
- ``step/end`` and ``turn/end`` end the step: a call whose result has not come keeps none.

The harness's other events (``turn/start``, ``step/start``, ``assistant/message``, ``assistant/chunk``,
``*-chunks``, ``request/*``, ``session/title``, ``agent/inbox/spliced``, ``hook/invoked``, ``todo/write``) say nothing
a guard needs and pass in silence. An event of a type not listed here, or one of the types above in a shape this
importer does not know (a ``tool/call`` without a name, say), is a ``skipped`` record: counted, and an error only
with ``--strict``. A line that is not a JSON object with a string ``type`` is an error of its line.

Calls are released in the order they were logged, once their result arrives or their step ends; a reminder or a user
prompt comes after the calls logged before it. Detection: an object whose ``type`` is ``session`` or contains a ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record
from ._json import Lines, joined_text, json_lines, json_type, outcome, parse_arguments
from .pending import Pending, read_loop

__all__ = ["FILE_NAME", "identifies", "read"]

FILE_NAME: re.Pattern[str] | None = None  # session.jsonl, but other files share that name

_NO_TYPE = 'an event needs a string "type"'
_NO_RESULT = 'a tool/result event needs "data.callId" and a list "data.content", or a list "data.message.content"'
_STEP_ENDS = frozenset({"step/end", "turn/end"})
_DENYING = frozenset({"block", "deny"})
_QUIET = frozenset(
    {
        "turn/start",
        "step/start",
        "assistant/message",
        "assistant/chunk",
        "reasoning-chunks",
        "text-chunks",
        "tool-call-chunks",
        "request/header",
        "request/context",
        "session/title",
        "agent/inbox/spliced",
        "hook/invoked",
        "todo/write",
    }
)


def identifies(value: Any) -> bool:
    """Whether a decoded value is a harness event: an object whose ``type`` is ``session`` or contains a ``/``."""
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and (kind == "session" or "/" in kind)


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of one dsh session log, in input order."""
    reader = _Reader(PurePath(path).stem or path)
    return read_loop(path, json_lines(path, lines), reader.pending, reader.event)


class _Reader:
    def __init__(self, agent: str) -> None:
        self.pending = Pending()
        self.agent = agent

    def event(self, line: int, event: Any) -> str | None:
        if not isinstance(event, dict):
            return f"expected a JSON object, not {json_type(event)}"
        kind = event.get("type")
        if not isinstance(kind, str):
            return f'an event needs a string "type", not {json_type(kind)}' if "type" in event else _NO_TYPE
        if kind == "session":
            if isinstance(event.get("id"), str) and event["id"]:
                self.pending.end_step(self.agent)  # a second session line: another log, another agent
                self.agent = event["id"]
            return None
        if kind in _STEP_ENDS:
            self.pending.end_step(self.agent)
        elif kind in _QUIET:
            pass
        elif kind not in ("tool/call", "tool/result", "user/message", "hook/result"):
            self.pending.skip(line, kind)
        else:
            data = event.get("data")
            if isinstance(data, dict):
                problem = self.data(line, kind, data)
            else:
                problem = f'a {kind} event needs an object "data"'
            if problem:
                self.pending.skip(line, problem)
        return None

    def data(self, line: int, kind: str, data: dict[str, Any]) -> str | None:
        if kind == "tool/call":
            return self.call(line, data)
        if kind == "tool/result":
            return self.result(data)
        if kind == "hook/result":
            if data.get("point") == "PreToolUse" and data.get("decision") in _DENYING:
                self.pending.deny_first_waiting(self.agent)
            return None
        return self.user_message(line, data)

    def call(self, line: int, data: dict[str, Any]) -> str | None:
        name = data.get("name")
        if not isinstance(name, str) or not name:
            return 'a tool/call event needs a string "data.name"'
        call_id = data.get("callId")
        if call_id is not None and not isinstance(call_id, str):
            return f'"data.callId" of a tool/call event must be a string, not {json_type(call_id)}'
        arguments = parse_arguments(data.get("arguments", ""))
        call = Record("post-execute", line, agent=self.agent, tool=name, arguments=arguments, call_id=call_id)
        self.pending.call(call)
        return None

    def result(self, data: dict[str, Any]) -> str | None:
        if isinstance(data.get("callId"), str) and isinstance(data.get("content"), list):  # the newer shape
            result, error = outcome(data["content"], data.get("isError") is True)
            self.pending.resolve(self.agent, data["callId"], result, error)
            return None
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return _NO_RESULT
        for block in content:
            if not (isinstance(block, dict) and block.get("type") == "tool-result"):
                continue
            call_id = block.get("toolCallId")
            if isinstance(call_id, str):
                result, error = outcome(block.get("content"), block.get("isError") is True)
                self.pending.resolve(self.agent, call_id, result, error)
        return None

    def user_message(self, line: int, data: dict[str, Any]) -> str | None:
        source = data.get("source")
        kind = source.get("kind") if isinstance(source, dict) else None
        if kind == "user":
            self.pending.end_step(self.agent)
            self.pending.add(Record("pre-step", line, agent=self.agent, user_prompt=True))
        elif kind == "plugin" and isinstance(source, dict):
            text = joined_text(data.get("content"))
            self.pending.add(Record("recorded-reminder", line, agent=self.agent, text=text, source=dict(source)))
        return None
