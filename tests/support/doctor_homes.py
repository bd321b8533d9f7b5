"""What the doctor tests share: a fresh home with a project in it, a context of ``toolguards doctor`` there, and the
registrations ``toolguards hook install`` writes (from the host modules' own ``register``, with the installed
``toolguards`` command), so each test states only what it changes."""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.hooks import TOOLGUARDS
from toolguards.doctor import Context, Finding
from toolguards.hooks import host


@dataclass(frozen=True)
class Home:
    """A home folder (``home``) holding a git project (``project``), and a scratch folder for doctor."""

    home: Path
    project: Path
    scratch: Path

    @classmethod
    def fresh(cls, folder: Path) -> Home:
        home, scratch = folder / "home", folder / "scratch"
        project = home / "project"
        for made in (project / ".git", scratch):
            made.mkdir(parents=True)
        return cls(home, project, scratch)

    def context(self, **env: str) -> Context:
        """doctor's context in the project, with HOME set, the test's PATH, and ``env``."""
        return Context(self.project, {"HOME": str(self.home), "PATH": os.environ.get("PATH", os.defpath), **env},
                       self.scratch)

    def write(self, path: Path | str, value: Any) -> Path:
        """Write JSON (or, for a string, the text itself) to ``path`` (relative: under the home folder)."""
        target = self.home / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(value if isinstance(value, str) else json.dumps(value, indent=2), encoding="utf-8")
        return target


def command(host_name: str, *options: str) -> str:
    """The command ``toolguards hook install HOST`` registers (the installed toolguards, then ``options``)."""
    return " ".join([shlex.quote(str(TOOLGUARDS)), "hook", host_name, *map(shlex.quote, options)])


def registration(host_name: str, *options: str, **document: Any) -> dict[str, Any]:
    """A hooks file as ``toolguards hook install HOST`` writes it (beside the keys of ``document``)."""
    module = host(host_name)
    entries = module.register(module.handler(command(host_name, *options)))
    return {**module.FILE_KEYS, **document, "hooks": {event: [entry] for event, entry in entries.items()}}


def lines(findings: list[Finding], statuses: tuple[str, ...] = ("ok", "note", "problem")) -> list[str]:
    """The findings of these statuses, as doctor prints them."""
    return [str(finding) for finding in findings if finding.status in statuses]
