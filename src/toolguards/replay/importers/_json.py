"""JSON helpers the importers share: the one decoding path with our own messages, JSON Lines, message contents,
token counts.

Every JSON text an importer reads goes through ``decode`` (a line, an element of a document, an argument string):
``json``'s C scanner where it can answer, and a careful path that words what is wrong where it cannot. The careful
path also reads what the scanner refuses but JavaScript's ``JSON.parse`` (the reference) reads: an integer of more than
4,300 digits (Python's int-string limit) becomes the nearest double, as in JavaScript. A value nested too deeply for
the scanner, which recurses once per level (about 980 levels on Python 3.10 and 3.11, 1,490 on 3.12, more on 3.13),
is a problem of its line with its depth, never a RecursionError; ``batch.run_each`` reads every input from a fresh
stack, so the limit is the same in every process of a run. The guards themselves take any depth.

A one-document input is walked element by element in ``_document``, through ``decode``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from ..records import InputError, not_utf8

__all__ = [
    "WHITESPACE",
    "DecodeError",
    "Lines",
    "at_column",
    "count",
    "decode",
    "joined_text",
    "json_lines",
    "json_type",
    "loads",
    "outcome",
    "parse_arguments",
    "text_of",
]

class Lines(Protocol):
    """What an importer reads: an iterable of text lines that can also be read whole (a text file, or stdin).

    Iterating may raise UnicodeDecodeError for a line that is not UTF-8 (its ``object`` is the line's bytes); the
    iteration carries on with the next line, and ``json_lines`` reports the line in its place. ``read()`` raises an
    InputError, at the line and column of the first bad byte, for text that is not UTF-8.
    """

    def __iter__(self) -> Iterator[str]: ...

    def read(self) -> str: ...


def _no_constant(name: str) -> Any:
    # NaN and Infinity are not JSON; the reference's JSON.parse rejects them too.
    raise ValueError(f"{name} is not a JSON value")


def _int_or_double(digits: str) -> int | float:
    # Only the careful path uses this hook: past Python's int-string limit, the double JavaScript would make.
    try:
        return int(digits)
    except ValueError:
        return float(digits)


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
_WIDE_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_int=_int_or_double)
# The decoder's own C scanner: JSONDecoder.raw_decode without its Python frame (typeshed leaves scan_once out).
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
#: The characters JSON takes as whitespace between tokens.
WHITESPACE = " \t\n\r"
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{\]}]')


class DecodeError(ValueError):
    """A JSON text we cannot read: ``message`` ready to print, ``index`` where the problem is (None: the whole text)."""

    def __init__(self, message: str, index: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.index = index


def decode(text: str, index: int = 0) -> tuple[Any, int]:
    """The JSON value that starts at ``index`` (after any whitespace) and the index where it ends; a DecodeError
    says what is wrong and where."""
    while index < len(text) and text[index] in WHITESPACE:
        index += 1
    try:
        return _DECODER.raw_decode(text, index)
    except json.JSONDecodeError as exc:
        raise DecodeError(f"not JSON: {exc.msg}", exc.pos) from None
    except RecursionError:
        raise _nested(text, index) from None
    except ValueError:
        pass  # an integer past the int-string limit, or a NaN: the wide decoder tells which
    try:
        return _WIDE_DECODER.raw_decode(text, index)
    except RecursionError:
        raise _nested(text, index) from None
    except ValueError as exc:  # a NaN or an Infinity
        raise DecodeError(f"not JSON: {exc}", None) from None


def _nested(text: str, start: int) -> DecodeError:
    """The problem of a value too deep for the scanner: how deep it nests and where it first gets that deep, found
    without recursion."""
    depth = most = 0
    deepest = start
    for match in _STRUCTURE.finditer(text, start):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > most:
                most, deepest = depth, match.start()
        elif char != '"':
            depth -= 1
            if depth <= 0:
                break
    return DecodeError(f"nested too deeply to read ({most} levels)", deepest)


def at_column(message: str, column: int) -> str:
    """``message`` with its column: json's "Unterminated string starting at" takes the column without a second
    "at"."""
    return f"{message} column {column}" if message.endswith(" at") else f"{message} at column {column}"


def loads(text: str) -> Any:
    """Decode one JSON text; a ValueError carries a message ready to print (``not JSON: ... at column N``)."""
    # Fast path for the line that is one value and its line break, as nearly all are: the decoder's C scanner
    # directly. Anything else takes decode(), which words the error.
    try:
        value, end = _SCAN(text, 0)
    except Exception:  # StopIteration, JSONDecodeError, a NaN, a huge integer, RecursionError: decode() decides
        pass
    else:
        if end == len(text) or not text[end:].strip(WHITESPACE):
            return value
    text = text.rstrip("\r\n")  # a column past the end of the line, not on the next one
    try:
        value, end = decode(text)
    except DecodeError as exc:
        raise ValueError(exc.message if exc.index is None else at_column(exc.message, exc.index + 1)) from None
    rest = len(text) - len(text[end:].lstrip(WHITESPACE))
    if rest < len(text):
        raise ValueError(f"not JSON: extra data after the value at column {rest + 1}")
    return value


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, with its article: ``an array``, ``a string``, ``null``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def count(counts: Any, *keys: str) -> int:
    """A token count of a usage object: the first of ``keys`` that holds an integer (not a boolean), else 0."""
    return next((value for value in map(counts.get, keys) if type(value) is int), 0)


def json_lines(path: str, lines: Iterable[str], start: int = 0) -> Iterator[tuple[int, Any] | InputError]:
    """Each non-blank line as ``(line number, decoded value)``, or an InputError for a line that is not JSON (or not
    UTF-8)."""
    number = start
    iterator = iter(lines)
    scan = _SCAN
    while True:
        try:
            for raw in iterator:
                number += 1
                # loads() inlined for the line that is one value and its line break, as nearly all are
                try:
                    value, end = scan(raw, 0)
                except Exception:  # a blank line, a byte-order mark, or anything loads() must word
                    pass
                else:
                    if end == len(raw) or not raw[end:].strip(WHITESPACE):
                        yield number, value
                        continue
                text = raw.removeprefix("\ufeff") if number == 1 else raw  # a byte-order mark some editors write
                if not text or text.isspace():  # not text.strip(), without copying the line: isspace() stops early
                    continue
                try:
                    yield number, loads(text)
                except ValueError as exc:
                    yield InputError(path, number, str(exc))
            return
        except UnicodeDecodeError as exc:  # the source could not decode this line; it goes on with the next
            number += 1
            yield InputError(path, number, not_utf8(exc))


def parse_arguments(raw: Any) -> Any:
    """A tool call's argument text as the reference parses it: JSON, ``{}`` for an empty string, else the raw text."""
    if not isinstance(raw, str):
        return raw
    if raw == "":
        return {}
    try:
        return loads(raw)
    except ValueError:
        return raw


def text_of(content: Any) -> str | None:
    """The text of a message content: a string, or a list of text blocks joined as the reference joins them (no
    separator); None when the content holds anything else (an image, a tool result...)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = []
    for block in content:
        if not (isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)):
            return None
        texts.append(block["text"])
    return "".join(texts)


def joined_text(content: Any) -> str:
    """The text blocks of a message content joined with no separator, as the reference's ``blocksToText`` does
    (other blocks are left out); a string content is its own text."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def outcome(content: Any, is_error: bool) -> tuple[Any, str | None]:
    """A tool result's ``(result, error)``: its text where it is all text, else the content as logged; an error
    keeps its text (or the content as JSON) and no result."""
    text = text_of(content)
    if not is_error:
        return (content if text is None else text), None
    if text is not None:
        return None, text
    try:
        return None, json.dumps(content, ensure_ascii=False)
    except RecursionError:  # content too deep for the encoder (the decoder took it): its canonical text instead
        from ...canonical import canonicalize  # noqa: PLC0415 - a path no real log takes

        return None, canonicalize(content)
