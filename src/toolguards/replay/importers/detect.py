"""Which format an input is in, decided by the formats themselves: each format module's ``identifies(value)`` says
whether a decoded JSON value is unmistakably its own, and its ``FILE_NAME`` is the fixed name a host gives its files
(or None). The rules, in order:

1. An input with nothing but blank lines (a 0-byte file, say) is empty: a session with no calls.
2. One document: when the first line with anything on it starts with ``[`` or ``{`` but is not JSON by itself (a
   document spread over lines), the whole input is read — a one-document input is read whole anyway, so its size
   does not matter — and the first format, in registry order, that identifies the decoded document decides.
3. JSON Lines: otherwise each line of the head (the lines of the first 64 KiB, and the line that runs past them) is
   decoded, and the first line that a format identifies decides — so a first line of a type no importer knows
   (Claude Code's ``permission-mode``, say) never decides against a format; lines that are not JSON are passed over.
   A document on one line is its own first line.
4. The file name: the first format whose ``FILE_NAME`` matches the whole name (not its folder) decides
   (``rollout-*.jsonl``).
5. A chat message list with no mark of either dialect resembles one (``_messages``): ``openai`` or ``anthropic``.

Nothing decides: the input's own problem where it has one — its first line is not UTF-8 or not JSON, the document has
a syntax error — is reported with its position; else ``cannot tell the input format; give --input-format``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Protocol

from ..records import InputError, not_utf8
from ._document import located_error, message_list
from ._json import DecodeError, decode, loads
from ._messages import resemblance

__all__ = ["Detection", "Identifies", "detect"]


class Identifies(Protocol):
    """What detection asks of a format module."""

    FILE_NAME: Any  # re.Pattern[str] | None

    def identifies(self, value: Any) -> bool: ...


@dataclass(frozen=True)
class Detection:
    """What detection found: a format, or the problem that stopped it (neither: an empty input)."""

    format: str | None = None
    problem: InputError | None = None

    @property
    def empty(self) -> bool:
        """True for an input with nothing in it."""
        return self.format is None and self.problem is None


_WHITESPACE = " \t\r\n"
CANNOT_TELL = "cannot tell the input format; give --input-format"


def detect(
    path: str, formats: Mapping[str, Identifies], head: Sequence[str | UnicodeDecodeError], whole: Callable[[], str]
) -> Detection:
    """The format of the input ``path``: ``head`` is its first lines (a line that is not UTF-8 as its decoding
    error), ``whole()`` reads all of it as text (an InputError where it is not UTF-8); see the module docstring for
    the rules."""
    lines = [(number, line) for number, line in enumerate(head, 1) if not _blank(line, number)]
    if not lines:
        return Detection()
    first_number, first = lines[0]
    if isinstance(first, str) and first.lstrip("\ufeff" + _WHITESPACE)[:1] in ("[", "{") and not _decodes(first):
        return _one_document(path, formats, whole)
    values = []
    problem = None
    for number, line in lines:
        if isinstance(line, UnicodeDecodeError):
            problem = problem or InputError(path, number, not_utf8(line))
            continue
        try:
            values.append(loads(line.removeprefix("\ufeff")))
        except ValueError as exc:
            problem = problem or InputError(path, number, str(exc))
            continue
        found = _identified(formats, values[-1])
        if found:
            return Detection(found)
    found = _by_name(path, formats) or next(filter(None, map(resemblance, values)), None)
    if found:
        return Detection(found)
    if problem is not None and problem.line == first_number:
        return Detection(problem=problem)
    return Detection(problem=InputError(path, first_number, CANNOT_TELL))


def _one_document(path: str, formats: Mapping[str, Identifies], whole: Callable[[], str]) -> Detection:
    try:
        text = whole()
    except InputError as exc:  # not UTF-8
        return Detection(problem=exc)
    text = text.removeprefix("\ufeff")
    try:
        value, end = decode(text)
        if text[end:].strip(_WHITESPACE):
            raise DecodeError("extra data after the JSON document", len(text) - len(text[end:].lstrip(_WHITESPACE)))
    except DecodeError as exc:
        # A document cut short or broken further on: the messages decoded before the problem may still tell.
        leading = [item[1] for item in message_list(path, text) if not isinstance(item, InputError)]
        found = (_identified(formats, leading) if leading else None) or _by_name(path, formats) or resemblance(leading)
        if found:
            return Detection(found)
        return Detection(problem=located_error(path, text, exc.index, exc.message))
    found = _identified(formats, value) or _by_name(path, formats) or resemblance(value)
    if found:
        return Detection(found)
    line = text.count("\n", 0, len(text) - len(text.lstrip(_WHITESPACE))) + 1
    return Detection(problem=InputError(path, line, CANNOT_TELL))


def _identified(formats: Mapping[str, Identifies], value: Any) -> str | None:
    return next((name for name, module in formats.items() if module.identifies(value)), None)


def _by_name(path: str, formats: Mapping[str, Identifies]) -> str | None:
    name = PurePath(path).name
    return next(
        (fmt for fmt, module in formats.items() if module.FILE_NAME is not None and module.FILE_NAME.fullmatch(name)),
        None,
    )


def _blank(line: str | UnicodeDecodeError, number: int) -> bool:
    if isinstance(line, UnicodeDecodeError):
        return False
    return not line.strip("\ufeff" + _WHITESPACE if number == 1 else _WHITESPACE)


def _decodes(line: str) -> bool:
    try:
        loads(line.removeprefix("\ufeff"))
    except ValueError:
        return False
    return True
