"""Putting a proxy together: the guard file's engine over the store a URL names, and one way of serving clients.

- ``open_guard(config, locale=…, store=…)``: the ``ToolGuard`` (SetupError for a store URL no store takes, ConfigError
  for a guard file with problems);
- ``run_stdio(guard, target, name)``: one client on stdin/stdout, one connection to the server; returns when either
  side ends (or on SIGTERM), with the child's exit status (``child.exit_code``), or 0 for an HTTP upstream;
- ``toolguards.mcp_proxy.listen.run_listen``: clients over streamable HTTP, one server connection per session.
"""

from __future__ import annotations

import logging
import signal
import sys
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio

from ..guardfile.loader import load
from ..resources import default_guard_file
from ..serve.security import SetupError
from ..stores import open_stores
from .child import exit_code
from .guarding import ToolGuard
from .relay import Relay
from .stdio import stdio_streams
from .upstream import Target, connect

__all__ = ["log_to_stderr", "open_guard", "run_stdio"]


def _stores(url: str, namespace: str) -> Any:
    scheme = urlsplit(url).scheme if "://" in url else url
    try:
        if scheme in ("redis", "rediss"):
            from ..stores.redis import RedisStores  # noqa: PLC0415 - the client only for a redis:// store

            return RedisStores.from_url(url, namespace=namespace)
        return open_stores(url)
    except ValueError as exc:
        raise SetupError(f"--store: {exc}") from None
    except OSError as exc:  # a SQLite file that cannot be opened
        raise SetupError(f"--store {url}: {exc}") from None


def open_guard(config: str | None, *, locale: str | None = None, store: str = "memory") -> ToolGuard:
    """The guards of a guard file (None: the shipped default) over the store ``store`` names (as ``serve`` does: a
    Redis store's keys are namespaced by the guard file's name)."""
    path = Path(config) if config is not None else default_guard_file()
    return ToolGuard(load(path, locale=locale, stores=_stores(store, path.name)))


def log_to_stderr() -> None:
    """Send the ``toolguards`` logger's lines (a guard that failed, a message dropped) to stderr, one line each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("toolguards")
    logger.addHandler(handler)
    logger.propagate = False


async def _until_terminated(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            scope.cancel()
            return


async def _stdio(guard: ToolGuard, target: Target, name: str | None) -> int:
    child = None
    # The server first: a command that cannot start fails here, before any task group wraps its OSError.
    async with connect(target) as upstream, stdio_streams() as client:
        child = upstream.child
        relay = Relay(guard, session=uuid.uuid4().hex, name=name, fallback_name=target.fallback_name,
                      stamp=upstream.stamp)
        async with anyio.create_task_group() as group:
            group.start_soon(_until_terminated, group.cancel_scope)
            await relay.run(client, upstream.streams)
            group.cancel_scope.cancel()
    if child is None or child.returncode is None:
        return 0
    return exit_code(child.returncode)


def run_stdio(guard: ToolGuard, target: Target, name: str | None = None) -> int:
    """Proxy one stdio client to ``target`` until either side ends; the exit status (see the module docstring)."""
    return anyio.run(_stdio, guard, target, name)
