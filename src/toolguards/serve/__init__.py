"""``toolguards serve``: the guards as an HTTP JSON service, for hosts in any language and replicas on many machines.

Install it with ``pip install 'toolguards[serve]'`` (Starlette, uvicorn, prometheus-client), and the Redis client
with ``toolguards[redis]`` for ``--store redis://…``. Every answer is one line of JSON.

``POST /v1/events``
    One event object, or an array of them, in the ``events`` format ``toolguards replay`` reads
    (``toolguards.replay.importers.toolguards_events``: ``post-execute`` with ``agent``, ``tool``, ``arguments``,
    ``denied``, ``callId``, ``result``, ``error``; ``pre-step`` with ``userPrompt``; ``forget``). The answer is, for
    each event in order (an object for an object, an array for an array)::

        {"decision": "accept" | "block", "contexts": [{"text": …, "source": {…}, "metadata": {…}}], "feedback": …}

    ``contexts`` are the reminders to append after the step's tool results; ``feedback`` is a block's explanation
    (null otherwise). ``pre-step`` and ``forget`` answer an accept with no contexts. A batch is counted in its order,
    and checked whole first: one bad event rejects the request, and nothing of it is counted.

``POST /hooks/claude``, ``/hooks/codex``, ``/hooks/gemini``, ``/hooks/cursor``
    The host's own hook event in, exactly what ``toolguards hook HOST`` would print out (an empty body where it prints
    nothing), through the same driver (``toolguards.serve.host_routes``); agents are keyed by host, session and agent,
    so a Claude Code ``http`` hook works with every replica sharing the chains.

``GET /healthz``
    200 ``{"status": "ok", "store": …}``; 503 ``{"status": "unavailable", "store": …, "error": …}`` when the store
    does not answer (Redis is asked with PING on every call).

``GET /metrics``
    Prometheus text (``toolguards.serve.metrics``): events, reminders by guard and template, store errors, requests
    and their latency.

``POST /v1/noop``
    Reads the body like ``/v1/events`` and answers ``{}``: the service's own floor, for measuring its overhead.

Errors are ``{"error": "<one line>"}``: 400 for a body that is not JSON or not events (every problem worded as
replay words it), 413 for a body over ``--max-body``, 401 for a missing or wrong bearer token, 404 and 405 for an
unknown endpoint or method; never a traceback. A store that fails (Redis down) answers 200 with no contexts — a missed
nudge never breaks an agent — logged on stderr (at most once per 10 s) and counted in ``/metrics``; counting resumes
by itself when the store is back.

The service listens on loopback by default; any other address needs ``--token-file``, and then every request must
carry ``Authorization: Bearer <token>`` (``toolguards.serve.security``).
"""

from __future__ import annotations

# Nothing is imported here: ``toolguards.serve.security`` is plain Python and must load without the ``serve`` extra
# (the command checks its options before it imports the server stack). The parts: ``app`` (the Starlette application,
# ``create_app``), ``fast_routes`` (its two hot endpoints in plain ASGI), ``service`` (``Service``: events in,
# decisions out), ``hooks`` (the hosts' hook events), ``metrics``, ``security``, ``server``.
__all__: list[str] = []
