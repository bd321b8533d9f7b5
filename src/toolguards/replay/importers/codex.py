"""The ``codex`` format: Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``).

JSON Lines, one ``{"timestamp": ..., "type": ..., "payload": {...}}`` record a line, read as Codex 0.39 to 0.171 write
them (both the older rollouts whose ``shell`` tool takes an array ``command`` and the current ``exec_command`` ones):

- ``session_meta`` — names the agent of the records after it: ``payload.id`` (the thread id; ``payload.session_id``
  where there is no ``id``). A thread Codex started itself (``payload.source.subagent``, or ``payload.thread_source``
  ``"subagent"``: a spawned worker, a guardian review) is ``subagent:<id>``, so a folder of rollouts replays each
  sub-agent as its own agent. Before any ``session_meta``, the file name without its extension labels the agent.
- ``response_item`` with ``payload.type``:

  - ``function_call`` — a post-execute: ``name`` (a ``namespace`` joins it as ``<namespace>__<name>``, as Codex
    flattens namespaced tool names), ``arguments`` (the JSON text the model sent, parsed as the reference parses it:
    ``{}`` for an empty string or none, the raw string when it is not JSON), ``call_id``. An ``exec_command`` call
    is named as Codex's hooks name it: tool ``Bash`` with the arguments ``{"command": <its cmd>}`` (the other
    arguments, such as ``yield_time_ms``, are not in the hook's ``tool_input``), and its output's text after the
    header Codex puts above it (``Chunk ID``, ``Wall time``, the exit code, the token count: different at every
    call) is its result, the hook's ``tool_response``: replay then counts, compares and reminds as the live hook does;
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
  Codex sends with every session. Codex 0.171 writes no ``user_message``: there an ``event_msg`` ``item_completed``
  whose ``item.type`` is ``UserMessage`` is the prompt (in a file that has ``user_message`` events, such an item only
  repeats one, and is passed over).
- a ``response_item`` ``message`` of role ``developer`` while a call of the agent awaits its output is a hook's
  context (``PostToolUse``'s ``additionalContext``, which Codex 0.171 records between the call and its output): a
  ``recorded-reminder`` after that call, with the source ``{"kind": "hook", "host": "codex"}``. Codex's other
  developer messages (its instructions) pass as skipped ``response_item:message``.
- token usage, before the calls of the turn it counts: ``token_usage_record`` (0.171) ``payload.usage``, else, in
  rollouts without those, each ``event_msg`` ``token_count`` whose ``info.total_token_usage`` grew, with its
  ``info.last_token_usage``: ``input_tokens`` in (cached ones included), ``output_tokens`` out (reasoning included);
  the model is the last ``turn_context``'s ``model``.
- ``write_stdin`` calls are not counted unless ``ImportOptions.count_polls`` asks: Codex fires no hook for them (a
  poll of a running command, or input sent to it; the command's own ``exec_command`` call is reported once, when it
  ends), so by default replay sees what the live hook would see.
- The records that hold no call replay could read pass in silence: ``turn_context`` (its ``model`` read),
  ``compacted``, ``world_state``, ``inter_agent_communication_metadata``, every other ``event_msg`` (the session's
  events: ``task_started``, ``token_count``, ``exec_command_end``…, whose calls are the ``response_item`` calls above),
  and the ``response_item`` types ``message``, ``reasoning``, ``agent_message``, ``ghost_snapshot``, ``compaction`` —
  and the tools the model's API runs itself (``web_search_call``, ``image_generation_call``, ``tool_search_call``,
  ``tool_search_output``), for which Codex fires no hook.
- Every other record — of a type not listed here, or a known record whose fields have the wrong types: what could
  hold a call this importer does not read — is a ``skipped`` record labelled ``<type>`` or ``<type>:<payload.type>``
  (``response_item:function_call``), counted, and an error with ``--strict``.

A forked thread's rollout starts with its own ``session_meta`` and then repeats the history it was forked from,
``session_meta`` and all, with no mark where the copy ends: the copied calls replay under the thread they came from,
and so do the fork's own calls after them, unless a ``session_meta`` of the fork names it again first (Codex itself
takes a rollout's first ``session_meta`` as its thread). A call is released once its output arrives, or at the
agent's next user prompt, or when the agent changes; nothing in a rollout marks a call denied.

Example (a call, its output, and the records replay passes over; the call replays as ``Bash`` with
``{"command": "ls"}`` and the result ``"a.txt\\n"``)::

    {"timestamp":"...","type":"session_meta","payload":{"id":"019b7f94-...","cli_version":"0.171.0"}}
    {"timestamp":"...","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage"}}}
    {"timestamp":"...","type":"turn_context","payload":{"cwd":"/repo","model":"gpt-5"}}
    {"timestamp":"...","type":"response_item","payload":{"type":"function_call","name":"exec_command",
     "arguments":"{\\"cmd\\":\\"ls\\"}","call_id":"call_1"}}
    {"timestamp":"...","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1",
     "output":"Chunk ID: 1f2e3d\\nWall time: 0.0102 seconds\\nProcess exited with code 0\\nOutput:\\na.txt\\n"}}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record, usage
from ._json import Lines, count, json_lines, json_type, parse_arguments
from .pending import Pending, read_loop

__all__ = ["FILE_NAME", "identifies", "read"]

#: The name Codex gives every rollout (matched against the whole file name).
FILE_NAME: re.Pattern[str] | None = re.compile(r"rollout-.*\.jsonl")

_RECORD_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state", "token_usage_record"}
)
_HOOK: dict[str, Any] = {"kind": "hook", "host": "codex"}
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
#: Codex's shell tool, and the name and arguments its hooks report a call of it under.
_EXEC = "exec_command"
_HOOK_SHELL = "Bash"
#: The header Codex puts above an ``exec_command`` output: a chunk id, the wall time, the exit code or session, the
#: token count; the hook's ``tool_response`` is what follows ``Output:``.
_EXEC_HEADER = re.compile(r"Chunk ID: [^\n]*\nWall time: [^\n]*\n(?:[^\n]*\n){0,4}?Output:\n")


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
        self.user_messages = False  # the file marks prompts with user_message events (Codex up to 0.146 or so)
        self.shell_calls: set[str] = set()  # the call ids of exec_command calls whose output is still to come
        self.model: str | None = None
        self.records_usage = False  # token_usage_record seen: token_count only repeats it
        self.total: Any = None  # the last token_count's total_token_usage

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
            self.user_messages = True
            self.prompt(line)
        elif kind == "event_msg" and _user_message_item(payload) and not self.user_messages:
            self.prompt(line)
        elif kind == "turn_context":
            model = payload.get("model")
            self.model = model if isinstance(model, str) else self.model
        elif kind == "token_usage_record":
            self.records_usage = True
            self.spent(line, payload.get("usage"))
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            total = info.get("total_token_usage") if isinstance(info, dict) else None
            if not self.records_usage and isinstance(total, dict) and total != self.total:  # else it repeats a count
                self.total = total
                self.spent(line, info.get("last_token_usage") if isinstance(info, dict) else None)
        elif kind not in _QUIET:
            self.pending.skip(line, kind)
        return None

    def prompt(self, line: int) -> None:
        self.pending.end_step(self.agent)
        self.pending.add(Record("pre-step", line, agent=self.agent, user_prompt=True))

    def spent(self, line: int, counts: Any) -> None:
        """A turn's usage, queued before the calls it made that still await their output."""
        if not isinstance(counts, dict):
            self.pending.skip(line, "token usage")
            return
        tokens = count(counts, "input_tokens"), count(counts, "output_tokens")
        self.pending.before_waiting(self.agent, usage(line, self.agent, self.model, *tokens))

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
            if call_id in self.shell_calls and isinstance(result, str):
                self.shell_calls.discard(call_id)
                header = _EXEC_HEADER.match(result)
                result = result[header.end():] if header else result
            self.pending.resolve(self.agent, call_id, result, error)
            return
        if kind == "message" and payload.get("role") == "developer" and self.pending.waiting(self.agent):
            text = _text(payload.get("content"))
            if isinstance(text, str) and text:
                self.pending.add(Record("recorded-reminder", line, agent=self.agent, text=text, source=_HOOK))
                return
        if kind in _QUIET_ITEMS:
            return
        call = _call(line, self.agent, payload) if kind in _CALLS else None
        if call is None:
            self.pending.skip(line, _label("response_item", payload))
        elif call.tool != _POLL or self.count_polls:
            if call.tool == _HOOK_SHELL and kind == "function_call" and call.call_id is not None:
                self.shell_calls.add(call.call_id)
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
    if name == _EXEC and isinstance(arguments, dict) and isinstance(arguments.get("cmd"), str):
        name, arguments = _HOOK_SHELL, {"command": arguments["cmd"]}
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


def _user_message_item(payload: dict[str, Any]) -> bool:
    """Whether an ``event_msg`` is the ``item_completed`` of a ``UserMessage`` (a prompt, in Codex 0.171)."""
    item = payload.get("item")
    return payload.get("type") == "item_completed" and isinstance(item, dict) and item.get("type") == "UserMessage"


def _label(kind: str, payload: dict[str, Any]) -> str:
    inner = payload.get("type")
    return f"{kind}:{inner}" if isinstance(inner, str) else kind
