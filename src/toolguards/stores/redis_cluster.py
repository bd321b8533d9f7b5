"""``redis+cluster://HOST:PORT[,HOST:PORT…]`` (``rediss+cluster://`` over TLS): guard states in a Redis Cluster.

The keys, values, idle expiry, compare-and-set and remembered values of ``toolguards.stores.redis`` (its docstring is
their reference), kept in a Redis Cluster instead of one server, for chains that outgrow one Redis or must survive
the loss of one (``docs/redis.md`` tells what a failover can lose):

- the URL names one or more nodes of the cluster, ``redis+cluster://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT…][/0]
  [?OPTIONS]``; the client asks them for the cluster's layout and follows it as it changes (a failover, a
  resharding), so any one reachable node is enough, and naming a few lets the service start while one is down. The
  options are the client's, as for ``redis://``; the database can only be 0, a cluster's only one;
- each agent's state is one key, so one hash slot, and the compare-and-set script declares that key: every update
  runs on the master of the key's slot, atomically, exactly as on one server (an agent id that holds ``{…}`` has its
  slot picked by what the braces hold, Redis's hash tags; it is still one key);
- a failure is kept to its master: after an error from one master, the updates of the agents whose keys it holds
  fail at once for ``retry_after`` seconds (1 by default) while the other masters' agents go on counting; an error
  of the whole cluster (``CLUSTERDOWN``, no node answering) pauses every update. The client is connected on first
  use, and connected again after a pause that no node answered, so a service starts with the cluster down and
  resumes by itself;
- nothing is retried by the client: an update whose answer was lost (its master died mid-call) is not sent again,
  since the script may have run (a retry could count one call twice); the call is answered without reminders;
- ``RedisClusterStores.health()`` pings every master; a good answer ends every pause.

Usage::

    engine = toolguards.load(path, stores="redis+cluster://10.0.0.5:6379,10.0.0.6:6379")
    toolguards serve --store 'redis+cluster://:PASSWORD@10.0.0.5:6379,10.0.0.6:6379?socket_timeout=0.5'

Why this form: the store is picked by the URL's scheme, so a cluster needs a scheme of its own, and ``redis`` with a
``+cluster`` suffix reads "the Redis protocol, in cluster mode", as ``redis+unix://`` and ``redis+tls://`` name other
ways to reach Redis in some clients (Bun's, for one). redis-py's own ``RedisCluster.from_url`` takes a plain
``redis://`` URL, which could not be told from a single server's, and of one node only; after the scheme, this form is
that URL with a comma list of nodes, and the client gets those nodes as its ``startup_nodes``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from .base import StoreError
from .redis import (
    _COMPARE_AND_SET,
    _DEFAULT_TIMEOUTS,
    DEFAULT_CACHE_SIZE,
    DEFAULT_IDLE_TTL,
    DEFAULT_NAMESPACE,
    RedisStores,
    checked_pool,
)

__all__ = ["SCHEMES", "RedisClusterStores", "from_url"]

T = TypeVar("T")

SCHEMES = ("redis+cluster", "rediss+cluster")
#: A pause of the whole cluster, in the table of paused masters.
_EVERY_MASTER = ""


class RedisClusterStores(RedisStores):
    """The stores of every guard of one guard file in a Redis Cluster: a store factory with a health check."""

    def __init__(
        self,
        connect: Callable[[], Any],
        *,
        location: str,
        namespace: str = DEFAULT_NAMESPACE,
        idle_ttl: int = DEFAULT_IDLE_TTL,
        retry_after: float = 1.0,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        """``connect()`` makes the cluster client (it asks the cluster for its layout); ``location`` lists the nodes
        named, ``host:port,host:port``."""
        super().__init__(None, location=location, namespace=namespace, idle_ttl=idle_ttl, retry_after=retry_after,
                         cache_size=cache_size)
        from redis.exceptions import RedisClusterException  # noqa: PLC0415

        self.name = f"redis cluster at {location}"
        self._errors = (*self._errors, RedisClusterException)
        self._connect = connect
        self._connecting = threading.Lock()
        self._paused: dict[str, float] = {}  # a master's host:port (or _EVERY_MASTER) → when its pause ends

    def __repr__(self) -> str:
        return f"<RedisClusterStores {self.location} namespace={self.namespace!r}>"

    @classmethod
    def from_url(
        cls, url: str, *, namespace: str = DEFAULT_NAMESPACE, idle_ttl: int = DEFAULT_IDLE_TTL
    ) -> RedisClusterStores:
        """Check a ``redis+cluster://`` URL now; the cluster is asked for its layout when a guard first needs it."""
        nodes, first_url = _parse(url)
        location = ",".join(f"[{host}]:{port}" if ":" in host else f"{host}:{port}" for host, port in nodes)
        checked_pool(first_url, f"cluster {location}")  # every option's name and value
        import redis.cluster  # noqa: PLC0415
        from redis.connection import parse_url  # noqa: PLC0415

        # What RedisCluster passes on to its nodes (a name of redis-py's module, so looked up with care)
        allowed = getattr(redis.cluster, "REDIS_ALLOWED_KEYS", None)
        for option, value in parse_url(first_url).items():  # type: ignore[no-untyped-call]
            if option == "db" and value != 0:
                raise ValueError(f"a Redis Cluster has only database 0, not {value}: {_FORM}")
            if allowed is not None and option not in allowed:  # RedisCluster would drop it without a word
                raise ValueError(f"bad redis URL cluster {location}: the cluster client takes no option {option!r}")

        def connect() -> Any:
            from redis.backoff import NoBackoff  # noqa: PLC0415
            from redis.cluster import ClusterNode, RedisCluster  # noqa: PLC0415
            from redis.retry import Retry  # noqa: PLC0415

            # No retries: a command sent again after a lost answer could run the script twice. A cluster that lacks
            # a master for some slots still serves the others (the server's cluster-require-full-coverage decides).
            more = [ClusterNode(host, port) for host, port in nodes[1:]]  # type: ignore[no-untyped-call]
            return RedisCluster(url=first_url, startup_nodes=more, retry=Retry(NoBackoff(), 0),
                                require_full_coverage=False, **_DEFAULT_TIMEOUTS)

        return cls(connect, location=location, namespace=namespace, idle_ttl=idle_ttl)

    def health(self) -> str:
        """Ping every master; a short description when all answer, else StoreError. A good answer ends every pause."""
        from redis.cluster import RedisCluster  # noqa: PLC0415

        client = self._connected(paused_too=True)
        try:
            client.ping(target_nodes=RedisCluster.PRIMARIES)
        except self._errors as exc:  # which master failed is not said: the calls pause only the ones that fail them
            raise StoreError(f"{self.name}: a master is unreachable ({type(exc).__name__}: {exc})") from None
        self._paused.clear()
        return f"{self.name} ({len(client.get_primaries())} masters)"

    def close(self) -> None:
        """Close the client's connections (a later call connects again)."""
        client, self.client = self.client, None
        if client is not None:
            client.close()

    def compare_and_set(self, key: bytes, expected: bytes, new: bytes) -> bytes | None:
        """Write ``new`` (b"" deletes) if the key still holds ``expected``; None when written, else what it holds."""
        answer = self._on_master(key, lambda client: self._script(keys=[key], args=[expected, new, self.idle_ttl]))
        return None if answer == 1 else bytes(answer)

    def get(self, key: bytes) -> bytes:
        """The value of a key (b"" for none)."""
        value = self._on_master(key, lambda client: client.get(key))
        if value is None:
            return b""
        return value.encode() if isinstance(value, str) else bytes(value)

    def delete(self, key: bytes) -> None:
        """Drop a key."""
        self._on_master(key, lambda client: client.delete(key))

    def _on_master(self, key: bytes, command: Callable[[Any], T]) -> T:
        """Run a command on the master of the key's slot, unless that master (or the whole cluster) is paused."""
        client = self._connected()
        try:
            master = client.get_node_from_key(key).name
        except self._errors as exc:  # a slot no master serves: the client asks the cluster afresh after the pause
            raise self._failure(_EVERY_MASTER, exc, reconnect=True) from None
        paused = self._paused
        until = paused.get(master)
        if until is not None and time.monotonic() < until:
            raise StoreError(f"{self.name}: the master {master} failed less than {self.retry_after:g} s ago; not "
                             "retried yet")
        try:
            result = command(client)
        except self._errors as exc:
            from redis.exceptions import ClusterDownError  # noqa: PLC0415

            raise self._failure(_EVERY_MASTER if isinstance(exc, ClusterDownError) else master, exc) from None
        if paused:
            paused.pop(master, None)
            paused.pop(_EVERY_MASTER, None)
        return result

    def _connected(self, paused_too: bool = False) -> Any:
        """The cluster client, made on first use (and again after a failure of the whole cluster)."""
        until = self._paused.get(_EVERY_MASTER)
        if until is not None and not paused_too and time.monotonic() < until:
            raise StoreError(f"{self.name} failed less than {self.retry_after:g} s ago; not retried yet")
        client = self.client
        if client is None:
            with self._connecting:
                client = self.client
                if client is None:
                    try:
                        client = self._connect()
                    except self._errors as exc:
                        self._paused[_EVERY_MASTER] = time.monotonic() + self.retry_after
                        raise StoreError(f"{self.name}: no node answers ({type(exc).__name__}: {exc})") from None
                    self._script = client.register_script(_COMPARE_AND_SET)
                    self.client = client
        return client

    def _failure(self, master: str, exc: Exception, reconnect: bool = False) -> StoreError:
        """Pause that master (or every one), and the error that says what failed."""
        self._paused[master] = time.monotonic() + self.retry_after
        if reconnect:
            self.close()
        where = f" the master {master}:" if master else ""
        return StoreError(f"{self.name}:{where} {type(exc).__name__}: {exc}")


_FORM = "redis+cluster://HOST:PORT[,HOST:PORT…]"


def _parse(url: str) -> tuple[list[tuple[str, int]], str]:
    """The nodes a cluster URL names, and a ``redis://`` URL of the first with the same credentials and options."""
    from urllib.parse import urlsplit  # noqa: PLC0415

    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"a Redis Cluster store URL is {_FORM} or rediss+cluster://…, not {parts.scheme}://…")
    credentials, _, hosts = parts.netloc.rpartition("@")
    nodes = [_node(text) for text in hosts.split(",")]
    if parts.path not in ("", "/", "/0"):
        raise ValueError(f"a Redis Cluster has only database 0, not {parts.path.lstrip('/')!r}: {_FORM}")
    host, port = nodes[0]
    shown = f"[{host}]" if ":" in host else host
    scheme = "rediss" if parts.scheme.startswith("rediss") else "redis"
    at = f"{credentials}@" if credentials else ""
    query = f"?{parts.query}" if parts.query else ""
    return nodes, f"{scheme}://{at}{shown}:{port}/0{query}"


def _node(text: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port``; the port 6379 when left out) of one node in a cluster URL."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else rest
    else:
        host, _, port = text.partition(":")
    if not host:
        raise ValueError(f"a node of a Redis Cluster store URL is HOST:PORT, not {text!r}: {_FORM}")
    if port and not (port.isdigit() and int(port) <= 65535):
        raise ValueError(f"the port of a Redis Cluster node must be a number from 0 to 65535: {text!r}")
    return host, int(port) if port else 6379


def from_url(url: str) -> RedisClusterStores:
    """``redis+cluster://HOST:PORT[,HOST:PORT…]``: the stores of that cluster, in namespace ``default``."""
    return RedisClusterStores.from_url(url)
