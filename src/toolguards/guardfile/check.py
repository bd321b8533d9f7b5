"""The JSON Schema check: jsonschema finds the errors, this module words them and gives each its position.

Messages are ours, chosen from each error's validator and path (never from jsonschema's own wording). A subschema may
carry its message in the annotation ``x-toolguards-message`` (for any failing keyword) or ``x-toolguards-messages``
(per keyword), with ``{value}`` and ``{enum}`` filled in; everything else gets the generic wording below.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from ..guard import GuardKind
from ..kinds import BUILTIN_KINDS
from .diagnostics import Diagnostic, format_json_path
from .document import JsonPath, Position, PositionedDocument
from .schema import build_schema

__all__ = ["builtin_schema", "document_diagnostics", "kinds_schema", "schema_diagnostics"]

_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def kinds_schema(kinds: Mapping[str, GuardKind]) -> dict[str, Any]:
    """The JSON Schema of a guard file whose guards may be of these kinds."""
    return build_schema({name: kind.config_schema for name, kind in kinds.items()})


@functools.cache
def builtin_schema() -> Mapping[str, Any]:
    """The schema for the built-in kinds: what ``toolguards schema`` prints and schemas/toolguards.schema.json holds."""
    return kinds_schema(BUILTIN_KINDS)


# One validator per set of kinds (a process sees one registry, and tests a few): building one compiles the schema.
_VALIDATORS: dict[tuple[tuple[str, int], ...], Draft202012Validator] = {}


def _validator(kinds: Mapping[str, GuardKind]) -> Draft202012Validator:
    key = tuple((name, id(kind)) for name, kind in kinds.items())
    validator = _VALIDATORS.get(key)
    if validator is None:
        if len(_VALIDATORS) >= 8:
            _VALIDATORS.clear()
        validator = _VALIDATORS[key] = Draft202012Validator(kinds_schema(kinds))
    return validator


def _show(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return json.dumps(value, ensure_ascii=False)


def _actual_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {_show(value)}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {_show(value)}"
    if isinstance(value, str):
        return f"the string {_show(value)}"
    return _show(value)


def _expected_type(expected: str | list[str]) -> str:
    names = [expected] if isinstance(expected, str) else expected
    return " or ".join(_TYPE_NAMES.get(name, name) for name in names)


def _known_keys(schema: Mapping[str, Any]) -> list[str]:
    return list(schema.get("properties", {}))


def _unknown_key_message(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    expected = ", ".join(f"`{name}`" for name in known) or "none"
    return f"unknown key `{key}` (expected one of: {expected}){hint}"


def _custom(error: ValidationError) -> str | None:
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    text = schema.get("x-toolguards-messages", {}).get(error.validator) or schema.get("x-toolguards-message")
    if text is None:
        return None
    enum = ", ".join(f"`{item}`" for item in schema.get("enum", ()))
    return str(text).format(value=_show(error.instance), enum=enum)


def _generic(error: ValidationError) -> str:
    rule, value, instance = error.validator, cast(Any, error.validator_value), error.instance
    if rule == "type":
        return f"must be {_expected_type(value)}, not {_actual_type(instance)}"
    if rule == "enum":
        return f"must be one of {', '.join(_show(item) for item in value)}, not {_show(instance)}"
    if rule == "const":
        return f"must be {_show(value)}, not {_show(instance)}"
    if rule == "minLength":
        return "must not be empty"
    if rule == "pattern":
        return f"{_show(instance)} does not match the pattern `{value}`"
    if rule == "minimum":
        return f"must be >= {value}, not {_show(instance)}"
    if rule == "maximum":
        return f"must be <= {value}, not {_show(instance)}"
    if rule == "minItems":
        return "must not be empty" if value == 1 else f"must have at least {value} items"
    if rule == "uniqueItems":
        return "must not contain duplicates"
    return f"fails the schema rule `{rule}`"


def _problems(error: ValidationError) -> Iterator[tuple[JsonPath, bool, str]]:
    """(path, at the key?, message) for one jsonschema error; some errors name several keys."""
    path: JsonPath = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = _known_keys(schema)
        for key in error.instance:
            if key not in known:
                yield (*path, key), True, _unknown_key_message(key, known)
        return
    if error.validator == "required" and isinstance(error.instance, dict):
        for key in cast(list[str], error.validator_value):
            if key not in error.instance:
                yield path, False, f"missing required key `{key}`"
        return
    yield path, False, _custom(error) or _generic(error)


def _locate(document: PositionedDocument, path: JsonPath, at_key: bool) -> Position | None:
    return document.key_position(path) if at_key else document.value_position(path)


def schema_diagnostics(
    display: str, document: PositionedDocument, kinds: Mapping[str, GuardKind] = BUILTIN_KINDS
) -> list[tuple[JsonPath, Diagnostic]]:
    """Every schema problem of ``document`` (a file of guards of these kinds) as (JSON path, positioned diagnostic),
    each once."""
    return _diagnostics(display, document, _validator(kinds))


def document_diagnostics(
    display: str, document: PositionedDocument, schema: Mapping[str, Any]
) -> list[tuple[JsonPath, Diagnostic]]:
    """Every problem of ``document`` against another schema of ours (a ``--prices`` file's), worded and placed alike."""
    return _diagnostics(display, document, Draft202012Validator(schema))


def _diagnostics(
    display: str, document: PositionedDocument, validator: Draft202012Validator
) -> list[tuple[JsonPath, Diagnostic]]:
    seen: set[Diagnostic] = set()
    found: list[tuple[JsonPath, Diagnostic]] = []
    for error in _flatten(validator.iter_errors(document.data)):
        for path, at_key, message in _problems(error):
            where = _locate(document, path, at_key)
            diagnostic = Diagnostic(
                display,
                where.line if where else None,
                where.column if where else None,
                f"{format_json_path(path)}: {message}",
            )
            if diagnostic not in seen:
                seen.add(diagnostic)
                found.append((path, diagnostic))
    return found


def _flatten(errors: Iterable[ValidationError]) -> Iterator[ValidationError]:
    # A failing anyOf/oneOf says only "no branch matched"; its branches' errors are the useful ones.
    for error in errors:
        if error.validator in ("anyOf", "oneOf") and error.context:
            yield from _flatten(error.context)
        else:
            yield error
