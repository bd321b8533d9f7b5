"""State stores, by URL scheme: where each guard keeps its per-agent chains.

Each store is one module of this package whose docstring is its reference; ``STORES`` names them by scheme, and
``open_stores(url)`` turns a URL into the store factory that ``toolguards.load(..., stores=...)`` takes:

- ``memory`` (the default): in this process, thread-safe (``toolguards.stores.memory``);
- ``sqlite:///PATH``: one SQLite file shared by the processes of one machine (``toolguards.stores.sqlite``);
- ``mapping``: in a JSON mapping the host keeps and hands in around each call, e.g. in a LangGraph checkpoint
  (``toolguards.stores.mapping``);
- ``redis://HOST:PORT/DB`` (``rediss://`` over TLS): one Redis database shared by many replicas on many machines
  (``toolguards.stores.redis``; the client comes with the ``redis`` extra, imported only when such a store opens).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType, ModuleType

from . import mapping, memory, redis, sqlite
from .base import StateStore, StateType, Step, StoreError, StoreFactory
from .mapping import MappingStore, holding
from .memory import MemoryStore
from .sqlite import SqliteDatabase, SqliteStore

__all__ = [
    "STORES",
    "MappingStore",
    "MemoryStore",
    "SqliteDatabase",
    "SqliteStore",
    "StateStore",
    "StateType",
    "Step",
    "StoreError",
    "StoreFactory",
    "holding",
    "open_stores",
]

#: Store modules by URL scheme; each has ``from_url(url) -> StoreFactory``.
STORES: Mapping[str, ModuleType] = MappingProxyType(
    {"memory": memory, "sqlite": sqlite, "mapping": mapping, "redis": redis, "rediss": redis}
)


def open_stores(url: str) -> StoreFactory:
    """The store factory a URL names (``memory``, ``sqlite:///PATH``...); ValueError for a URL no store takes."""
    from urllib.parse import urlsplit  # noqa: PLC0415 - it imports ipaddress: milliseconds a hook process never needs

    scheme = urlsplit(url).scheme if "://" in url else url
    module = STORES.get(scheme)
    if module is None:
        known = ", ".join(f"{name}:" for name in STORES)
        raise ValueError(f"unknown store {url!r} (known: {known})")
    factory: StoreFactory = module.from_url(url)
    return factory
