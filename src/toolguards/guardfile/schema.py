"""The JSON Schema of guard files, built from the registry: the file's own keys here, each kind's ``config`` from its
kind module (``GuardKind.config_schema``), so a new kind is one module and the schema follows.

``toolguards schema`` prints ``build_schema(BUILTIN_KINDS)``, which is committed as ``schemas/toolguards.schema.json``
for editors (a test keeps the two equal); the loader checks files against ``build_schema(registry())``, which adds
the kinds of installed plugins. The pieces several kinds' ``config`` schemas share live beside the kinds
(``toolguards.kinds.fragments``); each schema carries the messages its mistakes get (``x-toolguards-message``, worded
by ``toolguards.guardfile.check``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["PRICES_SCHEMA", "SCHEMA_ID", "build_schema"]

SCHEMA_ID = "https://toolguards.dev/schemas/toolguards.schema.json"

Schema = dict[str, Any]

_PRICE: Schema = {
    "type": "number",
    "minimum": 0,
    "x-toolguards-message": "invalid price {value} — must be a number >= 0 (US dollars per million tokens)",
}
#: The price table, in a guard file (``prices:``) or a file of its own (``--prices``): model-name patterns (``*`` the
#: only wildcard; the first that matches a model wins) to US dollars per million input and output tokens.
PRICES_SCHEMA: Schema = {
    "description": (
        "US dollars per million tokens, by model-name pattern (`*` is the only wildcard; the first match wins): "
        "turns the tokens of the loops that replay and report find into money."
    ),
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "additionalProperties": False,
        "required": ["input", "output"],
        "properties": {"input": _PRICE, "output": _PRICE},
    },
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
            "shadow": {
                "description": (
                    "Shadow mode: the guard counts, decides and follows its reminders to their outcomes, but withholds "
                    "them (and any block) from these agents: true for all, a number for that share of them, chosen "
                    "by a stable hash of the agent's key (an A/B split); default false."
                ),
                "type": ["boolean", "number"],
                "minimum": 0,
                "maximum": 1,
                "default": False,
                "x-toolguards-message": "invalid shadow {value} — must be true, false or a share of the agents "
                                        "from 0 to 1",
            },
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
            "outcomes": {
                "description": "What followed each reminder (changed, repeated, ended), as the engine resolves it.",
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "log": {
                        "description": "A file, relative to this one, that gets one JSON line per resolved outcome.",
                        "type": "string",
                        "minLength": 1,
                    },
                },
            },
            "prices": PRICES_SCHEMA,
        },
        "$defs": {"guard": guard, **defs},
    }
