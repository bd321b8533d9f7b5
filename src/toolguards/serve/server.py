"""Putting the service together: the store a URL names, the engine of the guard file, and uvicorn on a socket."""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import prometheus_client
import uvicorn

from ..engine import Engine, FailureCallback
from ..guardfile.loader import check_bytes, engine_of
from ..guardfile.reading import read_guard_file
from ..resources import default_guard_file
from ..stores import StoreError, open_stores, redis_cluster
from ..stores import redis as redis_store
from .app import create_app
from .metrics import Metrics
from .security import DEFAULT_MAX_BODY, SetupError
from .service import Service

__all__ = ["open_service", "serve"]


def _stores(url: str, namespace: str, idle_ttl: int | None) -> tuple[Any, str]:
    """The store factory a URL names, and how /healthz names it."""
    scheme = urlsplit(url).scheme if "://" in url else url
    try:
        if scheme in redis_store.SCHEMES or scheme in redis_cluster.SCHEMES:
            kind = redis_cluster.RedisClusterStores if scheme in redis_cluster.SCHEMES else redis_store.RedisStores
            stores = kind.from_url(
                url, namespace=namespace, idle_ttl=redis_store.DEFAULT_IDLE_TTL if idle_ttl is None else idle_ttl
            )
            return stores, stores.name
        if idle_ttl is not None:
            raise SetupError(f"--idle-ttl applies to a redis:// or redis+cluster:// store, not to {scheme}")
        factory = open_stores(url)
    except ValueError as exc:
        raise SetupError(f"--store: {exc}") from None
    except OSError as exc:  # a SQLite file that cannot be opened
        raise SetupError(f"--store {url}: {exc}") from None
    return factory, "memory (in this process)" if scheme == "memory" else f"{url} (a file on this machine)"


class _Server(uvicorn.Server):
    """uvicorn's server, which on SIGINT or SIGTERM answers the requests under way and returns — without raising the
    signal again afterwards, as uvicorn does (that made the exit 143 on SIGTERM): the command exits 0."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
            yield
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _not_a_store_failure(record: logging.LogRecord) -> bool:
    """Whether a log record is let through: the engine's own line about a failing store (with its traceback) is not,
    since the service logs store failures itself, one line at most every 10 s (``Service``)."""
    return not (record.exc_info and isinstance(record.exc_info[1], StoreError))


def open_service(
    config: str | None,
    *,
    locale: str | None = None,
    store: str = "memory",
    idle_ttl: int | None = None,
    outcome_log: str | None = None,
) -> Service:
    """The service of a guard file (None: the shipped default) over the store a URL names; raises SetupError, or
    ConfigError for a guard file with problems. Every reminder is followed to its outcome (counted in the metrics),
    each outcome appended to ``outcome_log`` (default: the guard file's ``outcomes.log``, if any)."""
    path = Path(config) if config is not None else default_guard_file()
    stores, label = _stores(store, path.name, idle_ttl)
    metrics = Metrics()

    def engine(on_failure: FailureCallback) -> Engine:
        checked = check_bytes(str(path), read_guard_file(str(path), path), path.resolve().parent, locale)
        guard_file = checked.guard_file
        if outcome_log is not None:
            checked = replace(checked, guard_file=replace(guard_file, outcome_log=Path(outcome_log)))
        return engine_of(checked, stores=stores, on_failure=on_failure, on_outcome=metrics.outcome)

    return Service(engine, stores, label, metrics)


def serve(
    service: Service,
    sock: socket.socket,
    *,
    token: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
) -> None:
    """Answer requests on ``sock`` until SIGINT or SIGTERM; announce the address on stderr first."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(_not_a_store_failure)
    toolguards_log = logging.getLogger("toolguards")
    toolguards_log.addHandler(handler)
    toolguards_log.propagate = False
    prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # `_created` series: noise here
    app = create_app(service, token=token, max_body=max_body)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"toolguards serve: listening on http://{shown}:{port} (guards: {service.engine.source}; store: "
          f"{service.store_label}{'; bearer token required' if token else ''})", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False)
    try:
        _Server(config).run(sockets=[sock])
    finally:
        if isinstance(service.stores, redis_store.RedisStores):
            service.stores.close()
