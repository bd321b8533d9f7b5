"""The canonical form's definition: ``reference_text(value)``, the rules written out plainly.

``canonicalize(value)`` (the package's door) is byte-identical to JavaScript's ``JSON.stringify(sortDeep(value))``
(every object rebuilt with ``Object.keys(o).sort()``) for every JSON document: no whitespace; array-index keys
("0".."4294967294") first in numeric order, then the rest by UTF-16 code units; numbers as ``Number::toString`` prints
them (``1.0`` -> ``1``, ``1e21`` -> ``1e+21``, ints beyond 2**53 as the nearest double; NaN, infinities, ints too big
for a double -> null); strings escaped as ``JSON.stringify`` does (lone surrogates as ``\\udxxx``, an adjacent surrogate
pair as the astral character).  Deliberate difference: a ``__proto__`` key, which JavaScript drops, is kept as an
ordinary key.

It never raises.  A ``str`` is a JSON string, tuples are arrays, subclasses of str/int/float/dict/list/tuple count as
their base.  Non-string keys become what JavaScript's ``String()`` makes: 1 and 1.0 -> "1", True -> "true", None ->
"null", NaN -> "NaN", inf -> "Infinity"; other keys key as the string they canonicalize to (or as their canonical
text if that is not a string).  Keys colliding after that are all kept, ordered by their values' canonical text.  A
container met again inside itself prints as "[Circular]" (the same object side by side prints twice); depth is bounded
only by memory.  Other values key as follows; the first value of each type is logged as a warning on "toolguards":
bytes, bytearray, memoryview -> the string of their UTF-8 decoding with errors="backslashreplace"; set, frozenset -> an
array ordered by its members' canonical text (code point order); datetime, date, time -> the string of isoformat();
Decimal -> ``float(value)`` if finite, else null; Enum members -> their ``.value``; other Mapping types -> an object
like a dict; dataclass instances -> the object of their fields; other objects with a ``__dict__`` that are not
classes, modules or callables -> the object of ``vars(value)``; anything else, iterables included (never iterated) ->
the string of ``repr(value)``, or "<unrepresentable TypeName>" if repr raises, which is also the fallback whenever a
conversion raises.

``reference_text`` below is these rules written out, and the definition; JavaScript's text and key-order rules are in
``jsformat``.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections.abc import Mapping
from enum import Enum
from types import ModuleType
from typing import Any

from ..warnings_once import warn
from .jsformat import is_clean, js_sorted, number_text, numeric_text, pair_up, quote, string_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from weakref import WeakSet

__all__ = ["reference_text", "unrepresentable"]

#: The types already warned of (held weakly: a class made at run time may go); made with the first warning, so that a
#: process that meets only JSON values never imports weakref.
_warned: WeakSet[type] | None = None


def reference_text(value: object) -> str:
    """The canonical text of ``value`` by the rules above, one container at a time; never raises."""
    try:
        return _evaluate(value)
    except Exception:  # MemoryError and the like; a conversion that raises is handled where it happens
        return unrepresentable(value)


# A container becomes a node: the values whose text it needs (its members, and keys only their text can name), and
# how it makes its own text of theirs. Nodes are printed innermost first from an explicit stack, so nesting is
# bounded by memory, not by Python's recursion limit. A container's text is a rope, a list of its pieces (its members'
# ropes among them), so no text is copied into its parent's; it is flattened into a string once, at the end, or where
# its text decides an order (set members, colliding keys, keys named by their text).

_Text = str | list["_Text"]


def _evaluate(root: object) -> str:
    active: set[int] = set()  # the containers being printed: one met again inside itself prints as "[Circular]"
    printing: list[tuple[_Node, object]] = [(_Node([root]), None)]  # innermost last, each with its container
    while True:
        node, container = printing[-1]
        if len(node.texts) < len(node.wanted):
            value = node.wanted[len(node.texts)]
            started = _start(value, active)
            if isinstance(started, str):
                node.texts.append(started)
            else:
                active.add(id(value))
                printing.append((started, value))  # holds value, so its id cannot be reused while it is in active
            continue
        printing.pop()
        active.discard(id(container))
        if not printing:
            return _flat(node.text())
        printing[-1][0].texts.append(node.text())


def _start(v: Any, active: set[int]) -> str | _Node:
    """The text of ``v`` if it has no members, else the node that prints it."""
    t = type(v)
    if t is str:
        return string_text(v)
    if v is None or t is bool:
        return "null" if v is None else "true" if v else "false"
    if t is int or t is float:
        return numeric_text(v)
    if id(v) in active:
        return '"[Circular]"'
    try:
        rule, found = _convert(v)
    except Exception:
        rule, found = "the string of its repr()", _repr_text(v)
    if rule is not None:
        _warn(v, rule, found if isinstance(found, str) else None)
    return found


def _convert(v: Any) -> tuple[str | None, str | _Node]:
    """How a value that is not a plain JSON scalar prints, and the rule that says so (None for JSON's own kinds)."""
    if isinstance(v, Enum):
        return "its .value", _Node([v.value])
    if isinstance(v, dict):
        return None, _Object(list(dict.items(v)))
    if isinstance(v, (list, tuple)):
        return None, _Array(list(v))
    if isinstance(v, str):
        return None, string_text(v)
    if isinstance(v, int):
        return None, numeric_text(int.__int__(v))
    if isinstance(v, float):
        return None, numeric_text(float.__float__(v))
    if isinstance(v, Mapping):
        return "an object, like a dict", _Object(list(v.items()))
    if isinstance(v, (bytes, bytearray, memoryview)):
        return "the string of its UTF-8 decoding", string_text(_bytes_text(bytes(v)))
    if isinstance(v, (set, frozenset)):
        return "an array ordered by its members' canonical text", _Set(list(v))
    if _instance_of(v, "datetime", ("date", "time")):
        return "the string of its isoformat()", string_text(v.isoformat())
    if _instance_of(v, "decimal", ("Decimal",)):
        return "the number float() makes of it", numeric_text(float(v)) if v.is_finite() else "null"
    dataclasses = sys.modules.get("dataclasses")  # as _instance_of: no dataclass exists before the module is imported
    if dataclasses is not None and dataclasses.is_dataclass(v) and not isinstance(v, type):
        return "the object of its fields", _Object([(f.name, getattr(v, f.name)) for f in dataclasses.fields(v)])
    if hasattr(v, "__dict__") and not isinstance(v, (type, ModuleType)) and not callable(v):
        return "the object of its attributes", _Object(list(vars(v).items()))
    return "the string of its repr()", _repr_text(v)


def _instance_of(v: Any, module: str, names: tuple[str, ...]) -> bool:
    """``isinstance(v, module.<name>...)`` without importing ``module``: no value of its types can exist before it is
    imported, so a process that never uses dates or decimals (a hook) never pays for loading them."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(v, tuple(getattr(loaded, name) for name in names))


def _key_name(key: Any) -> str | None:
    """What ``String(key)`` makes of a str, number, bool or None key; None for other keys."""
    t = type(key)
    if t is str:
        return key if key.isascii() or is_clean(key) else pair_up(key)
    if key is None or t is bool:
        return "null" if key is None else "true" if key else "false"
    if t is int or t is float:
        try:
            f = float(key)
        except OverflowError:
            f = math.inf if key > 0 else -math.inf
        return number_text(f) if math.isfinite(f) else "NaN" if math.isnan(f) else "Infinity" if f > 0 else "-Infinity"
    return None


# The nodes, and their text as ropes.


class _Node:
    __slots__ = ("texts", "wanted")

    def __init__(self, wanted: list[object]) -> None:
        self.wanted = wanted
        self.texts: list[_Text] = []  # the texts of ``wanted``, as they are printed

    def text(self) -> _Text:
        """This container's text, once ``texts`` holds the text of every wanted value."""
        return self.texts[0]  # the node of a value that prints as another (an Enum member as its .value)


class _Array(_Node):
    __slots__ = ()

    def text(self) -> _Text:
        return _joined("[", self.texts, "]")


class _Set(_Node):
    __slots__ = ()

    def text(self) -> _Text:
        return _joined("[", sorted(map(_flat, self.texts)), "]")  # a set has no order: its members' text gives one


class _Object(_Node):
    __slots__ = ("names",)

    def __init__(self, entries: list[tuple[object, object]]) -> None:
        self.names = [_key_name(key) for key, _ in entries]  # None: named by the key's canonical text
        wanted: list[object] = []
        for (key, value), name in zip(entries, self.names, strict=True):
            wanted += [value] if name is not None else [key, value]
        super().__init__(wanted)

    def text(self) -> _Text:
        groups: dict[str, list[_Text]] = {}
        texts = iter(self.texts)
        for given in self.names:
            if given is None:
                key = _flat(next(texts))
                name = json.loads(key) if key.startswith('"') else key  # the string it denotes, or the text itself
            else:
                name = given
            groups.setdefault(name, []).append(next(texts))
        members: list[_Text] = []
        for name in js_sorted(list(groups)):
            values = groups[name] if len(groups[name]) == 1 else sorted(map(_flat, groups[name]))  # all kept, by text
            members += [[string_text(name), ":", value] for value in values]
        return _joined("{", members, "}")


def _joined(opening: str, members: list[_Text], closing: str) -> _Text:
    """``opening``, the members separated by commas, ``closing``: as a rope."""
    pieces: list[_Text] = [opening]
    for n, member in enumerate(members):
        if n:
            pieces.append(",")
        pieces.append(member)
    pieces.append(closing)
    return pieces


def _flat(text: _Text) -> str:
    """The string a rope spells (iteratively: a rope is as deep as the value)."""
    pieces: list[str] = []
    ropes = [text]
    while ropes:
        rope = ropes.pop()
        if isinstance(rope, str):
            pieces.append(rope)
        else:
            ropes.extend(reversed(rope))
    return "".join(pieces)


# Each undecodable byte as "\\xNN", as errors="backslashreplace" writes it.
_ESCAPED_BYTES = {0xDC00 + byte: f"\\x{byte:02x}" for byte in range(0x80, 0x100)}


def _bytes_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # What decode("utf-8", "backslashreplace") gives, without its handler called once per bad byte (seconds on
        # megabytes of them): surrogateescape turns each into U+DC80..U+DCFF at C speed, one translate into "\\xNN".
        return data.decode("utf-8", "surrogateescape").translate(_ESCAPED_BYTES)


def _repr_text(v: object) -> str:
    try:
        text = repr(v)
    except Exception:
        text = f"<unrepresentable {type(v).__name__}>"
    return string_text(text)


def unrepresentable(v: object) -> str:
    return quote(f"<unrepresentable {type(v).__name__}>")


def _warn(v: object, rule: str, text: str | None) -> None:
    global _warned  # noqa: PLW0603 - made once, on the first warning
    if _warned is None:
        from weakref import WeakSet  # noqa: PLC0415

        _warned = WeakSet()
    t = type(v)
    if t not in _warned:
        _warned.add(t)
        shown = "" if text is None else f": {text[:80]}" + ("..." if len(text) > 80 else "")
        with contextlib.suppress(Exception):  # a failing log filter must not cost the caller its canonical text
            warn("canonical form: a %s is not a JSON value; it keys as %s%s", t.__qualname__, rule, shown)
