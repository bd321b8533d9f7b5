"""The ``events`` format: toolguards' own JSON Lines, one event per line, in the order the host saw them (pinned).

::

    {"type": "post-execute", "agent": "main", "tool": "grep", "arguments": {"q": "x"}, "denied": false, "callId": "c1"}
    {"type": "pre-step", "agent": "main", "userPrompt": true}
    {"type": "forget", "agent": "main"}

Every event has a ``type`` and may name its ``agent`` (a string; null or absent is a call with no agent, which the
guards ignore).

- ``post-execute`` — an executed (or denied) tool call. ``tool`` (a non-empty string) is required. ``arguments`` is
  any JSON value: the parsed arguments, or the raw string when the model's argument JSON was malformed; ``{}`` when
  absent, as the reference parses an empty argument string. Optional: ``denied`` (true/false, default false),
  ``callId`` (string or null), ``result`` (any JSON value) and ``error`` (string or null): the call's outcome.
- ``pre-step`` — a step boundary; ``userPrompt`` (true/false, default false) when the step carries a new user prompt,
  which starts the agent's chains afresh.
- ``forget`` — the host disposed of the agent.

This is toolguards' own format, so its three types are checked strictly and a typo never passes in silence: a line
that is not JSON, not an object, without a string ``type``, or of one of the three types with a key of the wrong type
or a key its type does not have, is an InputError naming every problem of the line, e.g. ``events.jsonl:3:
post-execute needs a string "tool"; unknown key "args" in a post-execute event (allowed: type, agent, tool,
arguments, denied, callId, result, error)``. An event of another ``type`` (one a later version may write) is not
read: it is a ``skipped`` record labelled with its type, counted in the summary (``--strict`` makes it an error).
Blank lines are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record, post_execute
from ._json import Lines, json_lines, json_type
from .pending import Pending, read_loop

__all__ = ["FILE_NAME", "KEYS", "decode", "identifies", "read"]

FILE_NAME: re.Pattern[str] | None = None  # events files have no fixed name

KEYS: dict[str, tuple[str, ...]] = {
    "post-execute": ("type", "agent", "tool", "arguments", "denied", "callId", "result", "error"),
    "pre-step": ("type", "agent", "userPrompt"),
    "forget": ("type", "agent"),
}
_TYPES = '"post-execute", "pre-step" or "forget"'


_POST_EXECUTE_KEYS = frozenset(KEYS["post-execute"])


def identifies(value: Any) -> bool:
    """Whether a decoded value is an event: an object whose ``type`` is one of the three."""
    return isinstance(value, dict) and isinstance(value.get("type"), str) and value["type"] in KEYS


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of an events file, one per non-blank line, or an InputError for each malformed line."""
    pending = Pending()
    add = pending.add

    def handle(line: int, event: Any) -> str | None:
        if type(event) is dict and isinstance(event.get("type"), str) and event["type"] not in KEYS:
            pending.skip(line, event["type"])
            return None
        found = decode(line, event)
        if isinstance(found, list):
            return "; ".join(found)
        add(found)
        return None

    return read_loop(path, json_lines(path, lines), pending, handle, _plain_post_execute)


def decode(line: int, event: Any) -> Record | list[str]:
    """One decoded event as its record, or every problem that makes it malformed (the service reads events here too:
    there, an event of an unknown ``type`` is one of the problems)."""
    record = _plain_post_execute(line, event)
    if record is not None:
        return record
    problems = _problems(event)
    return problems if problems else _record(line, event)


def _plain_post_execute(line: int, event: Any) -> Record | None:
    """The record of a well-formed post-execute event, checked in one go; None for anything else, which ``_problems``
    words. The lines of a long replay are nearly all of this kind, and ``_problems`` would cost as much as decoding
    the line."""
    if type(event) is not dict or event.get("type") != "post-execute" or not _POST_EXECUTE_KEYS.issuperset(event):
        return None
    get = event.get
    tool, agent, call_id, error, denied = get("tool"), get("agent"), get("callId"), get("error"), get("denied", False)
    if (
        type(tool) is str
        and tool != ""
        and (agent is None or type(agent) is str)
        and (call_id is None or type(call_id) is str)
        and (error is None or type(error) is str)
        and type(denied) is bool
    ):
        return post_execute(line, agent, tool, get("arguments", {}), denied, call_id, get("result"), error)
    return None


def _post_execute(line: int, event: dict[str, Any]) -> Record:
    get = event.get
    return Record(
        "post-execute",
        line,
        agent=get("agent"),
        tool=event["tool"],
        arguments=get("arguments", {}),
        denied=get("denied", False),
        call_id=get("callId"),
        result=get("result"),
        error=get("error"),
    )


def _record(line: int, event: dict[str, Any]) -> Record:
    kind = event["type"]
    agent = event.get("agent")
    if kind == "post-execute":
        return _post_execute(line, event)
    if kind == "pre-step":
        return Record("pre-step", line, agent=agent, user_prompt=event.get("userPrompt", False))
    return Record("forget", line, agent=agent)


def _problems(event: Any) -> list[str]:
    if not isinstance(event, dict):
        return [f"expected a JSON object, not {json_type(event)}"]
    kind = event.get("type")
    if "type" not in event:
        return [f'an event needs a "type": {_TYPES}']
    if not isinstance(kind, str) or kind not in KEYS:
        shown = f'"{kind}"' if isinstance(kind, str) else json_type(kind)
        return [f'"type" must be {_TYPES}, not {shown}']
    problems = []
    if kind == "post-execute":
        tool = event.get("tool")
        if not isinstance(tool, str):
            problems.append('post-execute needs a string "tool"')
        elif not tool:
            problems.append('"tool" must not be empty')
    for key, check, wanted in (
        ("agent", _string_or_null, "a string or null"),
        ("callId", _string_or_null, "a string or null"),
        ("error", _string_or_null, "a string or null"),
        ("denied", _boolean, "true or false"),
        ("userPrompt", _boolean, "true or false"),
    ):
        if key in event and key in KEYS[kind] and not check(event[key]):
            problems.append(f'"{key}" must be {wanted}, not {json_type(event[key])}')
    unknown = [key for key in event if key not in KEYS[kind]]
    if unknown:
        names = ", ".join(f'"{key}"' for key in unknown)
        allowed = ", ".join(KEYS[kind])
        problems.append(f"unknown key{'s' if len(unknown) > 1 else ''} {names} in a {kind} event (allowed: {allowed})")
    return problems


def _string_or_null(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _boolean(value: Any) -> bool:
    return isinstance(value, bool)
