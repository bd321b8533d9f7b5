"""The JSON Schema of guard files, built from the registry: the file's own keys here, each kind's ``config`` from its
kind module (``GuardKind.config_schema``), so a new kind is one module and the schema follows.

``toolguards schema`` prints ``build_schema(BUILTIN_KINDS)``, which is committed as ``schemas/toolguards.schema.json``
for editors (a test keeps the two equal); the loader checks files against ``build_schema(registry())``, which adds
the kinds of installed plugins. The pieces several kinds use (thresholds, tool patterns, template names) are here too,
each with the message its mistakes get (``x-toolguards-message``, see ``schema.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "SCHEMA_ID",
    "build_schema",
    "integers_schema",
    "preview_chars_schema",
    "templates_schema",
    "thresholds_schema",
    "tool_patterns_schema",
]

SCHEMA_ID = "https://toolguards.dev/schemas/toolguards.schema.json"

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


def _def_name(kind: str) -> str:
    words = re.split(r"[^A-Za-z0-9]+", kind)
    return words[0] + "".join(word[:1].upper() + word[1:] for word in words[1:]) + "Config"


def _by_kind(name: str) -> Schema:
    """The condition "this guard is of kind ``name``": its ``kind`` says so, or it has none and its id is ``name``."""
    return {
        "anyOf": [
            {"required": ["kind"], "properties": {"kind": {"const": name}}},
            {"not": {"required": ["kind"]}, "properties": {"id": {"const": name}}},
        ]
    }


def build_schema(config_schemas: Mapping[str, Mapping[str, Any]]) -> Schema:
    """The whole schema of a guard file, for kinds named in order with the JSON Schema of their ``config``."""
    names = list(config_schemas)
    defs: Schema = {}
    guard: Schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["id"],
        "properties": {
            "id": {"description": "Unique within the file; the reminder's source names it.", "type": "string",
                   "minLength": 1},
            "name": {"description": "Optional display name.", "type": "string"},
            "kind": {
                "description": "The guard kind; optional when the id is itself a known kind.",
                "enum": names,
                "x-toolguards-message": "unknown kind {value} (known kinds: {enum})",
            },
            "config": {"type": "object"},
        },
        "allOf": [
            {
                "description": "Without a kind, the id names the kind.",
                "if": {"not": {"required": ["kind"]}},
                "then": {
                    "properties": {
                        "id": {
                            "enum": names,
                            "x-toolguards-message": (
                                "the guard has no `kind` and its id {value} is not a known kind (known kinds: {enum})"
                            ),
                        }
                    }
                },
            },
        ],
    }
    for name, config_schema in config_schemas.items():
        def_name = _def_name(name)
        defs[def_name] = dict(config_schema)
        guard["allOf"].append(
            {"if": _by_kind(name), "then": {"properties": {"config": {"$ref": f"#/$defs/{def_name}"}}}}
        )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "toolguards guard file",
        "description": (
            "Declares the guards a host runs after each tool call. See the README's configuration reference."
        ),
        "type": "object",
        "additionalProperties": False,
        "required": ["guards"],
        "properties": {
            "version": {
                "description": "Format version of this file; only 1 exists.",
                "const": 1,
                "x-toolguards-message": "must be 1, not {value} (the only format version)",
            },
            "locale": {
                "description": "Locale of the reminder templates (a folder under templates/); default en.",
                "type": "string",
                "minLength": 1,
                "pattern": "^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$",
                "x-toolguards-messages": {
                    "pattern": "{value} is not a locale name such as `en` or `zh-CN`",
                    "minLength": "must not be empty",
                },
            },
            "templateDirs": {
                "description": (
                    "Folders, relative to this file, searched for templates/<locale>/... before the shipped templates."
                ),
                "type": "array",
                "items": {"type": "string", "minLength": 1},
            },
            "guards": {
                "description": "The guards, chained in file order (the first is outermost).",
                "type": "array",
                "items": {"$ref": "#/$defs/guard"},
            },
        },
        "$defs": {"guard": guard, **defs},
    }
