"""YAML text → a positioned document: plain Python values plus the line and column of every key and value.

This is the only module that sees ruamel.yaml. It composes the node graph (not the constructed objects) so that every
duplicate key is found, not only the first, and so that each value keeps the mark where it starts.
"""

from __future__ import annotations

import json
import re
import unicodedata
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml import composer as yaml_composer
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, ScalarEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError

from .diagnostics import ConfigError, Diagnostic, format_json_path
from .reading import NotUtf8, decode_utf8, position_of

__all__ = ["JsonPath", "Position", "PositionedDocument", "parse_document"]

JsonPath = tuple[str | int, ...]

_FLOAT = "tag:yaml.org,2002:float"
_PLAIN_TAGS = {
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:str",
}


@dataclass(frozen=True)
class Position:
    """A 1-based line and column."""

    line: int
    column: int


@dataclass(frozen=True)
class PositionedDocument:
    """Plain data (dict, list, str, int, float, bool, None) with positions keyed by JSON path."""

    data: Any
    values: Mapping[JsonPath, Position] = field(default_factory=dict)
    keys: Mapping[JsonPath, Position] = field(default_factory=dict)
    #: problems found while reading that do not stop the schema check (a duplicate key keeps its first value),
    #: each with the JSON path it concerns
    problems: tuple[tuple[JsonPath, Diagnostic], ...] = ()
    #: values the reader could not take (an unsupported tag) and left as None; the schema need not report them again
    rejected: frozenset[JsonPath] = frozenset()

    def value_position(self, path: JsonPath) -> Position | None:
        """Where the value at ``path`` starts, or its nearest positioned ancestor."""
        for end in range(len(path), -1, -1):
            found = self.values.get(path[:end])
            if found is not None:
                return found
        return None

    def key_position(self, path: JsonPath) -> Position | None:
        """Where the mapping key that holds ``path`` stands (falls back to the value)."""
        return self.keys.get(path) or self.value_position(path)


# No real guard file comes near this many values. The composer stops at it (a flat list of a megabyte would take half a
# minute to compose), and so does the builder once aliases expand (they can make a small file expand exponentially).
MAX_VALUES = 10_000
# A guard file nests a handful of levels; the YAML composer recurses once per level, so a limit keeps a hostile file
# from exhausting the interpreter's stack (and ruamel's scanner, quadratic in the depth of flow collections, from
# taking seconds over it).
MAX_DEPTH = 100
# ruamel.yaml 0.19 stops at YAML().max_depth itself; before that, a RecursionError stands in for this error.
_DEPTH_ERRORS: tuple[type[Exception], ...] = tuple(
    error for error in (getattr(yaml_composer, "MaxDepthExceededError", None),) if error is not None
)
# Escapes such as "\ud800" make text that no UTF-8 output can hold, so no message may quote it.
_SURROGATE = re.compile("[\ud800-\udfff]")
# The code points YAML allows in a stream (the spec's c-printable); the reader refuses the rest, naming only an offset.
_REFUSED = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# A file of stray bytes may hold thousands of them; past this many, one more line gives the count.
MAX_REFUSED_REPORTED = 20


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _find_cycle(root: Node) -> Node | None:
    """The first node found to contain itself through aliases (iterative depth-first search)."""
    active: set[int] = set()
    done: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            active.discard(id(node))
            done.add(id(node))
            continue
        if id(node) in active:
            return node
        if id(node) in done:
            continue
        active.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))
    return None


def _mark(node: Node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)


def _decode(display: str, raw: bytes) -> str:
    try:
        text = decode_utf8(raw)
    except NotUtf8 as exc:
        raise ConfigError([Diagnostic(display, exc.line, exc.column, str(exc))]) from None
    return text.removeprefix("\ufeff")


def _refused(character: str) -> str:
    # _REFUSED leaves control characters and U+FFFE/U+FFFF (a lone surrogate cannot come out of strict UTF-8
    # decoding); "the character" stands for whatever else a reader of another ruamel version might refuse.
    if unicodedata.category(character) == "Cc":
        what = "a control character"
    elif character in "\ufffe\uffff":
        what = "a noncharacter"
    else:
        what = "the character"
    return f"the file holds {what} U+{ord(character):04X}, which YAML does not allow"


def _refused_characters(display: str, text: str) -> list[Diagnostic]:
    """Every character of ``text`` that YAML does not allow, at its line and column (the first ones, then a count)."""
    found = []
    for count, match in enumerate(_REFUSED.finditer(text)):
        line, column = position_of(text, match.start())
        if count == MAX_REFUSED_REPORTED:
            rest = sum(1 for _ in _REFUSED.finditer(text, match.start()))
            found.append(Diagnostic(display, line, column, f"and {rest} more characters that YAML does not allow"))
            break
        found.append(Diagnostic(display, line, column, _refused(match.group())))
    return found


class _TooManyValues(Exception):
    def __init__(self, where: Position) -> None:
        self.where = where


class _CountingComposer(yaml_composer.Composer):
    """ruamel's composer, stopped at the first node past MAX_VALUES (aliases count once here)."""

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self.composed = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.composed += 1
        if self.composed > MAX_VALUES:
            mark = self.parser.peek_event().start_mark
            raise _TooManyValues(Position(mark.line + 1, mark.column + 1))
        return super().compose_node(parent, index)


class _Builder:
    """Turns a node graph into plain values, recording positions and collecting problems."""

    def __init__(self, display: str, constructor: SafeConstructor) -> None:
        self.display = display
        self.values: dict[JsonPath, Position] = {}
        self.keys: dict[JsonPath, Position] = {}
        self.problems: list[tuple[JsonPath, Diagnostic]] = []
        self.rejected: set[JsonPath] = set()
        self._constructor = constructor

    def problem(self, where: Position, path: JsonPath, message: str) -> None:
        text = f"{format_json_path(path)}: {message}"
        self.problems.append((path, Diagnostic(self.display, where.line, where.column, text)))

    def fatal(self, where: Position, path: JsonPath, message: str) -> ConfigError:
        self.problem(where, path, message)
        return ConfigError(diagnostic for _, diagnostic in self.problems)

    def build(self, root: Node) -> Any:
        # An explicit stack: documents may nest deeper than Python's recursion limit.
        cycle = _find_cycle(root)
        if cycle is not None:
            raise self.fatal(_mark(cycle), (), "a recursive alias is not allowed")
        result: dict[str, Any] = {}
        stack: list[tuple[Node, JsonPath, Any, str | int]] = [(root, (), result, "root")]
        built = 0
        while stack:
            node, path, parent, slot = stack.pop()
            built += 1
            if built > MAX_VALUES:
                message = f"the document holds more than {MAX_VALUES} values once aliases expand"
                raise self.fatal(_mark(node), path, message)
            self.values.setdefault(path, _mark(node))
            if len(path) > MAX_DEPTH:  # through aliases: the composer counts an alias as one level
                where = _mark(node)
                too_deep = Diagnostic(self.display, where.line, where.column, _TOO_DEEP)
                raise ConfigError([*(diagnostic for _, diagnostic in self.problems), too_deep])
            if isinstance(node, ScalarNode):
                parent[slot] = self._scalar(node, path)
            elif isinstance(node, SequenceNode):
                items: list[Any] = [None] * len(node.value)
                parent[slot] = items
                for index in range(len(node.value) - 1, -1, -1):
                    stack.append((node.value[index], (*path, index), items, index))
            elif isinstance(node, MappingNode):
                parent[slot] = self._mapping(node, path, stack)
        return result["root"]

    def _mapping(self, node: MappingNode, path: JsonPath, stack: list[tuple[Node, JsonPath, Any, str | int]]) -> Any:
        mapping: dict[str, Any] = {}
        pending: list[tuple[Node, JsonPath, Any, str | int]] = []
        for key_node, value_node in node.value:
            where = _mark(key_node)
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.problem(where, path, "YAML merge keys (`<<`) are not supported: write the keys out")
                continue
            if not isinstance(key_node, ScalarNode):
                self.problem(where, path, "a mapping key must be a plain string")
                continue
            key = str(key_node.value)
            if _SURROGATE.search(key):
                self.problem(where, path, _surrogate("key", key))
                continue
            child: JsonPath = (*path, key)
            if key in mapping:
                first = self.keys[child]
                self.problem(where, child, f"duplicate key `{key}` (first defined at line {first.line})")
                continue
            mapping[key] = None
            self.keys[child] = where
            pending.append((value_node, child, mapping, key))
        stack.extend(reversed(pending))
        return mapping

    def _scalar(self, node: ScalarNode, path: JsonPath) -> Any:
        if node.tag not in _PLAIN_TAGS:
            if node.tag == "tag:yaml.org,2002:timestamp":
                return str(node.value)  # a date is text to every guard option
            self.problem(_mark(node), path, f"unsupported YAML tag `{node.tag}`")
            self.rejected.add(path)
            return None
        try:
            if node.tag == _FLOAT and self._constructor.resolver.processing_version != (1, 2):
                with warnings.catch_warnings():  # only under `%YAML 1.1`, which ruamel warns about for `1e3`
                    warnings.simplefilter("ignore")
                    value = self._constructor.construct_object(node, deep=True)
            else:
                value = self._constructor.construct_object(node, deep=True)
        except Exception:  # `!!int abc`, `!!bool maybe`, an integer of more digits than Python reads
            self.problem(_mark(node), path, _unreadable(node))
            self.rejected.add(path)
            return None
        if isinstance(value, str) and _SURROGATE.search(value):
            self.problem(_mark(node), path, _surrogate("text", value))
            self.rejected.add(path)
            return None
        return value


_TOO_DEEP = f"the document nests deeper than {MAX_DEPTH} levels"


def _shown(text: str) -> str:
    """Text quoted for a message, cut at 40 characters: JSON escapes, a surrogate as \\udxxx (printable anywhere)."""
    quoted = json.dumps(text[:40], ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted) + ("…" if len(text) > 40 else "")


def _surrogate(what: str, text: str) -> str:
    return f"the {what} {_shown(text)} holds a lone surrogate, which is not a character"


def _unreadable(node: ScalarNode) -> str:
    kind = str(node.tag).rsplit(":", 1)[-1]
    text = str(node.value)
    if kind == "int" and sum(c.isdigit() for c in text) > 4000:
        return f"the integer {_shown(text)} has too many digits ({len(text)}) to be read"
    return f"{_shown(text)} is not a valid {kind}"


def _too_deep(display: str, text: str) -> Diagnostic:
    # Only after the composer ran out of stack: walk the events (no recursion) to the first node too deep, the node
    # inside MAX_DEPTH open collections (which ruamel's own max_depth and the builder report).
    depth = 0
    try:
        for event in YAML(typ="safe", pure=True).parse(text):
            if depth > MAX_DEPTH and isinstance(event, (ScalarEvent, AliasEvent, CollectionStartEvent)):
                mark = event.start_mark
                return Diagnostic(display, mark.line + 1, mark.column + 1, _TOO_DEEP)
            if isinstance(event, CollectionStartEvent):
                depth += 1
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except YAMLError:
        pass
    return Diagnostic(display, 1, 1, _TOO_DEEP)


def parse_document(display: str, raw: bytes) -> PositionedDocument:
    """Parse guard-file bytes; raise ConfigError where nothing can be read (encoding, syntax, an empty file).

    Problems that leave a usable document (duplicate keys, unsupported tags) are kept in ``problems`` so that the
    schema check can report its own problems in the same run.
    """
    text = _decode(display, raw)
    refused = _refused_characters(display, text)
    if refused:
        raise ConfigError(refused)
    if not text.strip():
        raise ConfigError([Diagnostic(display, 1, 1, "the file is empty: expected a mapping with a `guards` list")])
    try:
        yaml = YAML(typ="safe", pure=True)
        yaml.Composer = _CountingComposer
        yaml.composer.warn_double_anchors = False  # redefining an anchor is legal YAML, not a Python warning
        yaml.max_depth = MAX_DEPTH + 1  # the root is at depth 1
        root = yaml.compose(text)
    except _DEPTH_ERRORS as exc:
        mark = exc.problem_mark  # type: ignore[attr-defined]  # a MarkedYAMLError
        raise ConfigError([Diagnostic(display, mark.line + 1, mark.column + 1, _TOO_DEEP)]) from None
    except _TooManyValues as exc:
        message = f"the document holds more than {MAX_VALUES} keys and values"
        raise ConfigError([Diagnostic(display, exc.where.line, exc.where.column, message)]) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        reason = exc.problem or exc.context or "invalid YAML"
        raise ConfigError([Diagnostic(display, line, column, f"YAML syntax error: {reason}")]) from None
    except ReaderError as exc:  # a character the reader refuses that _REFUSED let through (another ruamel's set)
        line, column = position_of(text, exc.position)
        raise ConfigError([Diagnostic(display, line, column, _refused(chr(exc.character)))]) from None
    except YAMLError as exc:
        raise ConfigError([Diagnostic(display, 1, 1, f"YAML syntax error: {exc}")]) from None
    except RecursionError:
        raise ConfigError([_too_deep(display, text)]) from None
    if root is None:
        raise ConfigError([Diagnostic(display, 1, 1, "the file is empty: expected a mapping with a `guards` list")])
    builder = _Builder(display, yaml.constructor)
    data = builder.build(root)
    return PositionedDocument(data, builder.values, builder.keys, tuple(builder.problems), frozenset(builder.rejected))
