"""One-document JSON inputs, walked value by value so that each value keeps the 1-based line where it starts.

A one-document input (a JSON array of messages, or an object with a ``messages`` array) is decoded element by element,
through ``_json.decode``, so each message keeps the line where it starts in the file; ``located`` walks deeper
documents (OTLP's ``resourceSpans[].scopeSpans[].spans[]``, a Gemini CLI recording) the same way. A syntax error ends
the input, at its line and column. ``messages`` reads a message-list input in either of its forms: one document, or
JSON Lines.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterator
from typing import Any, NamedTuple

from ..records import InputError, not_utf8
from ._json import WHITESPACE, DecodeError, Lines, at_column, decode, json_lines, loads

__all__ = ["Located", "document_or_lines", "located", "located_error", "message_list", "messages"]


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
        while index < len(text) and text[index] in WHITESPACE:
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
    start = first.lstrip(WHITESPACE)[:1]
    if start != "[":
        try:
            value = loads(first) if start == "{" else None
        except ValueError:
            value = None  # an object spread over several lines: one document
        if start != "{" or (isinstance(value, dict) and "messages" not in value):
            yield from json_lines(path, itertools.chain([first], iterator), start=len(blank))
            return
    yield from message_list(path, "".join(blank) + first + lines.read())


def document_or_lines(path: str, lines: Lines) -> str | Iterator[tuple[int, Any] | InputError]:
    """An input that is JSON Lines or one document spread over lines, told apart by its first line with anything on
    it: the whole text when that line is not a JSON value by itself (its blank lines kept, so that lines count from
    the top), else its lines as ``json_lines`` reads them (none at all for an input of blank lines)."""
    iterator = iter(lines)
    blank = 0
    for raw in iterator:
        first = raw.removeprefix("\ufeff") if blank == 0 else raw  # a byte-order mark some editors write
        if first.strip():
            break
        blank += 1
    else:
        return iter(())
    try:
        loads(first)
    except ValueError:
        return "\n" * blank + first + lines.read()
    return json_lines(path, itertools.chain([first], iterator), start=blank)
