"""What a guard compares of a call once volatile parts are left out: its key without the ignored arguments, its result
and its error after the normalizers.

Each function is chosen once per set of options, so that a guard without them compares exactly as before, through
the very functions it used before (``guard.call_key``, ``Call.canonical_result``), at no extra cost per call.
"""

from __future__ import annotations

from collections.abc import Callable

from ..canonical import canonicalize
from ..guard import Call, call_key
from .normalizers import Normalizers
from .paths import ArgumentPaths

__all__ = ["KeyOf", "ResultOf", "error_text_of", "key_of", "result_of"]

#: A call's key: (tool name, canonical arguments).
KeyOf = Callable[[Call], tuple[str, str]]
#: A call's result as compared: canonical text, or None when the call has none.
ResultOf = Callable[[Call], "str | None"]


def key_of(paths: ArgumentPaths) -> KeyOf:
    """The call key with ``paths`` left out of the arguments before the canonical form is made (``call_key`` itself
    when there are no paths); the canonical form of the full arguments stays the call's own, for the previews."""
    if not paths:
        return call_key

    def key(call: Call) -> tuple[str, str]:
        arguments = call.event.arguments
        pruned = paths.prune(arguments)
        return call_key(call) if pruned is arguments else (call.tool, canonicalize(pruned))

    return key


def result_of(normalizers: Normalizers) -> ResultOf:
    """The canonical text of the call's result with every string in it normalized (``Call.canonical_result`` itself
    when there are no normalizers)."""
    if not normalizers:
        return Call.canonical_result

    def result(call: Call) -> str | None:
        value = call.event.result
        if value is None:
            return None
        normalized = normalizers.apply(value)
        return call.canonical_result() if normalized is value else canonicalize(normalized)

    return result


def error_text_of(normalizers: Normalizers) -> Callable[[str], str]:
    """The error text as compared: normalized (the text itself when there are no normalizers)."""
    if not normalizers:
        return str
    return normalizers.text
