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
- a model span is one model turn: a ``usage`` record of its agent (found as a call's is), placed by its start
  before the calls that follow it. A model span is one whose ``gen_ai.operation.name`` (else the first word of its
  name) is ``chat``, ``text_completion`` or ``generate_content``, or a span of no other GenAI operation that carries
  a token count (OpenLLMetry's ``openai.chat``, ADK's and any-agent's ``call_llm``). ``gen_ai.usage.input_tokens``
  (every token of the prompt, cached ones included, as the conventions define it; the older
  ``gen_ai.usage.prompt_tokens`` where it is missing) in, ``gen_ai.usage.output_tokens`` (else
  ``gen_ai.usage.completion_tokens``) out, integers, 0 where absent; the model from ``gen_ai.response.model``, else
  ``gen_ai.request.model``. A turn that carries none of these counts gives no record: a trace recorded without them
  shows no cost, rather than a cost of 0. A span of another operation is never a turn, whatever it carries: an
  ``invoke_agent`` (or ``invoke_workflow``) span's counts are the totals of its turns, an ``execute_tool`` span's
  were spent inside the tool (the span stays one call), ``embeddings`` and ``retrieval`` answer no prompt,
  ``create_agent`` makes none.
- one turn recorded by several layers (kagent: ADK's ``call_llm`` holds its ``generate_content`` span, which holds
  OpenLLMetry's ``openai.chat``, each with the turn's counts) counts once: a model span with a model span below it
  is not a turn of its own; the innermost is, its counts and its model read from itself, else from the nearest
  model span above it that holds no other turn.
- records come trace by trace (traces in the order of their first span's start), each trace's in start-time order
  (at the same time an ``invoke_agent`` span, then a turn, then a call, else input order). A span seen twice (the
  same trace and span id) counts once.

Every other span (HTTP, queues, ...) is read only for the chain of parents. A span without a trace id, a name or
a start time, an ``execute_tool`` span without a tool name or with a call id that is not a string, and a container
of the wrong type are ``skipped`` records (labelled ``span``, ``execute_tool``, ``resourceSpans``...), and so is a
line of JSON Lines that is an object of none of the shapes above (``(unknown document)``). An InputError is a line
that is not JSON, nor an object or an array, or a whole document of none of the shapes above. Ids are compared, and
a trace id labels an agent, as OTLP writes them: lowercase hex, 32 digits for a trace and 16 for a span.

This importer alone does not read through ``pending.read_loop``: it reads the whole input before its records, sorted
by time, come out. Its spans are decoded in ``_otel_spans``.

Example (OTLP/JSON, one span)::

    {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "dd54...", "spanId": "def5...",
      "name": "execute_tool helm_list_releases", "startTimeUnixNano": "1777555055632028200",
      "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                     {"key": "gen_ai.tool.name", "value": {"stringValue": "helm_list_releases"}},
                     {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{}"}}]}]}]}]}
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import takewhile
from typing import Any

from ..records import DEFAULT_OPTIONS, ImportOptions, InputError, Record, usage
from ._json import Lines, count, parse_arguments
from ._otel_spans import SCOPES, Span, is_sdk_span, raw_spans, to_span

__all__ = ["FILE_NAME", "identifies", "read"]

#: Traces have no fixed file name.
FILE_NAME: re.Pattern[str] | None = None

_ARGUMENTS = ("gen_ai.tool.call.arguments", "gen_ai.tool.args", "gcp.vertex.agent.tool_call_args")
_RESULTS = ("gen_ai.tool.call.result", "gcp.vertex.agent.tool_response", "gen_ai.output")
_INDEXED_CALL = re.compile(r"gen_ai\.(prompt|completion)\.(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)")
_INDEXED_MESSAGE = re.compile(r"gen_ai\.prompt\.(\d+)\.(tool_call_id|content)")
_MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
#: The operations whose spans are never a model turn, whatever token counts they carry (see the docstring).
_OTHER_OPERATIONS = ("invoke_agent", "invoke_workflow", "execute_tool", "embeddings", "retrieval", "create_agent")
_INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
_OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
_MODELS = ("gen_ai.response.model", "gen_ai.request.model")


def identifies(value: Any) -> bool:
    """Whether a decoded JSON value is a trace: an OTLP document (``resourceSpans``, or Tempo's ``batches``), an SDK
    span, or a list of SDK spans (bare, or under ``spans``)."""
    if isinstance(value, list):
        return bool(value) and is_sdk_span(value[0])
    if not isinstance(value, dict):
        return False
    batches = value.get("batches")
    if isinstance(value.get("resourceSpans"), list) or (
        isinstance(batches, list) and bool(batches) and isinstance(batches[0], dict)
        and any(scope in batches[0] for scope in SCOPES)
    ):
        return True
    spans = value.get("spans")
    return is_sdk_span(value) or (isinstance(spans, list) and bool(spans) and is_sdk_span(spans[0]))


def read(path: str, lines: Lines, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Record | InputError]:
    """The records of the traces of one input: problems first, in input order, then each trace's records."""
    del options  # no option concerns this format
    traces = _Traces()
    for item in raw_spans(path, lines):
        if isinstance(item, (InputError, Record)):
            yield item
        else:
            problem = traces.add(*item)
            if problem:
                yield Record("skipped", item[0], text=problem)
    yield from traces.records()


@dataclass
class _Logged:
    """What OpenLLMetry's indexed attributes say of one tool call: the model's request and the tool message."""

    name: Any = None
    arguments: Any = None
    result: Any = None


class _Traces:
    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.index: dict[tuple[str, str], Span] = {}

    def add(self, line: int, raw: Any) -> str | None:
        """Keep one span; what to label it skipped with when it is not one."""
        span = to_span(line, len(self.spans), raw)
        if span is None:
            return "span"
        if span.span is not None:
            if (span.trace, span.span) in self.index:
                return None
            self.index[span.trace, span.span] = span
        self.spans.append(span)
        return None

    def records(self) -> Iterator[Record]:
        by_trace: dict[str, list[Span]] = {}
        for span in self.spans:
            by_trace.setdefault(span.trace, []).append(span)
        for spans in sorted(by_trace.values(), key=lambda spans: min((span.start, span.order) for span in spans)):
            yield from _Trace(spans, self.index).records()


class _Trace:
    def __init__(self, spans: list[Span], index: dict[tuple[str, str], Span]) -> None:
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
                timed.append((span.start, 2, span.order, self.call(span)))
        timed.extend((turn.start, 1, turn.order, record) for turn, record in self.turns())
        for _, _, _, record in sorted(timed, key=lambda item: item[:3]):
            yield record

    def turns(self) -> Iterator[tuple[Span, Record]]:
        """Each model turn's span and its usage record: the innermost of nested model spans (see the docstring)."""
        models = [span for span in self.spans if _is_model(span)]
        orders = {span.order for span in models}
        above = {span.order: [parent for parent in self.parents(span) if parent.order in orders] for span in models}
        holders = {parent.order for chain in above.values() for parent in chain}
        turns = [span for span in models if span.order not in holders]
        below = Counter(parent.order for turn in turns for parent in above[turn.order])
        for turn in turns:
            # the turn's own counts first, then those of the spans above it that hold this turn alone
            sources = [turn, *takewhile(lambda parent: below[parent.order] == 1, above[turn.order])]
            counted = next((source.attributes for source in sources if _carries(source)), None)
            if counted is None:
                continue  # no count recorded: no cost to show, rather than a cost of 0
            named = (source.attributes.get(key) for key in _MODELS for source in sources)
            model = next((name for name in named if isinstance(name, str) and name), None)
            tokens = count(counted, *_INPUT_TOKENS), count(counted, *_OUTPUT_TOKENS)
            yield turn, usage(turn.line, self.agent_of(turn), model, *tokens)

    def parents(self, span: Span) -> Iterator[Span]:
        """The spans above ``span``, nearest first, as far as the chain of parents goes in the input."""
        current, seen = span, set()
        while current.parent is not None and current.parent not in seen:
            seen.add(current.parent)
            parent = self.index.get((span.trace, current.parent))
            if parent is None:
                return
            yield parent
            current = parent

    def call(self, span: Span) -> Record:
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

    def agent_of(self, span: Span) -> str:
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

    def enclosing(self, span: Span) -> str:
        """The label of the innermost ``invoke_agent`` span running when ``span`` started, else the trace id."""
        running = [
            agent
            for agent in self.agents
            if agent.start <= span.start and (agent.end is None or span.start <= agent.end)
        ]
        return self.label(max(running, key=lambda agent: (agent.start, agent.order))) if running else span.trace

    @staticmethod
    def label(agent: Span) -> str:
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


def _is_model(span: Span) -> bool:
    """Whether a span is a model call: a model operation, or a span of no other operation that carries tokens."""
    kind = span.attributes.get("gen_ai.operation.name")
    if kind is None:
        kind = span.name.split(" ", 1)[0]  # "chat gpt-4o", as the conventions name a span
    if isinstance(kind, str) and kind in _MODEL_OPERATIONS:
        return True
    return not any(span.operation(other) for other in _OTHER_OPERATIONS) and _carries(span)


def _carries(span: Span) -> bool:
    return any(type(span.attributes.get(key)) is int for key in (*_INPUT_TOKENS, *_OUTPUT_TOKENS))
