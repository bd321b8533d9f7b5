"""YAML text → a positioned document: plain Python values plus the line and column of every key and value.

This is the only module that sees ruamel.yaml. It composes the node graph (not the constructed objects) so that every
duplicate key is found, not only the first, and so that each value keeps the mark where it starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .diagnostics import ConfigError, Diagnostic, format_json_path

__all__ = ["JsonPath", "Position", "PositionedDocument", "parse_document"]

JsonPath = tuple[str | int, ...]

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


# Aliases can make a small file expand exponentially; no real guard file comes near this.
MAX_VALUES = 100_000


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
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        raise ConfigError(
            [Diagnostic(display, line, column, f"the file is not UTF-8 text (byte 0x{raw[exc.start]:02x})")]
        ) from None
    return text.removeprefix("\ufeff")


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
        return self._constructor.construct_object(node, deep=True)


def parse_document(display: str, raw: bytes) -> PositionedDocument:
    """Parse guard-file bytes; raise ConfigError where nothing can be read (encoding, syntax, an empty file).

    Problems that leave a usable document (duplicate keys, unsupported tags) are kept in ``problems`` so that the
    schema check can report its own problems in the same run.
    """
    text = _decode(display, raw)
    if not text.strip():
        raise ConfigError([Diagnostic(display, 1, 1, "the file is empty: expected a mapping with a `guards` list")])
    try:
        yaml = YAML(typ="safe", pure=True)
        root = yaml.compose(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        reason = exc.problem or exc.context or "invalid YAML"
        raise ConfigError([Diagnostic(display, line, column, f"YAML syntax error: {reason}")]) from None
    except YAMLError as exc:
        raise ConfigError([Diagnostic(display, 1, 1, f"YAML syntax error: {exc}")]) from None
    if root is None:
        raise ConfigError([Diagnostic(display, 1, 1, "the file is empty: expected a mapping with a `guards` list")])
    builder = _Builder(display, yaml.constructor)
    data = builder.build(root)
    return PositionedDocument(data, builder.values, builder.keys, tuple(builder.problems), frozenset(builder.rejected))
