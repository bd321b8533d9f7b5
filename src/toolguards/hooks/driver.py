"""The shared hook driver: a host's event in, a ``HookRequest`` out; reminders in, the host's exact stdout text out.

The API (pure functions: no stdin, no files, no process state; only ``apply`` changes anything, the engine's stores)::

    parse(host, payload) -> HookRequest           # HookError, with a one-line message, for input it cannot read
    apply(engine, request) -> tuple[ContextEntry, ...]   # the reset, or each call counted in emitted order
    render(request, contexts) -> str              # the exact stdout text; "" for nothing

``toolguards hook HOST`` prints ``render(request, apply(engine, request))`` for ``request = parse(HOST, stdin)``,
with an engine whose stores are the session's SQLite stores (``toolguards.hooks.command``); ``toolguards serve``
answers the same text over HTTP. A ``HookRequest`` says what the event asks for:

- ``host``: the host's name; ``event``: the host's own event name;
- ``action``: ``"count"`` (``calls`` to count), ``"reset"`` (a new prompt: the agent's chains start afresh) or
  ``"ignore"`` (any event the host module does not list);
- ``session``: the host's session (or conversation) id, which keys the state; ``agent``: ``"main"``, or
  ``"agent:<id>"`` for a subagent that keeps its own chains;
- ``calls``: the tool calls, as ``ToolEvent``s of that agent, in the order the model emitted them.

``render`` joins the reminders' texts with blank lines and keeps the result within the host's ``CONTEXT_LIMIT``
(UTF-16 code units, as the hosts' JavaScript counts; Claude Code caps context at 10,000 characters): whole reminders
are kept in order while they fit and the rest are dropped, and a first reminder that alone is too long is cut, ending
with ``…``. An ignored event, a reset, and a count without reminders render as ``""``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..events import ContextEntry, ToolEvent
from ..values import frozen
from . import host as host_module
from .protocol import HookError, decode

if TYPE_CHECKING:
    from ..engine import Engine
    from .protocol import Action

__all__ = ["HookError", "HookRequest", "apply", "parse", "parse_event", "render"]

ELLIPSIS = "…"


@frozen
class HookRequest:
    """What one hook event asks for (see the module docstring)."""

    host: str
    event: str
    action: Action
    session: str
    agent: str
    calls: tuple[ToolEvent, ...] = ()


def parse(host: str, payload: bytes | str) -> HookRequest:
    """The request of one hook event (the JSON text a host sends); HookError for input it cannot read."""
    return parse_event(host, decode(payload))


def parse_event(host: str, event: dict[str, Any]) -> HookRequest:
    """The request of one event object already decoded from JSON."""
    module = host_module(host)
    name, session, agent = module.read(event)
    action: Action = module.EVENTS.get(name, "ignore")
    calls: tuple[ToolEvent, ...] = ()
    if action == "count":
        calls = tuple(
            ToolEvent(tool, arguments, agent, False, call_id, result, error)
            for tool, arguments, call_id, result, error in module.calls(name, event)
        )
    return HookRequest(host, name, action, session, agent, calls)


def apply(engine: Engine, request: HookRequest) -> tuple[ContextEntry, ...]:
    """Reset the agent or count each call through ``engine``; the reminders for the model, in order."""
    if request.action == "reset":
        engine.pre_step(request.agent, user_prompt=True)
        return ()
    found: list[ContextEntry] = []
    for call in request.calls:
        found += engine.post_execute(call).additional_contexts
    return tuple(found)


def _units(text: str) -> int:
    """The length in UTF-16 code units: characters above U+FFFF count twice, as in JavaScript."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _cut(text: str, limit: int) -> str:
    kept, used = [], 0
    for char in text:
        used += 2 if ord(char) > 0xFFFF else 1
        if used > limit - len(ELLIPSIS):
            break
        kept.append(char)
    return "".join(kept) + ELLIPSIS


def fit(texts: Sequence[str], limit: int) -> str:
    """The texts joined by blank lines, kept within ``limit`` UTF-16 code units (see the module docstring)."""
    kept: list[str] = []
    used = 0
    for text in texts:
        need = _units(text) + (2 if kept else 0)
        if used + need > limit:
            if not kept:
                kept.append(_cut(text, limit))
            break
        kept.append(text)
        used += need
    return "\n\n".join(kept)


def render(request: HookRequest, contexts: Sequence[ContextEntry]) -> str:
    """The exact stdout text for the request's reminders: one JSON object, or "" when there is nothing to say.
    Non-ASCII stays as it is for a host that decodes the whole stdout as UTF-8 (``STDOUT_UTF8``); a lone surrogate
    (a tool name may hold one) is then for the writer to escape (``backslashreplace`` writes it as JSON does)."""
    texts = [entry.text for entry in contexts if entry.text]
    if request.action != "count" or not texts:
        return ""
    module = host_module(request.host)
    answer = module.answer(request.event, fit(texts, module.CONTEXT_LIMIT))
    return json.dumps(answer, ensure_ascii=not module.STDOUT_UTF8)
