"""The volatile parts of a call, left out of what guards compare: argument paths (``ignoreArguments``) dropped from the
key before its canonical form is made (``paths``), and result normalizers (``resultNormalizers``) applied to results
and errors before they compare (``normalizers``); ``keys`` gives a guard the functions that compare a call so.

Exact matching stays the default: a guard without these options compares through the same functions, byte for byte,
as before. The user's page is docs/volatile.md.
"""

from __future__ import annotations

from .keys import KeyOf, ResultOf, error_text_of, key_of, result_of
from .normalizers import NO_NORMALIZERS, Normalizer, Normalizers, normalizers_of
from .paths import NO_PATHS, ArgumentPaths, PathError, format_path, parse_path

__all__ = [
    "NO_NORMALIZERS",
    "NO_PATHS",
    "ArgumentPaths",
    "KeyOf",
    "Normalizer",
    "Normalizers",
    "PathError",
    "ResultOf",
    "error_text_of",
    "format_path",
    "key_of",
    "normalizers_of",
    "parse_path",
    "result_of",
]
