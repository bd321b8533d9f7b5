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
import re
import weakref
from collections.abc import Iterable, Mapping
from decimal import Decimal
from enum import Enum
from types import ModuleType
from typing import Any

__all__ = ["canonicalize"]

_log = logging.getLogger("toolguards")
_quote = json.encoder.encode_basestring
_SAFE_INT = 2**53
_FAST_DEPTH = 100  # deeper values take the iterative general path, which cannot exhaust the interpreter's stack
_SURROGATE = re.compile("[\ud800-\udfff]")
_ABOVE_D7FF = re.compile("[\ud800-\U0010ffff]")  # where code point order and UTF-16 order can part
_warned: weakref.WeakSet[type] = weakref.WeakSet()


def _c_encoder(sort_keys: bool) -> Any:
    # Called directly, the C encoder skips JSONEncoder's per-call setup; prepared values are proven acyclic, so it
    # needs no markers dict (one that threads would share).
    if make := getattr(json.encoder, "c_make_encoder", None):
        return make(None, _refuse, _quote, None, ":", ",", sort_keys, False, True)
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
    text = _try_fast(value)
    if text is not None:
        return text
    try:
        return _general(value, set())
    except Exception:
        return _quote(f"<unrepresentable {type(value).__name__}>")


def _try_fast(value: object) -> str | None:
    for ordered in (False, True):
        try:
            return _fast(value, ordered)
        except _Reorder:
            continue
        except Exception:  # _Slow, RecursionError, a value mutated under us: the general path decides
            return None
    return None


# Fast path: prove the C encoder prints the value as JavaScript would, or build a copy it does print right.  Strings
# are checked on the output, where an O(1) isascii() usually clears them all at once.


def _fast(value: Any, ordered: bool) -> str:
    # Ordered: every object is rebuilt in JavaScript's key order and printed in that order.
    prepared = _prep_ordered(value, 0) if ordered else _prep(value, 0)
    text: str = "".join((_ORDERED if ordered else _SORTED)(prepared, 0))
    if text.isascii():
        return text
    if not _clean(text):
        raise _Slow  # surrogates, which the C encoder printed raw
    if not ordered and type(prepared) in (dict, list, tuple):
        _check_keys(prepared)  # keys beyond U+D7FF may sort differently by UTF-16 code units
    return text


def _clean(s: str) -> bool:
    try:
        s.encode()  # strict UTF-8: the quickest scan for surrogates
    except UnicodeEncodeError:
        return False
    return True


def _prep(x: Any, depth: int) -> object:
    t = type(x)
    if t is dict or t is list or t is tuple:
        return _prep_container(x, t, depth)
    if t is int:
        return x if -_SAFE_INT <= x <= _SAFE_INT else _prep_number(x)
    if t is float:
        return _prep_number(x)
    if t is str or t is bool or x is None:
        return x
    raise _Slow


def _prep_number(x: Any) -> object:
    if type(x) is int:
        try:
            x = float(x)
        except OverflowError:
            return None
    elif 1e-4 <= abs(x) < 1e16 and not x.is_integer():
        return x  # Python's repr and Number::toString agree here
    elif not math.isfinite(x):
        return None
    elif abs(x) <= _SAFE_INT and x.is_integer():
        return int(x)
    if abs(x) < 1e21 and x.is_integer():
        return int(_number(x))  # JavaScript prints the shortest digits padded with zeros, as this int prints
    raise _Slow


def _prep_container(v: Any, t: type, depth: int) -> object:
    if depth > _FAST_DEPTH:
        raise _Slow
    values = v
    if t is dict:
        try:
            # Code point order is JavaScript's unless a key may be an array index, and only keys below ":" can be.
            if v and min(v) < ":" and not _index_keys_in_order(sorted(v)):
                raise _Reorder
        except TypeError:  # keys that are not all strings
            raise _Slow from None
        values = v.values()
    for x in values:
        tx = type(x)
        if tx is str or tx is bool or x is None:
            continue
        if tx is int:
            if -_SAFE_INT <= x <= _SAFE_INT:
                continue
            y = _prep_number(x)
        elif tx is float:
            if 1e-4 <= abs(x) < 1e16 and not x.is_integer():
                continue
            y = _prep_number(x)
        elif tx is dict or tx is list or tx is tuple:
            y = _prep_container(x, tx, depth + 1)
        else:
            raise _Slow
        if y is not x:  # copy, reusing the part already prepared
            if t is dict:
                return {k: y if z is x else _prep(z, depth + 1) for k, z in v.items()}
            return [y if z is x else _prep(z, depth + 1) for z in v]
    return v


def _prep_ordered(v: Any, depth: int) -> object:
    t = type(v)
    if t is not dict and t is not list and t is not tuple:
        return _prep(v, depth)
    if depth > _FAST_DEPTH:
        raise _Slow
    if t is dict:
        return {k: _prep_ordered(v[k], depth + 1) for k in _js_sorted(list(v))}
    return [_prep_ordered(x, depth + 1) for x in v]


def _check_keys(v: Any) -> None:
    if type(v) is dict:
        keys = "".join(v)
        if not keys.isascii() and _ABOVE_D7FF.search(keys) and _js_sorted(list(v)) != sorted(v):
            raise _Reorder
        v = v.values()
    for x in v:
        if type(x) in (dict, list, tuple):
            _check_keys(x)


# Text of scalars and key order.


def _number(x: float) -> str:
    # Python's repr already has the shortest round-trip digits; only the layout differs from Number::toString.
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mantissa, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    n = len(whole) + int(exp or 0) - (len(whole) + len(frac) - len(digits))  # x is 0.<digits> * 10**n
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if n > 0 else '-'}{abs(n - 1)}"


def _num_text(x: int | float) -> str:
    try:
        x = x if type(x) is int and -_SAFE_INT <= x <= _SAFE_INT else float(x)
    except OverflowError:
        return "null"
    return str(x) if type(x) is int else _number(x) if math.isfinite(x) else "null"


def _pair_up(s: str) -> str:
    # Adjacent high+low surrogates are one character to JavaScript.
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _str_text(s: str) -> str:
    if s.isascii() or _clean(s):
        return _quote(s)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", _quote(_pair_up(s)))


def _key_text(k: Any, active: set[int]) -> str:
    t = type(k)
    if t is str:
        return k if k.isascii() or _clean(k) else _pair_up(k)
    if k is None or t is bool:
        return "null" if k is None else "true" if k else "false"
    if t is int or t is float:
        try:
            f = float(k)
        except OverflowError:
            f = math.inf if k > 0 else -math.inf
        return _number(f) if math.isfinite(f) else "NaN" if math.isnan(f) else "Infinity" if f > 0 else "-Infinity"
    text = _try_fast(k) or _general(k, active)
    return str(json.loads(text)) if text.startswith('"') else text


def _is_index(k: str) -> bool:
    n = len(k)
    return k.isdigit() and k.isascii() and (k[0] != "0" or n == 1) and (n < 10 or (n == 10 and int(k) < 4294967295))


def _index_keys_in_order(keys: list[str]) -> bool:
    # In code point order, array-index keys must come first and by length, which makes their order numeric.
    width, others = 0, False
    for k in keys:
        if k >= ":":
            return True
        if not _is_index(k):
            others = True
        elif others or len(k) < width:
            return False
        else:
            width = len(k)
    return True


def _js_sorted(keys: list[str]) -> list[str]:
    index = sorted((k for k in keys if _is_index(k)), key=int)
    rest = [k for k in keys if not _is_index(k)] if index else list(keys)
    joined = "".join(rest)
    if joined.isascii() or not _ABOVE_D7FF.search(joined):
        return index + sorted(rest)
    return index + sorted(rest, key=lambda k: k.encode("utf-16-be", "surrogatepass"))


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
        out.append(_str_text(v))
    elif v is None or t is bool:
        out.append("null" if v is None else "true" if v else "false")
    elif t is int or t is float:
        out.append(_num_text(v))
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
            prefix = _str_text(key) + ":"
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
    return [(k, groups[k]) for k in _js_sorted(list(groups))]


def _convert(v: Any, active: set[int]) -> tuple[int, Any, str | None]:
    if isinstance(v, Enum):
        return _SUBST, v.value, "its .value"
    if isinstance(v, (dict, list, tuple, str, int, float)):
        if isinstance(v, dict):
            return _OBJECT, _entries(list(dict.items(v)), active), None
        if isinstance(v, (list, tuple)):
            return _ARRAY, list(v), None
        if isinstance(v, str):
            return _TEXT, _str_text(v), None
        return _TEXT, _num_text(int.__int__(v)) if isinstance(v, int) else _num_text(float.__float__(v)), None
    if isinstance(v, Mapping):
        return _OBJECT, _entries(list(v.items()), active), "an object, like a dict"
    if isinstance(v, (bytes, bytearray, memoryview)):
        return _TEXT, _str_text(bytes(v).decode("utf-8", "backslashreplace")), "the string of its UTF-8 decoding"
    if isinstance(v, (set, frozenset)):
        return _SET, list(v), "an array ordered by its members' canonical text"
    if isinstance(v, (datetime.date, datetime.time)):
        return _TEXT, _str_text(v.isoformat()), "the string of its isoformat()"
    if isinstance(v, Decimal):
        return _TEXT, _num_text(float(v)) if v.is_finite() else "null", "the number float() makes of it"
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        fields = [(f.name, getattr(v, f.name)) for f in dataclasses.fields(v)]
        return _OBJECT, _entries(fields, active), "the object of its fields"
    if hasattr(v, "__dict__") and not isinstance(v, (type, ModuleType)) and not callable(v):
        return _OBJECT, _entries(list(vars(v).items()), active), "the object of its attributes"
    return _TEXT, _repr_text(v), "the string of its repr()"


def _repr_text(v: object) -> str:
    try:
        text = repr(v)
    except Exception:
        text = f"<unrepresentable {type(v).__name__}>"
    return _str_text(text)


def _warn(v: object, rule: str, text: str | None) -> None:
    t = type(v)
    if t not in _warned:
        _warned.add(t)
        shown = "" if text is None else f": {text[:80]}" + ("..." if len(text) > 80 else "")
        with contextlib.suppress(Exception):  # a failing log filter must not cost the caller its canonical text
            _log.warning("canonical form: a %s is not a JSON value; it keys as %s%s", t.__qualname__, rule, shown)
