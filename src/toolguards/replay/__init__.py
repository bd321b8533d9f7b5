"""``toolguards replay``: recorded sessions in, the reminders the guards would inject out.

The flow, one module a step: ``source`` opens an input (a file, a folder's files, stdin) and ``importers`` reads it
as records (``records``: one per event a guard cares about), one module per session format, detected per input;
``feed`` runs the records through the engines (an ``Outcome`` per tool call) and ``session`` does so for one opened
input; ``files`` is the command's work on each input file (printed by ``printing``, counted by ``stats``), and
``batch`` spreads the inputs over worker processes. ``chains`` follows the runs of identical calls as the guard's
chain counts them. ``toolguards report`` reads its inputs through ``session`` and ``feed`` and its runs through
``chains`` too, so both count the same calls and the same runs.
"""

from __future__ import annotations
