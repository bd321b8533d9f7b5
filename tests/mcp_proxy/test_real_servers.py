"""``toolguards mcp`` between the official SDK's client and real servers no one here wrote, side by side with a direct
connection: server-everything (npm, the protocol's reference server) and mcp-server-time (PyPI, a 2026-07-28 server),
over stdio and streamable HTTP, both ways (``--upstream`` to an HTTP server, ``--listen`` for an HTTP client)."""

from __future__ import annotations

import json
import os
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from conftest import FIRST, detailed

pytest.importorskip("mcp", reason="the mcp extra is not installed (pip install 'toolguards[mcp]')")

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from support.mcp_servers import TOOLGUARDS, everything, free_port, proxied, running, time_server, which

TOKEN = "0123456789abcdef0123"
ERROR_GUARDS = """guards:
  - id: repeat-tool-reminder
  - id: repeated-error-reminder
"""


def stdio(command: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:])


def dump(value: Any) -> Any:
    return value.model_dump(by_alias=True, exclude_none=True, mode="json")


def reminder_at(count: int, tool: str, arguments: str) -> str | None:
    return {3: FIRST, 5: detailed(tool, 5, arguments), 8: detailed(tool, 8, arguments)}.get(count)


def without_reminder(result: dict[str, Any], text: str) -> dict[str, Any]:
    """The result as the server sent it: the proxy's first text block, and its structuredContent key, taken out."""
    assert result["content"][0] == {"type": "text", "text": text}
    plain = dict(result, content=result["content"][1:])
    if "toolguards_reminder" in result.get("structuredContent", {}):
        structured = dict(result["structuredContent"])
        assert next(iter(structured)) == "toolguards_reminder"
        assert structured.pop("toolguards_reminder") == text
        plain["structuredContent"] = structured
    return plain


async def calls(server: Any, tool: str, arguments: dict[str, Any], count: int, mode: str = "legacy") -> list[Any]:
    async with Client(server, mode=mode) as client:
        listed = dump(await client.list_tools())
        return [listed] + [dump(await client.call_tool(tool, arguments)) for _ in range(count)]


def test_server_everything_over_stdio_is_unchanged_but_for_the_reminders_at_3_5_8():
    async def run(server: Any) -> dict[str, Any]:
        async with Client(server, mode="legacy") as client:
            return {
                "tools": dump(await client.list_tools()),
                "echo": [dump(await client.call_tool("echo", {"message": "hi"})) for _ in range(9)],
                "structured": [dump(await client.call_tool("get-structured-content", {"location": "Chicago"}))
                               for _ in range(3)],
                "failing": [dump(await client.call_tool("echo", {})) for _ in range(3)],
            }

    direct = anyio.run(run, stdio(everything()))
    through = anyio.run(run, stdio(proxied(everything())))
    assert through["tools"] == direct["tools"]
    for count, (sent, got) in enumerate(zip(direct["echo"], through["echo"], strict=True), start=1):
        text = reminder_at(count, "echo", '{"message":"hi"}')
        assert (got if text is None else without_reminder(got, text)) == sent, count
    # get-structured-content's outputSchema forbids other properties: its structuredContent stays as it was
    assert through["structured"][:2] == direct["structured"][:2]
    assert through["structured"][2]["structuredContent"] == direct["structured"][2]["structuredContent"]
    assert without_reminder(through["structured"][2], FIRST) == direct["structured"][2]
    # an isError result is counted and keeps isError
    assert through["failing"][:2] == direct["failing"][:2]
    assert through["failing"][2]["isError"] is True
    assert without_reminder(through["failing"][2], FIRST) == direct["failing"][2]


def test_a_structured_result_carries_the_reminder_where_its_schema_allows_it():
    """mcp-server-time's outputSchema takes other properties: the reminder is also the first key of structuredContent
    (the SDK's client validates the result against that schema, so a bad one would raise)."""
    direct = anyio.run(calls, stdio(time_server()), "get_current_time", {"timezone": "Etc/UTC"}, 3, "auto")
    through = anyio.run(calls, stdio(proxied(time_server())), "get_current_time", {"timezone": "Etc/UTC"}, 3, "auto")
    assert through[0] == direct[0]

    def steady(result: dict[str, Any]) -> dict[str, Any]:  # the time itself moves on between calls
        return json.loads(json.dumps(result).replace(result["structuredContent"]["datetime"], "<now>"))

    assert [steady(result) for result in through[1:3]] == [steady(result) for result in direct[1:3]]
    assert through[3]["structuredContent"]["toolguards_reminder"] == FIRST
    assert steady(without_reminder(through[3], FIRST)) == steady(direct[3])


def test_an_error_result_feeds_repeated_error_reminder(tmp_path):
    (tmp_path / "g.yaml").write_text(ERROR_GUARDS, encoding="utf-8")

    async def run() -> list[Any]:
        async with Client(stdio(proxied(everything(), "--config", str(tmp_path / "g.yaml"))), mode="legacy") as client:
            return [dump(await client.call_tool("echo", arguments)) for arguments in ({}, {"x": 1}, {"y": 2})]

    results = anyio.run(run)
    assert all(result["isError"] for result in results)
    assert [len(result["content"]) for result in results] == [1, 1, 2]
    assert results[2]["content"][0]["text"].startswith("The tool `echo` has failed 3 times in a row with the same error.")


def test_a_cancelled_call_behaves_as_directly_and_is_not_counted():
    long_call = ("trigger-long-running-operation", {"duration": 0.3, "steps": 3})

    async def run(server: Any) -> list[Any]:
        async with Client(server, mode="legacy") as client:
            done = [dump(await client.call_tool(*long_call)) for _ in range(2)]
            started = anyio.Event()

            async def progress(*_: Any) -> None:
                started.set()

            async with anyio.create_task_group() as group:
                async def cancelled() -> None:
                    await client.call_tool(*long_call, progress_callback=progress)

                group.start_soon(cancelled)
                await started.wait()
                group.cancel_scope.cancel()
            done.append(dump(await client.call_tool(*long_call)))
            done.append(dump(await client.call_tool("echo", {"message": "still there"})))
            return done

    direct = anyio.run(run, stdio(everything()))
    through = anyio.run(run, stdio(proxied(everything())))
    assert through[:2] == direct[:2]
    # the cancelled call never answered the model: the call after it is the third of the run
    assert without_reminder(through[2], FIRST) == direct[2]
    assert through[3] == direct[3]


def test_a_server_crash_ends_the_call_and_the_proxy_as_directly(tmp_path):
    pid_file = tmp_path / "pid"
    status_file = tmp_path / "status"
    sh = which("sh")
    crashing = [sh, "-c", f'echo $$ > {pid_file}; exec "$0" "$@"', *everything()]

    async def run(server: Any) -> tuple[type[BaseException], int | None]:
        async with Client(server, mode="legacy") as client:
            started = anyio.Event()

            async def progress(*_: Any) -> None:
                started.set()

            caught: BaseException | None = None
            async with anyio.create_task_group() as group:
                async def call() -> None:
                    nonlocal caught
                    try:
                        await client.call_tool("trigger-long-running-operation", {"duration": 5, "steps": 5},
                                               progress_callback=progress)
                    except Exception as exc:
                        caught = exc

                group.start_soon(call)
                await started.wait()
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            assert caught is not None
            return type(caught), caught.code if isinstance(caught, MCPError) else None

    direct = anyio.run(run, stdio(crashing))
    through = anyio.run(run, stdio([sh, "-c", f'"$0" "$@"; echo $? > {status_file}', *proxied(crashing)]))
    assert through == direct
    assert direct[0] is MCPError
    assert status_file.read_text().strip() == str(128 + signal.SIGKILL)


@pytest.fixture(scope="module")
def everything_http() -> Iterator[str]:
    port = free_port()
    with running([str(Path(everything()[0])), "streamableHttp"], port, env={"PORT": str(port)}):
        yield f"http://127.0.0.1:{port}/mcp"


def test_upstream_http_server_is_unchanged_but_for_the_reminders(everything_http):
    direct = anyio.run(calls, everything_http, "echo", {"message": "hi"}, 5)
    through = anyio.run(calls, stdio([TOOLGUARDS, "mcp", "--upstream", everything_http]), "echo",
                        {"message": "hi"}, 5)
    assert through[0] == direct[0]
    for count, (sent, got) in enumerate(zip(direct[1:], through[1:], strict=True), start=1):
        text = reminder_at(count, "echo", '{"message":"hi"}')
        assert (got if text is None else without_reminder(got, text)) == sent, count


@pytest.fixture(scope="module")
def listening() -> Iterator[dict[str, str]]:
    ports = {"everything": free_port(), "time": free_port()}
    with running(proxied(everything(), "--listen", f"127.0.0.1:{ports['everything']}"), ports["everything"]), \
            running(proxied(time_server(), "--listen", f"127.0.0.1:{ports['time']}"), ports["time"]):
        yield {name: f"http://127.0.0.1:{port}/mcp" for name, port in ports.items()}


def test_listen_serves_http_clients_one_session_one_chain(listening):
    direct = anyio.run(calls, stdio(everything()), "echo", {"message": "hi"}, 8)
    first = anyio.run(calls, listening["everything"], "echo", {"message": "hi"}, 8)
    second = anyio.run(calls, listening["everything"], "echo", {"message": "hi"}, 3)
    assert first[0] == direct[0]
    for count, (sent, got) in enumerate(zip(direct[1:], first[1:], strict=True), start=1):
        text = reminder_at(count, "echo", '{"message":"hi"}')
        assert (got if text is None else without_reminder(got, text)) == sent, count
    # a new session starts a fresh chain
    assert second[1:3] == direct[1:3]
    assert without_reminder(second[3], FIRST) == direct[3]


def test_listen_serves_a_2026_client_by_the_handshake(listening):
    """The SDK's client probes ``server/discover`` first (mode auto), is told 400, and falls back to ``initialize``:
    it then sees what a handshake-era client sees directly."""
    direct = anyio.run(calls, stdio(time_server()), "get_current_time", {"timezone": "Etc/UTC"}, 1, "legacy")
    through = anyio.run(calls, listening["time"], "get_current_time", {"timezone": "Etc/UTC"}, 1, "auto")
    assert through[0] == direct[0]
    assert through[1]["structuredContent"].keys() == direct[1]["structuredContent"].keys()


def post(url: str, body: dict[str, Any], token: str | None = None) -> tuple[int, dict[str, str]]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def test_listen_with_a_token_asks_every_request_for_it(tmp_path):
    (tmp_path / "token").write_text(TOKEN + "\n", encoding="utf-8")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with running(proxied(time_server(), "--listen", f"127.0.0.1:{port}", "--token-file", str(tmp_path / "token")),
                 port):
        assert post(url, INITIALIZE)[0] == 401
        assert post(url, INITIALIZE, "wrong-token-wrong-token")[0] == 401
        status, headers = post(url, INITIALIZE, TOKEN)
        assert status == 200
        assert {key.lower() for key in headers} >= {"mcp-session-id"}
        assert post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, TOKEN)[0] == 400
