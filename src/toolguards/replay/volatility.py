"""What the report's suggestion learns from two calls that differ: whether they differ only in a volatile part, and
the ``resultNormalizers`` or ``ignoreArguments`` entry that would have left it out (see ``suggest``).

- Two results differ only in a volatile field when they have the same shape and every string that differs does so
  only in numbers labelled as an id or a time: the words before the number on its line end with one of ``LABELS``
  (``Process Group PGID: 7355`` against ``… 7363``, ``fetched at 12:00:01``, ``request 81``). The normalizer is those
  words and the number's shape (``Process Group PGID: \\d+``), checked to make the two results equal before it is
  proposed. A number labelled otherwise (``Progress: 45%``, ``done 3``) may be progress, which ``resultAware`` must
  see: such a change is not volatile.
- Two calls' arguments differ only in a volatile argument when they have the same shape and differ in at most
  ``MAX_PATHS`` places, each a string on both sides (free text, an id): a number (an offset, a limit) is taken for
  a real argument. Array indexes become ``*`` in the path.

Whether a volatile-looking part is volatile is for the reader to judge (a job's ``Progress: 45%`` is progress, not a
process id): the page shows the calls it learned from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..canonical import canonicalize
from ..volatile import Normalizer, Normalizers

__all__ = ["LABELS", "MAX_PATHS", "argument_differences", "result_normalizers"]

#: How many argument places may differ for the difference to count as volatile.
MAX_PATHS = 3
#: The most words before a number that name it in a normalizer.
CONTEXT_CHARS = 40
_NUMBER = re.compile(r"\d+(?:[-:.T]\d+)*")
#: The last words of a label that makes a number an id or a time (case aside, an `s` for the plural allowed).
LABELS = frozenset({
    "id", "pid", "pgid", "ppid", "uuid", "guid", "request", "req", "trace", "span", "session", "token", "nonce",
    "seed", "port", "handle", "time", "timestamp", "date", "at", "on", "took", "elapsed", "duration", "latency", "ms",
    "seconds", "started", "finished", "updated", "modified", "created",
})
_LAST_WORD = re.compile(r"([^\W\d_]+)[^\w\n]*$")
_RE2_SPECIAL = frozenset("\\.+*?()|[]{}^$")

Path = tuple[str | None, ...]


def result_normalizers(before: Any, after: Any, base: Normalizers) -> tuple[Normalizer, ...] | None:
    """The normalizers that make ``after`` equal ``before`` once ``base`` (the guard's own) has been applied; None
    when the two differ in more than volatile numbers, or are equal."""
    before, after = base.apply(before), base.apply(after)
    pairs: list[tuple[str, str]] = []
    if not _strings_apart(before, after, pairs, 0) or not pairs:
        return None
    found: dict[Normalizer, None] = {}
    for old, new in pairs:
        named = _numbers_apart(old, new)
        if named is None:
            return None
        found.update(dict.fromkeys(named))
    derived = Normalizers((*base.items, *found))
    if derived.problems or canonicalize(derived.apply(before)) != canonicalize(derived.apply(after)):
        return None
    return tuple(found)


def _strings_apart(a: Any, b: Any, pairs: list[tuple[str, str]], depth: int) -> bool:
    """Collect the strings that differ between two values of the same shape; False when the shapes differ or
    anything else does."""
    if depth > 64:
        return False
    if isinstance(a, str) and isinstance(b, str):
        if a != b:
            pairs.append((a, b))
        return True
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(_strings_apart(a[k], b[k], pairs, depth + 1) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_strings_apart(x, y, pairs, depth + 1) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _numbers_apart(a: str, b: str) -> list[Normalizer] | None:
    """The normalizers of the numbers in which two strings differ (None: they differ in more than numbers, or a
    number has no words before it on its line)."""
    split_a, split_b = _NUMBER.split(a), _NUMBER.split(b)
    numbers_a, numbers_b = _NUMBER.findall(a), _NUMBER.findall(b)
    if split_a != split_b or len(numbers_a) != len(numbers_b):
        return None
    found = []
    for index, (x, y) in enumerate(zip(numbers_a, numbers_b, strict=True)):
        if x == y:
            continue
        line = split_a[index].rsplit("\n", 1)[-1]
        context = line[-CONTEXT_CHARS:]
        if len(line) > CONTEXT_CHARS and " " in context:
            context = context[context.index(" ") + 1 :]  # whole words only
        label = _LAST_WORD.search(context)
        word = label.group(1).lower() if label else ""
        if word not in LABELS and word.removesuffix("s") not in LABELS:
            return None
        shape = _shape(x)
        if shape != _shape(y):
            return None  # 7 against 7.5: not one field of one shape
        found.append(Normalizer(_escaped(context) + shape, f"{context}<n>"))
    return found


def _shape(number: str) -> str:
    """The pattern of a number's shape: ``12:00:01`` is ``\\d+:\\d+:\\d+``."""
    return "".join("\\d+" if piece.isdigit() else _escaped(piece) for piece in re.split(r"(\d+)", number) if piece)


def _escaped(text: str) -> str:
    return "".join(f"\\{char}" if char in _RE2_SPECIAL else char for char in text)


def argument_differences(a: Any, b: Any) -> frozenset[Path] | None:
    """The places (array indexes as ``*``) where two argument values differ, each a string on both sides; None when
    they differ otherwise, in more than ``MAX_PATHS`` places, or not at all."""
    found: set[Path] = set()
    if not _places_apart(a, b, (), found) or not found or len(found) > MAX_PATHS:
        return None
    return frozenset(found)


def _places_apart(a: Any, b: Any, at: Path, found: set[Path]) -> bool:
    if len(found) > MAX_PATHS or len(at) > 16:
        return False
    if isinstance(a, str) and isinstance(b, str):
        if a != b:
            if not at:
                return False  # the whole arguments are a string: nothing to name
            found.add(at)
        return True
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b) or not all(isinstance(key, str) for key in a):
            return False
        return all(_places_apart(a[key], b[key], (*at, key), found) for key in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_places_apart(x, y, (*at, None), found) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
