"""How JavaScript prints numbers and strings and orders object keys: the text rules of the canonical form.

``number_text`` is ``Number::toString`` from Python's shortest round-trip digits; ``string_text`` is what
``JSON.stringify`` prints for a string (lone surrogates as ``\\udxxx``, an adjacent surrogate pair as one character);
``js_sorted`` and ``index_order`` give the order ``Object.keys(o).sort()`` then enumeration produce: array-index keys
("0".."4294967294") first in numeric order, then the rest by UTF-16 code units.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any

__all__ = [
    "SAFE_INT",
    "index_order",
    "is_clean",
    "js_sorted",
    "number_text",
    "numeric_text",
    "pair_up",
    "quote",
    "string_text",
    "utf16_order_differs",
]

quote = json.encoder.encode_basestring
#: Integers up to this size print exactly; beyond it JavaScript sees the nearest double.
SAFE_INT = 2**53
_ABOVE_D7FF = re.compile("[\ud800-\U0010ffff]")  # where code point order and UTF-16 order can part


def utf16_order_differs(text: str) -> bool:
    """Whether keys made of these characters might sort differently by UTF-16 code units than by code points."""
    return not text.isascii() and _ABOVE_D7FF.search(text) is not None


def is_clean(s: str) -> bool:
    try:
        s.encode()  # strict UTF-8: the quickest scan for surrogates
    except UnicodeEncodeError:
        return False
    return True


# Text of scalars and key order.


def number_text(x: float) -> str:
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


def numeric_text(x: int | float) -> str:
    try:
        x = x if type(x) is int and -SAFE_INT <= x <= SAFE_INT else float(x)
    except OverflowError:
        return "null"
    return str(x) if type(x) is int else number_text(x) if math.isfinite(x) else "null"


_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def pair_up(s: str) -> str:
    # Adjacent high+low surrogates are one character to JavaScript. The round trip through UTF-16 calls an error
    # handler per surrogate, so it runs only where a pair is (rare: json.loads already joins escaped pairs).
    if not _SURROGATE_PAIR.search(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def string_text(s: str) -> str:
    if s.isascii() or is_clean(s):
        return quote(s)
    # Lone surrogates print as JSON.stringify escapes them, "\\udxxx": exactly what backslashreplace writes for a
    # character UTF-8 cannot encode, at C speed (a regex with a callback took seconds on megabytes of them).
    return quote(pair_up(s)).encode("utf-8", "backslashreplace").decode("utf-8")


# The array-index keys "0".."4294967294" with no leading zero, as one C-level match (filter() runs it without a frame).
_INDEX_KEY = re.compile(
    "0|[1-9][0-9]{0,8}|[1-3][0-9]{9}|4[01][0-9]{8}|42[0-8][0-9]{7}|429[0-3][0-9]{6}|4294[0-8][0-9]{5}"
    "|42949[0-5][0-9]{4}|429496[0-6][0-9]{3}|4294967[01][0-9]{2}|42949672[0-8][0-9]|429496729[0-4]"
).fullmatch


def _is_index(k: str) -> bool:
    return _INDEX_KEY(k) is not None


def _index_keys_in_order(keys: list[str]) -> bool:
    # In code point order, array-index keys must come first and by length, which makes their order numeric.
    width, others = 0, False
    for k in keys:
        if k >= ":":
            return True
        if _INDEX_KEY(k) is None:
            others = True
        elif others or len(k) < width:
            return False
        else:
            width = len(k)
    return True


# Objects with a key below ":" are checked on every call; their key sets repeat from call to call (one tool, one
# schema), so the verdict is remembered per tuple of keys, within bounds.
_ORDER_CACHE: dict[tuple[str, ...], list[str] | None] = {}
_ORDER_CACHE_SIZE = 256
_ORDER_CACHE_KEYS = 64
_ORDER_CACHE_CHARS = 1024
_MISS: Any = object()


def index_order(v: dict[str, Any]) -> list[str] | None:
    """The keys of ``v`` in JavaScript's order where array-index keys make it differ from code point order."""
    shape = tuple(v)
    found = _ORDER_CACHE.get(shape, _MISS)
    if found is not _MISS:
        return found  # type: ignore[no-any-return]
    keys = sorted(shape)  # TypeError for keys that are not all strings
    order = None if _index_keys_in_order(keys) else js_sorted(keys)
    if len(shape) <= _ORDER_CACHE_KEYS and sum(map(len, shape)) <= _ORDER_CACHE_CHARS:
        if len(_ORDER_CACHE) >= _ORDER_CACHE_SIZE:
            _ORDER_CACHE.clear()
        _ORDER_CACHE[shape] = order
    return order


def js_sorted(keys: list[str]) -> list[str]:
    index = list(filter(_INDEX_KEY, keys))
    if index:
        index.sort(key=int)
        rest = list(itertools.filterfalse(_INDEX_KEY, keys))
    else:
        rest = keys
    joined = "".join(rest)
    if joined.isascii() or not _ABOVE_D7FF.search(joined):
        return index + sorted(rest)
    return index + sorted(rest, key=lambda k: k.encode("utf-16-be", "surrogatepass"))


