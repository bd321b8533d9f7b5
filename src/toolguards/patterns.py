"""Tool-name patterns for include/exclude: ``*`` is the only wildcard and a pattern matches the whole name.

This is the reference's rule exactly: every other character is literal (``pr.be`` does not match ``probe``, ``pr?be``
neither), matching is case-sensitive, and — because the reference turns ``*`` into a JavaScript ``.*`` without the
dotAll flag — ``*`` does not match a line break (\\n, \\r, U+2028, U+2029). Patterns are predicates over whatever tools
exist at call time: a pattern that matches no tool is not an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["ToolFilter", "compile_pattern"]

_ANY_RUN = "[^\n\r\u2028\u2029]*"
# Distinct tool names are few; the cap only bounds a host that invents names without end.
_CACHE_LIMIT = 4096


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The regular expression that fully matches the names ``pattern`` stands for."""
    return re.compile(_ANY_RUN.join(re.escape(part) for part in pattern.split("*")))


class ToolFilter:
    """Tracked = (include is empty or some include pattern matches) and no exclude pattern matches."""

    __slots__ = ("_cache", "_exclude", "_include", "exclude", "include")

    def __init__(self, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> None:
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self._include = tuple(compile_pattern(p) for p in self.include)
        self._exclude = tuple(compile_pattern(p) for p in self.exclude)
        self._cache: dict[str, bool] = {}

    def __call__(self, tool: str) -> bool:
        """Whether calls to ``tool`` are tracked."""
        known = self._cache.get(tool)
        if known is not None:
            return known
        tracked = (not self._include or any(p.fullmatch(tool) for p in self._include)) and not any(
            p.fullmatch(tool) for p in self._exclude
        )
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[tool] = tracked
        return tracked
