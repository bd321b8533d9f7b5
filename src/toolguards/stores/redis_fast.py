"""The Redis store's compare-and-set, fast: the script's ``EVALSHA`` packed by hand and sent on a connection the store
keeps, instead of through redis-py's ``Script`` and ``execute_command``.

The rule is the plain path's (``toolguards.stores.redis``: one call of the compare-and-set script, declared key, the
value it was computed from, the new one, the expiry): the same command reaches the server, byte for byte. What is
skipped is redis-py's work around each command — encoding every argument, taking a connection from the pool (which
first checks the socket for unread data: three system calls), events and metrics hooks — which costs more than the
round trip to a server on the same machine. A connection is made by the client's own pool (so authentication, TLS,
the database and the timeouts are the URL's) and kept for the next call; one that fails is dropped, and a process
forked from this one forgets the kept ones (their sockets are its parent's).

It answers ``NOT_SENT`` where the plain path must do the work: a server that lacks the script (after a restart or
``SCRIPT FLUSH``) answers NOSCRIPT, and redis-py's ``Script`` loads it and runs it. ``fast_script(client)`` is None
for any client but a plain ``redis.Redis`` over its usual connection pool. ``tests/stores/test_redis_fast.py`` checks
that the two paths write and answer alike.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

__all__ = ["NOT_SENT", "FastScript", "fast_script", "forget_connections"]

#: The fast path did not run the script: take the plain path.
NOT_SENT: Any = object()

_LIVE: weakref.WeakSet[FastScript] = weakref.WeakSet()


def forget_connections() -> None:
    """In a forked child: every FastScript drops the connections it kept (without closing the parent's sockets)."""
    for script in list(_LIVE):
        script._idle = []


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=forget_connections)


class FastScript:
    """``EVALSHA <sha> 1 key expected new ttl`` on a kept connection of the client's pool."""

    def __init__(self, pool: Any, sha: str) -> None:
        from redis.exceptions import NoScriptError, ResponseError  # noqa: PLC0415

        self._pool = pool
        self._head = b"*7\r\n$7\r\nEVALSHA\r\n$40\r\n" + sha.encode("ascii") + b"\r\n$1\r\n1\r\n"
        self._idle: list[Any] = []  # connected (or not yet connected) connections nobody is using
        _LIVE.add(self)
        self._no_script = NoScriptError
        self._answered = ResponseError  # an error reply: the connection read it whole and can be used again

    def __call__(self, key: bytes, expected: bytes, new: bytes, ttl: int) -> Any:
        """The script's answer (1, or the value the key holds), or NOT_SENT when the server lacks the script."""
        idle = self._idle
        connection = idle.pop() if idle else self._pool.make_connection()
        ttl_text = b"%d" % ttl
        command = b"%s$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (
            self._head, len(key), key, len(expected), expected, len(new), new, len(ttl_text), ttl_text)
        try:
            connection.send_packed_command((command,), check_health=False)
            answer = connection.read_response(disable_decoding=True)
        except self._no_script:
            idle.append(connection)
            return NOT_SENT
        except self._answered:
            idle.append(connection)
            raise
        except BaseException:
            connection.disconnect()  # whatever was half sent or half read goes with it
            raise
        idle.append(connection)
        return answer

    def close(self) -> None:
        """Close the kept connections."""
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.disconnect()


def fast_script(client: Any, sha: str) -> FastScript | None:
    """The fast path for this client, or None where only the plain path applies."""
    import redis  # noqa: PLC0415

    if type(client) is not redis.Redis or type(client.connection_pool) is not redis.ConnectionPool:
        return None
    return FastScript(client.connection_pool, sha)
