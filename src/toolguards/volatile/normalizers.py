"""Result normalizers (``resultNormalizers``): regular expressions whose matches are replaced before results compare.

Each normalizer is ``{pattern, replacement}``; the list is applied in order, each to the text the one before it left,
to every string in a result (the result itself when it is a string, and every string value nested in its objects and
arrays; keys are left alone), and the results are then compared as usual. ``Process Group PGID: \\d+`` replaced by
``Process Group PGID: <pgid>`` makes two shell results that differ only in their process group the same result.

- The patterns are RE2's syntax (``google-re2``): Perl's classes, repetition, alternation, groups, ``(?i)`` and the
  like, without backreferences or lookaround, which RE2 rejects at load. RE2 matches in time linear in the text and
  never backtracks, so a pattern cannot stall a host on a long result as ``(a+)+$`` stalls Python's ``re``: a
  backtracking engine's time grows exponentially on such a pattern, and quadratically on one as plain as ``\\w+:``.
- ``^`` and ``$`` are the string's ends unless the pattern starts with ``(?m)``; ``.`` does not match a line break
  unless ``(?s)``; ``\\d`` and ``\\w`` are ASCII.
- The replacement is literal text, with no group references: the normalized text is only compared, never shown.
- A match of no characters replaces nothing (a pattern such as ``x*`` changes only the runs of ``x`` it finds).

Strings nested deeper than ``MAX_DEPTH`` containers are compared as they are.

A pattern RE2 rejects is kept in ``problems`` (its index, the message) rather than raised, so that the guard file's
loader reports it with its position; such settings never build a guard. RE2 is imported only by a guard file that
has normalizers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..values import frozen

__all__ = ["MAX_DEPTH", "NO_NORMALIZERS", "Normalizer", "Normalizers", "normalizers_of"]


@frozen
class Normalizer:
    """One ``{pattern, replacement}`` entry."""

    pattern: str
    replacement: str = ""


class Normalizers:
    """An ordered list of normalizers, compiled by RE2 once; a value like a frozen dataclass of its ``items`` (equal,
    hashed and shown by them), written out so that a guard file without normalizers imports nothing more."""

    __slots__ = ("_compiled", "_unanchored", "items", "problems")

    items: tuple[Normalizer, ...]
    #: (index, message) of each entry RE2 refused, for the loader to report with its position
    problems: tuple[tuple[int, str], ...]
    _compiled: tuple[tuple[Any, bytes], ...]
    _unanchored: Any

    def __init__(self, items: tuple[Normalizer, ...] = ()) -> None:
        set_ = object.__setattr__
        set_(self, "items", tuple(items))
        set_(self, "problems", ())
        set_(self, "_compiled", ())
        set_(self, "_unanchored", None)
        self._compile()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __eq__(self, other: object) -> bool:
        return self.items == other.items if type(other) is Normalizers else NotImplemented

    def __hash__(self) -> int:
        return hash(self.items)

    def __repr__(self) -> str:
        return f"Normalizers(items={self.items!r})"

    def _compile(self) -> None:
        if not self.items:
            return
        compiled, problems = [], []
        try:
            engine: Any = _engine()
        except ImportError as error:
            message = f"result normalizers need the google-re2 package (pip install google-re2): {error}"
            object.__setattr__(self, "problems", tuple((index, message) for index in range(len(self.items))))
            return
        for index, normalizer in enumerate(self.items):
            try:
                pattern = normalizer.pattern.encode("utf-8")
                replacement = normalizer.replacement.encode("utf-8")
            except UnicodeEncodeError:
                problems.append((index, "the pattern and the replacement must be valid Unicode text"))
                continue
            regexp = engine.RE2(pattern, _options(engine))
            if not regexp.ok():
                reason = regexp.error().decode("utf-8", "replace")
                problems.append((index, f"not an RE2 pattern: {reason}"))
                continue
            compiled.append((regexp, replacement))
        object.__setattr__(self, "problems", tuple(problems))
        object.__setattr__(self, "_compiled", tuple(compiled))
        object.__setattr__(self, "_unanchored", engine.RE2.Anchor.UNANCHORED)

    def __bool__(self) -> bool:
        return bool(self.items)

    def text(self, text: str) -> str:
        """``text`` with every normalizer applied in order (``text`` itself when none matched)."""
        data = text.encode("utf-8", "surrogatepass")
        changed = False
        for regexp, replacement in self._compiled:
            replaced = _replace(regexp, self._unanchored, replacement, data)
            if replaced is not None:
                data, changed = replaced, True
        # Decoding never fails: bytes that are not UTF-8 (a lone surrogate cut by a match) become escapes.
        return data.decode("utf-8", "surrogateescape") if changed else text

    def apply(self, value: Any) -> Any:
        """``value`` with every string in it normalized (``value`` itself when nothing changed)."""
        return _apply(self, value, 0)


#: No normalizers: results compare as they are.
NO_NORMALIZERS = Normalizers()

#: How deep ``apply`` looks for strings; deeper values are compared as they are.
MAX_DEPTH = 64


def _apply(normalizers: Normalizers, value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return normalizers.text(value)
    if depth >= MAX_DEPTH:
        return value
    if isinstance(value, Mapping):
        pairs: list[tuple[Any, Any]] = list(dict.items(value) if isinstance(value, dict) else value.items())
        done = [(key, _apply(normalizers, item, depth + 1)) for key, item in pairs]
        same = all(new is old for (_, new), (_, old) in zip(done, pairs, strict=True))
        return value if same else dict(done)
    if isinstance(value, (list, tuple)):
        items = [_apply(normalizers, item, depth + 1) for item in value]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    return value


def _engine() -> Any:
    # The binding google-re2's own `re2` module is written on: its compiled RE2 and Match(anchor, text, pos, end)
    # over UTF-8 bytes. The module's str API maps every match's offsets back to characters, which costs four times
    # as much per match; here the text is encoded once and matched as bytes.
    from re2 import _re2  # type: ignore[import-untyped]  # noqa: PLC0415 - only a file with normalizers pays for RE2

    return _re2


def _options(engine: Any) -> Any:
    options = engine.RE2.Options()
    options.log_errors = False  # RE2 would print a rejected pattern on stderr, which a hook keeps for its own line
    options.never_capture = True  # only the whole match is used: groups cost time and are never reported
    return options


def _replace(regexp: Any, unanchored: Any, replacement: bytes, data: bytes) -> bytes | None:
    """``data`` with every non-empty match replaced (None: nothing matched). Each search starts where the last match
    ended, so the whole costs one pass of RE2 over the text, and one call per match."""
    end = len(data)
    pieces: list[bytes] = []
    kept = position = 0
    while position <= end:
        start, stop = regexp.Match(unanchored, data, position, end)[0]
        if start < 0:
            break
        if stop > start:
            pieces += (data[kept:start], replacement)
            kept = position = stop
            continue
        position = start + 1  # an empty match replaces nothing: look again from the next character
        while position < end and 0x80 <= data[position] < 0xC0:
            position += 1
    if not pieces:
        return None
    pieces.append(data[kept:])
    return b"".join(pieces)


def normalizers_of(entries: Sequence[Mapping[str, Any]]) -> Normalizers:
    """The normalizers of a schema-valid ``resultNormalizers`` list."""
    return Normalizers(tuple(Normalizer(str(e["pattern"]), str(e.get("replacement", ""))) for e in entries))
