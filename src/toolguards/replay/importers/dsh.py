"""The ``dsh`` format: session logs of the reference harness (deepseek-harness ``session.jsonl``), JSON Lines.

Each line is one event, ``{"type": ..., "data": {...}}``; the first is ``{"type": "session", "id": ...}``. What this
importer reads (every other event type is skipped):

- ``session`` — labels the agent: one log is one agent, named by the ``id`` as written (the reference's test
  snapshots keep the placeholder ``{{sessionId}}``); before any session line, the file name without its extension.
- ``tool/call`` — a post-execute: ``data.name``, ``data.callId``, and ``data.arguments``, the raw JSON text the model
  sent, parsed as the reference parses it: ``{}`` for an empty string, the raw string when it is not JSON.
- ``tool/result`` — the outcome of the calls it answers: each ``tool-result`` block of ``data.message.content``
  (``toolCallId``, ``content``, ``isError``); the result is the content's text, and ``isError: true`` makes the text
  the call's error instead.
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

Calls are released in the order they were logged, once their result arrives or their step ends; a reminder or a user
prompt comes after the calls logged before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from ..records import InputError, Record
from ._json import Lines, joined_text, json_lines, json_type, outcome, parse_arguments
from .pending import Pending

__all__ = ["read"]

_STEP_ENDS = frozenset({"step/end", "turn/end"})
_DENYING = frozenset({"block", "deny"})


def read(path: str, lines: Lines) -> Iterator[Record | InputError]:
    """The records of one dsh session log, in input order."""
    agent = PurePath(path).stem or path
    pending = Pending()
    for item in json_lines(path, lines):
        if isinstance(item, InputError):
            pending.add(item)
        else:
            number, event = item
            if not isinstance(event, dict):
                pending.add(InputError(path, number, f"expected a JSON object, not {json_type(event)}"))
            elif event.get("type") == "session":
                if isinstance(event.get("id"), str) and event["id"]:
                    pending.end_step(agent)  # a second session line: another log, another agent
                    agent = event["id"]
            else:
                problem = _event(pending, agent, number, event)
                if problem:
                    pending.add(InputError(path, number, problem))
        yield from pending.release()
    yield from pending.finish()


def _event(pending: Pending, agent: str, line: int, event: dict[str, Any]) -> str | None:
    kind = event.get("type")
    data = event.get("data")
    if kind in _STEP_ENDS:
        pending.end_step(agent)
        return None
    if kind not in ("tool/call", "tool/result", "user/message", "hook/result"):
        return None
    if not isinstance(data, dict):
        return f'a {kind} event needs an object "data"'
    if kind == "tool/call":
        return _call(pending, agent, line, data)
    if kind == "tool/result":
        return _result(pending, agent, data)
    if kind == "hook/result":
        if data.get("point") == "PreToolUse" and data.get("decision") in _DENYING:
            pending.deny_first_waiting(agent)
        return None
    return _user_message(pending, agent, line, data)


def _call(pending: Pending, agent: str, line: int, data: dict[str, Any]) -> str | None:
    name = data.get("name")
    if not isinstance(name, str) or not name:
        return 'a tool/call event needs a string "data.name"'
    call_id = data.get("callId")
    if call_id is not None and not isinstance(call_id, str):
        return f'"data.callId" of a tool/call event must be a string, not {json_type(call_id)}'
    arguments = parse_arguments(data.get("arguments", ""))
    pending.call(Record("post-execute", line, agent=agent, tool=name, arguments=arguments, call_id=call_id))
    return None


def _result(pending: Pending, agent: str, data: dict[str, Any]) -> str | None:
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return 'a tool/result event needs a list "data.message.content"'
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool-result" and isinstance(block.get("toolCallId"), str):
            result, error = outcome(block.get("content"), block.get("isError") is True)
            pending.resolve(agent, block["toolCallId"], result, error)
    return None


def _user_message(pending: Pending, agent: str, line: int, data: dict[str, Any]) -> str | None:
    source = data.get("source")
    kind = source.get("kind") if isinstance(source, dict) else None
    if kind == "user":
        pending.end_step(agent)
        pending.add(Record("pre-step", line, agent=agent, user_prompt=True))
    elif kind == "plugin" and isinstance(source, dict):
        text = joined_text(data.get("content"))
        pending.add(Record("recorded-reminder", line, agent=agent, text=text, source=dict(source)))
    return None
