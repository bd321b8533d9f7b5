"""How JavaScript prints numbers and strings and orders object keys: the text rules of the canonical form.

``number_text`` is ``Number::toString`` from Python's shortest round-trip digits; ``string_text`` is what
``JSON.stringify`` prints for a string (lone surrogates as ``\\udxxx``, an adjacent surrogate pair as one character);
``js_sorted`` is the order ``Object.keys(o).sort()`` then enumeration produce: array-index keys ("0".."4294967294")
first in numeric order, then the rest by UTF-16 code units.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import math
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "SAFE_INT",
    "is_clean",
    "js_sorted",
    "number_text",
    "numeric_text",
    "pair_up",
    "quote",
    "string_text",
]

#: ``JSON.stringify`` of a string without surrogates (C-accelerated where CPython has its ``_json`` module).
quote = json.encoder.encode_basestring
#: Integers up to this size print exactly; beyond it JavaScript sees the nearest double.
SAFE_INT = 2**53


def is_clean(s: str) -> bool:
    """Whether ``s`` holds no surrogate code point."""
    try:
        s.encode()  # strict UTF-8: the quickest scan for surrogates
    except UnicodeEncodeError:
        return False
    return True


# Text of scalars.


def number_text(x: float) -> str:
    """``Number::toString`` of a finite double."""
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
    """``JSON.stringify`` of a number: integers beyond 2**53 as the nearest double, NaN and infinities as null."""
    try:
        x = x if type(x) is int and -SAFE_INT <= x <= SAFE_INT else float(x)
    except OverflowError:
        return "null"
    return str(x) if type(x) is int else number_text(x) if math.isfinite(x) else "null"


# The three patterns are compiled on first use: together about a millisecond, which a process that handles one hook
# event (whose keys are plain ASCII names, whose text holds no surrogate) never needs to pay.


@functools.cache
def _surrogate_pair() -> re.Pattern[str]:
    return re.compile("[\ud800-\udbff][\udc00-\udfff]")


@functools.cache
def _above_d7ff() -> re.Pattern[str]:
    """Where code point order and UTF-16 order can part."""
    return re.compile("[\ud800-\U0010ffff]")


@functools.cache
def _index_key() -> Callable[[str], re.Match[str] | None]:
    """The array-index keys "0".."4294967294" with no leading zero, as one C-level match (filter() runs it without a
    frame)."""
    return re.compile(
        "0|[1-9][0-9]{0,8}|[1-3][0-9]{9}|4[01][0-9]{8}|42[0-8][0-9]{7}|429[0-3][0-9]{6}|4294[0-8][0-9]{5}"
        "|42949[0-5][0-9]{4}|429496[0-6][0-9]{3}|4294967[01][0-9]{2}|42949672[0-8][0-9]|429496729[0-4]"
    ).fullmatch


def pair_up(s: str) -> str:
    """``s`` with each adjacent high+low surrogate joined into the one character JavaScript sees."""
    # The round trip through UTF-16 calls an error handler per surrogate, so it runs only where a pair is (rare:
    # json.loads already joins escaped pairs).
    if not _surrogate_pair().search(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def string_text(s: str) -> str:
    """``JSON.stringify`` of a string."""
    if s.isascii() or is_clean(s):
        return quote(s)
    # Lone surrogates print as JSON.stringify escapes them, "\\udxxx": exactly what backslashreplace writes for a
    # character UTF-8 cannot encode, at C speed (a regex with a callback took seconds on megabytes of them).
    return quote(pair_up(s)).encode("utf-8", "backslashreplace").decode("utf-8")


# Key order.


def js_sorted(keys: list[str]) -> list[str]:
    """``keys`` in the order JavaScript enumerates an object built with them sorted."""
    ordered = sorted(keys)
    # Array-index keys start with a digit, so in code point order they all come before ":" (among a few others).
    low = bisect.bisect_left(ordered, ":")
    index = list(filter(_index_key(), ordered[:low])) if low else []
    if index:
        index.sort(key=int)
        rest = list(itertools.filterfalse(_index_key(), ordered[:low])) + ordered[low:]
    else:
        rest = ordered
    joined = "".join(rest)
    if joined.isascii() or not _above_d7ff().search(joined):
        return index + rest
    return index + sorted(rest, key=lambda k: k.encode("utf-16-be", "surrogatepass"))
