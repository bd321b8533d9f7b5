"""State stores, by URL scheme: where each guard keeps its per-agent chains.

Each store is one module of this package whose docstring is its reference; ``STORES`` names them by scheme, and
``open_stores(url)`` turns a URL into the store factory that ``toolguards.load(..., stores=...)`` takes:

- ``memory`` (the default): in this process, thread-safe (``toolguards.stores.memory``);
- ``sqlite:///PATH``: one SQLite file shared by the processes of one machine (``toolguards.stores.sqlite``);
- ``mapping``: in a JSON mapping the host keeps and hands in around each call, e.g. in a LangGraph checkpoint
  (``toolguards.stores.mapping``);
- ``redis://HOST:PORT/DB`` (``rediss://`` over TLS): one Redis database shared by many replicas on many machines
  (``toolguards.stores.redis``; the client comes with the ``redis`` extra, imported only when such a store opens);
- ``redis+cluster://HOST:PORT[,HOST:PORT…]`` (``rediss+cluster://`` over TLS): a Redis Cluster, each agent's state on
  the master of its key's slot (``toolguards.stores.redis_cluster``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

from .base import StateStore, StateType, Step, StoreError, StoreFactory

if TYPE_CHECKING:
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
    "store_module",
]

#: Store modules by URL scheme, imported when a URL names them (a hook process loads only the one it uses); each has
#: ``from_url(url) -> StoreFactory``.
STORES: Mapping[str, str] = MappingProxyType({
    "memory": "toolguards.stores.memory",
    "sqlite": "toolguards.stores.sqlite",
    "mapping": "toolguards.stores.mapping",
    "redis": "toolguards.stores.redis",
    "rediss": "toolguards.stores.redis",
    "redis+cluster": "toolguards.stores.redis_cluster",
    "rediss+cluster": "toolguards.stores.redis_cluster",
})

# The stores' classes, re-exported here and imported on first use.
_EXPORTS = {"MappingStore": "mapping", "holding": "mapping", "MemoryStore": "memory", "SqliteDatabase": "sqlite",
            "SqliteStore": "sqlite"}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def store_module(scheme: str) -> ModuleType:
    """The module of the store a URL scheme names; KeyError for a scheme no store takes."""
    return importlib.import_module(STORES[scheme])


def open_stores(url: str) -> StoreFactory:
    """The store factory a URL names (``memory``, ``sqlite:///PATH``...); ValueError for a URL no store takes."""
    from urllib.parse import urlsplit  # noqa: PLC0415 - it imports ipaddress: milliseconds a hook process never needs

    scheme = urlsplit(url).scheme if "://" in url else url
    if scheme not in STORES:
        known = ", ".join(f"{name}:" for name in STORES)
        raise ValueError(f"unknown store {url!r} (known: {known})")
    factory: StoreFactory = store_module(scheme).from_url(url)
    return factory
