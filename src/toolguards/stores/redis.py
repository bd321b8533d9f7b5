"""``redis://HOST:PORT/DB`` (and ``rediss://`` over TLS): guard states in Redis, shared by every replica of a service.

Install the client with ``pip install 'toolguards[redis]'``. The chain logic stays in the guards; this store keeps
their states where many processes on many machines see the same chains:

- one key per agent of each guard: ``toolguards:<namespace>:<guard id>:<agent>``, the namespace naming the guard file
  (``toolguards serve`` uses the file's name; from Python it is ``default`` unless given, see ``RedisStores``). The
  namespace and the guard id are percent-encoded (``:`` is ``%3A``), so only the agent, last, may hold a colon. One key
  per update also means a Redis Cluster needs no hash tags;
- the value is the JSON envelope the SQLite store writes, ``{"kind": <kind>, "version": <state version>, "state":
  <its JSON form>}``: a value of another kind or version, or one that does not decode, is discarded with one logged
  warning and the chain starts afresh;
- each ``update`` is atomic by compare-and-set: a server-side script replaces the value only if it is still the one
  the step was computed from, and otherwise answers the current value, from which the step is computed again. The
  store remembers the last value it wrote for each key (up to ``cache_size`` keys), so an agent whose calls reach the
  same process costs one round trip per update, and any other update two. Writers that keep losing the race for one
  key wait a random, growing while (up to 10 ms) before they try again, so none of them starves. The script's call is
  packed by hand where it can be (``toolguards.stores.redis_fast``), the same command redis-py would send;
- every write sets an idle expiry of ``idle_ttl`` seconds (7 days by default, as the SQLite store prunes): an agent
  untouched that long starts afresh, and Redis deletes its key by itself;
- ``stable_digests`` is True: states hold 64-bit blake2b digests of argument text, equal in every process, not the
  text (but a ``cycle-reminder`` state keeps the head of each remembered call's arguments, for its reminder's preview);
- agent keys must be strings: any other raises ``TypeError``, which the engine logs once and treats as a call with no
  agent;
- a Redis failure (unreachable, a timeout, an error reply) raises ``StoreError`` naming the server as
  ``host:port/db``, never its password; the engine then skips that guard for that call (fail open). After a failure
  the stores of that server fail at once, without waiting for a timeout, for ``retry_after`` seconds (1 by default);
  ``RedisStores.health()`` always asks the server, and a good answer ends that pause.

Usage::

    engine = toolguards.load(path, stores="redis://localhost:6379/0")
    engine = toolguards.load(path, stores=RedisStores.from_url(url, namespace="guards.yaml", idle_ttl=86400))

The URL may carry the client's own options as a query (``?socket_timeout=0.5``); by default a command waits 1 s and
a connection 0.5 s, and nothing is retried (the next call tries again).
"""

from __future__ import annotations

import threading
import time
from typing import Any, TypeVar

from .base import Envelopes, StateType, Step, StoreError
from .redis_fast import NOT_SENT, FastScript, fast_script

__all__ = [
    "DEFAULT_IDLE_TTL",
    "DEFAULT_NAMESPACE",
    "SCHEMES",
    "RedisStore",
    "RedisStores",
    "from_url",
]

R = TypeVar("R")

SCHEMES = ("redis", "rediss")
#: Seconds an agent's state outlives its last update.
DEFAULT_IDLE_TTL = 7 * 86400
#: The namespace of stores opened from a bare URL, where no guard file names one.
DEFAULT_NAMESPACE = "default"
#: Keys whose last written value each store remembers, to skip a read (least recently used dropped first).
DEFAULT_CACHE_SIZE = 10_000
#: Attempts at one update before giving up (other writers changed the value every time).
MAX_ATTEMPTS = 64
#: Seconds to wait, at random up to this doubling bound, after the second and each later lost race for one key.
BACKOFF_BASE = 0.0001
BACKOFF_CAP = 0.01
PREFIX = "toolguards"

# KEYS[1] the state's key; ARGV[1] the value the step was computed from ('' for none), ARGV[2] the new value ('' to
# delete), ARGV[3] the idle expiry in seconds. Answers 1 when written, else the current value ('' for none).
_COMPARE_AND_SET = """
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then
  return current
end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return 1
"""

_DEFAULT_TIMEOUTS: dict[str, Any] = {"socket_timeout": 1.0, "socket_connect_timeout": 0.5}



def _agent_key(agent: Any) -> bytes:
    if type(agent) is not str:
        raise TypeError(f"RedisStore keys agents by string id, not by {type(agent).__name__}")
    return agent.encode("utf-8", "surrogatepass")


def _part(text: str) -> str:
    # Imported here, as everything only a Redis store needs: the stores package loads with every hook process.
    from urllib.parse import quote  # noqa: PLC0415

    return quote(text, safe="", errors="surrogatepass")


class RedisStores:
    """The stores of every guard of one guard file in one Redis database: a store factory with a health check."""

    def __init__(
        self,
        client: Any,
        *,
        location: str,
        namespace: str = DEFAULT_NAMESPACE,
        idle_ttl: int = DEFAULT_IDLE_TTL,
        retry_after: float = 1.0,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        if type(idle_ttl) is not int or idle_ttl < 1:
            raise ValueError(f"idle_ttl must be a whole number of seconds >= 1, not {idle_ttl!r}")
        if cache_size < 0:
            raise ValueError("cache_size must be >= 0")
        #: the client (``redis.Redis``; for a cluster, ``RedisCluster`` once it is connected, None until then)
        self.client = client
        #: ``host:port/db``, for messages (never the password)
        self.location = location
        #: how messages name the server
        self.name = f"redis at {location}"
        self.namespace = namespace
        self.idle_ttl = idle_ttl
        self.retry_after = retry_after
        self.cache_size = cache_size
        self._script: Any = None
        #: the same script by the fast path (``toolguards.stores.redis_fast``), None where it does not apply
        self.fast: FastScript | None = None
        if client is not None:
            self._script = client.register_script(_COMPARE_AND_SET)
            self.fast = fast_script(client, self._script.sha)
        self._down_until = 0.0
        self._errors = _errors()

    def __repr__(self) -> str:
        return f"<RedisStores {self.location} namespace={self.namespace!r}>"

    @classmethod
    def from_url(
        cls, url: str, *, namespace: str = DEFAULT_NAMESPACE, idle_ttl: int = DEFAULT_IDLE_TTL
    ) -> RedisStores:
        """Connect (lazily: nothing is sent until a guard needs it) to the server a ``redis://`` URL names."""
        location = _location(url)
        redis_client = client_module()
        client = redis_client.Redis(connection_pool=checked_pool(url, location))
        return cls(client, location=location, namespace=namespace, idle_ttl=idle_ttl)

    def __call__(self, guard: str) -> RedisStore:
        """The store of one guard (bound to its state type by the loader)."""
        return RedisStore(self, guard)

    def key_prefix(self, guard: str) -> bytes:
        """Where the keys of one guard's agents begin."""
        return f"{PREFIX}:{_part(self.namespace)}:{_part(guard)}:".encode()

    def health(self) -> str:
        """Ask the server; a short description when it answers, else StoreError. A good answer ends a pause."""
        try:
            self.client.ping()
        except self._errors as exc:
            self._failed()
            raise StoreError(f"redis at {self.location} is unreachable ({type(exc).__name__}: {exc})") from None
        self._down_until = 0.0
        return f"redis at {self.location}"

    def close(self) -> None:
        """Close the client's connections."""
        if self.fast is not None:
            self.fast.close()
        self.client.close()

    def compare_and_set(self, key: bytes, expected: bytes, new: bytes) -> bytes | None:
        """Write ``new`` (b"" deletes) if the key still holds ``expected``; None when written, else what it holds."""
        if self._down_until and time.monotonic() < self._down_until:
            raise StoreError(f"redis at {self.location} failed less than {self.retry_after:g} s ago; not retried yet")
        fast = self.fast
        try:
            answer = NOT_SENT if fast is None else fast(key, expected, new, self.idle_ttl)
            if answer is NOT_SENT:
                answer = self._script(keys=[key], args=[expected, new, self.idle_ttl])
        except self._errors as exc:
            self._failed()
            raise StoreError(f"redis at {self.location}: {type(exc).__name__}: {exc}") from None
        if self._down_until:
            self._down_until = 0.0
        return None if answer == 1 else bytes(answer)

    def get(self, key: bytes) -> bytes:
        """The value of a key (b"" for none)."""
        try:
            value = self.client.get(key)
        except self._errors as exc:
            self._failed()
            raise StoreError(f"redis at {self.location}: {type(exc).__name__}: {exc}") from None
        if value is None:
            return b""
        return value.encode() if isinstance(value, str) else bytes(value)

    def delete(self, key: bytes) -> None:
        """Drop a key."""
        try:
            self.client.delete(key)
        except self._errors as exc:
            self._failed()
            raise StoreError(f"redis at {self.location}: {type(exc).__name__}: {exc}") from None

    def _failed(self) -> None:
        self._down_until = time.monotonic() + self.retry_after


class RedisStore:
    """A ``StateStore`` over one guard's keys in a ``RedisStores`` database."""

    stable_digests = True

    def __init__(self, stores: RedisStores, guard: str, state: StateType[Any] | None = None) -> None:
        self.stores = stores
        self.guard = guard
        self.state = state
        self._prefix = stores.key_prefix(guard)
        # key → (the value this store last wrote there, its state), in LRU order; the state is kept so that the next
        # update of the key needs no decoding (a state read back from its JSON equals the state, as tests check)
        self._written: dict[bytes, tuple[bytes, Any]] = {}
        self._lock = threading.Lock()
        self._envelopes = Envelopes(self, state)

    def __repr__(self) -> str:
        return f"<RedisStore {self.stores.location} guard={self.guard!r}>"

    def bind(self, state: StateType[Any]) -> RedisStore:
        """The same keys, read and written as states of this type."""
        return RedisStore(self.stores, self.guard, state)

    def update(self, agent: Any, step: Step[R]) -> R:
        """Run ``step`` on the agent's state and write the outcome by compare-and-set, again while others wrote."""
        key = self._prefix + _agent_key(agent)
        with self._lock:
            # a guess: a key this store never wrote is taken to be absent
            expected, state = self._written.pop(key, None) or (b"", None)
        envelopes = self._envelopes
        for attempt in range(MAX_ATTEMPTS):
            new_state, result = step(state)
            new = b"" if new_state is None else envelopes.dumps(new_state).encode()
            current = self.stores.compare_and_set(key, expected, new)
            if current is None:
                if new:
                    self._remember(key, new, new_state)
                return result
            if attempt:
                # Writers racing for one key in lockstep could starve one of them: wait a random while, longer each
                # time (at most BACKOFF_CAP), then read the value afresh (the one the script answered is stale now).
                import random  # noqa: PLC0415

                time.sleep(random.uniform(0.0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt)))
                current = self.stores.get(key)
            expected = current
            state = envelopes.loads(current) if current else None
        raise StoreError(f"{self.stores.name}: other writers changed the state of {agent!r} "
                         f"{MAX_ATTEMPTS} times in a row; the update gave up")

    def _remember(self, key: bytes, value: bytes, state: Any) -> None:
        written = self._written
        with self._lock:
            written[key] = (value, state)
            if len(written) > self.stores.cache_size:
                del written[next(iter(written))]

    def reset(self, agent: Any) -> None:
        """Drop the agent's state."""
        key = self._prefix + _agent_key(agent)
        with self._lock:
            self._written.pop(key, None)
        self.stores.delete(key)

    forget = reset


def _location(url: str) -> str:
    """``host:port/db`` of a Redis URL; ValueError for a URL this store does not take."""
    from urllib.parse import urlsplit  # noqa: PLC0415

    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"a Redis store URL is redis://HOST:PORT/DB or rediss://…, not {parts.scheme}://…")
    try:
        port = parts.port or 6379
    except ValueError:
        raise ValueError(f"the port of a Redis store URL must be a number from 0 to 65535: {parts.netloc!r}") from None
    database = parts.path.lstrip("/")
    if database and not database.isdigit():
        raise ValueError(f"the database of a Redis store URL is a number (redis://HOST:PORT/DB), not {database!r}")
    host = parts.hostname or "localhost"
    return f"{host}:{port}/{database or 0}"


def client_module() -> Any:
    """The ``redis`` package; ValueError naming the extra where it is not installed."""
    try:
        import redis as redis_client  # noqa: PLC0415 - only a Redis store needs the client
    except ImportError:
        raise ValueError("the redis store needs the redis client: pip install 'toolguards[redis]'") from None
    return redis_client


def checked_pool(url: str, location: str) -> Any:
    """The client's connection pool for a ``redis://`` URL, every option checked now (nothing connects until used);
    ValueError naming ``location`` for a bad one."""
    redis_client = client_module()
    try:
        pool = redis_client.ConnectionPool.from_url(url, retry=None, **_DEFAULT_TIMEOUTS)  # the URL's options win
        pool.connection_class(**pool.connection_kwargs)
    except (ValueError, TypeError) as exc:
        import re  # noqa: PLC0415

        unknown = re.search(r"unexpected keyword argument '(\w+)'", str(exc))
        reason = f"unknown option {unknown[1]!r}" if unknown else str(exc)
        raise ValueError(f"bad redis URL {location}: {reason}") from None
    return pool


def _errors() -> tuple[type[Exception], ...]:
    """What the client raises for an unreachable or failing server."""
    import redis as redis_client  # noqa: PLC0415

    return (redis_client.RedisError, OSError)


def from_url(url: str) -> RedisStores:
    """``redis://HOST:PORT/DB`` or ``rediss://HOST:PORT/DB``: the stores of that database, in namespace ``default``."""
    return RedisStores.from_url(url)
