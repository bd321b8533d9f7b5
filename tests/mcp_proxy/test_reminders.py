"""Where a reminder goes in a ``tools/call`` result, the event a result becomes, and a guard that fails."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import FIRST
from toolguards import from_mapping
from toolguards.events import ToolEvent
from toolguards.mcp_proxy.guarding import ToolGuard
from toolguards.mcp_proxy.reminders import call_event, with_reminder

TEXT = {"type": "text", "text": "22:00"}
NOTE = {"type": "text", "text": "R"}
OPEN = {"type": "object", "properties": {"time": {"type": "string"}}}
CLOSED = {**OPEN, "additionalProperties": False}
REFERENCED = {"$defs": {"T": CLOSED}, "$ref": "#/$defs/T"}


@pytest.mark.parametrize(("result", "listed", "schema", "expected"), [
    ({"content": [TEXT]}, False, None, {"content": [NOTE, TEXT]}),
    ({"content": [TEXT], "isError": True}, True, None, {"content": [NOTE, TEXT], "isError": True}),
    ({"content": []}, True, None, {"content": [NOTE]}),
    ({}, True, None, {"content": [NOTE]}),
    ({"content": [TEXT], "structuredContent": {"time": "22:00"}}, True, OPEN,
     {"content": [NOTE, TEXT], "structuredContent": {"toolguards_reminder": "R", "time": "22:00"}}),
    ({"content": [TEXT], "structuredContent": {"time": "22:00"}}, True, None,
     {"content": [NOTE, TEXT], "structuredContent": {"toolguards_reminder": "R", "time": "22:00"}}),
    ({"content": [TEXT], "structuredContent": {"time": "22:00"}}, True, CLOSED,
     {"content": [NOTE, TEXT], "structuredContent": {"time": "22:00"}}),
    ({"content": [TEXT], "structuredContent": {"time": "22:00"}}, True, REFERENCED,
     {"content": [NOTE, TEXT], "structuredContent": {"time": "22:00"}}),
    ({"content": [TEXT], "structuredContent": {"time": "22:00"}}, False, None,
     {"content": [NOTE, TEXT], "structuredContent": {"time": "22:00"}}),
    ({"content": [TEXT], "structuredContent": {"toolguards_reminder": "x"}}, True, OPEN,
     {"content": [NOTE, TEXT], "structuredContent": {"toolguards_reminder": "x"}}),
    ({"content": [TEXT], "structuredContent": {"time": "22:00"}}, True, {"type": 7},
     {"content": [NOTE, TEXT], "structuredContent": {"time": "22:00"}}),
    ({"content": [TEXT], "_meta": {"k": 1}}, True, None, {"content": [NOTE, TEXT], "_meta": {"k": 1}}),
])
def test_where_the_reminder_goes(result, listed, schema, expected):
    before = repr(result)
    changed = with_reminder(result, ["R"], listed=listed, output_schema=schema)
    assert changed == expected
    assert list(changed.get("structuredContent", {})) == list(expected.get("structuredContent", {}))
    assert repr(result) == before  # the server's answer itself is never changed


def test_several_reminders_share_one_block():
    assert with_reminder({"content": []}, ["A", "B"], listed=True, output_schema=None) == {
        "content": [{"type": "text", "text": "A\n\nB"}]}


@pytest.mark.parametrize(("params", "result", "expected"), [
    ({"name": "echo", "arguments": {"m": 1}}, {"content": [TEXT]},
     ToolEvent("echo", {"m": 1}, "s:1", result={"content": [TEXT]})),
    ({"name": "echo"}, {"content": []}, ToolEvent("echo", {}, "s:1", result={"content": []})),
    ({"name": "echo", "arguments": None}, {"content": []}, ToolEvent("echo", {}, "s:1", result={"content": []})),
    ({"name": "echo", "arguments": {}}, {"content": [TEXT, {"type": "text", "text": "b"}], "isError": True},
     ToolEvent("echo", {}, "s:1", error="22:00\nb")),
    ({"name": "echo", "arguments": {}}, {"content": [{"type": "image", "data": "AA=="}], "isError": True},
     ToolEvent("echo", {}, "s:1", error='[{"data": "AA==", "type": "image"}]')),
    ({"arguments": {}}, {"content": []}, None),
])
def test_the_event_of_a_result(params, result, expected):
    assert call_event("s:1", params, result) == expected


def guard(**config: Any) -> ToolGuard:
    return ToolGuard(from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": config}]}))


def test_the_third_identical_call_draws_the_first_reminder_and_agents_are_apart():
    tool_guard = guard()
    params = {"name": "echo", "arguments": {"m": 1}}
    answers = [tool_guard.answer(agent, params, {"content": [TEXT]}) for agent in ("a", "a", "b", "a")]
    assert answers[:3] == [{"content": [TEXT]}] * 3
    assert answers[3] == {"content": [{"type": "text", "text": FIRST}, TEXT]}


def test_a_listed_schema_decides_the_structured_key():
    tool_guard = guard(thresholds=[2])
    tool_guard.listed({"tools": [{"name": "t", "inputSchema": {}, "outputSchema": CLOSED}, {"name": "u"}]})
    assert tool_guard.output_schemas == {"t": CLOSED, "u": None}
    result = {"content": [], "structuredContent": {"time": "1"}}
    tool_guard.answer("a", {"name": "t"}, result)
    assert tool_guard.answer("a", {"name": "t"}, result)["structuredContent"] == {"time": "1"}
    tool_guard.answer("a", {"name": "u"}, result)
    assert tool_guard.answer("a", {"name": "u"}, result)["structuredContent"] == {"toolguards_reminder": FIRST,
                                                                                   "time": "1"}


def test_a_guard_whose_store_is_down_forwards_the_result_unchanged(caplog):
    """A Redis store with no Redis behind it: every call fails in the store, and the answer passes as it came."""
    pytest.importorskip("redis", reason="the redis extra is not installed")
    from support.mcp_servers import free_port
    from toolguards.stores.redis import RedisStores

    stores = RedisStores.from_url(f"redis://127.0.0.1:{free_port()}/0?socket_connect_timeout=0.2")
    tool_guard = ToolGuard(from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": {"thresholds": [2]}}]},
                                        stores=stores))
    result = {"content": [TEXT]}
    try:
        assert [tool_guard.answer("a", {"name": "t"}, result) for _ in range(3)] == [result] * 3
    finally:
        stores.close()
    assert len(caplog.records) == 1
    assert caplog.records[0].getMessage().startswith("toolguards: repeat-tool-reminder.observe failed and was skipped")


def test_an_answer_to_a_cancelled_call_is_forwarded_uncounted():
    """A server may still answer a call the client cancelled (the client drops it): the relay forwards the answer and
    leaves it out of the chain, since the model never saw it."""
    pytest.importorskip("mcp", reason="the mcp extra is not installed (pip install 'toolguards[mcp]')")
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

    from toolguards.mcp_proxy.relay import Relay

    relay = Relay(guard(), session="1", name="s")
    result = {"content": [TEXT]}

    def call(number: int, cancel: bool = False) -> dict[str, Any]:
        relay.to_server(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=number, method="tools/call",
                                                      params={"name": "t", "arguments": {}})))
        if cancel:
            relay.to_server(SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled",
                                                               params={"requestId": number})))
        answer = relay.to_client(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=number, result=result)))
        return answer.message.result  # type: ignore[union-attr]

    assert [call(1), call(2), call(3, cancel=True), call(4)] == [
        result, result, result, {"content": [{"type": "text", "text": FIRST}, TEXT]}]


def test_the_result_reaches_the_guards_that_compare_results():
    tool_guard = ToolGuard(from_mapping({"guards": [{"id": "no-progress-reminder", "config": {"thresholds": [3]}}]}))
    same = {"content": [{"type": "text", "text": "no rows"}]}
    answers = [tool_guard.answer("a", {"name": "query", "arguments": {"offset": i}}, same) for i in range(3)]
    assert answers[:2] == [same, same]
    assert answers[2]["content"][0]["text"].startswith("You have made 3 calls in a row (the latest to `query`)")
