"""The ``otel`` format: OpenTelemetry GenAI traces, as exported spans.

Read in any of these shapes (each line of a JSON Lines input is one of them; otherwise the input is one document,
each span keeping the line where it starts):

- OTLP/JSON, ``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}``, as the Collector's file exporter writes it,
  and the legacy names ``batches`` and ``instrumentationLibrarySpans`` that Grafana Tempo still exports. A span has
  ``traceId``, ``spanId``, ``parentSpanId``, ``name``, ``startTimeUnixNano``, ``endTimeUnixNano``, ``status.code`` (2:
  an error, with ``status.message``) and ``attributes`` as ``{"key", "value": {"stringValue": ...}}`` pairs;
- the span lists the OTel Python SDK's ``to_json`` spans make: a JSON array of spans, or ``{"spans": [...]}`` (as
  any-agent saves its traces), or one span a line; a span has ``context.trace_id`` and ``context.span_id`` (``0x``
  hex strings, or integers), ``parent_id`` (or ``parent.span_id``), ``start_time`` (nanoseconds, or an ISO time),
  ``status.status_code`` and ``attributes`` as a plain map.

What this importer reads, after the whole input (a trace's spans come in any order, children before parents):

- an ``execute_tool`` span (``gen_ai.operation.name``, or a name starting ``execute_tool`` where the attribute is
  missing) is a post-execute: ``gen_ai.tool.name`` (else the rest of the span's name), ``gen_ai.tool.call.id``, the
  arguments from the first of ``gen_ai.tool.call.arguments``, ``gen_ai.tool.args`` (older GenAI conventions),
  ``gcp.vertex.agent.tool_call_args`` (Google ADK), or the OpenLLMetry attributes of the trace's model spans that
  name the same call id (``gen_ai.prompt.N.tool_calls.M.{id,name,arguments}``, and ``gen_ai.completion.N...``); a JSON
  string is parsed as the reference parses arguments (``{}`` when empty or absent everywhere: a trace recorded
  without these opt-in attributes makes every call of a tool look alike). The result comes from
  ``gen_ai.tool.call.result``, ``gcp.vertex.agent.tool_response``, ``gen_ai.output`` (any-agent) or the OpenLLMetry
  tool message with that call id, as logged; ``error.type`` (else an error status, with its message) is the call's
  error. Nothing in a trace marks a call denied.
- an ``invoke_agent`` span is a new user prompt (a pre-step with ``user_prompt``) of its agent.
- the agent of a call is the nearest enclosing ``invoke_agent`` span — its ``gen_ai.agent.id``, else its
  ``gen_ai.agent.name``, else the trace id (also the agent of a call with no ``invoke_agent`` above it). Where the
  chain of parents breaks (a parent not in the input), the innermost ``invoke_agent`` span of the trace whose time
  encloses the call's start is taken instead.
- records come trace by trace (traces in the order of their first span's start), each trace's in start-time order
  (an ``invoke_agent`` span before a call that starts at the same time, else input order). A span seen twice (the
  same trace and span id) counts once.

Every other span (model calls, HTTP, ...) is read only for the chain of parents. A span without a trace id, a name or
a start time, an ``execute_tool`` span without a tool name or with a call id that is not a string, and a container
of the wrong type are ``skipped`` records (labelled ``span``, ``execute_tool``, ``resourceSpans``...), and so is a
line of JSON Lines that is an object of none of the shapes above (``(unknown document)``). An InputError is a line
that is not JSON, nor an object or an array, or a whole document of none of the shapes above. Ids are compared, and
a trace id labels an agent, as OTLP writes them: lowercase hex, 32 digits for a trace and 16 for a span.

Example (OTLP/JSON, one span)::

    {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "dd54...", "spanId": "def5...",
      "name": "execute_tool helm_list_releases", "startTimeUnixNano": "1777555055632028200",
      "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                     {"key": "gen_ai.tool.name", "value": {"stringValue": "helm_list_releases"}},
                     {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{}"}}]}]}]}]}
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record
from ._document import document_or_lines, located, message_list
from ._json import Lines, json_type, parse_arguments

__all__ = ["FILE_NAME", "identifies", "read"]

#: Traces have no fixed file name.
FILE_NAME: re.Pattern[str] | None = None

_TOPS = ("resourceSpans", "batches")
_SCOPES = ("scopeSpans", "instrumentationLibrarySpans")
_ROUTES = [(top, scope, "spans") for top in _TOPS for scope in _SCOPES] + [("spans",)]
_ARGUMENTS = ("gen_ai.tool.call.arguments", "gen_ai.tool.args", "gcp.vertex.agent.tool_call_args")
_RESULTS = ("gen_ai.tool.call.result", "gcp.vertex.agent.tool_response", "gen_ai.output")
_INDEXED_CALL = re.compile(r"gen_ai\.(prompt|completion)\.(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)")
_INDEXED_MESSAGE = re.compile(r"gen_ai\.prompt\.(\d+)\.(tool_call_id|content)")
_HEX = re.compile(r"[0-9a-f]+")
_ISO_FRACTION = re.compile(r"\.(\d+)")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)
_SPACE = "\ufeff \t\r\n"


def identifies(value: Any) -> bool:
    """Whether a decoded JSON value is a trace: an OTLP document (``resourceSpans``, or Tempo's ``batches``), an SDK
    span, or a list of SDK spans (bare, or under ``spans``)."""
    if isinstance(value, list):
        return bool(value) and _is_sdk_span(value[0])
    if not isinstance(value, dict):
        return False
    batches = value.get("batches")
    if isinstance(value.get("resourceSpans"), list) or (
        isinstance(batches, list) and bool(batches) and isinstance(batches[0], dict)
        and any(scope in batches[0] for scope in _SCOPES)
    ):
        return True
    spans = value.get("spans")
    return _is_sdk_span(value) or (isinstance(spans, list) and bool(spans) and _is_sdk_span(spans[0]))


def _is_sdk_span(value: Any) -> bool:
    context = value.get("context") if isinstance(value, dict) else None
    return isinstance(context, dict) and "trace_id" in context and "span_id" in context and "name" in value


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of the traces of one input: problems first, in input order, then each trace's records."""
    del options  # no option concerns this format
    traces = _Traces()
    for item in _raw_spans(path, lines):
        if isinstance(item, (InputError, Record)):
            yield item
        else:
            problem = traces.add(*item)
            if problem:
                yield Record("skipped", item[0], text=problem)
    yield from traces.records()


def _raw_spans(path: str, lines: Lines) -> Iterator[tuple[int, Any] | InputError | Record]:
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
            for scope_key in _SCOPES:
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
        if _is_sdk_span(members) or "traceId" in members:  # one span, pretty-printed
            yield text[: len(text) - len(text.lstrip(_SPACE))].count("\n") + 1, members
        else:
            yield InputError(path, 1, "not an OpenTelemetry trace: no resourceSpans, batches or spans")


@dataclass
class _Logged:
    """What OpenLLMetry's indexed attributes say of one tool call: the model's request and the tool message."""

    name: Any = None
    arguments: Any = None
    result: Any = None


@dataclass
class _Span:
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
        kind = self.attributes.get("gen_ai.operation.name")
        return kind == operation if kind is not None else self.name.startswith(operation)


class _Traces:
    def __init__(self) -> None:
        self.spans: list[_Span] = []
        self.index: dict[tuple[str, str], _Span] = {}

    def add(self, line: int, raw: Any) -> str | None:
        """Keep one span; what to label it skipped with when it is not one."""
        span = _span(line, len(self.spans), raw)
        if span is None:
            return "span"
        if span.span is not None:
            if (span.trace, span.span) in self.index:
                return None
            self.index[span.trace, span.span] = span
        self.spans.append(span)
        return None

    def records(self) -> Iterator[Record]:
        by_trace: dict[str, list[_Span]] = {}
        for span in self.spans:
            by_trace.setdefault(span.trace, []).append(span)
        for spans in sorted(by_trace.values(), key=lambda spans: min((span.start, span.order) for span in spans)):
            yield from _Trace(spans, self.index).records()


class _Trace:
    def __init__(self, spans: list[_Span], index: dict[tuple[str, str], _Span]) -> None:
        self.spans = spans
        self.index = index
        self.agents = [span for span in spans if span.operation("invoke_agent")]
        self.logged: dict[str, _Logged] = {}  # OpenLLMetry's record of each tool call, by call id
        self._index_openllmetry()

    def records(self) -> Iterator[Record]:
        timed: list[tuple[int, int, int, Record]] = []
        for span in self.spans:
            if span.operation("invoke_agent"):
                record = Record("pre-step", span.line, agent=self.label(span), user_prompt=True)
                timed.append((span.start, 0, span.order, record))
            elif span.operation("execute_tool"):
                timed.append((span.start, 1, span.order, self.call(span)))
        for _, _, _, record in sorted(timed, key=lambda item: item[:3]):
            yield record

    def call(self, span: _Span) -> Record:
        attributes = span.attributes
        call_id = attributes.get("gen_ai.tool.call.id")
        if call_id is not None and not isinstance(call_id, str):
            return Record("skipped", span.line, text="execute_tool")
        logged = (self.logged.get(call_id) if call_id else None) or _Logged()
        name = attributes.get("gen_ai.tool.name")
        if not (isinstance(name, str) and name):
            name = span.name.removeprefix("execute_tool").strip() or logged.name
        if not (isinstance(name, str) and name):
            return Record("skipped", span.line, text="execute_tool")
        raw = next((attributes[key] for key in _ARGUMENTS if attributes.get(key) is not None), logged.arguments)
        result = next((attributes[key] for key in _RESULTS if attributes.get(key) is not None), logged.result)
        error = attributes.get("error.type")
        if not (isinstance(error, str) and error):
            error = span.failure
        return Record(
            "post-execute",
            span.line,
            agent=self.agent_of(span),
            tool=name,
            arguments=parse_arguments("" if raw is None else raw),
            call_id=call_id,
            result=None if error else result,
            error=error,
        )

    def agent_of(self, span: _Span) -> str:
        """The label of the nearest ``invoke_agent`` span above ``span``; see the module docstring."""
        current, seen = span, set()
        while current.parent is not None and current.parent not in seen:
            seen.add(current.parent)
            parent = self.index.get((span.trace, current.parent))
            if parent is None:  # the chain breaks: the agent whose time encloses the call
                return self.enclosing(span)
            if parent.operation("invoke_agent"):
                return self.label(parent)
            current = parent
        return span.trace

    def enclosing(self, span: _Span) -> str:
        """The label of the innermost ``invoke_agent`` span running when ``span`` started, else the trace id."""
        running = [
            agent
            for agent in self.agents
            if agent.start <= span.start and (agent.end is None or span.start <= agent.end)
        ]
        return self.label(max(running, key=lambda agent: (agent.start, agent.order))) if running else span.trace

    @staticmethod
    def label(agent: _Span) -> str:
        for key in ("gen_ai.agent.id", "gen_ai.agent.name"):
            value = agent.attributes.get(key)
            if isinstance(value, str) and value:
                return value
        return agent.trace

    def _index_openllmetry(self) -> None:
        entries: dict[tuple[int, str, str, str], dict[str, Any]] = {}
        messages: dict[tuple[int, str], dict[str, Any]] = {}
        for span in self.spans:
            for key, value in span.attributes.items():
                match = _INDEXED_CALL.fullmatch(key)
                if match:
                    entries.setdefault((span.order, match[1], match[2], match[3]), {})[match[4]] = value
                    continue
                match = _INDEXED_MESSAGE.fullmatch(key)
                if match:
                    messages.setdefault((span.order, match.group(1)), {})[match.group(2)] = value
        for entry in entries.values():
            if isinstance(entry.get("id"), str):
                logged = self.logged.setdefault(entry["id"], _Logged())
                logged.name = logged.name if logged.name is not None else entry.get("name")
                logged.arguments = logged.arguments if logged.arguments is not None else entry.get("arguments")
        for message in messages.values():
            if isinstance(message.get("tool_call_id"), str) and message.get("content") is not None:
                self.logged.setdefault(message["tool_call_id"], _Logged()).result = message["content"]


def _span(line: int, order: int, raw: Any) -> _Span | None:
    """A span of either shape, or None when it lacks a trace id, a name or a start time."""
    if not isinstance(raw, dict):
        return None
    return _otlp_span(line, order, raw) if "traceId" in raw else _sdk_span(line, order, raw)


def _otlp_span(line: int, order: int, raw: dict[str, Any]) -> _Span | None:
    trace, name, start = _hex(raw.get("traceId"), 32), raw.get("name"), _nanos(raw.get("startTimeUnixNano"))
    if trace is None or not isinstance(name, str) or start is None:
        return None
    status = raw.get("status")
    code = status.get("code") if isinstance(status, dict) else None
    message = status.get("message") if isinstance(status, dict) else None
    failed = code in (2, "2", "STATUS_CODE_ERROR")
    return _Span(
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


def _sdk_span(line: int, order: int, raw: dict[str, Any]) -> _Span | None:
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
    return _Span(
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
