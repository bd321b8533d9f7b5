"""The ``gemini`` format: Gemini CLI chat recordings (``~/.gemini/tmp/<project>/chats/session-<time>-<id>.json[l]``).

Two forms, both read:

- the older single JSON document, ``{"sessionId", "projectHash", "startTime", "lastUpdated", "messages": [...]}``,
  read whole, each record keeping the line where its message starts;
- the current JSON Lines form, streamed: a metadata line (``sessionId``, ``projectHash``, ``kind``...), then one line
  per message — a message is written again, whole, under the same ``id`` each time it changes (its tool calls and
  their results are added to it) — and ``{"$set": {...}}`` lines that update the metadata.

What this importer reads:

- the session's ``sessionId`` (the metadata line, or a ``$set`` that changes it) labels the agent: one session is one
  agent (a sub-agent's own recording is a session of its own); before any, the file name without its extension.
- a ``gemini`` message's ``toolCalls`` — each entry (``id``, ``name``, ``args``) is a post-execute the first time its
  ``id`` is seen; its outcome is the ``functionResponse`` in its ``result`` parts (the first time a version of the
  message carries one): ``response.output`` as the result (the whole ``response`` when it has no ``output``), or
  ``response.error`` as the call's error. The call's ``status`` is not read, and nothing marks a call denied:
  ``denied`` is always false.
- a ``user`` message — a user prompt (a pre-step with ``user_prompt``), once per message ``id``: every user turn Gemini
  CLI records counts, its own ``System: Please continue.`` turns among them — except one whose content is
  ``functionResponse`` parts and no text: Gemini CLI 0.61 records each tool result so as well, as the turn that
  carries it back to the model. That message belongs to the step of the calls it answers (it does not end it), and a
  call still waiting takes its result from it, read as from ``toolCalls``.
- a hook's context that Gemini CLI appended to a call's output (``AfterTool``'s ``additionalContext``, as
  ``\n\n<hook_context>…</hook_context>`` at the end of ``response.output``, seen in 0.61) is taken off the result —
  the hook saw the output without it — and is a ``recorded-reminder`` after the call, with the source ``{"kind":
  "hook", "host": "gemini-cli"}``;
- a ``user`` message whose text starts ``System: Potential loop detected.`` is Gemini CLI's own loop note, sent in
  place of the call it stopped: not a prompt (Gemini CLI runs no ``BeforeAgent`` hook for it) but a
  ``recorded-reminder`` with the source ``{"kind": "host", "host": "gemini-cli", "nudge": "loop-detected"}``;
- a ``gemini`` message's ``tokens`` (the first version of each message that has them) are a ``usage`` record before
  its calls: ``input`` + ``tool`` in, ``output`` + ``thoughts`` out, with the message's ``model``;
- a ``$set`` of ``messages`` (Gemini CLI rewrites the whole history so when it masks old tool output) — its messages
  are read as above, so only calls not seen before count.

``info``, ``error`` and ``warning`` messages and ``$rewindTo`` (the calls it takes back were run, and replay keeps
them) hold no call and pass in silence. Every other line — a line of any other shape, a message of another type, and
a known entry whose fields have the wrong types — is a ``skipped`` record labelled by its type (``summary``,
``(unknown line)``, ``toolCall``, ``message``): counted, and an error with ``--strict``. A message with a new ``id``
ends the previous message's step: a call still without a result then keeps none.

Example (JSON Lines: a call recorded, then its message written again with the result)::

    {"sessionId":"0ab84937-...","projectHash":"9da8...","startTime":"...","lastUpdated":"...","kind":"main"}
    {"id":"m1","timestamp":"...","type":"user","content":[{"text":"read the README"}]}
    {"$set":{"lastUpdated":"..."}}
    {"id":"m2","timestamp":"...","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"read_file",
     "args":{"file_path":"README.md"},"status":"executing"}]}
    {"id":"m2","timestamp":"...","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"read_file",
     "args":{"file_path":"README.md"},"status":"success","result":[{"functionResponse":{"id":"c1",
     "name":"read_file","response":{"output":"# Title"}}}]}]}
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record, usage
from ._document import document_or_lines, located
from ._json import Lines, count, json_type, parse_arguments
from .pending import LIMIT, Pending, read_loop

__all__ = ["FILE_NAME", "identifies", "read"]

#: The name Gemini CLI gives a main session's recording (matched against the whole file name).
FILE_NAME: re.Pattern[str] | None = re.compile(r"session-\d{4}-\d\d-\d\dT\d\d-\d\d-.+\.jsonl?")

#: Message types that hold no call: passed in silence.
_QUIET_MESSAGES = frozenset({"info", "error", "warning"})


def identifies(value: Any) -> bool:
    """Whether a decoded JSON value is a Gemini CLI recording or one of its lines: a session (a string ``sessionId``
    and ``projectHash``), a ``$set`` or ``$rewindTo`` line, or a ``gemini`` message."""
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("sessionId"), str) and isinstance(value.get("projectHash"), str):
        return True
    if isinstance(value.get("$set"), dict) or isinstance(value.get("$rewindTo"), str):
        return len(value) == 1
    return value.get("type") == "gemini" and isinstance(value.get("id"), str) and "content" in value


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of one Gemini CLI recording, in input order."""
    del options  # no option concerns this format
    reader = _Reader(PurePath(path).stem or path)
    form = document_or_lines(path, lines)
    if isinstance(form, str):  # one document, spread over lines
        yield from read_loop(path, reader.document(path, form), reader.pending, reader.listed)
    else:
        yield from read_loop(path, form, reader.pending, reader.line)


class _Reader:
    def __init__(self, fallback: str) -> None:
        self.pending = Pending()
        self.agent = fallback
        self.message: str | None = None  # the id of the message being recorded
        self.seen: OrderedDict[str, None] = OrderedDict()  # the ids of the user messages and calls already read

    def document(self, path: str, text: str) -> list[tuple[int, Any] | InputError]:
        """The messages of a single-JSON recording, each with its line, or its problems; the session id is read
        first, wherever the document puts it."""
        messages: list[tuple[int, Any] | InputError] = []
        session = False
        for item in located(path, text, [("messages",)]):
            if isinstance(item, InputError):
                messages.append(item)
            elif item.element:
                messages.append((item.line, item.value))
            elif item.route == ("messages",):
                problem = f'"messages" must be an array, not {json_type(item.value)}'
                messages.append(InputError(path, item.line, problem))
            elif item.route == ("sessionId",) and isinstance(item.value, str) and item.value:
                self.agent, session = item.value, True
        if not messages and not session:
            messages.append(InputError(path, 1, 'not a Gemini CLI recording: no "sessionId" and no "messages"'))
        return messages

    def listed(self, line: int, message: Any) -> str | None:
        """One message of the single-JSON form, or of a ``$set`` of ``messages``."""
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            self.entry(line, message)
        else:
            self.pending.skip(line, "message")
        return None

    def line(self, number: int, value: Any) -> str | None:
        """One line of the JSON Lines form."""
        if not isinstance(value, dict):
            return f"expected a JSON object, not {json_type(value)}"
        if isinstance(value.get("id"), str):
            self.entry(number, value)
        elif isinstance(value.get("$set"), dict):
            self.metadata(number, value["$set"])
        elif "$rewindTo" in value:
            pass  # no call: the calls it takes back were run
        elif isinstance(value.get("sessionId"), str):
            self.metadata(number, value)
        else:
            self.pending.skip(number, "(unknown line)")
        return None

    def metadata(self, line: int, values: dict[str, Any]) -> None:
        session = values.get("sessionId")
        if isinstance(session, str) and session and session != self.agent:
            self.pending.end_step(self.agent)
            self.agent, self.message = session, None
        messages = values.get("messages")
        for message in messages if isinstance(messages, list) else ():
            self.listed(line, message)

    def entry(self, line: int, message: dict[str, Any]) -> None:
        """One version of a message: its new calls are queued, and calls that now have a result are answered."""
        kind = message.get("type")
        if not isinstance(kind, str):
            self.pending.skip(line, "message")
            return
        if kind in _QUIET_MESSAGES:
            return
        if kind == "user" and _tool_results(message.get("content")):
            self.tool_results(line, message["content"])  # the step's own results: no new step, no prompt
            return
        if message["id"] != self.message:
            self.pending.end_step(self.agent)
            self.message = message["id"]
        if kind == "user":
            if self.remember(f"message {message['id']}"):
                note = _loop_note(message.get("content"))
                if note is not None:
                    self.pending.add(Record("recorded-reminder", line, agent=self.agent, text=note, source=_LOOP_NOTE))
                else:
                    self.pending.add(Record("pre-step", line, agent=self.agent, user_prompt=True))
            return
        calls = message.get("toolCalls", [])
        if kind != "gemini" or not isinstance(calls, list):
            self.pending.skip(line, kind if kind != "gemini" else "message")
            return
        spent = _usage(line, self.agent, message)
        if spent is not None and self.remember(f"tokens {message['id']}"):
            self.pending.add(spent)
        for call in calls:
            self.tool_call(line, call)

    def tool_results(self, line: int, parts: list[dict[str, Any]]) -> None:
        """The ``functionResponse`` parts of a user message: each answers the waiting call its ``id`` names."""
        for part in parts:
            response = part.get("functionResponse")
            call_id = response.get("id") if isinstance(response, dict) else None
            if not isinstance(call_id, str):
                continue
            self.answer(line, call_id, [part])

    def tool_call(self, line: int, call: Any) -> None:
        call_id = call.get("id") if isinstance(call, dict) else None
        name = call.get("name") if isinstance(call, dict) else None
        if not (isinstance(call_id, str) and isinstance(name, str) and name):
            self.pending.skip(line, "toolCall")
            return
        if self.remember(f"call {call_id}"):
            arguments = call.get("args", {})
            record = Record(
                "post-execute",
                line,
                agent=self.agent,
                tool=name,
                arguments=parse_arguments(arguments) if isinstance(arguments, str) else arguments,
                call_id=call_id,
            )
            self.pending.call(record)
        self.answer(line, call_id, call.get("result"))

    def answer(self, line: int, call_id: str, result: Any) -> None:
        """Give the waiting call its outcome, and the hook contexts appended to it as recorded reminders."""
        outcome = _outcome(call_id, result)
        if outcome is None:
            return
        output, error = outcome
        contexts: list[str] = []
        if isinstance(output, str) and output.endswith(_CONTEXT_END):
            output, contexts = _without_contexts(output)
        # only a call still waiting takes it: the first result is the one kept
        if self.pending.resolve(self.agent, call_id, output, error):
            for text in contexts:
                self.pending.add(Record("recorded-reminder", line, agent=self.agent, text=text, source=_HOOK))

    def remember(self, key: str) -> bool:
        """Note ``key`` as read (the most recent LIMIT are kept); False when it was read already."""
        if key in self.seen:
            return False
        self.seen[key] = None
        if len(self.seen) > LIMIT:
            self.seen.popitem(last=False)
        return True


_CONTEXT_END = "</hook_context>"
_CONTEXT = re.compile(r"\n\n<hook_context>(.*?)</hook_context>", re.DOTALL)
_HOOK: dict[str, Any] = {"kind": "hook", "host": "gemini-cli"}
_LOOP_PREFIX = "System: Potential loop detected."
_LOOP_NOTE: dict[str, Any] = {"kind": "host", "host": "gemini-cli", "nudge": "loop-detected"}


def _without_contexts(output: str) -> tuple[str, list[str]]:
    """The output without the hook contexts appended to its end, and their texts."""
    first = _CONTEXT.search(output)
    if first is None:
        return output, []
    return output[: first.start()], _CONTEXT.findall(output, first.start())


def _loop_note(content: Any) -> str | None:
    """The text of Gemini CLI's own loop note, or None for any other user message."""
    parts = content if isinstance(content, list) else [{"text": content}] if isinstance(content, str) else []
    texts = [part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)]
    text = "".join(texts)
    return text if text.startswith(_LOOP_PREFIX) else None


def _usage(line: int, agent: str, message: dict[str, Any]) -> Record | None:
    tokens = message.get("tokens")
    if not isinstance(tokens, dict):
        return None
    model = message.get("model")
    return usage(line, agent, model if isinstance(model, str) else None, count(tokens, "input") + count(tokens, "tool"),
                 count(tokens, "output") + count(tokens, "thoughts"))


def _tool_results(content: Any) -> bool:
    """Whether a message's content is tool results: ``functionResponse`` parts, beside them at most the data parts
    of a result (an image a tool read), and no text."""
    if not isinstance(content, list) or not all(isinstance(part, dict) for part in content):
        return False
    return (any(isinstance(part.get("functionResponse"), dict) for part in content)
            and not any("text" in part for part in content))


def _outcome(call_id: str, result: Any) -> tuple[Any, str | None] | None:
    """``(result, error)`` from the ``functionResponse`` for ``call_id`` among a call's result parts, or None while
    the call has none."""
    parts = result if isinstance(result, list) else [result]
    responses = [
        part["functionResponse"]
        for part in parts
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
    ]
    if not responses:
        return None
    response = next((r for r in responses if r.get("id") == call_id), responses[0]).get("response")
    if isinstance(response, dict) and response.get("error") is not None:
        error = response["error"]
        return None, error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
    if isinstance(response, dict) and "output" in response:
        return response["output"], None
    return response, None
