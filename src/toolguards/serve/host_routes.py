"""``POST /hooks/HOST``: a coding agent's own hook event in, exactly what ``toolguards hook HOST`` prints out.

One endpoint per host of ``toolguards.hooks.HOSTS`` (``claude``, ``codex``, ``gemini``, ``cursor``). The body is the
JSON object the host would write on the hook's stdin; it is read by the host's module and the shared driver
(``toolguards.hooks.driver``: ``parse``, ``apply``, ``render``), the very code the command runs, so the answer is the
command's stdout byte for byte — the host's JSON and a line break, or an empty body where the command prints nothing
(an ignored event, a reset, a call without a reminder). An event the host module cannot read is a 400 with the
command's one-line message.

The chains are the service's, in its store: each agent is keyed ``<host>:<session>:<agent>`` (the session
percent-encoded, the agent ``main`` or ``agent:<id>``), so sessions and subagents keep their own chains, a new prompt
resets only its session's main thread, and every replica sharing a Redis counts one session exactly. Where the
command turns a guard's failure into a one-line error and no output, the service fails open: the failing guard adds
nothing (a store failure is logged and counted, as for ``/v1/events``).

A Claude Code ``http`` hook posts here (``toolguards hook install claude --http URL`` writes the settings)::

    {"type": "http", "url": "http://127.0.0.1:8787/hooks/claude"}
"""

from __future__ import annotations

from urllib.parse import quote

from ..hooks import HOSTS, HookError
from ..hooks.driver import HookRequest, apply, parse, render
from ..values import replace
from .service import RequestError, Service

__all__ = ["HOSTS", "answer", "hook_agent"]


def hook_agent(request: HookRequest) -> str:
    """The service's key of the request's agent: its host, its session and its agent in the session."""
    return f"{request.host}:{quote(request.session, safe='', errors='surrogatepass')}:{request.agent}"


def answer(service: Service, host: str, body: bytes) -> bytes:
    """The body of the answer to one hook event: the command's stdout, b"" for nothing."""
    try:
        request = parse(host, body)
    except HookError as exc:
        raise RequestError(400, str(exc)) from None
    service.metrics.hook_event(host, request.action)
    if request.action == "ignore":
        return b""
    agent = hook_agent(request)
    keyed = replace(request, agent=agent, calls=tuple(replace(call, agent=agent) for call in request.calls))
    contexts = apply(service.engine, keyed)
    service.metrics.reminded(contexts)
    text = render(request, contexts)
    return f"{text}\n".encode("utf-8", "backslashreplace") if text else b""  # as the command writes it
