"""The otel importer on real traces (kagent through Grafana Tempo, any-agent's SDK span lists) and on synthetic ones:
execute_tool spans in time order, their agents, the older attribute keys, the model turns' usage, and the shapes it
passes over."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conftest import REPO, SHARED_FIXTURES, require_shared, wrong_typed
from toolguards.guardfile.loader import load
from toolguards.replay.feed import Outcome, replay
from toolguards.replay.importers import _otel_spans, otel
from toolguards.replay.records import InputError, Record, usage
from toolguards.resources import default_guard_file

FIXTURES = SHARED_FIXTURES / "hosts" / "sessions" / "otel-genai"
GUARD_FILES = (default_guard_file(), REPO / "examples" / "reference-mount.yaml")


def fixture(name: str) -> Path:
    path = FIXTURES / name
    require_shared()
    return path


def read(text: str) -> list[object]:
    """The importer's items, an InputError as ("error", line, message)."""
    return [("error", item.line, item.message) if isinstance(item, InputError) else item
            for item in otel.read("trace.json", io.StringIO(text))]


T1 = "5b8efff798038103d269b633813fc60c"  # a trace id as OTLP writes it


def attributes(**values: object) -> list[dict[str, object]]:
    """OTLP attributes; a key's dots are written as __ here."""
    pairs = []
    for key, value in values.items():
        if isinstance(value, bool):
            wrapped: dict[str, object] = {"boolValue": value}
        elif isinstance(value, int):
            wrapped = {"intValue": str(value)}
        elif isinstance(value, dict):
            wrapped = {"kvlistValue": {"values": [{"key": k, "value": {"stringValue": v}} for k, v in value.items()]}}
        else:
            wrapped = {"stringValue": value}
        pairs.append({"key": key.replace("__", "."), "value": wrapped})
    return pairs


def span(span_id: str, name: str, start: int, parent: str = "", trace: str = T1, end: int | None = None,
         status: dict[str, object] | None = None, **attrs: object) -> dict[str, object]:
    entry: dict[str, object] = {"traceId": trace, "spanId": span_id, "parentSpanId": parent, "name": name,
                                "startTimeUnixNano": str(start), "attributes": attributes(**attrs)}
    if end is not None:
        entry["endTimeUnixNano"] = end
    if status is not None:
        entry["status"] = status
    return entry


def agent(span_id: str, start: int, parent: str = "", end: int = 100, **attrs: object) -> dict[str, object]:
    return span(span_id, "invoke_agent", start, parent, end=end, gen_ai__operation__name="invoke_agent", **attrs)


def tool(span_id: str, name: str, start: int, parent: str = "", **attrs: object) -> dict[str, object]:
    return span(span_id, f"execute_tool {name}", start, parent, gen_ai__operation__name="execute_tool",
                gen_ai__tool__name=name, **attrs)


def otlp(*spans: dict[str, object], top: str = "resourceSpans", scope: str = "scopeSpans") -> dict[str, object]:
    return {top: [{"resource": {"attributes": []}, scope: [{"spans": list(spans)}]}]}


def post(line: int, agent_label: str, name: str, arguments: object, call_id: str | None = None, result: object = None,
         error: str | None = None) -> Record:
    return Record("post-execute", line, agent=agent_label, tool=name, arguments=arguments, call_id=call_id,
                  result=result, error=error)


def step(line: int, agent_label: str) -> Record:
    return Record("pre-step", line, agent=agent_label, user_prompt=True)


def skipped(line: int, label: str) -> Record:
    return Record("skipped", line, text=label)


# --- the real traces, against counts made here from the raw JSON ---------------------------------------------------


def raw_spans(document: dict[str, object]) -> list[dict[str, object]]:
    """Every span as {trace, id, parent, start, attributes}, read with plain json."""
    spans = []
    if "batches" in document:
        for batch in document["batches"]:
            for scope in batch["instrumentationLibrarySpans"]:
                for entry in scope["spans"]:
                    spans.append({"trace": entry["traceId"], "id": entry["spanId"], "parent": entry["parentSpanId"],
                                  "start": entry["startTimeUnixNano"],
                                  "attributes": {a["key"]: next(iter(a["value"].values())) for a in entry["attributes"]}})
    else:
        for entry in document["spans"]:
            spans.append({"trace": entry["context"]["trace_id"], "id": entry["context"]["span_id"],
                          "parent": entry["parent"]["span_id"] if entry["parent"] else None,
                          "start": entry["start_time"], "attributes": entry["attributes"]})
    return spans


def raw_calls(spans: list[dict[str, object]]) -> list[tuple[object, ...]]:
    """(agent, tool, arguments) of each execute_tool span by start time; the agent the nearest invoke_agent above it,
    or the trace's one invoke_agent where the parents are not all in the file."""
    by_id = {(s["trace"], s["id"]): s for s in spans}
    agents = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "invoke_agent"]
    calls = []
    for s in sorted(spans, key=lambda s: s["start"]):
        attrs = s["attributes"]
        if attrs.get("gen_ai.operation.name") != "execute_tool":
            continue
        above, parent = None, by_id.get((s["trace"], s["parent"]))
        while parent is not None and above is None:
            if parent["attributes"].get("gen_ai.operation.name") == "invoke_agent":
                above = parent
            parent = by_id.get((s["trace"], parent["parent"]))
        if above is None:
            [above] = [a for a in agents if a["trace"] == s["trace"]]
        label = above["attributes"].get("gen_ai.agent.id") or above["attributes"]["gen_ai.agent.name"]
        raw = attrs.get("gen_ai.tool.call.arguments", attrs.get("gen_ai.tool.args", attrs.get("gcp.vertex.agent.tool_call_args")))
        calls.append((label, attrs["gen_ai.tool.name"], json.loads(raw)))
    return calls


@pytest.mark.parametrize(
    ("name", "calls", "agents"),
    [
        ("agentevals-kagent-tempo-export.json", 1, ["helm_agent"]),
        ("any-agent-GOOGLE_trace.json", 3, ["any_agent"]),
        ("any-agent-LANGCHAIN_trace.json", 2, ["any_agent"]),
        ("any-agent-OPENAI_trace.json", 2, ["any_agent"]),
    ],
)
def test_real_traces_match_a_count_from_the_raw_file(name, calls, agents):
    path = fixture(name)
    expected = raw_calls(raw_spans(json.loads(path.read_text(encoding="utf-8"))))
    for guard_file in GUARD_FILES:
        with path.open(encoding="utf-8") as stream:
            items = list(otel.read(name, stream))
        assert all(isinstance(item, Record) and item.kind in ("post-execute", "pre-step", "usage") for item in items)
        records = [item for item in items if isinstance(item, Record)]
        posts = [record for record in records if record.kind == "post-execute"]
        assert [(record.agent, record.tool, record.arguments) for record in posts] == expected
        outcomes = [item for item in replay(records, [load(guard_file)]) if isinstance(item, Outcome)]
        assert (len(posts), sorted({record.agent for record in posts})) == (calls, agents)
        assert sum(len(outcome.contexts) for outcome in outcomes) == 0  # no tool repeats in any of these traces


def test_the_kagent_trace_reads_the_adk_keys_and_both_agents():
    path = fixture("agentevals-kagent-tempo-export.json")
    with path.open(encoding="utf-8") as stream:
        records = list(otel.read(path.name, stream))
    assert [(r.kind, r.agent) for r in records] == [("pre-step", "kagent/helm-agent"), ("pre-step", "helm_agent"),
                                                    ("usage", "helm_agent"), ("post-execute", "helm_agent"),
                                                    ("usage", "helm_agent")]
    call = records[3]
    assert isinstance(call, Record)
    assert (call.tool, call.arguments, call.call_id, call.error) == ("helm_list_releases", {}, "call_w0eKlvnaE7S9GQJeSSs0gn05", None)
    assert isinstance(call.result, str) and json.loads(call.result)["isError"] is False


MISTRAL = "mistral/mistral-small-latest"
GPT_MINI = "gpt-4.1-mini-2025-04-14"


def turn(text: str, agent_label: str = "any_agent", model: str = MISTRAL) -> tuple[object, ...]:
    """A usage record as (kind, agent, model, input, output), from "in/out"."""
    numbers = text.split("/")
    return ("usage", agent_label, model, int(numbers[0]), int(numbers[1]))


def called(tool_name: str, agent_label: str = "any_agent") -> tuple[object, ...]:
    return ("post-execute", agent_label, tool_name)


# Read off each file by hand: every span with a gen_ai.usage.* attribute, listed with its name, parents, start time,
# gen_ai.operation.name, models and counts, in start order among the invoke_agent and execute_tool spans. any-agent
# writes one call_llm span per turn, with only gen_ai.request.model. kagent records each turn three times (ADK's
# call_llm, which holds its generate_content span, which holds OpenLLMetry's openai.chat, the one span with
# gen_ai.response.model), the same counts on all three: 2256/13 and 2392/116, so counting every span would give three
# times 4648/129.
REAL_TURNS = [
    ("agentevals-kagent-tempo-export.json",
     [("pre-step", "kagent/helm-agent"), ("pre-step", "helm_agent"), turn("2256/13", "helm_agent", GPT_MINI),
      called("helm_list_releases", "helm_agent"), turn("2392/116", "helm_agent", GPT_MINI)],
     (4648, 129)),
    ("any-agent-GOOGLE_trace.json",
     [("pre-step", "any_agent"), turn("672/16"), called("get_current_time"), turn("770/14"), called("write_file"),
      turn("809/56"), called("final_output")],
     (2251, 86)),
    ("any-agent-LANGCHAIN_trace.json",
     [("pre-step", "any_agent"), turn("245/16"), called("get_current_time"), turn("331/14"), called("write_file"),
      turn("366/33"), turn("320/62")],
     (1262, 125)),
    ("any-agent-OPENAI_trace.json",
     [("pre-step", "any_agent"), turn("269/16"), called("get_current_time"), turn("359/14"), called("write_file"),
      turn("392/46")],
     (1020, 76)),
]


@pytest.mark.parametrize(("name", "expected", "sums"), REAL_TURNS, ids=[name for name, _, _ in REAL_TURNS])
def test_real_traces_give_each_model_turn_once_before_its_calls(name, expected, sums):
    path = fixture(name)
    with path.open(encoding="utf-8") as stream:
        records = [item for item in otel.read(name, stream) if isinstance(item, Record)]
    shown = [(r.kind, r.agent, r.model, r.input_tokens, r.output_tokens) if r.kind == "usage"
             else (r.kind, r.agent, r.tool) if r.kind == "post-execute" else (r.kind, r.agent) for r in records]
    assert shown == expected
    turns = [r for r in records if r.kind == "usage"]
    assert (sum(r.input_tokens for r in turns), sum(r.output_tokens for r in turns)) == sums


# --- synthetic traces ----------------------------------------------------------------------------------------------


ONE_LINE = [
    pytest.param(
        otlp(tool("t2", "grep", 30, "a1", gen_ai__tool__call__arguments='{"q": "b"}'),
             tool("t1", "grep", 20, "a1", gen_ai__tool__call__arguments='{"q": "a"}', gen_ai__tool__call__id="c1",
                  gen_ai__tool__call__result="found"),
             agent("a1", 10, gen_ai__agent__id="A", gen_ai__agent__name="alpha")),
        [step(1, "A"), post(1, "A", "grep", {"q": "a"}, "c1", "found"), post(1, "A", "grep", {"q": "b"})],
        id="out-of-order spans come in start-time order, the agent by its id",
    ),
    pytest.param(
        otlp(tool("t1", "grep", 20, "x1", gen_ai__tool__args='{"q": 1}'), span("x1", "chat", 15, "a1"),
             agent("a1", 10, gen_ai__agent__name="alpha"), top="batches", scope="instrumentationLibrarySpans"),
        [step(1, "alpha"), post(1, "alpha", "grep", {"q": 1})],
        id="Tempo's legacy names, gen_ai.tool.args, and the agent by its name through a model span",
    ),
    pytest.param(
        otlp(tool("t1", "helm_list", 20, gcp__vertex__agent__tool_call_args="{}",
                  gcp__vertex__agent__tool_response='{"isError": false}')),
        [post(1, T1, "helm_list", {}, None, '{"isError": false}')],
        id="ADK's keys; no invoke_agent: the trace labels the agent",
    ),
    pytest.param(
        otlp(span("m1", "openai.chat", 10, gen_ai__prompt__2__tool_calls__0__id="c9",
                  gen_ai__prompt__2__tool_calls__0__name="search", gen_ai__prompt__2__tool_calls__0__arguments='{"k": "v"}',
                  gen_ai__prompt__3__tool_call_id="c9", gen_ai__prompt__3__content="hits"),
             span("t1", "execute_tool", 20, gen_ai__operation__name="execute_tool", gen_ai__tool__call__id="c9")),
        [post(1, T1, "search", {"k": "v"}, "c9", "hits")],
        id="OpenLLMetry's indexed prompt attributes give the name, the arguments and the result",
    ),
    pytest.param(
        otlp(span("m1", "openai.chat", 10, gen_ai__completion__0__tool_calls__0__id="c9",
                  gen_ai__completion__0__tool_calls__0__arguments='{"k": 1}'),
             tool("t1", "search", 20, gen_ai__tool__call__id="c9")),
        [post(1, T1, "search", {"k": 1}, "c9")],
        id="and the indexed completion attributes",
    ),
    pytest.param(
        otlp(tool("t1", "grep", 20, gen_ai__tool__call__arguments={"q": "x"}), tool("t2", "ls", 30)),
        [post(1, T1, "grep", {"q": "x"}), post(1, T1, "ls", {})],
        id="structured arguments as they are; none recorded: {}",
    ),
    pytest.param(
        otlp(tool("t1", "rm", 20, error__type="PermissionError", gen_ai__tool__call__result="partial"),
             tool("t2", "rm", 30, status={"code": 2, "message": "denied by policy"}),
             tool("t3", "rm", 40, status={"code": "STATUS_CODE_ERROR"}), tool("t4", "rm", 50, status={"code": 1})),
        [post(1, T1, "rm", {}, None, None, "PermissionError"), post(1, T1, "rm", {}, None, None, "denied by policy"),
         post(1, T1, "rm", {}, None, None, "error"), post(1, T1, "rm", {})],
        id="error.type, else an error status, is the call's error",
    ),
    pytest.param(
        otlp(agent("outer", 10, gen_ai__agent__id="boss"), tool("t1", "plan", 15, "outer"),
             agent("inner", 20, "outer", end=40, gen_ai__agent__id="worker"), tool("t2", "grep", 25, "inner")),
        [step(1, "boss"), post(1, "boss", "plan", {}), step(1, "worker"), post(1, "worker", "grep", {})],
        id="a sub-agent's calls are its own",
    ),
    pytest.param(
        otlp(agent("outer", 10, end=90, gen_ai__agent__id="boss"), agent("inner", 20, "outer", end=40, gen_ai__agent__id="worker"),
             tool("t1", "grep", 25, "missing"), tool("t2", "grep", 50, "missing")),
        [step(1, "boss"), step(1, "worker"), post(1, "worker", "grep", {}), post(1, "boss", "grep", {})],
        id="a broken chain of parents: the innermost agent running at the call's start",
    ),
    pytest.param(
        otlp(agent("a1", 10), tool("t1", "grep", 10, "a1")),
        [step(1, T1), post(1, T1, "grep", {})],
        id="an invoke_agent span without id or name: the trace; a prompt before a call at the same time",
    ),
    pytest.param(
        otlp(tool("t1", "grep", 20), tool("t1", "grep", 20)),
        [post(1, T1, "grep", {})],
        id="a span seen twice counts once",
    ),
]


@pytest.mark.parametrize(("document", "expected"), ONE_LINE)
def test_synthetic_traces(document, expected):
    assert read(json.dumps(document) + "\n") == expected


def model(span_id: str, start: int, parent: str = "", name: str = "chat gpt-4o", **attrs: object) -> dict[str, object]:
    """A model span: ``chat`` unless another operation (or none, with ``gen_ai__operation__name=None``) is given."""
    attrs.setdefault("gen_ai__operation__name", "chat")
    return span(span_id, name, start, parent, **{key: value for key, value in attrs.items() if value is not None})


def tokens(inputs: int, outputs: int) -> dict[str, int]:
    return {"gen_ai__usage__input_tokens": inputs, "gen_ai__usage__output_tokens": outputs}


TURNS = [
    pytest.param(
        otlp(tool("t1", "grep", 20, "a1"), model("m1", 15, "a1", gen_ai__request__model="gpt-4o",
                                                 gen_ai__response__model="gpt-4o-2024-08-06", **tokens(120, 7)),
             agent("a1", 10, gen_ai__agent__id="A"), model("m2", 30, "a1", gen_ai__request__model="gpt-4o", **tokens(5, 1))),
        [step(1, "A"), usage(1, "A", "gpt-4o-2024-08-06", 120, 7), post(1, "A", "grep", {}),
         usage(1, "A", "gpt-4o", 5, 1)],
        id="a model span is a turn of its agent before the calls after it; the response's model, else the request's",
    ),
    pytest.param(
        otlp(model("m1", 20, **tokens(9, 2)), tool("t1", "grep", 20)),
        [usage(1, T1, None, 9, 2), post(1, T1, "grep", {})],
        id="a turn before a call that starts at the same time",
    ),
    pytest.param(
        otlp(model("m1", 10, gen_ai__operation__name="text_completion", **tokens(1, 1)),
             model("m2", 20, gen_ai__operation__name="generate_content", **tokens(2, 2)),
             model("m3", 30, name="openai.chat", gen_ai__operation__name=None, **tokens(3, 3)),
             model("m4", 40, name="call_llm", gen_ai__operation__name="call_llm", **tokens(4, 4)),
             model("m5", 50, name="chat gpt-4o", gen_ai__operation__name=None, gen_ai__usage__output_tokens=5)),
        [usage(1, T1, None, 1, 1), usage(1, T1, None, 2, 2), usage(1, T1, None, 3, 3), usage(1, T1, None, 4, 4),
         usage(1, T1, None, 0, 5)],
        id="the model operations, and spans of no other operation that carry counts; an absent count is 0",
    ),
    pytest.param(
        otlp(model("m1", 10, gen_ai__usage__prompt_tokens=40, gen_ai__usage__completion_tokens=4),
             model("m2", 20, gen_ai__usage__input_tokens=50, gen_ai__usage__prompt_tokens=99,
                   gen_ai__usage__output_tokens=5, gen_ai__usage__completion_tokens=99)),
        [usage(1, T1, None, 40, 4), usage(1, T1, None, 50, 5)],
        id="the older prompt_tokens and completion_tokens where the newer names are missing",
    ),
    pytest.param(
        otlp(model("w1", 10, name="call_llm", gen_ai__operation__name=None, gen_ai__request__model="gpt-4o", **tokens(70, 7)),
             model("g1", 11, "w1", name="generate_content gpt-4o", gen_ai__operation__name="generate_content", **tokens(70, 7)),
             model("c1", 12, "h1", name="openai.chat", gen_ai__operation__name=None,
                   gen_ai__response__model="gpt-4o-2024-08-06", **tokens(70, 7)),
             span("h1", "POST", 12, "g1"), tool("t1", "grep", 20, "g1")),
        [usage(1, T1, "gpt-4o-2024-08-06", 70, 7), post(1, T1, "grep", {})],
        id="one turn recorded by three layers counts once, as the innermost, through a span of no operation",
    ),
    pytest.param(
        otlp(model("w1", 10, name="call_llm", gen_ai__operation__name=None, gen_ai__request__model="gpt-4o", **tokens(70, 7)),
             model("c1", 12, "w1")),
        [usage(1, T1, "gpt-4o", 70, 7)],
        id="an inner model span without counts takes those and the model of the span that holds it alone",
    ),
    pytest.param(
        otlp(model("w1", 10, name="call_llm", gen_ai__operation__name=None, **tokens(90, 9)),
             model("c1", 12, "w1", **tokens(60, 6)), model("c2", 14, "w1")),
        [usage(1, T1, None, 60, 6)],
        id="a span that holds two turns gives its counts to neither: the one with no counts of its own has none",
    ),
    pytest.param(
        otlp(model("c1", 12), model("c2", 13, name="chat", gen_ai__operation__name=None),
             model("c3", 14, gen_ai__usage__input_tokens="12", gen_ai__usage__output_tokens=True)),
        [],
        id="a model span without an integer count gives no record",
    ),
    pytest.param(
        otlp(agent("a1", 10, gen_ai__agent__id="A", **tokens(1000, 100)),
             tool("t1", "ask_expert", 20, "a1", **tokens(500, 50)),
             model("m1", 30, "a1", **tokens(15, 1)),
             span("e1", "embeddings text-embedding-3-small", 40, "a1", gen_ai__operation__name="embeddings", **tokens(8, 0)),
             span("r1", "retrieval", 45, "a1", gen_ai__operation__name="retrieval", **tokens(8, 0)),
             span("w1", "invoke_workflow", 50, "a1", gen_ai__operation__name="invoke_workflow", **tokens(9, 9)),
             span("k1", "create_agent", 55, "a1", gen_ai__operation__name="create_agent", **tokens(9, 9)),
             span("x1", "execute_tool grep", 60, "a1", **tokens(7, 7))),
        [step(1, "A"), post(1, "A", "ask_expert", {}), usage(1, "A", None, 15, 1), post(1, "A", "grep", {})],
        id="a span of another operation is never a turn: the agent's totals, a tool's, embeddings, retrieval",
    ),
    pytest.param(
        otlp(model("m1", 10, **tokens(3, 1)), model("m1", 10, **tokens(3, 1))),
        [usage(1, T1, None, 3, 1)],
        id="a model span seen twice counts once",
    ),
    pytest.param(
        otlp(agent("outer", 10, end=90, gen_ai__agent__id="boss"), agent("inner", 20, "outer", end=40, gen_ai__agent__id="worker"),
             model("m1", 25, "missing", **tokens(2, 2)), model("m2", 50, "missing", **tokens(4, 4))),
        [step(1, "boss"), step(1, "worker"), usage(1, "worker", None, 2, 2), usage(1, "boss", None, 4, 4)],
        id="a broken chain of parents: the agent running at the turn's start, as for a call",
    ),
]


@pytest.mark.parametrize(("document", "expected"), TURNS)
def test_model_turns(document, expected):
    assert read(json.dumps(document) + "\n") == expected


def test_json_lines_of_documents_come_trace_by_trace():
    text = "".join(json.dumps(document) + "\n" for document in (
        otlp(tool("b1", "ls", 50, trace="trace-b")),
        otlp(tool("a2", "ls", 40, trace="trace-a"), tool("b2", "cat", 60, trace="trace-b")),
        otlp(tool("a1", "cat", 10, trace="trace-a")),
    ))
    assert read(text) == [post(3, "trace-a", "cat", {}), post(2, "trace-a", "ls", {}), post(1, "trace-b", "ls", {}),
                          post(2, "trace-b", "cat", {})]


SDK_SPANS = [
    {"name": "invoke_agent [any_agent]", "context": {"trace_id": "0xABC", "span_id": "0x01", "trace_state": "[]"},
     "kind": "SpanKind.INTERNAL", "parent_id": None, "start_time": "2025-09-16T12:43:06.000000Z",
     "end_time": "2025-09-16T12:43:09.000000Z", "status": {"status_code": "UNSET"},
     "attributes": {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "any_agent"}},
    {"name": "execute_tool write_file", "context": {"trace_id": "0xABC", "span_id": "0x03"}, "parent_id": "0x01",
     "start_time": "2025-09-16T12:43:08.1234567Z", "status": {"status_code": "ERROR", "description": "disk full"},
     "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "write_file",
                    "gen_ai.tool.args": '{"text": "2025"}'}},
    {"name": "execute_tool get_time", "context": {"trace_id": 2748, "span_id": 2}, "parent": {"trace_id": 2748, "span_id": 1},
     "start_time": 1758026587000000000, "status": {"status_code": "ok"},
     "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_time", "gen_ai.tool.call.id": "x1",
                    "gen_ai.tool.args": '{"tz": "UTC"}', "gen_ai.output": "12:43"}},
]


def sdk_records(lines: list[int]) -> list[Record]:
    """What SDK_SPANS read as, their spans starting at these lines: the prompt, then the calls by start time."""
    return [step(lines[0], "any_agent"), post(lines[2], "any_agent", "get_time", {"tz": "UTC"}, "x1", "12:43"),
            post(lines[1], "any_agent", "write_file", {"text": "2025"}, None, None, "disk full")]


@pytest.mark.parametrize(
    ("text", "opening"),
    [
        (json.dumps(SDK_SPANS, indent=1), " {"),
        (json.dumps({"spans": SDK_SPANS, "final_output": "done"}, indent=1), "  {"),
    ],
    ids=["a JSON array of spans", "an object with a spans list"],
)
def test_sdk_span_lists_spread_over_lines(text, opening):
    starts = [number for number, row in enumerate(text.splitlines(), 1) if row == opening]
    assert len(starts) == 3
    assert read(text) == sdk_records(starts)


def test_sdk_spans_one_a_line_and_alone():
    assert read("".join(json.dumps(entry) + "\n" for entry in SDK_SPANS)) == sdk_records([1, 2, 3])
    trace = "00000000000000000000000000000abc"  # 0xABC and 2748 alike
    assert read(json.dumps(SDK_SPANS[1], indent=2)) == [post(1, trace, "write_file", {"text": "2025"}, None, None, "disk full")]


def test_an_otlp_document_spread_over_lines_keeps_each_spans_line():
    text = json.dumps(otlp(tool("t2", "ls", 30), tool("t1", "cat", 20)), indent=2)
    rows = text.splitlines()
    starts = [number for number, row in enumerate(rows, 1) if number < len(rows) and '"traceId"' in rows[number]]
    assert read(text) == [post(starts[1], T1, "cat", {}), post(starts[0], T1, "ls", {})]


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (otlp({"spanId": "s", "name": "execute_tool x", "startTimeUnixNano": "1", "traceId": ""}), [skipped(1, "span")]),
        (otlp({"traceId": "T", "spanId": "s", "startTimeUnixNano": "1"}), [skipped(1, "span")]),
        (otlp({"traceId": "T", "name": "x", "startTimeUnixNano": "soon"}), [skipped(1, "span")]),
        ('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "T", "name": "x", "startTimeUnixNano": 1e400}]}]}]}',
         [skipped(1, "span")]),
        (otlp({"traceId": "T", "name": "x", "startTimeUnixNano": "\u00b2"}), [skipped(1, "span")]),
        (otlp(span("t1", "execute_tool x", 1, gen_ai__tool__call__id="c1"), {"traceId": "T", "name": "y", "startTimeUnixNano": "2",
               "attributes": [{"key": "n", "value": {"intValue": "\u00b2"}}, {"key": "m", "value": {"intValue": "-12"}}]}),
         [post(1, T1, "x", {}, "c1")]),
        (otlp("a span"), [skipped(1, "span")]),
        ({"spans": [{"name": "x", "context": "0x1"}]}, [skipped(1, "span")]),
        (otlp(span("t1", "execute_tool", 1, gen_ai__operation__name="execute_tool")), [skipped(1, "execute_tool")]),
        (otlp(span("t1", "execute_tool x", 1, gen_ai__tool__call__id=7)), [skipped(1, "execute_tool")]),
        ({"resourceSpans": {"scopeSpans": []}}, [skipped(1, "resourceSpans")]),
        ({"resourceSpans": [7]}, [skipped(1, "resourceSpans")]),
        ({"resourceSpans": [{"scopeSpans": "x"}]}, [skipped(1, "scopeSpans")]),
        ({"resourceSpans": [{"scopeSpans": [[]]}]}, [skipped(1, "scopeSpans")]),
        ({"resourceSpans": [{"scopeSpans": [{"spans": {}}]}]}, [skipped(1, "spans")]),
        ({"resourceSpans": []}, []),
        ({"metrics": []}, [skipped(1, "(unknown document)")]),
        (7, [("error", 1, "expected a JSON object or array, not a number")]),
    ],
)
def test_shapes_it_does_not_read_are_skipped_and_labelled(document, expected):
    assert read((document if isinstance(document, str) else json.dumps(document)) + "\n") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "resourceSpans": {"x": 1}\n}', [skipped(2, "resourceSpans")]),
        ('{\n  "resourceSpans": [\n    3\n  ]\n}', [skipped(3, "resourceSpans")]),
        ('{\n  "metrics": []\n}', [("error", 1, "not an OpenTelemetry trace: no resourceSpans, batches or spans")]),
        ('{\n  "resourceSpans": [\n', [("error", 3, "not JSON: Expecting value")]),
        ('{"a": 1}\n{"b": [', [skipped(1, "(unknown document)"), ("error", 2, "not JSON: Expecting value at column 8")]),
        ("", []),
    ],
)
def test_documents_of_the_wrong_shape(text, expected):
    assert read(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (otlp(), True),
        ({"resourceSpans": []}, True),
        (otlp(top="batches", scope="instrumentationLibrarySpans"), True),
        ({"batches": [{"resource": {}}]}, False),
        ({"batches": []}, False),
        (SDK_SPANS, True),
        (SDK_SPANS[0], True),
        ({"spans": SDK_SPANS, "final_output": None}, True),
        ({"spans": [{"name": "x"}]}, False),
        ([], False),
        ([{"role": "user", "content": "hi"}], False),
        ({"messages": []}, False),
        ({"resourceSpans": {}}, False),
        ("resourceSpans", False),
    ],
)
def test_identifies(value, expected):
    assert otel.identifies(value) is expected


def test_no_fixed_file_name():
    assert otel.FILE_NAME is None


SEED_OTLP = otlp(
    agent("a1", 10, gen_ai__agent__id="A"),
    span("m1", "chat", 12, "a1", gen_ai__prompt__1__tool_calls__0__id="c1", gen_ai__prompt__1__tool_calls__0__name="s",
         gen_ai__prompt__1__tool_calls__0__arguments="{}", gen_ai__prompt__2__tool_call_id="c1", gen_ai__prompt__2__content="r",
         gen_ai__usage__input_tokens=30, gen_ai__usage__output_tokens=3, gen_ai__response__model="m"),
    model("m2", 11, "a1", name="call_llm", gen_ai__operation__name=None, **tokens(30, 3)),
    tool("t1", "grep", 20, "m1", gen_ai__tool__call__id="c1", gen_ai__tool__args={"q": "x"}, error__type="E",
         status={"code": 2, "message": "m"}),
)


def well_typed(items: list[object]) -> bool:
    return all(
        not isinstance(record, Record)
        or (
            (record.kind == "skipped" or isinstance(record.agent, str))
            and (record.kind != "post-execute" or (isinstance(record.tool, str) and record.tool != ""))
            and (record.call_id is None or isinstance(record.call_id, str))
            and (record.error is None or isinstance(record.error, str))
        )
        for record in items
    )


@pytest.mark.parametrize("seed", [SEED_OTLP, {"spans": SDK_SPANS}], ids=["OTLP", "SDK spans"])
def test_no_field_of_the_wrong_type_raises(seed):
    for path, wrong, variant in wrong_typed(seed):
        assert well_typed(read(json.dumps(variant) + "\n")), (path, wrong)
        assert well_typed(read(json.dumps(variant, indent=1))), (path, wrong)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-09-16T12:43:08.1234567Z", 1758026588123456000),
        ("2025-09-16T12:43:08.12Z", 1758026588120000000),
        ("2025-09-16T12:43:08Z", 1758026588000000000),
        ("2025-09-16T14:43:08+02:00", 1758026588000000000),
        ("2025-09-16T12:43:08", 1758026588000000000),
        ("1758026588000000000", 1758026588000000000),
        (1758026588000000000, 1758026588000000000),
        (1.5e18, 1500000000000000000),
        (float("inf"), None),
        ("tomorrow", None),
        ("\u00b2", None),
        (True, None),
        ([1], None),
    ],
)
def test_start_times(value, expected):
    assert _otel_spans._nanos(value) == expected
