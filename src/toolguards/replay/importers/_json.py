"""JSON helpers the importers share: strict decoding with our own messages, JSON Lines, one-document message lists.

A one-document input (a JSON array of messages, or an object with a ``messages`` array) is decoded element by element
with ``json.JSONDecoder.raw_decode``, so each message keeps the 1-based line where it starts in the file; ``located``
walks deeper documents (OTLP's ``resourceSpans[].scopeSpans[].spans[]``) the same way.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any, NamedTuple, Protocol

from ..records import InputError, Record

__all__ = [
    "Lines",
    "Located",
    "joined_text",
    "json_lines",
    "json_type",
    "loads",
    "located",
    "message_list",
    "messages",
    "outcome",
    "parse_arguments",
    "text_of",
]


class Lines(Protocol):
    """What an importer reads: an iterable of text lines that can also be read whole (a text file, or stdin)."""

    def __iter__(self) -> Iterator[str]: ...

    def read(self) -> str: ...


def _no_constant(name: str) -> Any:
    # NaN and Infinity are not JSON; the reference's JSON.parse rejects them too.
    raise ValueError(f"{name} is not a JSON value")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
# The decoder's own C scanner: JSONDecoder.raw_decode without its Python frame (typeshed leaves scan_once out).
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_WHITESPACE = " \t\n\r"


def loads(text: str) -> Any:
    """Decode one JSON text; a ValueError carries a message ready to print (``not JSON: ... at column N``)."""
    # Fast path for the line that is one value and its line break, as nearly all are: the decoder's C scanner
    # directly, without JSONDecoder.raw_decode's Python wrapper. Anything else takes the path below, which words
    # the error.
    try:
        value, end = _SCAN(text, 0)
    except Exception:  # StopIteration, JSONDecodeError, a NaN: the careful path says what is wrong
        pass
    else:
        if end == len(text) or not text[end:].strip(_WHITESPACE):
            return value
    text = text.rstrip("\r\n")  # a column past the end of the line, not on the next one
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except ValueError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    rest = len(text) - len(text[end:].lstrip(_WHITESPACE))
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


def json_lines(path: str, lines: Iterable[str], start: int = 0) -> Iterator[tuple[int, Any] | InputError]:
    """Each non-blank line as ``(line number, decoded value)``, or an InputError for a line that is not JSON."""
    number = start
    for raw in lines:
        number += 1
        text = raw.removeprefix("\ufeff") if number == 1 else raw  # a byte-order mark some editors write
        if not text or text.isspace():  # not text.strip(), without copying the line: isspace() stops early
            continue
        try:
            yield number, loads(text)
        except ValueError as exc:
            yield InputError(path, number, str(exc))


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
    return None, (json.dumps(content, ensure_ascii=False) if text is None else text)


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
        self.skip_space()
        try:
            value, self.index = _DECODER.raw_decode(self.text, self.index)
        except json.JSONDecodeError as exc:
            raise _Syntax(exc.pos, f"not JSON: {exc.msg}") from None
        except ValueError as exc:
            raise _Syntax(self.index, f"not JSON: {exc}") from None
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
        if exc.index is None:
            yield InputError(path, 1, exc.message)
        elif exc.index >= len(text):
            yield InputError(path, document.line_at(exc.index), exc.message)
        else:
            column = exc.index - text.rfind("\n", 0, exc.index)
            yield InputError(path, document.line_at(exc.index), f"{exc.message} at column {column}")


def messages(path: str, lines: Lines) -> Iterator[tuple[int, Any] | InputError]:
    """The messages of a message-list input, each with its line: a JSON array of messages, an object with a
    ``messages`` array (a request body), or JSON Lines with one message per line. Only the one-document forms are read
    whole; JSON Lines stream."""
    iterator = iter(lines)
    blank: list[str] = []
    first = ""
    for raw in iterator:
        first = raw if blank else raw.removeprefix("\ufeff")  # a byte-order mark some editors write
        if first.strip():
            break
        blank.append(first)
    else:
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


def tool_use(block: Any, line: int, agent: str) -> Record | str | None:
    """An Anthropic ``tool_use`` content block as a post-execute record; a problem when it has no name; None when the
    block is something else."""
    if not (isinstance(block, dict) and block.get("type") == "tool_use"):
        return None
    name = block.get("name")
    if not isinstance(name, str) or not name:
        return 'a tool_use block needs a string "name"'
    call_id = block.get("id")
    return Record(
        "post-execute",
        line,
        agent=agent,
        tool=name,
        arguments=block.get("input", {}),
        call_id=call_id if isinstance(call_id, str) else None,
    )


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
        yield _syntax_error(path, text, document, exc)


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


def _syntax_error(path: str, text: str, document: _Document, exc: _Syntax) -> InputError:
    if exc.index is None:
        return InputError(path, 1, exc.message)
    if exc.index >= len(text):
        return InputError(path, document.line_at(exc.index), exc.message)
    column = exc.index - text.rfind("\n", 0, exc.index)
    return InputError(path, document.line_at(exc.index), f"{exc.message} at column {column}")
