"""What the loops cost in the formats whose usage records came last (issue 23): OpenAI Chat Completions messages and
response objects, Anthropic Messages, OpenTelemetry GenAI spans, each replayed end to end through
``toolguards replay --summary --format json``.

Every session is the same script, written in each API's own shapes: six model turns, the first four each call
``read {"p": "a"}``, the fifth ``grep {"q": "x"}``, the sixth answers in text. Turn k spends k × 100 input tokens
and k output tokens. Worked out by hand, under thresholds [3, 5]:

- all turns: 100 + 200 + 300 + 400 + 500 + 600 = 2100 in, 1 + 2 + ... + 6 = 21 out;
- the run of four ``read`` calls reaches the first threshold (3), so it is a loop: turns 1-4, 1000 in, 10 out;
- after the first reminder (the one after the 3rd call): the 4th call's turn, 400 in, 4 out;
- ``grep`` is a run of one, and the sixth turn made no call: in no run;
- the reminder after the 3rd call (no host delivered it: the control) was followed by one identical call, then a
  different one: ``repeated``, one identical call followed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolguards.cli import main

TURNS = range(1, 7)
CALLS = {1: ("read", {"p": "a"}), 2: ("read", {"p": "a"}), 3: ("read", {"p": "a"}), 4: ("read", {"p": "a"}),
         5: ("grep", {"q": "x"})}
TOKENS = {"input": 2100, "output": 21}
IN_LOOPS = {"input": 1000, "output": 10}
AFTER_REMINDER = {"input": 400, "output": 4}
GPT = "gpt-4o-2024-08-06"
CLAUDE = "claude-sonnet-4-5-20250929"


# --- OpenAI Chat Completions -----------------------------------------------------------------------------------


def chat_usage(turn: int) -> dict[str, Any]:
    """The usage object of a Chat Completions response; cached tokens are a part of ``prompt_tokens``, reasoning
    tokens a part of ``completion_tokens``."""
    return {"prompt_tokens": 100 * turn, "completion_tokens": turn, "total_tokens": 101 * turn,
            "prompt_tokens_details": {"cached_tokens": 64 if turn > 1 else 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 1, "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0}}


def chat_message(turn: int) -> dict[str, Any]:
    if turn not in CALLS:
        return {"role": "assistant", "content": "Done.", "refusal": None}
    name, arguments = CALLS[turn]
    call = {"id": f"call_{turn}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"role": "assistant", "content": None, "tool_calls": [call], "refusal": None}


def tool_message(turn: int) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"call_{turn}", "content": f"result {turn}"}


def openai_messages() -> str:
    """A JSON array of messages, each assistant message with its turn's usage beside it (as a client that logs the
    response's usage with the message writes it); the second turn's in the Responses API's names."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Go."}]
    for turn in TURNS:
        message = chat_message(turn) | {"model": GPT, "usage": chat_usage(turn)}
        if turn == 2:
            message["usage"] = {"input_tokens": 200, "output_tokens": 2, "total_tokens": 202,
                                "input_tokens_details": {"cached_tokens": 64},
                                "output_tokens_details": {"reasoning_tokens": 0}}
        messages.append(message)
        if turn in CALLS:
            messages.append(tool_message(turn))
    return json.dumps(messages, indent=2)


def openai_responses() -> str:
    """JSON Lines: the prompt, then each Chat Completions response object as the API returns it, each call's tool
    message after it."""
    lines: list[dict[str, Any]] = [{"role": "user", "content": "Go."}]
    for turn in TURNS:
        lines.append({"id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 1760000000 + turn,
                      "model": GPT, "choices": [{"index": 0, "message": chat_message(turn), "logprobs": None,
                                                 "finish_reason": "tool_calls" if turn in CALLS else "stop"}],
                      "usage": chat_usage(turn), "service_tier": "default", "system_fingerprint": "fp_1"})
        if turn in CALLS:
            lines.append(tool_message(turn))
    return "".join(json.dumps(line) + "\n" for line in lines)


# --- Anthropic Messages ----------------------------------------------------------------------------------------

#: turn: (input_tokens, cache_creation_input_tokens, cache_read_input_tokens), adding up to turn × 100
ANTHROPIC_INPUT = {1: (10, 90, 0), 2: (20, 0, 180), 3: (30, 70, 200), 4: (4, 0, 396), 5: (500, 0, 0), 6: (6, 0, 594)}


def anthropic_messages() -> str:
    """A message list whose assistant messages are the API's response objects, as a client logs them."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Go."}]
    for turn in TURNS:
        fresh, created, read = ANTHROPIC_INPUT[turn]
        content: list[dict[str, Any]] = [{"type": "text", "text": f"Turn {turn}."}]
        if turn in CALLS:
            name, arguments = CALLS[turn]
            content.append({"type": "tool_use", "id": f"toolu_{turn}", "name": name, "input": arguments})
        messages.append({"id": f"msg_{turn}", "type": "message", "role": "assistant", "model": CLAUDE,
                         "content": content, "stop_reason": "tool_use" if turn in CALLS else "end_turn",
                         "stop_sequence": None,
                         "usage": {"input_tokens": fresh, "cache_creation_input_tokens": created,
                                   "cache_read_input_tokens": read, "output_tokens": turn,
                                   "service_tier": "standard"}})
        if turn in CALLS:
            messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{turn}",
                                                          "content": f"result {turn}"}]})
    return json.dumps(messages, indent=2)


# --- OpenTelemetry GenAI ---------------------------------------------------------------------------------------


def attributes(**values: Any) -> list[dict[str, Any]]:
    """OTLP attributes; a key's dots are written as __ here."""
    return [{"key": key.replace("__", "."), "value": {"intValue": str(value)} if isinstance(value, int)
             else {"stringValue": value}} for key, value in values.items()]


def span(span_id: str, parent: str, name: str, start: int, **values: Any) -> dict[str, Any]:
    return {"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": span_id.rjust(16, "0"),
            "parentSpanId": parent.rjust(16, "0") if parent else "", "name": name,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 40), "attributes": attributes(**values)}


def otel_trace() -> str:
    """An OTLP document: an invoke_agent span that carries the session's totals (not a turn: its turns count), each
    turn a framework's model span holding the client library's ``chat`` span (the same turn twice: it counts once)
    and the turn's execute_tool span; turn 3's chat span in the older usage names; one chat span exported twice."""
    spans = [span("a", "", "invoke_agent helper", 10, gen_ai__operation__name="invoke_agent", gen_ai__agent__name="helper",
                  gen_ai__usage__input_tokens=2100, gen_ai__usage__output_tokens=21)]
    for turn in TURNS:
        start = 100 * turn
        spans.append(span(f"f{turn}", "a", "call_llm", start, gen_ai__request__model="gpt-4o",
                          gen_ai__usage__input_tokens=100 * turn, gen_ai__usage__output_tokens=turn))
        names = ({"gen_ai__usage__prompt_tokens": 300, "gen_ai__usage__completion_tokens": 3} if turn == 3 else
                 {"gen_ai__usage__input_tokens": 100 * turn, "gen_ai__usage__output_tokens": turn})
        spans.append(span(f"c{turn}", f"f{turn}", "chat gpt-4o", start + 1, gen_ai__operation__name="chat",
                          gen_ai__request__model="gpt-4o", gen_ai__response__model=GPT, **names))
        if turn in CALLS:
            name, arguments = CALLS[turn]
            spans.append(span(f"e{turn}", f"f{turn}", f"execute_tool {name}", start + 50,
                              gen_ai__operation__name="execute_tool", gen_ai__tool__name=name,
                              gen_ai__tool__call__arguments=json.dumps(arguments)))
    spans.append(spans[2])  # the first chat span again, as an exporter that retried writes it
    return json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans": spans}]}]})


SESSIONS = [
    pytest.param("chat.json", openai_messages, GPT, id="openai-messages"),
    pytest.param("completions.jsonl", openai_responses, GPT, id="openai-chat-completion-objects"),
    pytest.param("messages.json", anthropic_messages, CLAUDE, id="anthropic"),
    pytest.param("trace.json", otel_trace, GPT, id="otel"),
]


def replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str) -> dict[str, Any]:
    config = tmp_path / "g.yaml"
    config.write_text("guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [3, 5]}\n", encoding="utf-8")
    session = tmp_path / name
    session.write_text(text, encoding="utf-8")
    assert main(["replay", "--summary", "--format", "json", "--config", str(config), str(session)]) == 0
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    return found


@pytest.mark.parametrize(("name", "write", "model"), SESSIONS)
def test_the_loops_cost(tmp_path, capsys, name, write, model):
    found = replay(tmp_path, capsys, name, write())
    assert (found["calls"], found["records_not_read"], found["skipped_lines"]) == (5, [], 0)
    cost = found["cost"]
    assert (cost["tokens"], cost["tokens_in_loops"], cost["tokens_after_reminder"]) == (
        TOKENS, IN_LOOPS, AFTER_REMINDER)
    assert {tool: (figures["tokens_in_loops"], figures["tokens_after_reminder"])
            for tool, figures in cost["tools"].items()} == {"read": (IN_LOOPS, AFTER_REMINDER)}
    assert found["outcomes"] == [{"guard": "repeat-tool-reminder", "template": "first", "tool": "read", "model": model,
                                  "delivered": False, "reminders": 1, "changed": 0, "repeated": 1, "ended": 0,
                                  "followed": 1}]


@pytest.mark.parametrize(("name", "write", "model"), SESSIONS)
def test_the_report_shows_the_same_tokens(tmp_path, capsys, name, write, model):
    del model
    session = tmp_path / name
    session.write_text(write(), encoding="utf-8")
    page = tmp_path / "page.html"
    config = tmp_path / "g.yaml"
    config.write_text("guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [3, 5]}\n", encoding="utf-8")
    assert main(["report", "--config", str(config), "-o", str(page), str(session)]) == 0
    html = page.read_text(encoding="utf-8")
    assert ': 2100 / 21)</td><td class="num" data-tokens="in_loops">1000 / 10</td><td class="num" ' \
           'data-tokens="after_reminder">400 / 4</td>' in html
