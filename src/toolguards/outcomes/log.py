"""``OutcomeLog``: one JSON line per resolved outcome, appended to a file, so a person can read what followed each
reminder.

Each line is ``ReminderOutcome.to_json()`` after the time it was resolved::

    {"time": "2026-05-11T09:26:55Z", "guard": "repeat-tool-reminder", "kind": "repeat-tool-reminder",
     "tool": "Bash", "count": 3, "template": "first", "outcome": "repeated", "followed": 2, "delivered": true,
     "agent": "claude:0b9c…:main"}

The file is named by the guard file (``outcomes: {log: PATH}``, relative to the guard file) or by ``--outcome-log``
of ``toolguards hook`` and ``toolguards serve``. Every line is one ``write`` to a file opened for appending, so the
processes of a hook, each handling one event, never interleave half lines. A log that cannot be written loses its
lines, never the host's call (the engine reports the failure as it reports any guard's).
"""

from __future__ import annotations

import json
import os
import time

from ..events import ReminderOutcome

__all__ = ["OutcomeLog"]


class OutcomeLog:
    """Appends each outcome it is called with to ``path`` as one JSON line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)

    def __repr__(self) -> str:
        return f"<OutcomeLog {self.path}>"

    def __call__(self, outcome: ReminderOutcome) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = json.dumps({"time": stamp, **outcome.to_json()}, ensure_ascii=False) + "\n"
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, line.encode("utf-8", "backslashreplace"))
        finally:
            os.close(descriptor)
