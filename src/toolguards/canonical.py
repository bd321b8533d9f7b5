"""Canonical text of a tool call's arguments.

``canonicalize(value)`` is byte-identical to JavaScript's ``JSON.stringify(sortDeep(value))`` (every object rebuilt
with ``Object.keys(o).sort()``) for every JSON document: no whitespace; array-index keys ("0".."4294967294") first in
numeric order, then the rest by UTF-16 code units; numbers as ``Number::toString`` prints them (``1.0`` -> ``1``,
``1e21`` -> ``1e+21``, ints beyond 2**53 as the nearest double; NaN, infinities, ints too big for a double -> null);
strings escaped as ``JSON.stringify`` does (lone surrogates as ``\\udxxx``, an adjacent surrogate pair as the astral
character).  Deliberate difference: a ``__proto__`` key, which JavaScript drops, is kept as an ordinary key.

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
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import itertools
import json
import logging
import math
import weakref
from collections.abc import Iterable, Mapping
from decimal import Decimal
from enum import Enum
from types import ModuleType
from typing import Any

from .jsformat import (
    SAFE_INT,
    index_order,
    is_clean,
    js_sorted,
    number_text,
    numeric_text,
    pair_up,
    quote,
    string_text,
    utf16_order_differs,
)

__all__ = ["canonicalize"]

_log = logging.getLogger("toolguards")
_FAST_DEPTH = 100  # deeper values take the iterative general path, which cannot exhaust the interpreter's stack
_warned: weakref.WeakSet[type] = weakref.WeakSet()


def _c_encoder(sort_keys: bool) -> Any:
    # Called directly, the C encoder skips JSONEncoder's per-call setup; prepared values are proven acyclic, so it
    # needs no markers dict (one that threads would share).
    if make := getattr(json.encoder, "c_make_encoder", None):
        return make(None, _refuse, quote, None, ":", ",", sort_keys, False, True)
    encoder = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":"), sort_keys=sort_keys)
    return lambda value, _level: (encoder.encode(value),)


class _Slow(Exception):
    """The fast path cannot express this value."""


class _Reorder(Exception):
    """An object's keys need JavaScript's order, which differs from code point order."""


def _refuse(value: object) -> object:
    raise _Slow


_SORTED, _ORDERED = _c_encoder(True), _c_encoder(False)


def canonicalize(value: object) -> str:
    """Return the canonical JSON text of ``value``, as JavaScript prints it with every object's keys sorted."""
    try:
        return _fast(value)  # _try_fast inlined: this runs on every tool call
    except _Reorder:
        text = _try_ordered(value)
    except Exception:  # _Slow, RecursionError, a value mutated under us: the general path decides
        text = None
    if text is not None:
        return text
    try:
        return _general(value, set())
    except Exception:
        return quote(f"<unrepresentable {type(value).__name__}>")


def _try_fast(value: object) -> str | None:
    try:
        return _fast(value)
    except _Reorder:
        return _try_ordered(value)
    except Exception:
        return None


def _try_ordered(value: object) -> str | None:
    try:
        return _fast_ordered(value, 0)
    except Exception:
        return None


# Fast path: prove the C encoder prints the value as JavaScript would, or build a copy it does print right.  Strings
# are checked on the output, where an O(1) isascii() usually clears them all at once.  This runs on every tool call,
# so the common shapes (a dict of strings and small numbers) are handled inline, without a call per value.
#
# An object whose keys need JavaScript's order (array-index keys such as "3", "12", "40", which code point order puts
# as "12", "3", "40") cannot go through the key-sorting encoder.  It is printed on its own, in that order, and a
# placeholder string stands in for it until its text replaces the placeholder's.  The placeholders hold a lone
# surrogate, which no text that leaves the fast path may hold: should the input hold a placeholder's text too, a
# surrogate is left over after the replacement, and the value goes to the general path.

_MAX_PLACEHOLDERS = 16  # past this many, printing the whole value in JavaScript's order is as quick
_PLACEHOLDERS = tuple(f"\udfff{number}\udfff" for number in range(_MAX_PLACEHOLDERS))
_PRINTED = tuple(f'"{placeholder}"' for placeholder in _PLACEHOLDERS)  # as the encoder prints them
Subst = list[str]


def _fast(value: Any) -> str:
    t = type(value)
    subs: Subst = []
    prepared = _prep_container(value, t, 0, subs) if t is dict or t is list or t is tuple else _prep(value)
    text: str = "".join(_SORTED(prepared, 0))
    if subs:
        # Only the first occurrence of each: see above for a placeholder's text in the input.
        for number, sub in enumerate(subs):
            text = text.replace(_PRINTED[number], sub, 1)
    if text.isascii():
        return text
    if not is_clean(text):
        raise _Slow  # surrogates, which the C encoder printed raw
    if type(prepared) in (dict, list, tuple):
        _check_keys(prepared)  # keys beyond U+D7FF may sort differently by UTF-16 code units
    return text


def _fast_ordered(value: Any, depth: int) -> str:
    # Every object is rebuilt in JavaScript's key order and printed in that order.
    return _ordered_text(_prep_ordered(value, depth))


def _ordered_text(prepared: object) -> str:
    text: str = "".join(_ORDERED(prepared, 0))
    if text.isascii() or is_clean(text):
        return text
    raise _Slow  # surrogates, which the C encoder printed raw


def _prep(x: Any) -> object:
    """A scalar as the C encoder should see it (containers are prepared by their own functions)."""
    t = type(x)
    if t is int:
        return x if -SAFE_INT <= x <= SAFE_INT else _prepnumber_text(x)
    if t is float:
        return _prepnumber_text(x)
    if t is str or t is bool or x is None:
        return x
    raise _Slow


def _prepnumber_text(x: Any) -> object:
    if type(x) is int:
        try:
            x = float(x)
        except OverflowError:
            return None
    elif 1e-4 <= abs(x) < 1e16 and not x.is_integer():
        return x  # Python's repr and Number::toString agree here
    elif not math.isfinite(x):
        return None
    elif abs(x) <= SAFE_INT and x.is_integer():
        return int(x)
    if abs(x) < 1e21 and x.is_integer():
        return int(number_text(x))  # JavaScript prints the shortest digits padded with zeros, as this int prints
    raise _Slow


def _prep_container(v: Any, t: type, depth: int, subs: Subst) -> object:
    if depth > _FAST_DEPTH:
        raise _Slow
    if t is dict:
        try:
            # Code point order is JavaScript's unless a key may be an array index, and only keys below ":" can be.
            order = index_order(v) if v and min(v) < ":" else None
        except TypeError:  # keys that are not all strings
            raise _Slow from None
        if order is not None:
            if len(subs) >= _MAX_PLACEHOLDERS:
                raise _Reorder
            subs.append(_ordered_text(_prep_in_order(v, order, depth)))
            return _PLACEHOLDERS[len(subs) - 1]
        items: Iterable[tuple[Any, Any]] = v.items()
    else:
        items = enumerate(v)
    copy = None
    for k, x in items:
        tx = type(x)
        if tx is str or tx is bool or x is None:
            continue
        if tx is int:
            if -9007199254740992 <= x <= 9007199254740992:  # 2**53, as a constant: this is the innermost loop
                continue
            y = _prepnumber_text(x)
        elif tx is float:
            if (1e-4 <= x < 1e16 or -1e16 < x <= -1e-4) and not x.is_integer():
                continue  # Python's repr and Number::toString agree here
            y = int(x) if -9007199254740992 <= x <= 9007199254740992 and x.is_integer() else _prepnumber_text(x)
        elif tx is dict or tx is list or tx is tuple:
            y = _prep_container(x, tx, depth + 1, subs)
            if y is x:
                continue
        else:
            raise _Slow
        # A value the C encoder would print differently (30.0, 2**60): a shallow copy that holds the printable one.
        # dict(v) and list(v) copy at C speed; only the changed members are set.
        if copy is None:
            copy = dict(v) if t is dict else list(v)
        copy[k] = y
    return v if copy is None else copy


def _prep_ordered(v: Any, depth: int) -> object:
    t = type(v)
    if t is not dict and t is not list and t is not tuple:
        return _prep(v)
    if depth > _FAST_DEPTH:
        raise _Slow
    if t is dict:
        return _prep_in_order(v, js_sorted(list(v)), depth)
    return [_prep_ordered(x, depth + 1) for x in v]


def _prep_in_order(v: dict[str, Any], order: list[str], depth: int) -> dict[str, object]:
    # A copy of v with its keys in ``order``, for the encoder that keeps the order it is given.
    copy = {}
    for k in order:
        x = v[k]
        tx = type(x)
        copy[k] = x if tx is str or tx is bool or x is None else _prep_ordered(x, depth + 1)
    return copy


def _check_keys(v: Any) -> None:
    if type(v) is dict:
        keys = "".join(v)
        if utf16_order_differs(keys) and js_sorted(list(v)) != sorted(v):
            raise _Reorder
        v = v.values()
    for x in v:
        if type(x) in (dict, list, tuple):
            _check_keys(x)


def _key_text(k: Any, active: set[int]) -> str:
    t = type(k)
    if t is str:
        return k if k.isascii() or is_clean(k) else pair_up(k)
    if k is None or t is bool:
        return "null" if k is None else "true" if k else "false"
    if t is int or t is float:
        try:
            f = float(k)
        except OverflowError:
            f = math.inf if k > 0 else -math.inf
        return number_text(f) if math.isfinite(f) else "NaN" if math.isnan(f) else "Infinity" if f > 0 else "-Infinity"
    text = _try_fast(k) or _general(k, active)
    return str(json.loads(text)) if text.startswith('"') else text


# General path: an explicit work stack of (op, argument), so depth is bounded only by memory.

_VALUE, _EMIT, _EXIT, _MARK, _JOIN = range(5)
_TEXT, _OBJECT, _ARRAY, _SET, _SUBST = range(5)
_Work = list[tuple[int, Any]]


def _general(root: object, active: set[int]) -> str:
    out: list[str] = []
    work: _Work = [(_VALUE, root)]
    tries = 8  # the fast path on inner containers; a failed try may cost a scan of the container
    while work:
        op, arg = work.pop()
        if op == _VALUE:
            if tries and arg is not root and type(arg) in (dict, list, tuple):
                text = _try_fast(arg)
                if text is not None:
                    out.append(text)
                    continue
                tries -= 1
            _visit(arg, out, work, active)
        elif op == _EMIT:
            out.append(arg)
        elif op == _EXIT:
            active.discard(id(arg))
        elif op == _MARK:  # a member of a group printed sorted starts here
            arg.append(len(out))
        else:
            marks, opening, closing = arg
            bounds = [*marks, len(out)]
            texts = sorted("".join(out[a:b]) for a, b in itertools.pairwise(bounds))
            del out[marks[0] :]
            out.append(opening + ",".join(texts) + closing)
    return "".join(out)


def _visit(v: Any, out: list[str], work: _Work, active: set[int]) -> None:
    t = type(v)
    if t is str:
        out.append(string_text(v))
    elif v is None or t is bool:
        out.append("null" if v is None else "true" if v else "false")
    elif t is int or t is float:
        out.append(numeric_text(v))
    elif id(v) in active:
        out.append('"[Circular]"')
    else:
        active.add(id(v))  # already while converting, as keys that are objects may lead back to v
        try:
            kind, payload, rule = _convert(v, active)
        except Exception:
            kind, payload, rule = _TEXT, _repr_text(v), "the string of its repr()"
        if rule is not None:
            _warn(v, rule, payload if kind == _TEXT else None)
        if kind == _TEXT:
            active.discard(id(v))
            out.append(payload)
        else:
            work.append((_EXIT, v))  # holds v, so its id cannot be reused while it is in active
            _push(kind, payload, out, work)


def _push(kind: int, payload: Any, out: list[str], work: _Work) -> None:
    ops: _Work = []
    if kind == _SET and len(payload) < 2:
        kind = _ARRAY  # nothing to sort, and nesting stays linear
    if kind == _SUBST:
        ops.append((_VALUE, payload))
    elif kind == _ARRAY:
        out.append("[")
        for x in payload:
            ops += [(_EMIT, ","), (_VALUE, x)]
        ops = [*ops[1:], (_EMIT, "]")]
    elif kind == _SET:
        marks: list[int] = []
        for x in payload:
            ops += [(_MARK, marks), (_VALUE, x)]
        ops.append((_JOIN, (marks, "[", "]")))
    else:
        out.append("{")
        for key, values in payload:
            prefix = string_text(key) + ":"
            ops.append((_EMIT, ","))
            if len(values) == 1:
                ops += [(_EMIT, prefix), (_VALUE, values[0])]
                continue
            marks = []  # colliding keys: all kept, sorted by their text
            for x in values:
                ops += [(_MARK, marks), (_EMIT, prefix), (_VALUE, x)]
            ops.append((_JOIN, (marks, "", "")))
        ops = [*ops[1:], (_EMIT, "}")]
    work.extend(reversed(ops))


def _entries(items: Iterable[tuple[object, object]], active: set[int]) -> list[tuple[str, list[object]]]:
    groups: dict[str, list[object]] = {}
    for k, x in items:
        groups.setdefault(_key_text(k, active), []).append(x)
    return [(k, groups[k]) for k in js_sorted(list(groups))]


def _convert(v: Any, active: set[int]) -> tuple[int, Any, str | None]:
    if isinstance(v, Enum):
        return _SUBST, v.value, "its .value"
    if isinstance(v, (dict, list, tuple, str, int, float)):
        if isinstance(v, dict):
            return _OBJECT, _entries(list(dict.items(v)), active), None
        if isinstance(v, (list, tuple)):
            return _ARRAY, list(v), None
        if isinstance(v, str):
            return _TEXT, string_text(v), None
        return _TEXT, numeric_text(int.__int__(v)) if isinstance(v, int) else numeric_text(float.__float__(v)), None
    if isinstance(v, Mapping):
        return _OBJECT, _entries(list(v.items()), active), "an object, like a dict"
    if isinstance(v, (bytes, bytearray, memoryview)):
        return _TEXT, string_text(_bytes_text(bytes(v))), "the string of its UTF-8 decoding"
    if isinstance(v, (set, frozenset)):
        return _SET, list(v), "an array ordered by its members' canonical text"
    if isinstance(v, (datetime.date, datetime.time)):
        return _TEXT, string_text(v.isoformat()), "the string of its isoformat()"
    if isinstance(v, Decimal):
        return _TEXT, numeric_text(float(v)) if v.is_finite() else "null", "the number float() makes of it"
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        fields = [(f.name, getattr(v, f.name)) for f in dataclasses.fields(v)]
        return _OBJECT, _entries(fields, active), "the object of its fields"
    if hasattr(v, "__dict__") and not isinstance(v, (type, ModuleType)) and not callable(v):
        return _OBJECT, _entries(list(vars(v).items()), active), "the object of its attributes"
    return _TEXT, _repr_text(v), "the string of its repr()"


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


def _warn(v: object, rule: str, text: str | None) -> None:
    t = type(v)
    if t not in _warned:
        _warned.add(t)
        shown = "" if text is None else f": {text[:80]}" + ("..." if len(text) > 80 else "")
        with contextlib.suppress(Exception):  # a failing log filter must not cost the caller its canonical text
            _log.warning("canonical form: a %s is not a JSON value; it keys as %s%s", t.__qualname__, rule, shown)
