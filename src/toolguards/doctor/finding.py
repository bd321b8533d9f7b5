"""What every check of ``toolguards doctor`` shares: a ``Finding`` (one line of the report), the ``Context`` the
checks read (the working folder, the environment, a scratch folder), and the ``Checks`` interface of a host's module.

A finding is one of three statuses:

- ``ok``: something that works, said so that the report shows where the registration is and what was tried;
- ``note``: worth knowing, but the guard still works (a threshold the host's own loop stop makes unreachable while
  another one still arrives, a narrowing matcher);
- ``problem``: the guard will not work as registered (the host will not run it, or it cannot answer); it comes with
  its fix. ``toolguards doctor`` exits 1 when any finding is a problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

__all__ = ["STATUSES", "Checks", "Context", "Finding", "Status", "note", "ok", "problem"]

Status = Literal["ok", "note", "problem"]
STATUSES: tuple[Status, ...] = ("ok", "note", "problem")


@dataclass(frozen=True)
class Finding:
    """One line of the report: the host (or MCP client) it is about, its status, where (a file, a key, a URL), what,
    and the fix (for a problem, and for a note that has one)."""

    host: str
    status: Status
    where: str
    message: str
    fix: str | None = None

    def __str__(self) -> str:
        where = f"{self.where}: " if self.where else ""
        fix = f"; fix: {self.fix}" if self.fix else ""
        return f"{self.host}: {self.status}: {where}{self.message}{fix}"

    def as_json(self) -> dict[str, Any]:
        """The finding as ``--format json`` prints it."""
        return {"host": self.host, "status": self.status, "where": self.where, "message": self.message,
                "fix": self.fix}


def ok(host: str, where: str, message: str) -> Finding:
    """A check that passed."""
    return Finding(host, "ok", where, message)


def note(host: str, where: str, message: str, fix: str | None = None) -> Finding:
    """Something worth knowing that does not stop the guard."""
    return Finding(host, "note", where, message, fix)


def problem(host: str, where: str, message: str, fix: str) -> Finding:
    """Something that stops the guard, with its fix."""
    return Finding(host, "problem", where, message, fix)


@dataclass(frozen=True)
class Context:
    """What the checks read: the folder the host would run in (``cwd``: the project), the environment the host would
    get (``env``), and a scratch folder for throwaway state (removed when the run ends); ``timeout`` caps each
    program or request a check starts, in seconds."""

    cwd: Path
    env: Mapping[str, str]
    scratch: Path
    timeout: float = 30.0

    def home(self) -> Path:
        """The home folder, as the hosts read it (``$HOME``)."""
        return Path(self.env.get("HOME") or Path.home())


class Checks(Protocol):
    """A module of ``toolguards.doctor``'s registry: one host (or the MCP clients)."""

    #: the name ``toolguards doctor NAME`` takes
    NAME: str
    #: the host's programs: one of them on PATH makes the host one of the default ones
    PROGRAMS: tuple[str, ...]

    def registered(self, context: Context) -> bool:
        """Whether a config file of this host holds a toolguards registration."""
        ...

    def check(self, context: Context) -> list[Finding]:
        """Every finding about this host, in the order a reader follows them."""
        ...
