"""The ``codex`` format: Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``).

JSON Lines, one ``{"timestamp": ..., "type": ..., "payload": {...}}`` record a line, read as Codex 0.39 to 0.146 write
them (both the older rollouts whose ``shell`` tool takes an array ``command`` and the current ``exec_command`` ones):

- ``session_meta`` — names the agent of the records after it: ``payload.id`` (the thread id; ``payload.session_id``
  where there is no ``id``). A thread Codex started itself (``payload.source.subagent``, or ``payload.thread_source``
  ``"subagent"``: a spawned worker, a guardian review) is ``subagent:<id>``, so a folder of rollouts replays each
  sub-agent as its own agent. Before any ``session_meta``, the file name without its extension labels the agent.
- ``response_item`` with ``payload.type``:

  - ``function_call`` — a post-execute: ``name`` (a ``namespace`` joins it as ``<namespace>__<name>``, as Codex
    flattens namespaced tool names), ``arguments`` (the JSON text the model sent, parsed as the reference parses it:
    ``{}`` for an empty string or none, the raw string when it is not JSON), ``call_id``;
  - ``custom_tool_call`` — a post-execute: ``name``, ``input`` (free text, such as ``apply_patch``'s patch, kept as it
    is), ``call_id``;
  - ``local_shell_call`` (early rollouts) — a post-execute of ``local_shell`` with the ``action`` object as arguments;
  - ``function_call_output`` and ``custom_tool_call_output`` — the outcome of the call with the same ``call_id``: the
    ``output`` string, or the text of an ``input_text``/``output_text`` item list (other items keep the list as it
    is). An output object ``{"content": ..., "success": false}`` (older rollouts) makes the content the call's error;
    current rollouts record no error flag, so a failure is whatever the tool printed.

- ``event_msg`` with ``payload.type`` ``user_message`` — a user prompt (a pre-step with ``user_prompt``), unless its
  ``kind`` says Codex injected it (``user_instructions``, ``environment_context``: anything but ``plain``). The
  ``response_item`` messages with role ``user`` are not prompts: they include the AGENTS.md and environment text
  Codex sends with every session.
- ``write_stdin`` calls are not counted unless ``ImportOptions.count_polls`` asks: Codex fires no hook for them (a
  poll of a running command, or input sent to it; the command's own ``exec_command`` call is reported once, when it
  ends), so by default replay sees what the live hook would see.
- The records that hold no call replay could read pass in silence: ``turn_context``, ``compacted``, ``world_state``,
  ``inter_agent_communication_metadata``, every other ``event_msg`` (the session's events: ``task_started``,
  ``token_count``, ``exec_command_end``…, whose calls are the ``response_item`` calls above), and the
  ``response_item`` types ``message``, ``reasoning``, ``agent_message``, ``ghost_snapshot``, ``compaction`` — and the
  tools the model's API runs itself (``web_search_call``, ``image_generation_call``, ``tool_search_call``,
  ``tool_search_output``), for which Codex fires no hook.
- Every other record — of a type not listed here, or a known record whose fields have the wrong types: what could
  hold a call this importer does not read — is a ``skipped`` record labelled ``<type>`` or ``<type>:<payload.type>``
  (``response_item:function_call``), counted, and an error with ``--strict``.

A forked thread's rollout starts with its own ``session_meta`` and then repeats the history it was forked from,
``session_meta`` and all, with no mark where the copy ends: the copied calls replay under the thread they came from,
and so do the fork's own calls after them, unless a ``session_meta`` of the fork names it again first (Codex itself
takes a rollout's first ``session_meta`` as its thread). A call is released once its output arrives, or at the
agent's next user prompt, or when the agent changes; nothing in a rollout marks a call denied.

Example (a call, its output, and the records replay passes over)::

    {"timestamp":"...","type":"session_meta","payload":{"id":"019b7f94-...","cli_version":"0.77.0"}}
    {"timestamp":"...","type":"event_msg","payload":{"type":"user_message","message":"list the files"}}
    {"timestamp":"...","type":"turn_context","payload":{"cwd":"/repo","model":"gpt-5"}}
    {"timestamp":"...","type":"response_item","payload":{"type":"function_call","name":"shell",
     "arguments":"{\\"command\\":[\\"ls\\"]}","call_id":"call_1"}}
    {"timestamp":"...","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1",
     "output":"a.txt\\n"}}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record
from ._json import Lines, json_lines, json_type, parse_arguments
from .pending import Pending, read_loop

__all__ = ["FILE_NAME", "identifies", "read"]

#: The name Codex gives every rollout (matched against the whole file name).
FILE_NAME: re.Pattern[str] | None = re.compile(r"rollout-.*\.jsonl")

_RECORD_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state"}
)
_ENVELOPE = frozenset({"timestamp", "ordinal", "type", "payload"})
#: Records that hold no call: passed in silence (``event_msg`` too, whatever its payload).
_QUIET = frozenset({"turn_context", "compacted", "world_state", "inter_agent_communication_metadata", "event_msg"})
#: ``response_item`` types that hold no call the live hook sees.
_QUIET_ITEMS = frozenset({
    "message", "reasoning", "agent_message", "ghost_snapshot", "compaction", "compaction_summary",
    "web_search_call", "image_generation_call", "tool_search_call", "tool_search_output",
})
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_TEXT_ITEMS = frozenset({"input_text", "output_text", "text"})
_POLL = "write_stdin"


def identifies(value: Any) -> bool:
    """Whether a decoded JSON value is a rollout record: a ``type`` and an object ``payload``, with a type Codex writes
    or nothing beside them but the ``timestamp``."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if not isinstance(kind, str) or not isinstance(value.get("payload"), dict):
        return False
    return kind in _RECORD_TYPES or ("timestamp" in value and _ENVELOPE.issuperset(value))


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of one Codex rollout, in input order."""
    reader = _Reader(PurePath(path).stem or path, options)
    return read_loop(path, json_lines(path, lines), reader.pending, reader.entry)


class _Reader:
    def __init__(self, fallback: str, options: ImportOptions) -> None:
        self.pending = Pending()
        self.agent = fallback
        self.count_polls = options.count_polls

    def entry(self, line: int, entry: Any) -> str | None:
        if not isinstance(entry, dict):
            return f"expected a JSON object, not {json_type(entry)}"
        kind = entry.get("type")
        payload = entry.get("payload")
        if not isinstance(kind, str):
            self.pending.skip(line, "(no type)")
        elif not isinstance(payload, dict):
            self.pending.skip(line, kind)
        elif kind == "session_meta":
            self.session_meta(line, payload)
        elif kind == "response_item":
            self.response_item(line, payload)
        elif kind == "event_msg" and payload.get("type") == "user_message" and payload.get("kind", "plain") == "plain":
            self.pending.end_step(self.agent)
            self.pending.add(Record("pre-step", line, agent=self.agent, user_prompt=True))
        elif kind not in _QUIET:
            self.pending.skip(line, kind)
        return None

    def session_meta(self, line: int, payload: dict[str, Any]) -> None:
        thread = payload.get("id")
        if not isinstance(thread, str):
            thread = payload.get("session_id")
        if not isinstance(thread, str) or not thread:
            self.pending.skip(line, "session_meta")
            return
        source = payload.get("source")
        spawned = (isinstance(source, dict) and "subagent" in source) or payload.get("thread_source") == "subagent"
        agent = f"subagent:{thread}" if spawned else thread
        if agent != self.agent:
            self.pending.end_step(self.agent)
            self.agent = agent

    def response_item(self, line: int, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if not isinstance(kind, str):
            self.pending.skip(line, "response_item")
            return
        call_id = payload.get("call_id")
        if kind in _OUTPUTS and isinstance(call_id, str):
            result, error = _outcome(payload.get("output"))
            self.pending.resolve(self.agent, call_id, result, error)
            return
        if kind in _QUIET_ITEMS:
            return
        call = _call(line, self.agent, payload) if kind in _CALLS else None
        if call is None:
            self.pending.skip(line, _label("response_item", payload))
        elif call.tool != _POLL or self.count_polls:
            self.pending.call(call)


def _call(line: int, agent: str, payload: dict[str, Any]) -> Record | None:
    """The post-execute of a call item, or None when its fields are not of the types Codex writes."""
    kind = payload["type"]
    call_id = payload.get("call_id")
    if call_id is not None and not isinstance(call_id, str):
        return None
    if kind == "local_shell_call":
        action = payload.get("action")
        if not isinstance(action, dict):
            return None
        return Record("post-execute", line, agent=agent, tool="local_shell", arguments=action, call_id=call_id)
    name = payload.get("name")
    if not isinstance(name, str) or not name:
        return None
    if kind == "custom_tool_call":
        return Record("post-execute", line, agent=agent, tool=name, arguments=payload.get("input"), call_id=call_id)
    namespace = payload.get("namespace")
    if isinstance(namespace, str) and namespace:
        name = f"{namespace.rstrip('_')}__{name.lstrip('_')}"
    elif namespace not in (None, ""):
        return None
    raw = payload.get("arguments")
    arguments = parse_arguments("" if raw is None else raw)
    return Record("post-execute", line, agent=agent, tool=name, arguments=arguments, call_id=call_id)


def _outcome(output: Any) -> tuple[Any, str | None]:
    """A call's ``(result, error)`` from its output item."""
    if isinstance(output, dict) and "success" in output and "content" in output:
        content = _text(output["content"])
        if output["success"] is False:
            return None, content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        return content, None
    return _text(output), None


def _text(output: Any) -> Any:
    """The text of an output: a string, or the texts of a list of text items (or of one item) joined; anything else
    as it is."""
    items = [output] if isinstance(output, dict) else output
    if not isinstance(items, list) or not items:
        return output
    texts = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if not (isinstance(kind, str) and kind in _TEXT_ITEMS and isinstance(item.get("text"), str)):
            return output
        texts.append(item["text"])
    return "".join(texts)


def _label(kind: str, payload: dict[str, Any]) -> str:
    inner = payload.get("type")
    return f"{kind}:{inner}" if isinstance(inner, str) else kind
