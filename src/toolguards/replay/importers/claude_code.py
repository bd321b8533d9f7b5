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
- ``progress`` entries with ``data.type: "agent_progress"`` (2.1.x) mirror a subagent's messages into the main file:
  ``data.message`` is a whole ``user`` or ``assistant`` entry of the subagent ``data.agentId``, read as above under
  the subagent's label. ``data.normalizedMessages`` repeats earlier messages and is never read.
- Everything else (``summary``, ``system``, ``file-history-snapshot``, ``queue-operation``, other ``progress``...)
  is skipped.

Agents: the main thread is labelled with the entries' ``sessionId`` (the file name without its extension when there
is none), so a file holding a resumed session's entries under two ids replays them as two agents, as the reference
starts a resumed session with fresh chains. A subagent is ``subagent:<agentId>`` — for its mirrored ``progress``
entries and for the lines of its own file (``subagents/agent-<agentId>.jsonl``, every line ``isSidechain: true``), so
both files name it alike; a sidechain line with no ``agentId`` (older versions) is ``subagent``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from ..records import InputError, Record
from ._json import Lines, json_lines, json_type, outcome, tool_use
from .anthropic import is_prompt
from .pending import LIMIT, Pending

__all__ = ["read", "subagent_label"]

_REFUSALS = ("The user doesn't want to proceed with this tool use.",)


def read(path: str, lines: Lines) -> Iterator[Record | InputError]:
    """The records of one Claude Code transcript, in input order."""
    reader = _Reader(PurePath(path).stem or path)
    for item in json_lines(path, lines):
        if isinstance(item, InputError):
            reader.pending.add(item)
        else:
            number, entry = item
            problem = reader.line(number, entry)
            if problem:
                reader.pending.add(InputError(path, number, problem))
        yield from reader.pending.release()
    yield from reader.pending.finish()


def subagent_label(agent_id: Any) -> str:
    """How a subagent is labelled: ``subagent:<agentId>``."""
    return f"subagent:{agent_id}" if isinstance(agent_id, str) and agent_id else "subagent"


class _Reader:
    def __init__(self, fallback: str) -> None:
        self.pending = Pending()
        self.fallback = fallback
        self.response: dict[str, Any] = {}  # agent → the message.id of its current step
        self.seen: OrderedDict[str, None] = OrderedDict()  # recent call ids, bounded like the queue

    def line(self, number: int, entry: Any) -> str | None:
        if not isinstance(entry, dict):
            return f"expected a JSON object, not {json_type(entry)}"
        kind = entry.get("type")
        if kind in ("user", "assistant"):
            if entry.get("isSidechain") is True:
                agent = subagent_label(entry.get("agentId"))
            else:
                session = entry.get("sessionId")
                agent = session if isinstance(session, str) and session else self.fallback
            return self.entry(number, agent, entry)
        data = entry.get("data")
        if kind == "progress" and isinstance(data, dict) and data.get("type") == "agent_progress":
            inner = data.get("message")
            if not isinstance(inner, dict) or inner.get("type") not in ("user", "assistant"):
                return None  # a progress note with no message in it
            return self.entry(number, subagent_label(data.get("agentId")), inner)
        return None

    def entry(self, line: int, agent: str, entry: dict[str, Any]) -> str | None:
        kind = entry["type"]
        message = entry.get("message")
        if not isinstance(message, dict):
            return f'{"an" if kind == "assistant" else "a"} {kind} entry needs an object "message"'
        content = message.get("content")
        if kind == "assistant":
            return self.response_part(line, agent, message.get("id"), content)
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                call_id = block.get("tool_use_id")
                if not isinstance(call_id, str):
                    return 'a tool_result block needs a string "tool_use_id"'
                result, error = outcome(block.get("content"), block.get("is_error") is True)
                self.pending.resolve(agent, call_id, result, error, denied=_refused(error))
        if is_prompt(content) and not entry.get("isMeta") and not entry.get("isCompactSummary"):
            self.pending.end_step(agent)
            self.response.pop(agent, None)
            self.pending.add(Record("pre-step", line, agent=agent, user_prompt=True))
        return None

    def response_part(self, line: int, agent: str, response: Any, content: Any) -> str | None:
        if response is None or self.response.get(agent) != response:
            self.pending.end_step(agent)
            self.response[agent] = response
        for block in content if isinstance(content, list) else ():
            call = tool_use(block, line, agent)
            if isinstance(call, str):
                return call
            if call is None:
                continue
            if call.call_id is not None:
                if call.call_id in self.seen:
                    continue  # a subagent's call mirrored a second time
                self.seen[call.call_id] = None
                if len(self.seen) > LIMIT:
                    self.seen.popitem(last=False)
            self.pending.call(call)
        return None


def _refused(error: str | None) -> bool:
    if error is None:
        return False
    if error.startswith(_REFUSALS):
        return True
    return error.startswith("Permission to use ") and " has been denied" in error
