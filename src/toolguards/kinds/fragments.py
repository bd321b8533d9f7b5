"""The pieces of JSON Schema that several kinds' ``config`` schemas share, each with the message its mistakes get.

A kind builds its ``CONFIG_SCHEMA`` from these (``thresholds``, tool-name patterns, template names, the preview's
length), so the same option is checked and worded the same way in every kind; the guard file's own keys and the
assembly of the whole schema are ``toolguards.guardfile.schema``'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..volatile import ArgumentPaths, Normalizers

__all__ = [
    "ignore_arguments_schema",
    "integers_schema",
    "normalizer_problems",
    "path_problems",
    "preview_chars_schema",
    "result_normalizers_schema",
    "template_name_schema",
    "templates_schema",
    "thresholds_schema",
    "tool_patterns_schema",
]

Schema = dict[str, Any]


def integers_schema(name: str, item: str, default: Iterable[int], description: str) -> Schema:
    """A non-empty list of distinct integers >= 2, such as ``thresholds`` or ``repetitions``."""
    return {
        "description": description,
        "type": "array",
        "minItems": 1,
        "uniqueItems": True,
        "items": {
            "type": "integer",
            "minimum": 2,
            "x-toolguards-message": f"invalid {item} {{value}} — every {item} must be an integer >= 2",
        },
        "default": list(default),
        "x-toolguards-messages": {
            "minItems": f"`{name}` must not be empty",
            "uniqueItems": f"`{name}` must not contain duplicates",
        },
    }


def thresholds_schema(default: Iterable[int]) -> Schema:
    """``thresholds``: the run lengths that draw a reminder."""
    return integers_schema("thresholds", "threshold", default,
                           "Consecutive counts that trigger a reminder; normalized ascending.")


def tool_patterns_schema(description: str) -> Schema:
    """``include`` / ``exclude``: tool-name patterns (``*`` is the only wildcard)."""
    return {
        "description": f"{description} `*` is the only wildcard and a pattern matches the whole name.",
        "type": "array",
        "items": {"type": "string"},
        "default": [],
    }


def preview_chars_schema(default: int) -> Schema:
    """``argumentsPreviewChars``: the longest arguments preview, in code points."""
    return {
        "description": "The longest arguments preview quoted in a reminder, in code points.",
        "type": "integer",
        "minimum": 1,
        "default": default,
        "x-toolguards-message": "invalid argumentsPreviewChars {value} — must be an integer >= 1",
    }


def template_name_schema(default: str | None = None) -> Schema:
    """A template file name, resolved under ``templates/<locale>/``."""
    schema: Schema = {
        "description": "A template file name, resolved under templates/<locale>/.",
        "type": "string",
        "minLength": 1,
    }
    if default is not None:
        schema["default"] = default
    return schema


def templates_schema(defaults: Mapping[str, str]) -> Schema:
    """``templates``: a template name per slot."""
    return {
        "description": "Template file names by slot, resolved under templates/<locale>/.",
        "type": "object",
        "additionalProperties": False,
        "properties": {slot: template_name_schema(default) for slot, default in defaults.items()},
    }


def ignore_arguments_schema() -> Schema:
    """``ignoreArguments``: argument paths left out of the call's key (their syntax is checked by
    ``toolguards.volatile.paths`` when the settings are made, with the message its mistakes get)."""
    return {
        "description": "Argument paths left out of the call's key before it is compared (`options.requestId`; `*` "
                       "is any key or array item; `\\.`, `\\*` and `\\\\` escape inside a key); the reminder "
                       "still quotes the full arguments. See docs/volatile.md.",
        "type": "array",
        "items": {"type": "string", "minLength": 1,
                  "x-toolguards-messages": {"minLength": "an argument path must not be empty"}},
        "uniqueItems": True,
        "default": [],
        "x-toolguards-messages": {"uniqueItems": "`ignoreArguments` must not contain duplicates"},
    }


def result_normalizers_schema(compared: str = "result") -> Schema:
    """``resultNormalizers``: RE2 patterns replaced, in order, in the text that is compared (the patterns are checked
    by ``toolguards.volatile.normalizers`` when the settings are made)."""
    return {
        "description": f"Regular expressions (RE2 syntax) whose matches are replaced, in order, in every string of the "
                       f"{compared} before it is compared; the replacement is literal text. See docs/volatile.md.",
        "type": "array",
        "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["pattern"],
            "properties": {
                "pattern": {"type": "string", "minLength": 1,
                            "x-toolguards-messages": {"minLength": "a normalizer's pattern must not be empty"}},
                "replacement": {"type": "string", "default": ""},
            },
        },
        "default": [],
    }


Problems = list[tuple[tuple[str | int, ...], str]]


def path_problems(paths: ArgumentPaths, at: tuple[str | int, ...] = ()) -> Problems:
    """The mistakes of an ``ignoreArguments`` list (at ``at`` inside the guard's config)."""
    return [((*at, "ignoreArguments", index), message) for index, message in paths.problems]


def normalizer_problems(normalizers: Normalizers, at: tuple[str | int, ...] = ()) -> Problems:
    """The mistakes of a ``resultNormalizers`` list (at ``at`` inside the guard's config)."""
    return [((*at, "resultNormalizers", index, "pattern"), message) for index, message in normalizers.problems]
