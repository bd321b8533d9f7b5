"""The agents a guard in shadow withholds its reminders from: all of them, or a share chosen by a stable hash.

``shadow: true`` in a guard file withholds every reminder of that guard (``1.0``); ``shadow: 0.3`` withholds them from
three agents in ten, the same agents in every process and every run: an agent is in the share when the BLAKE2b
digest of its key, read as a number in [0, 1), is below the share. The key is the agent's string id (a hook's
``<host>:<session>:<agent>``, as the service keys it), the canonical text of another JSON-like key, and, for a live
agent object, its identity (stable while the object lives, which is as long as its chain does). Every guard of a file
splits the agents alike, so a share of 0.5 on two guards puts each agent in the same arm of both.
"""

from __future__ import annotations

from typing import Any

from ..canonical import canonicalize

try:  # as in toolguards.guard: blake2b without loading OpenSSL
    from _blake2 import blake2b
except ImportError:
    from hashlib import blake2b

__all__ = ["in_share", "split_point"]

_SPAN = float(1 << 64)


def _key_text(agent: Any) -> str:
    if isinstance(agent, str):
        return agent
    if agent is None or isinstance(agent, (bool, int, float, tuple)):
        return canonicalize(agent)
    return f"object:{id(agent)}"


def split_point(agent: Any, prefix: str = "") -> float:
    """Where the agent falls in [0, 1): the same number for the same key in every process."""
    digest = blake2b((prefix + _key_text(agent)).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / _SPAN


def in_share(agent: Any, share: float, prefix: str = "") -> bool:
    """Whether the agent is among the ``share`` of agents (0: none, 1: all); ``prefix`` goes before its key (a hook's
    ``<host>:<session>:``)."""
    if share >= 1.0:
        return True
    if share <= 0.0:
        return False
    return split_point(agent, prefix) < share
