"""The hosts' config files as ``toolguards doctor`` reads them: JSON (strict, or with comments as Gemini CLI and VS Code
allow), TOML (Codex), and a check against a schema, every problem as one sentence of ours naming the key.

``read_json`` and ``read_toml`` never raise: a missing file is ``Document.exists`` false, one that does not parse holds
the reason in ``error`` (``is not valid JSON (line 3, column 5: Expecting ',' delimiter)``). ``schema_problems``
words each jsonschema error from its validator and path (``hooks.PostToolUse[0].matcher is a number, not a
string``), never from the library's own text. The schemas the checks use ship in ``doctor/schemas/`` (see its README
for where each comes from): ``packaged_schema(name)``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import tomlkit
from tomlkit.exceptions import TOMLKitError

from ..guardfile.diagnostics import format_json_path

__all__ = ["Document", "json_type", "packaged_schema", "read_json", "read_toml", "schema_problems"]

_COMMENTS = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', re.DOTALL)


@dataclass(frozen=True)
class Document:
    """A config file: its parsed value (None when it is missing or does not parse) and why it does not parse."""

    path: Path
    value: Any = None
    error: str | None = None
    exists: bool = True

    @property
    def usable(self) -> bool:
        """It exists and parsed into an object."""
        return self.exists and self.error is None and isinstance(self.value, dict)


def json_type(value: Any) -> str:
    """The JSON name of a value's type (``object``, ``list``, ``string``…)."""
    if value is None:
        return "null"
    names = {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number"}
    return names.get(type(value), type(value).__name__)


def _text(path: Path) -> tuple[str | None, str | None]:
    """The file's text (None: missing), or why it cannot be read."""
    try:
        return path.read_bytes().decode("utf-8-sig"), None
    except FileNotFoundError:
        return None, None
    except UnicodeDecodeError as exc:
        return None, f"is not UTF-8 text ({exc.reason} at byte {exc.start})"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"


def read_json(path: Path, comments: bool = False) -> Document:
    """A JSON file (``comments``: ``//`` and ``/* */`` comments allowed); an empty file is an empty object."""
    text, error = _text(path)
    if error is not None:
        return Document(path, error=error)
    if text is None:
        return Document(path, exists=False)
    if comments:
        text = _COMMENTS.sub(lambda found: found.group(1) or "", text)
    if not text.strip():
        return Document(path, {})
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return Document(path, error=f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    if not isinstance(value, dict):
        return Document(path, value, f"holds a JSON {json_type(value)}, not an object")
    return Document(path, value)


def read_toml(path: Path) -> Document:
    """A TOML file, as plain Python values."""
    text, error = _text(path)
    if error is not None:
        return Document(path, error=error)
    if text is None:
        return Document(path, exists=False)
    try:
        return Document(path, tomlkit.parse(text).unwrap())
    except TOMLKitError as exc:
        return Document(path, error=f"is not valid TOML ({exc})")


@functools.cache
def packaged_schema(name: str) -> Mapping[str, Any]:
    """A schema shipped in ``toolguards/doctor/schemas``."""
    found: Mapping[str, Any] = json.loads(
        (resources.files("toolguards.doctor") / "schemas" / name).read_text(encoding="utf-8"))
    return found


def _article(name: str) -> str:
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def _expected(types: Any) -> str:
    names = [{"array": "list", "integer": "whole number"}.get(name, name) for name in
             ([types] if isinstance(types, str) else types)]
    return " or ".join(_article(name) for name in names)


def _message(error: jsonschema.ValidationError) -> list[str]:
    where = f"`{format_json_path(error.absolute_path)}`"
    value, rule, schema = error.instance, error.validator_value, error.schema
    rule_items: list[Any] = list(rule) if isinstance(rule, (list, tuple)) else [rule]
    if error.validator == "type":
        return [f"{where} is {_article(json_type(value))}, not {_expected(rule)}"]
    if error.validator == "required":
        return [f"{where} has no `{name}`" for name in rule_items if isinstance(value, dict) and name not in value]
    if error.validator in ("enum", "const"):
        allowed = rule_items if error.validator == "enum" else [rule]
        return [f"{where} is {json.dumps(value)}, not {' or '.join(json.dumps(item) for item in allowed)}"]
    if error.validator == "exclusiveMinimum":
        return [f"{where} must be more than {rule}"]
    if error.validator == "minLength":
        return [f"{where} must not be empty"]
    if error.validator == "pattern":
        return [f"{where} ({json.dumps(value)}) does not match {rule}"]
    if error.validator == "additionalProperties" and isinstance(value, dict):
        known = schema.get("properties", {}) if isinstance(schema, dict) else {}
        return [f"{where} has a key the schema does not know: `{key}`" for key in value if key not in known]
    return [f"{where} fails the schema's `{error.validator}` rule"]


def schema_problems(schema: Mapping[str, Any], value: Any) -> list[str]:
    """Every way ``value`` fails ``schema``, one sentence each, in document order (empty: it is valid)."""
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors: Iterable[jsonschema.ValidationError] = sorted(
        validator.iter_errors(value),
        key=lambda error: [(0, part, "") if isinstance(part, int) else (1, 0, part) for part in error.absolute_path])
    return list(dict.fromkeys(message for error in errors for message in _message(error)))
