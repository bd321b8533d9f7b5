"""Argument paths (``ignoreArguments``): the parts of a call's arguments left out of its key.

A path names places in the arguments value, segment by segment from the top, the segments separated by ``.``:

- a segment is a key of an object, matched exactly: ``task_progress``, ``options.requestId``;
- ``*`` alone is any key of an object and any item of an array: ``edits.*.id``, ``*.nonce``;
- a segment of decimal digits without a leading zero (``0``, ``12``) is also the array item at that index;
- inside a key, ``\\.`` is a dot, ``\\*`` a star and ``\\\\`` a backslash (``a\\.b`` is the one key ``a.b``, ``\\*``
  the key ``*``); a backslash before anything else is an error, and so is an empty segment (``a..b``, ``.a``, ``a.``).

What the last segment matches is left out: a key with its value, an array item (the items after it move up). A path
that matches nothing leaves the arguments as they are; arguments that are not an object or an array (the raw text of
malformed JSON) never match. Keys that are not strings (possible only from Python hosts) are matched by ``*`` alone.

``prune`` never changes the value it is given: it copies the containers on the way to what it leaves out and returns
the value itself when nothing matched, so that the key of a call without those parts costs nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["NO_PATHS", "ArgumentPaths", "PathError", "format_path", "parse_path"]

#: The segment that matches any key or item.
ANY = "*"
_ESCAPABLE = ".*\\"


class PathError(ValueError):
    """Why a path's text is not a path (the message names the 1-based character where it goes wrong)."""


def parse_path(text: str) -> tuple[str | None, ...]:
    """The segments of a path: key names, and None for ``*``; PathError when ``text`` is not a path."""
    if not text:
        raise PathError("an argument path must not be empty")
    segments: list[str | None] = []
    current: list[str] = []
    escaped = False  # whether the segment so far has an escape (then `\*` is the key `*`, not the wildcard)
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            following = text[index + 1 : index + 2]
            if following == "" or following not in _ESCAPABLE:
                what = "lone backslash" if following == "" else f"unknown escape `\\{following}`"
                raise PathError(f"invalid path `{text}`: {what} at character {index + 1}")
            current.append(following)
            escaped = True
            index += 2
            continue
        if char == ".":
            segments.append(_segment(text, current, escaped, index))
            current, escaped = [], False
        else:
            current.append(char)
        index += 1
    segments.append(_segment(text, current, escaped, len(text)))
    return tuple(segments)


def _segment(text: str, chars: list[str], escaped: bool, dot: int) -> str | None:
    """The segment that ends at the dot at ``dot`` (0-based; the text's length for the last segment)."""
    if not chars:
        where = min(dot, len(text) - 1) + 1  # the dot beside the empty segment
        raise PathError(f"invalid path `{text}`: empty segment at character {where}")
    name = "".join(chars)
    return None if name == ANY and not escaped else name


def format_path(segments: Sequence[str | None]) -> str:
    """The text of a path (None for ``*``), with ``.``, ``*`` and ``\\`` escaped inside keys: ``parse_path``'s
    inverse."""
    return ".".join(
        ANY if segment is None else "".join(f"\\{c}" if c in _ESCAPABLE else c for c in segment) for segment in segments
    )


class _Node:
    """The paths that continue below one place: by key name, under ``*``, and whether a path ends here."""

    __slots__ = ("any", "ends", "keys")

    def __init__(self) -> None:
        self.ends = False
        self.keys: dict[str, _Node] = {}
        self.any: _Node | None = None


class ArgumentPaths:
    """The ``ignoreArguments`` of a guard (or of an override): their texts as written, parsed once; a value like a
    frozen dataclass of its ``texts`` (equal, hashed and shown by them).

    A text that is not a path is kept in ``problems`` (its index, the message) rather than raised, so that the guard
    file's loader reports it with its position; such settings never build a guard.
    """

    __slots__ = ("_root", "problems", "texts")

    texts: tuple[str, ...]
    problems: tuple[tuple[int, str], ...]
    _root: _Node

    def __init__(self, texts: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "texts", tuple(texts))
        object.__setattr__(self, "_root", _Node())
        self._parse()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __eq__(self, other: object) -> bool:
        return self.texts == other.texts if type(other) is ArgumentPaths else NotImplemented

    def __hash__(self) -> int:
        return hash(self.texts)

    def __repr__(self) -> str:
        return f"ArgumentPaths(texts={self.texts!r})"

    def _parse(self) -> None:
        problems = []
        for index, text in enumerate(self.texts):
            try:
                segments = parse_path(text)
            except PathError as error:
                problems.append((index, str(error)))
                continue
            node = self._root
            for segment in segments:
                if segment is None:
                    node.any = node.any or _Node()
                    node = node.any
                else:
                    node = node.keys.setdefault(segment, _Node())
            node.ends = True
        object.__setattr__(self, "problems", tuple(problems))

    def __bool__(self) -> bool:
        return bool(self.texts)

    def prune(self, value: Any) -> Any:
        """``value`` without the parts the paths name (``value`` itself when they name none of it)."""
        return _prune(value, (self._root,))


def _prune(value: Any, nodes: tuple[_Node, ...]) -> Any:
    if isinstance(value, Mapping):
        pairs: Any = dict.items(value) if isinstance(value, dict) else value.items()
    elif isinstance(value, (list, tuple)):
        pairs = ((str(index), item) for index, item in enumerate(value))
    else:
        return value
    kept: list[tuple[Any, Any]] = []
    changed = False
    for key, item in pairs:
        below = tuple(_below(nodes, key))
        if not below:
            kept.append((key, item))
        elif any(node.ends for node in below):
            changed = True
        else:
            pruned = _prune(item, below)
            changed = changed or pruned is not item
            kept.append((key, pruned))
    if not changed:
        return value
    if isinstance(value, Mapping):
        return dict(kept)
    return [item for _, item in kept]


def _below(nodes: tuple[_Node, ...], key: Any) -> list[_Node]:
    found = [node.any for node in nodes if node.any is not None]
    if isinstance(key, str):
        found += [node.keys[key] for node in nodes if key in node.keys]
    return found


#: No paths: every argument is compared.
NO_PATHS = ArgumentPaths()
