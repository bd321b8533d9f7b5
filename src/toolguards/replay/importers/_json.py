"""JSON helpers the importers share: the one decoding path with our own messages, JSON Lines, one-document lists.

Every JSON text an importer reads goes through ``decode`` (a line, an element of a document, an argument string):
``json``'s C scanner where it can answer, and a careful path that words what is wrong where it cannot. The careful
path also reads what the scanner refuses but JavaScript's ``JSON.parse`` (the reference) reads: an integer of more than
4,300 digits (Python's int-string limit) becomes the nearest double, as in JavaScript. A value nested too deeply for
the scanner, which recurses once per level (about 980 levels on Python 3.10 and 3.11, 1,490 on 3.12, more on 3.13),
is a problem of its line with its depth, never a RecursionError; ``batch.run_each`` reads every input from a fresh
stack, so the limit is the same in every process of a run. The guards themselves take any depth.

A one-document input (a JSON array of messages, or an object with a ``messages`` array) is decoded element by element,
so each message keeps the 1-based line where it starts in the file; ``located`` walks deeper documents (OTLP's
``resourceSpans[].scopeSpans[].spans[]``) the same way.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any, NamedTuple, Protocol

from ..records import InputError

__all__ = [
    "DecodeError",
    "Lines",
    "Located",
    "at_column",
    "decode",
    "joined_text",
    "json_lines",
    "json_type",
    "loads",
    "located",
    "located_error",
    "message_list",
    "messages",
    "not_utf8",
    "outcome",
    "parse_arguments",
    "text_of",
    "undecodable",
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
_WHITESPACE = " \t\n\r"
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
    while index < len(text) and text[index] in _WHITESPACE:
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
        if end == len(text) or not text[end:].strip(_WHITESPACE):
            return value
    text = text.rstrip("\r\n")  # a column past the end of the line, not on the next one
    try:
        value, end = decode(text)
    except DecodeError as exc:
        raise ValueError(exc.message if exc.index is None else at_column(exc.message, exc.index + 1)) from None
    rest = len(text) - len(text[end:].lstrip(_WHITESPACE))
    if rest < len(text):
        raise ValueError(f"not JSON: extra data after the value at column {rest + 1}")
    return value


def not_utf8(error: UnicodeDecodeError) -> str:
    """The message for a line that is not UTF-8: the first bad byte and its column."""
    data = error.object
    start = data.rfind(b"\n", 0, error.start) + 1
    column = len(data[start : error.start].decode("utf-8", "replace")) + 1
    return f"not UTF-8 text: byte 0x{data[error.start]:02x} at column {column}"


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
                    if end == len(raw) or not raw[end:].strip(_WHITESPACE):
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


class _Syntax(Exception):
    def __init__(self, index: int | None, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


class _Document:
    """Walks one JSON document by index, counting lines incrementally so that a long input stays linear."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self._counted = 0
        self._line = 1

    def line_at(self, index: int) -> int:
        if index < self._counted:  # only error paths look back; count afresh
            return self.text.count("\n", 0, index) + 1
        self._line += self.text.count("\n", self._counted, index)
        self._counted = index
        return self._line

    def skip_space(self) -> str:
        text, index = self.text, self.index
        while index < len(text) and text[index] in _WHITESPACE:
            index += 1
        self.index = index
        return text[index] if index < len(text) else ""

    def expect(self, char: str, what: str) -> None:
        found = self.skip_space()
        if found != char:
            where = f", found {found!r}" if found else " before the end of the input"
            raise _Syntax(self.index, f"expected {what}{where}")
        self.index += 1

    def value(self) -> Any:
        try:
            value, self.index = decode(self.text, self.index)
        except DecodeError as exc:
            raise _Syntax(self.index if exc.index is None else exc.index, exc.message) from None
        return value

    def elements(self) -> Iterator[tuple[int, Any]]:
        """The elements of the array that starts at ``index``, each with the line where it starts."""
        self.expect("[", "a JSON array")
        if self.skip_space() == "]":
            self.index += 1
            return
        while True:
            self.skip_space()
            line = self.line_at(self.index)
            yield line, self.value()
            if self.skip_space() == "]":
                self.index += 1
                return
            self.expect(",", "',' or ']' after an array element")

    def items(self) -> Iterator[int]:
        """The elements of the array that starts at ``index``, each as the line where it starts: the caller reads the
        element (``value``, or a walk of its own) before the next one is sought."""
        self.expect("[", "a JSON array")
        if self.skip_space() == "]":
            self.index += 1
            return
        while True:
            self.skip_space()
            yield self.line_at(self.index)
            if self.skip_space() == "]":
                self.index += 1
                return
            self.expect(",", "',' or ']' after an array element")

    def members(self) -> Iterator[tuple[str, int]]:
        """The members of the object that starts at ``index``, each as its key and the line where its value starts:
        the caller reads the value before the next member is sought."""
        self.expect("{", "a JSON object")
        if self.skip_space() == "}":
            self.index += 1
            return
        while True:
            if self.skip_space() != '"':
                raise _Syntax(self.index, "expected a string as an object key")
            key = self.value()
            self.expect(":", "':' after an object key")
            self.skip_space()
            yield key, self.line_at(self.index)
            if self.skip_space() == "}":
                self.index += 1
                return
            self.expect(",", "',' or '}' after an object member")

    def messages_member(self) -> Iterator[tuple[int, Any]]:
        """The elements of the ``messages`` array of the object that starts at ``index``; other members are skipped."""
        self.expect("{", "a JSON object")
        found = False
        if self.skip_space() == "}":
            self.index += 1
        else:
            while True:
                if self.skip_space() != '"':
                    raise _Syntax(self.index, "expected a string as an object key")
                key = self.value()
                self.expect(":", "':' after an object key")
                if key == "messages" and self.skip_space() == "[" and not found:
                    found = True
                    yield from self.elements()
                else:
                    self.value()
                if self.skip_space() == "}":
                    self.index += 1
                    break
                self.expect(",", "',' or '}' after an object member")
        if not found:
            raise _Syntax(None, 'expected a JSON array of messages, or an object with a "messages" array')


def message_list(path: str, text: str) -> Iterator[tuple[int, Any] | InputError]:
    """The messages of a one-document input, each with its starting line; a syntax error ends the input."""
    document = _Document(text)
    first = document.skip_space()
    walk = document.elements() if first == "[" else document.messages_member()
    try:
        yield from walk
        if document.skip_space():
            raise _Syntax(document.index, "extra data after the JSON document")
    except _Syntax as exc:
        yield located_error(path, text, exc.index, exc.message)


def located_error(path: str, text: str, index: int | None, message: str) -> InputError:
    """An InputError for a problem at ``index`` of a whole input (None: of the input as a whole, line 1)."""
    if index is None:
        return InputError(path, 1, message)
    line = text.count("\n", 0, index) + 1
    if index >= len(text):
        return InputError(path, line, message)
    return InputError(path, line, at_column(message, index - text.rfind("\n", 0, index)))


class Located(NamedTuple):
    """A value of a one-document input and the 1-based line where it starts: an element of the array at ``route``
    (``element``), or the value of the member that ``route`` ends with."""

    route: tuple[str, ...]
    line: int
    value: Any
    element: bool


def located(path: str, text: str, routes: Collection[tuple[str, ...]]) -> Iterator[Located | InputError]:
    """Walk a one-document input that is a JSON object, keeping each value's line: every element of an array found
    along one of ``routes`` (object keys, through arrays of objects: ``("resourceSpans", "scopeSpans", "spans")``)
    as an element of the whole route, and every other top-level member as a member under its own key. A member on a
    route that is not an array comes as that member, and an element of an inner array that is not an object as an
    element of the route so far, so the caller can say what is wrong; other members of inner objects are passed
    over. A syntax error ends the input."""
    trie: dict[str, Any] = {}
    for route in routes:
        node = trie
        for key in route:
            node = node.setdefault(key, {})
    document = _Document(text)
    try:
        if document.skip_space() != "{":
            raise _Syntax(document.index, "expected a JSON object")
        yield from _located_members(document, trie, (), top=True)
        if document.skip_space():
            raise _Syntax(document.index, "extra data after the JSON document")
    except _Syntax as exc:
        yield located_error(path, text, exc.index, exc.message)


def _located_members(
    document: _Document, trie: dict[str, Any], route: tuple[str, ...], *, top: bool
) -> Iterator[Located]:
    for key, line in document.members():
        if key in trie:
            yield from _located_array(document, trie[key], (*route, key), line)
        elif top:
            yield Located((key,), line, document.value(), element=False)
        else:
            document.value()


def _located_array(document: _Document, trie: dict[str, Any], route: tuple[str, ...], line: int) -> Iterator[Located]:
    if document.skip_space() != "[":
        yield Located(route, line, document.value(), element=False)
        return
    for element in document.items():
        if trie and document.skip_space() == "{":
            yield from _located_members(document, trie, route, top=False)
        else:
            yield Located(route, element, document.value(), element=True)


def messages(path: str, lines: Lines) -> Iterator[tuple[int, Any] | InputError]:
    """The messages of a message-list input, each with its line: a JSON array of messages, an object with a
    ``messages`` array (a request body), or JSON Lines with one message per line. Only the one-document forms are read
    whole; JSON Lines stream."""
    iterator = iter(lines)
    blank: list[str] = []
    first = ""
    try:
        for raw in iterator:
            first = raw if blank else raw.removeprefix("\ufeff")  # a byte-order mark some editors write
            if first.strip():
                break
            blank.append(first)
        else:
            return
    except UnicodeDecodeError as exc:  # the first line with anything on it is not text: read on as JSON Lines
        yield InputError(path, len(blank) + 1, not_utf8(exc))
        yield from json_lines(path, iterator, start=len(blank) + 1)
        return
    start = first.lstrip(_WHITESPACE)[:1]
    if start != "[":
        try:
            value = loads(first) if start == "{" else None
        except ValueError:
            value = None  # an object spread over several lines: one document
        if start != "{" or (isinstance(value, dict) and "messages" not in value):
            yield from json_lines(path, itertools.chain([first], iterator), start=len(blank))
            return
    yield from message_list(path, "".join(blank) + first + lines.read())


def undecodable(path: str, error: UnicodeDecodeError, first_line: int = 1) -> InputError:
    """The InputError for a whole input (or its rest, from ``first_line`` on) that is not UTF-8."""
    return InputError(path, first_line + error.object.count(b"\n", 0, error.start), not_utf8(error))
