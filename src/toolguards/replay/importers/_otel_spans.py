"""The spans of an ``otel`` input, in any of the shapes that format reads (its docstring is the reference), decoded
into one shape, ``Span``: ids as OTLP writes them, times in nanoseconds since the epoch, attributes as a plain map.

``raw_spans`` finds each span of the input with the line where it starts (OTLP/JSON documents, SDK span lists, one
span a line), or a problem; ``to_span`` decodes one span of either shape.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from ..records import InputError, Record
from ._document import document_or_lines, located, message_list
from ._json import Lines, json_type

__all__ = ["SCOPES", "Span", "is_sdk_span", "raw_spans", "to_span"]

_TOPS = ("resourceSpans", "batches")
#: The names of a resource's list of scopes: OTLP's, and the legacy one Grafana Tempo still exports.
SCOPES = ("scopeSpans", "instrumentationLibrarySpans")
_ROUTES = [(top, scope, "spans") for top in _TOPS for scope in SCOPES] + [("spans",)]
_HEX = re.compile(r"[0-9a-f]+")
_ISO_FRACTION = re.compile(r"\.(\d+)")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)
_SPACE = "\ufeff \t\r\n"


def is_sdk_span(value: Any) -> bool:
    """Whether a value is a span as the OTel Python SDK writes it: a ``context`` with ids, and a ``name``."""
    context = value.get("context") if isinstance(value, dict) else None
    return isinstance(context, dict) and "trace_id" in context and "span_id" in context and "name" in value


def raw_spans(path: str, lines: Lines) -> Iterator[tuple[int, Any] | InputError | Record]:
    """Each span of the input with its line, or a problem."""
    form = document_or_lines(path, lines)
    if isinstance(form, str):
        yield from _one_document(path, form)
        return
    for item in form:
        if isinstance(item, InputError):
            yield item
        elif isinstance(item[1], list):
            yield from ((item[0], span) for span in item[1])
        elif isinstance(item[1], dict):
            yield from _document_spans(item[0], item[1])
        else:
            yield InputError(path, item[0], f"expected a JSON object or array, not {json_type(item[1])}")


def _document_spans(line: int, document: dict[str, Any]) -> Iterator[tuple[int, Any] | Record]:
    """The spans of a document on one line: OTLP, a ``spans`` list, or one span."""
    if not any(key in document for key in (*_TOPS, "spans")):
        if "traceId" in document or "context" in document:
            yield line, document
        else:
            yield Record("skipped", line, text="(unknown document)")
        return
    for top in _TOPS:
        for resource in _entries(line, document, top):
            if isinstance(resource, Record):
                yield resource
                continue
            for scope_key in SCOPES:
                for scope in _entries(line, resource, scope_key):
                    if isinstance(scope, Record):
                        yield scope
                    else:
                        yield from _entries(line, scope, "spans", leaf=True)
    yield from _entries(line, document, "spans", leaf=True)


def _entries(line: int, container: dict[str, Any], key: str, *, leaf: bool = False) -> Iterator[Any]:
    """The entries of the list ``container[key]`` (with the line, for spans): objects, unless they are the spans; a
    skipped record for a value or an entry of the wrong type."""
    if key not in container:
        return
    entries = container[key]
    if not isinstance(entries, list):
        yield Record("skipped", line, text=key)
        return
    for entry in entries:
        if leaf:
            yield line, entry
        elif isinstance(entry, dict):
            yield entry
        else:
            yield Record("skipped", line, text=key)


def _one_document(path: str, text: str) -> Iterator[tuple[int, Any] | InputError | Record]:
    """The spans of a document spread over lines: an array of spans, or an object."""
    if text.lstrip(_SPACE).startswith("["):
        yield from message_list(path, text)
        return
    found = False
    members: dict[str, Any] = {}
    for item in located(path, text, _ROUTES):
        if isinstance(item, InputError):
            yield item
            return
        if item.route in _ROUTES and item.element:
            found = True
            yield item.line, item.value
        elif len(item.route) > 1 or item.route[0] in (*_TOPS, "spans"):
            found = True
            yield Record("skipped", item.line, text=item.route[-1])
        else:
            members[item.route[0]] = item.value
    if not found:
        if is_sdk_span(members) or "traceId" in members:  # one span, pretty-printed
            yield text[: len(text) - len(text.lstrip(_SPACE))].count("\n") + 1, members
        else:
            yield InputError(path, 1, "not an OpenTelemetry trace: no resourceSpans, batches or spans")


@dataclass
class Span:
    """One span of either shape: where it is in the input, its ids, name and times, its attributes, and the message
    of an error status."""

    line: int
    order: int
    trace: str
    span: str | None
    parent: str | None
    name: str
    start: int
    end: int | None
    attributes: dict[str, Any]
    failure: str | None

    def operation(self, operation: str) -> bool:
        """Whether the span is the GenAI ``operation``: its ``gen_ai.operation.name``, else its name's start."""
        kind = self.attributes.get("gen_ai.operation.name")
        return kind == operation if kind is not None else self.name.startswith(operation)


def to_span(line: int, order: int, raw: Any) -> Span | None:
    """A span of either shape, or None when it lacks a trace id, a name or a start time."""
    if not isinstance(raw, dict):
        return None
    return _otlp_span(line, order, raw) if "traceId" in raw else _sdk_span(line, order, raw)


def _otlp_span(line: int, order: int, raw: dict[str, Any]) -> Span | None:
    trace, name, start = _hex(raw.get("traceId"), 32), raw.get("name"), _nanos(raw.get("startTimeUnixNano"))
    if trace is None or not isinstance(name, str) or start is None:
        return None
    status = raw.get("status")
    code = status.get("code") if isinstance(status, dict) else None
    message = status.get("message") if isinstance(status, dict) else None
    failed = code in (2, "2", "STATUS_CODE_ERROR")
    return Span(
        line,
        order,
        trace,
        _hex(raw.get("spanId"), 16),
        _hex(raw.get("parentSpanId"), 16),
        name,
        start,
        _nanos(raw.get("endTimeUnixNano")),
        _otlp_attributes(raw.get("attributes")),
        _failure(failed, message),
    )


def _sdk_span(line: int, order: int, raw: dict[str, Any]) -> Span | None:
    context, name, start = raw.get("context"), raw.get("name"), _nanos(raw.get("start_time"))
    trace = _hex(context.get("trace_id"), 32) if isinstance(context, dict) else None
    if trace is None or not isinstance(context, dict) or not isinstance(name, str) or start is None:
        return None
    parent = raw.get("parent")  # any-agent keeps the parent's context; the SDK's own to_json its id
    attributes = raw.get("attributes")
    status = raw.get("status")
    code = status.get("status_code") if isinstance(status, dict) else None
    message = status.get("description") if isinstance(status, dict) else None
    failed = isinstance(code, str) and code.rpartition(".")[2].upper() == "ERROR"  # "ERROR", "StatusCode.ERROR"
    return Span(
        line,
        order,
        trace,
        _hex(context.get("span_id"), 16),
        _hex(parent.get("span_id") if isinstance(parent, dict) else raw.get("parent_id"), 16),
        name,
        start,
        _nanos(raw.get("end_time")),
        dict(attributes) if isinstance(attributes, dict) else {},
        _failure(failed, message),
    )


def _failure(failed: bool, message: Any) -> str | None:
    """An error status's message (``error`` when it has none), or None for any other status."""
    if not failed:
        return None
    return message if isinstance(message, str) and message else "error"


def _hex(value: Any, width: int) -> str | None:
    """An id as OTLP writes it, ``width`` lowercase hex digits, from a hex string (``0x`` or not) or an integer;
    another string as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:0{width}x}"
    if not isinstance(value, str) or not value.strip():
        return None
    digits = value.strip().lower().removeprefix("0x")
    return digits.zfill(width) if _HEX.fullmatch(digits) else value


def _nanos(value: Any) -> int | None:
    """A time in nanoseconds since the epoch: a number, a string of digits, or an ISO 8601 time (UTC unless it says)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None  # 1e400 decodes as infinity
    if not isinstance(value, str):
        return None
    if value.isascii() and value.isdigit():  # "²".isdigit() too, and int() refuses it
        return int(value)
    try:
        # Python 3.10 reads neither "Z" nor fractions of other than 3 or 6 digits: microseconds, padded or cut
        text = _ISO_FRACTION.sub(lambda match: "." + (match[1] + "00000")[:6], value.strip())
        moment = datetime.fromisoformat(text.removesuffix("Z") + ("+00:00" if text.endswith("Z") else ""))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment - _EPOCH) // _MICROSECOND * 1000


def _otlp_attributes(pairs: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for pair in pairs if isinstance(pairs, list) else ():
        if isinstance(pair, dict) and isinstance(pair.get("key"), str):
            attributes[pair["key"]] = _any_value(pair.get("value"))
    return attributes


def _any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain JSON value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        number = value["intValue"]
        digits = number.removeprefix("-") if isinstance(number, str) else ""
        return int(number) if digits.isascii() and digits.isdigit() else number
    if "arrayValue" in value:
        inner = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else None
        return [_any_value(item) for item in inner] if isinstance(inner, list) else []
    if "kvlistValue" in value:
        inner = value["kvlistValue"].get("values") if isinstance(value["kvlistValue"], dict) else None
        return _otlp_attributes(inner)
    return None
