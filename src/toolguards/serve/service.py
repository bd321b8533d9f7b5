"""What the service does with a request, apart from HTTP: decode the events, run them through the engine, answer.

The events are read by the ``events`` importer's own check (``toolguards.replay.importers.toolguards_events.decode``),
so the service and ``toolguards replay`` accept exactly the same events and word every problem alike. A batch is checked
whole before any of it is counted: a bad event anywhere rejects the request, and nothing of it was counted.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ..engine import Engine, FailureCallback
from ..events import PostToolDecision
from ..replay.importers._json import json_type
from ..replay.importers.toolguards_events import decode
from ..replay.records import Record
from ..stores.base import StoreError, StoreFactory
from .metrics import Metrics

__all__ = ["MAX_REPORTED", "HealthCheck", "RequestError", "Service", "decode_json", "encode_json"]

log = logging.getLogger("toolguards")

#: Bad events of a batch worded in its error (the rest are counted).
MAX_REPORTED = 3
#: Seconds between two log lines about store failures (the failures between are counted in the next line).
LOG_INTERVAL = 10.0


class RequestError(Exception):
    """A request the service cannot take: an HTTP status and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@runtime_checkable
class HealthCheck(Protocol):
    """A store factory that can ask its server whether it is there (the Redis store)."""

    def health(self) -> str:
        """A short description of the store when it answers; raises StoreError when it does not."""
        ...


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def decode_json(body: bytes) -> Any:
    """The request body's JSON value; RequestError 400 with a one-line reason when it is none."""
    if not body.strip():
        raise RequestError(400, "the body is empty: send one event object or an array of events")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(400, f"the body is not UTF-8 (byte {exc.start + 1})") from None
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise RequestError(400, f"the body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise RequestError(400, "the body nests too deeply") from None
    except ValueError as exc:
        raise RequestError(400, f"the body is not JSON: {exc}") from None


def encode_json(value: Any) -> bytes:
    """A JSON answer on one line (non-ASCII text as it is, in UTF-8)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def _decision(decision: PostToolDecision) -> dict[str, Any]:
    return {
        "decision": decision.kind,
        "contexts": [entry.to_json() for entry in decision.additional_contexts],
        "feedback": decision.feedback,
    }


_ACCEPTED: dict[str, Any] = {"decision": "accept", "contexts": [], "feedback": None}
_ACCEPTED_JSON = encode_json(_ACCEPTED)  # the answer to most single events, encoded once


class Service:
    """One guard file's engine behind the service's endpoints, with the metrics of this process."""

    def __init__(self, load: Callable[[FailureCallback], Engine], stores: StoreFactory, store_label: str,
                 metrics: Metrics | None = None) -> None:
        """``load(on_failure)`` builds the engine; ``stores`` is its store factory, ``store_label`` names it."""
        self.metrics = metrics or Metrics()
        self.stores = stores
        self.store_label = store_label
        self._unlogged = 0
        self._logged_at = -LOG_INTERVAL
        self.engine = load(self._failed)

    def events(self, body: bytes) -> bytes:
        """``POST /v1/events``: one answer per event, in order (an object for an object, an array for an array)."""
        data = decode_json(body)
        if isinstance(data, list):
            records = self._records(data)
            return encode_json([self._run(record) for record in records])
        if isinstance(data, dict):
            found = decode(1, data)
            if isinstance(found, list):
                raise RequestError(400, "; ".join(found))
            answer = self._run(found)
            return _ACCEPTED_JSON if answer is _ACCEPTED else encode_json(answer)
        raise RequestError(400, f"expected one event object or an array of events, not {json_type(data)}")

    def _records(self, data: list[Any]) -> list[Record]:
        records: list[Record] = []
        bad: list[str] = []
        count = 0
        for index, event in enumerate(data):
            found = decode(index + 1, event)
            if isinstance(found, list):
                count += 1
                if count <= MAX_REPORTED:
                    bad.append(f"[{index}]: {'; '.join(found)}")
            else:
                records.append(found)
        if bad:
            more = count - MAX_REPORTED
            more_text = f" (and {more} more bad event{'s' if more != 1 else ''})" if more > 0 else ""
            raise RequestError(400, f"{'; '.join(bad)}{more_text}")
        return records

    def _run(self, record: Record) -> dict[str, Any]:
        kind = record.kind
        if kind == "post-execute":
            decision = self.engine.post_execute(record)
            self.metrics.post_execute(decision)
            return _ACCEPTED if decision.kind == "accept" and not decision.additional_contexts else _decision(decision)
        self.metrics.events.labels(kind).inc()
        if kind == "pre-step":
            self.engine.pre_step(record.agent, user_prompt=record.user_prompt)
        else:
            self.engine.forget(record.agent)
        return _ACCEPTED

    def health(self) -> tuple[int, bytes]:
        """``GET /healthz``: 200 and the store's description, or 503 when the store does not answer."""
        if not isinstance(self.stores, HealthCheck):
            return 200, encode_json({"status": "ok", "store": self.store_label})
        try:
            described = self.stores.health()
        except StoreError as exc:
            return 503, encode_json({"status": "unavailable", "store": self.store_label, "error": str(exc)})
        return 200, encode_json({"status": "ok", "store": described})

    def _failed(self, guard_id: str | None, what: str, exc: BaseException) -> None:
        """The engine's failure callback: count it; log store failures at most once per LOG_INTERVAL."""
        guard = guard_id or "engine"
        if not isinstance(exc, StoreError):
            self.metrics.guard_failures.labels(guard, what).inc()
            return
        self.metrics.store_errors.labels(guard).inc()
        now = time.monotonic()
        if now - self._logged_at < LOG_INTERVAL:
            self._unlogged += 1
            return
        unlogged = self._unlogged
        failures = f"store failure{'s' if unlogged != 1 else ''}"
        more = f" (and {unlogged} more {failures} since the last line)" if unlogged else ""
        log.warning("toolguards serve: %s failed, answered without its reminders: %s%s", guard, exc, more)
        self._logged_at, self._unlogged = now, 0
