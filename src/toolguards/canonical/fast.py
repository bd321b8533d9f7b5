"""The canonical form's fast path: plain JSON values printed in one recursive pass.

``fast_text(value)`` returns exactly what ``canonical.reference_text(value)`` returns, or None when it cannot vouch for
it, and ``canonicalize`` then asks the reference. It answers for what hosts pass almost always: a str, or a dict, list
or tuple of dicts, lists, tuples, str, int, float, bool and None (those exact types, not subclasses), nested at most
100 deep, every key a str. It says "I cannot" to everything else: a bare number, bool or None (rare, and quick for the
reference), other types (the reference's conversion rules, which also log a warning), keys that are not strings, deeper
nesting (a cycle ends there too), and any text holding a surrogate code point (JavaScript escapes lone surrogates and
joins adjacent pairs). It never raises: whatever goes wrong while printing (a container changed by another thread, a
stack too full to recurse) is "I cannot" as well.

Where the reference makes a node per container and keeps an explicit stack, this recurses (the depth bound makes that
safe) and appends every piece of text to one list, joined once. Beyond that it is quicker in three ways, none of which
changes a byte:

- it remembers, per object shape (the tuple of its keys, in insertion order), the keys in JavaScript's order with the
  text that goes before each value (``{"key":`` or ``,"key":``): tool calls repeat their schemas, so most objects are
  ordered by one dictionary lookup (after a check that every key is a str, since the lookup matches shapes by ==). The
  memo holds about 2 MB at most and starts afresh when full. An object of a shape not seen before costs two to three
  times what a remembered one does, its keys sorted and quoted in Python;
- the common members (strings, numbers, booleans, null) are printed inside the loop over a container, without a call,
  and so are the members of a short list (8 or fewer) that is an object's value;
- a list of more than 8 plain scalars is printed by ``json``'s encoder (in C where CPython has it) in one call, once a
  loop has checked that every member prints there as ``JSON.stringify`` prints it.

Numbers never make it decline: ints within 2**53 and non-integral floats with 1e-4 <= |x| < 1e16 print as Python's
str() (their repr) prints them, which is ``Number::toString`` there; every other number goes through
``jsformat.numeric_text``.
"""

from __future__ import annotations

import json
from typing import Any

from .jsformat import is_clean, js_sorted, numeric_text, quote

__all__ = ["MAX_DEPTH", "fast_text"]

#: Containers nested deeper than this are left to the reference (whose depth is bounded only by memory).
MAX_DEPTH = 100
_SHORT_LIST = 8  # lists up to this long are printed member by member: json's encoder costs more to set up
_encode_list = json.JSONEncoder(ensure_ascii=False, check_circular=False, allow_nan=False, separators=(",", ":")).encode


def fast_text(value: Any) -> str | None:
    """The canonical text of ``value``, or None where the fast path cannot vouch for it."""
    t = type(value)
    if t is str:
        text = quote(value)
    elif t is dict or t is list or t is tuple:
        out: list[str] = []
        try:
            if not (_object(value, out, 0) if t is dict else _array(value, out, 0)):
                return None
        except Exception:  # a container changed while printed, RecursionError near a full stack: the reference decides
            return None
        text = "".join(out)
    else:
        return None  # a bare number, bool or None: rare as arguments, and quick for the reference
    return text if text.isascii() or is_clean(text) else None


# The loops below hold the same dispatch on each member's type, written out in each: a call per member would cost a
# third of the time. 9007199254740992 is 2**53 (a literal: these are the innermost loops); between 1e-4 and 1e16 a
# non-integral float's str() is its Number::toString (for these exact types str() is repr(), and quicker to call).
# ``out.append(...)`` is spelled out each time, never bound to a name: CPython 3.11+ runs that call in place.


def _object(x: dict[Any, Any], out: list[str], depth: int) -> bool:
    """Append the canonical text of the dict ``x`` to ``out``; False where the fast path cannot."""
    if not x:
        out.append("{}")
        return True
    leads = _leads(x)
    if leads is None:
        return False
    for key, lead in leads:
        out.append(lead)
        m = x[key]
        t = type(m)
        if t is str:
            out.append(quote(m))
        elif t is int and -9007199254740992 <= m <= 9007199254740992:
            out.append(str(m))
        elif t is list or t is tuple:
            if depth >= MAX_DEPTH:
                return False
            if len(m) > _SHORT_LIST or not m:
                if not _array(m, out, depth + 1):
                    return False
                continue
            # A short list, printed here rather than by a call of its own (a dict of small lists is common).
            sep = "["
            for n in m:
                out.append(sep)
                sep = ","
                tn = type(n)
                if tn is str:
                    out.append(quote(n))
                elif tn is int and -9007199254740992 <= n <= 9007199254740992:
                    out.append(str(n))
                elif tn is bool:
                    out.append("true" if n else "false")
                elif n is None:
                    out.append("null")
                elif tn is float and (1e-4 <= n < 1e16 or -1e16 < n <= -1e-4) and not n.is_integer():
                    out.append(str(n))
                elif tn is dict or tn is list or tn is tuple:
                    if depth + 1 >= MAX_DEPTH or not (_object if tn is dict else _array)(n, out, depth + 2):
                        return False
                elif tn is int or tn is float:
                    out.append(numeric_text(n))
                else:
                    return False
            out.append("]")
        elif t is bool:
            out.append("true" if m else "false")
        elif m is None:
            out.append("null")
        elif t is float and (1e-4 <= m < 1e16 or -1e16 < m <= -1e-4) and not m.is_integer():
            out.append(str(m))
        elif t is dict:
            if depth >= MAX_DEPTH or not _object(m, out, depth + 1):
                return False
        elif t is int or t is float:
            out.append(numeric_text(m))
        else:
            return False
    out.append("}")
    return True


def _array(x: list[Any] | tuple[Any, ...], out: list[str], depth: int) -> bool:
    """Append the canonical text of the list or tuple ``x`` to ``out``; False where the fast path cannot."""
    if len(x) > _SHORT_LIST and _plain_scalars(x):
        out.append(_encode_list(x))
        return True
    if not x:
        out.append("[]")
        return True
    lead = "["
    for m in x:
        out.append(lead)
        lead = ","
        t = type(m)
        if t is str:
            out.append(quote(m))
        elif t is int and -9007199254740992 <= m <= 9007199254740992:
            out.append(str(m))
        elif t is dict:
            if depth >= MAX_DEPTH or not _object(m, out, depth + 1):
                return False
        elif t is list or t is tuple:
            if depth >= MAX_DEPTH or not _array(m, out, depth + 1):
                return False
        elif t is float and (1e-4 <= m < 1e16 or -1e16 < m <= -1e-4) and not m.is_integer():
            out.append(str(m))
        elif t is bool:
            out.append("true" if m else "false")
        elif m is None:
            out.append("null")
        elif t is int or t is float:
            out.append(numeric_text(m))
        else:
            return False
    out.append("]")
    return True


def _plain_scalars(members: list[Any] | tuple[Any, ...]) -> bool:
    """Whether json's encoder prints each member as JSON.stringify does: strings, booleans, null, and the numbers
    whose repr is their Number::toString."""
    for x in members:
        tx = type(x)
        if tx is str or tx is bool or x is None:
            continue
        if tx is int:
            if -9007199254740992 <= x <= 9007199254740992:
                continue
        elif tx is float and (1e-4 <= x < 1e16 or -1e16 < x <= -1e-4) and not x.is_integer():
            continue
        return False
    return True


# Key order, remembered per object shape.

_Leads = list[tuple[str, str]]  # each key in JavaScript's order, with the text before its value: '{"key":' / ',"key":'
_SHAPE_BYTES = 1 << 18  # larger shapes are ordered anew each time
_KEY_BYTES = 176  # a key's share of its shape tuple, the list, its pair and two strings (the key kept alive, its lead)


class _Memo:
    """The leads of each object shape seen, up to about ``limit`` bytes in all; past it the memo starts afresh."""

    __slots__ = ("held", "limit", "shapes")

    def __init__(self, limit: int) -> None:
        self.shapes: dict[tuple[str, ...], _Leads] = {}
        self.held = 0  # bytes, roughly
        self.limit = limit

    def remember(self, shape: tuple[str, ...], leads: _Leads) -> None:
        size = 2 * sum(map(len, shape)) + _KEY_BYTES * len(shape)  # more for text beyond Latin-1
        if size > _SHAPE_BYTES:
            return
        if self.held + size > self.limit:
            self.shapes.clear()
            self.held = 0
        self.shapes[shape] = leads
        self.held += size


_memo = _Memo(2 << 20)
_shapes = _memo.shapes  # the same dict for good (the memo clears it, never replaces it), looked up on every object


def _leads(v: dict[Any, Any]) -> _Leads | None:
    """The keys of ``v`` in JavaScript's order, each with the text before its value; None if a key is not a str."""
    shape = tuple(v)
    for key in shape:
        if type(key) is not str:  # on every object: the lookup below matches by ==, as a StrEnum key equals its text
            return None
    leads = _shapes.get(shape)
    if leads is None:
        leads = [(key, ("," if n else "{") + quote(key) + ":") for n, key in enumerate(js_sorted(list(shape)))]
        _memo.remember(shape, leads)
    return leads
