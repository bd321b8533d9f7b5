"""What a reminder changed: the outcome of each reminder, the shadow split, and the outcome log.

The definition, the one every surface uses (the engine live, the hooks across processes, ``toolguards serve``,
``replay`` and ``report`` on recorded sessions): a reminder about a call is followed by the agent's next call that the
guard tracks, and

- ``changed``: that call is another call (another tool, or other canonical arguments): the run ended;
- ``repeated``: it is the identical call again (same tool, same canonical arguments, whatever its result);
- ``ended``: there is none before the run's end: a new user prompt, the agent forgotten, the session over.

``followed`` counts the identical calls after the reminder before the run ended, so an outcome is resolved when its run
ends (at the next other tracked call, or at the end). Untracked calls are transparent, as they are to the chain, and a
re-delivered call id is not counted again. Outcomes are defined for reminders about one repeated call
(``repeat-tool-reminder``'s): a cycle or a streak of errors has no single call to repeat.

- ``tracker``: ``OutcomeTracker``, one guard's reminders waiting for their outcome, per agent in a state store (so the
  hooks keep them in their SQLite state between processes, a service in Redis);
- ``split``: the stable share of agents a guard in shadow withholds its reminders from (``shadow:`` in a guard file);
- ``log``: ``OutcomeLog``, one JSON line per resolved outcome appended to a file.
"""

from __future__ import annotations

from .log import OutcomeLog
from .split import in_share
from .tracker import OutcomeCallback, OutcomeTracker, pending_store_id

__all__ = ["OutcomeCallback", "OutcomeLog", "OutcomeTracker", "in_share", "pending_store_id"]
