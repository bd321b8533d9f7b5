"""What every session importer yields: one record per event a guard cares about, in input order, with its line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

__all__ = [
    "DEFAULT_OPTIONS", "ImportOptions", "InputError", "Record", "not_utf8", "post_execute", "undecodable", "usage",
]

RecordKind = Literal["post-execute", "pre-step", "forget", "recorded-reminder", "usage", "skipped"]


class Record(NamedTuple):
    """One event of a recorded session.

    ``post-execute``: a tool call (``tool``, ``arguments``, ``denied``, ``call_id``, and ``result``/``error`` where the
    log has them). ``pre-step``: a step boundary, ``user_prompt`` when it carries a new user prompt. ``forget``: the
    agent was disposed of. ``recorded-reminder``: a reminder the recording itself holds, delivered after the calls
    before it — the reference harness logs its guard's reminders as injected user messages, Claude Code, Codex CLI
    and Gemini CLI record a hook's added context, Gemini CLI its own loop note — with its ``text`` and ``source``
    (``{"kind": "plugin", "plugin": …}`` as the harness writes it; ``{"kind": "hook", "host": …}`` for a hook's
    context; ``{"kind": "host", "host": …, "nudge": …}`` for a host's own nudge): the parity check and the outcomes
    of delivered reminders (``replay.delivered``) read these. ``usage``: the tokens of one model turn, where the
    format records them (``input_tokens``, every token of the prompt, cached ones included; ``output_tokens``, the
    answer's, reasoning included; ``model`` where named), at the turn's place: before the calls the turn made.
    ``skipped``: a record of the format that the importer does not read (an
    entry type it does not know, or a known type in a shape it does not know), with its type label as ``text``; replay
    counts these per label, and ``--strict`` turns them into errors.

    ``line`` is the 1-based line of the input where the event is (for a one-document JSON input, the line where the
    message starts); ``agent`` is a string label (None: a call with no agent).

    An immutable named tuple rather than a frozen dataclass: a replay makes one per input line, and building a named
    tuple costs a third as much.
    """

    kind: RecordKind
    line: int
    agent: str | None = None
    tool: str = ""
    arguments: Any = None
    denied: bool = False
    call_id: str | None = None
    user_prompt: bool = False
    result: Any = None
    error: str | None = None
    text: str = ""
    source: Mapping[str, Any] = MappingProxyType({})
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0


_NO_SOURCE: Mapping[str, Any] = Record._field_defaults["source"]
_new = tuple.__new__


def post_execute(  # noqa: PLR0917 - the record's own fields, in its order
    line: int, agent: str | None, tool: str, arguments: Any, denied: bool, call_id: str | None, result: Any,
    error: str | None,
) -> Record:
    """``Record("post-execute", line, agent=..., ...)`` built from its fields in order: the commonest record, made
    once per call, at a third of the cost of the keyword call."""
    return _new(Record, ("post-execute", line, agent, tool, arguments, denied, call_id, False, result, error, "",
                         _NO_SOURCE, None, 0, 0))


def usage(line: int, agent: str | None, model: str | None, input_tokens: int, output_tokens: int) -> Record:
    """The ``usage`` record of one model turn."""
    return Record("usage", line, agent=agent, model=model, input_tokens=input_tokens, output_tokens=output_tokens)


@dataclass(frozen=True)
class ImportOptions:
    """What a replay asks of every importer; each importer reads the options that concern its format."""

    #: Codex rollouts: count ``write_stdin`` polls of a running command (the live hook never sees them)
    count_polls: bool = False


DEFAULT_OPTIONS = ImportOptions()


class InputError(Exception):
    """A malformed input: ``path:line: message``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        super().__init__(f"{path}:{line}: {message}")


def not_utf8(error: UnicodeDecodeError) -> str:
    """The message for a line that is not UTF-8: the first bad byte and its column."""
    data = error.object
    start = data.rfind(b"\n", 0, error.start) + 1
    column = len(data[start : error.start].decode("utf-8", "replace")) + 1
    return f"not UTF-8 text: byte 0x{data[error.start]:02x} at column {column}"


def undecodable(path: str, error: UnicodeDecodeError, first_line: int = 1) -> InputError:
    """The InputError for a whole input (or its rest, from ``first_line`` on) that is not UTF-8."""
    return InputError(path, first_line + error.object.count(b"\n", 0, error.start), not_utf8(error))
