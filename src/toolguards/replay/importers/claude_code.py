"""The ``claude-code`` format: Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

JSON Lines, one entry per line, read as versions 2.0–2.1 write them: one content block per line, so a model response
with N parallel calls is N ``assistant`` lines sharing ``message.id`` (its results may be logged between them).

- ``assistant`` — each ``tool_use`` block of ``message.content`` (``id``, ``name``, ``input``) is a post-execute. A
  new ``message.id`` starts the agent's next step; a call seen before (same ``id``) is counted once.
- ``user`` — each ``tool_result`` block (``tool_use_id``, ``content``, ``is_error``) is the outcome of its call: the
  content's text as the result, or as the error when ``is_error`` is true. A call is ``denied`` when its error is
  Claude Code's own refusal — the user rejected it at the permission prompt (``The user doesn't want to proceed with
  this tool use...``, seen in real transcripts) or a permission rule denied it (``Permission to use ... has been
  denied``, not seen in the test files). Hook denials carry the hook's own text and are not recognized.
  A ``user`` entry whose content is text (a string, or any ``text`` block) is a user prompt — except entries marked
  ``isMeta`` (text Claude Code injects, such as a command caveat) or ``isCompactSummary`` (a compaction summary,
  which must not reset the chains). Claude Code's own markers such as ``[Request interrupted by user]`` are user
  text too, and count as prompts.
- ``attachment`` entries with ``attachment.type: "hook_additional_context"`` — the context a hook added after a call
  (``hookName`` ``PostToolUse:<tool>``, ``toolUseID`` the call's id), as Claude Code 2.1 records what it hands the
  model in a ``<system-reminder>`` after the call's result; a ``PostToolBatch`` hook's (``hookName``
  ``PostToolBatch``, ``toolUseID`` an id of its own, ``hook-<uuid>``: 2.1.197) after the batch's results: each text
  of ``attachment.content`` is a ``recorded-reminder`` of the entry's agent, after the calls before it, with the
  source ``{"kind": "hook", "host": "claude-code", "hook": <hookName>, "call": <toolUseID>}``. Other attachments
  pass in silence.
- token usage: the first line of each model response (``message.id``) gives a ``usage`` record before its calls:
  ``message.usage`` ``input_tokens`` + ``cache_creation_input_tokens`` + ``cache_read_input_tokens`` in,
  ``output_tokens`` out, ``message.model`` the model (the response's other lines repeat the same usage).
- ``progress`` entries with ``data.type: "agent_progress"`` (2.1.x) mirror a subagent's messages into the main file:
  ``data.message`` is a whole ``user`` or ``assistant`` entry of the subagent ``data.agentId``, read as above under
  the subagent's label. ``data.normalizedMessages`` repeats earlier messages and is never read.
- ``summary``, ``system``, ``file-history-snapshot``, ``queue-operation``, ``permission-mode``, other
  ``attachment``s, ``last-prompt`` and other ``progress`` entries say nothing a guard needs and pass in silence. An
  entry of a type not listed here (Claude Code adds some every few releases), or a ``user``/``assistant`` entry or
  block in a shape this importer does not know, is a ``skipped`` record: counted, and an error only with
  ``--strict``. A line that is not a JSON object with a string ``type`` is an error of its line. The blocks are read
  as ``_blocks`` documents them.

Agents: the main thread is labelled with the entries' ``sessionId`` (the file name without its extension when there
is none), so a file holding a resumed session's entries under two ids replays them as two agents, as the reference
starts a resumed session with fresh chains. A subagent is ``subagent:<agentId>`` — for its mirrored ``progress``
entries and for the lines of its own file (``subagents/agent-<agentId>.jsonl``, every line ``isSidechain: true``), so
both files name it alike; a sidechain line with no ``agentId`` (older versions) is ``subagent``.

Detection: an object with a string ``type`` and one of Claude Code's own keys (``sessionId``, ``uuid``,
``parentUuid``, ``leafUuid``, ``messageId``), or a ``user``/``assistant`` entry with an object ``message`` — whatever
its type, so an entry type added in a later version never decides against the format.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record, usage
from ._blocks import is_prompt, tokens, tool_result, tool_use
from ._json import Lines, json_lines, json_type
from .pending import LIMIT, Pending, read_loop

__all__ = ["FILE_NAME", "identifies", "read", "subagent_label"]

FILE_NAME: re.Pattern[str] | None = None  # <session id>.jsonl: nothing fixed

_NO_TYPE = 'an entry needs a string "type"'
_REFUSALS = ("The user doesn't want to proceed with this tool use.",)
_KEYS = ("sessionId", "uuid", "parentUuid", "leafUuid", "messageId")
_QUIET = frozenset(
    {
        "summary",
        "system",
        "file-history-snapshot",
        "queue-operation",
        "permission-mode",
        "attachment",
        "last-prompt",
    }
)


def identifies(value: Any) -> bool:
    """Whether a decoded value is a transcript entry (see the module docstring)."""
    if not (isinstance(value, dict) and isinstance(value.get("type"), str)):
        return False
    if any(key in value for key in _KEYS):
        return True
    return value["type"] in ("user", "assistant") and isinstance(value.get("message"), dict)


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of one Claude Code transcript, in input order."""
    reader = _Reader(PurePath(path).stem or path)
    return read_loop(path, json_lines(path, lines), reader.pending, reader.line)


def subagent_label(agent_id: Any) -> str:
    """How a subagent is labelled: ``subagent:<agentId>``."""
    return f"subagent:{agent_id}" if isinstance(agent_id, str) and agent_id else "subagent"


class _Reader:
    def __init__(self, fallback: str) -> None:
        self.pending = Pending()
        self.fallback = fallback
        self.response: dict[str, str | None] = {}  # agent → the message.id of its current step
        self.seen: OrderedDict[str, None] = OrderedDict()  # recent call ids, bounded like the queue

    def line(self, number: int, entry: Any) -> str | None:
        if not isinstance(entry, dict):
            return f"expected a JSON object, not {json_type(entry)}"
        kind = entry.get("type")
        if not isinstance(kind, str):
            return f'an entry needs a string "type", not {json_type(kind)}' if "type" in entry else _NO_TYPE
        if kind in ("user", "assistant"):
            if entry.get("isSidechain") is True:
                agent = subagent_label(entry.get("agentId"))
            else:
                session = entry.get("sessionId")
                agent = session if isinstance(session, str) and session else self.fallback
            self.entry(number, agent, entry)
        elif kind == "attachment":
            self.attachment(number, entry)
        elif kind == "progress":
            data = entry.get("data")
            if isinstance(data, dict) and data.get("type") == "agent_progress":
                inner = data.get("message")
                if isinstance(inner, dict) and inner.get("type") in ("user", "assistant"):
                    self.entry(number, subagent_label(data.get("agentId")), inner)
                # else: a progress note with no message in it
        elif kind not in _QUIET:
            self.pending.skip(number, kind)
        return None

    def entry(self, line: int, agent: str, entry: dict[str, Any]) -> None:
        kind = entry["type"]
        message = entry.get("message")
        if not isinstance(message, dict):
            self.pending.skip(line, f'{"an" if kind == "assistant" else "a"} {kind} entry needs an object "message"')
            return
        content = message.get("content")
        if kind == "assistant":
            response = message.get("id")
            self.response_part(line, agent, response if isinstance(response, str) else None, content, message)
            return
        for block in content if isinstance(content, list) else ():
            answer = tool_result(block)
            if isinstance(answer, str):
                self.pending.skip(line, answer)
            elif answer is not None:
                denied = _refused(answer.error)
                self.pending.resolve(agent, answer.call_id, answer.result, answer.error, denied=denied)
        if is_prompt(content) and not entry.get("isMeta") and not entry.get("isCompactSummary"):
            self.pending.end_step(agent)
            self.response.pop(agent, None)
            self.pending.add(Record("pre-step", line, agent=agent, user_prompt=True))

    def attachment(self, line: int, entry: dict[str, Any]) -> None:
        attachment = entry.get("attachment")
        if not isinstance(attachment, dict) or attachment.get("type") != "hook_additional_context":
            return
        if entry.get("isSidechain") is True:
            agent = subagent_label(entry.get("agentId"))
        else:
            session = entry.get("sessionId")
            agent = session if isinstance(session, str) and session else self.fallback
        source = {"kind": "hook", "host": "claude-code", "hook": attachment.get("hookName"),
                  "call": attachment.get("toolUseID")}
        content = attachment.get("content")
        for text in content if isinstance(content, list) else [content]:
            if isinstance(text, str) and text:
                self.pending.add(Record("recorded-reminder", line, agent=agent, text=text, source=source))

    def response_part(
        self, line: int, agent: str, response: str | None, content: Any, message: dict[str, Any] | None = None
    ) -> None:
        if response is None or self.response.get(agent) != response:
            self.pending.end_step(agent)
            self.response[agent] = response
            spent = _usage(line, agent, message) if message is not None else None
            if spent is not None:
                self.pending.add(spent)
        for block in content if isinstance(content, list) else ():
            call = tool_use(block, line, agent)
            if isinstance(call, str):
                self.pending.skip(line, call)
                continue
            if call is None:
                continue
            if call.call_id is not None:
                if call.call_id in self.seen:
                    continue  # a subagent's call mirrored a second time
                self.seen[call.call_id] = None
                if len(self.seen) > LIMIT:
                    self.seen.popitem(last=False)
            self.pending.call(call)


def _usage(line: int, agent: str, message: dict[str, Any]) -> Record | None:
    counts = message.get("usage")
    if not isinstance(counts, dict):
        return None
    model = message.get("model")
    return usage(line, agent, model if isinstance(model, str) else None, *tokens(counts))


def _refused(error: str | None) -> bool:
    if error is None:
        return False
    if error.startswith(_REFUSALS):
        return True
    return error.startswith("Permission to use ") and " has been denied" in error
