"""The canonical key of a tool call: its arguments (and result) as one JSON text, the same bytes JavaScript prints.

One door, ``canonicalize(value)``: the chain key compares its text, the reminders quote it, replay and the report
count with it. Behind the door:

- ``toolguards.canonical.reference``: the definition (``reference_text``), every rule written out plainly — what
  ``JSON.stringify(sortDeep(value))`` prints for JSON values, and how every other Python value keys;
- ``toolguards.canonical.fast``: the fast path (``fast_text``), which prints plain JSON values in one pass and
  declines (None) whatever it cannot vouch for, so the reference answers; a test checks that the two agree;
- ``toolguards.canonical.jsformat``: JavaScript's text rules (numbers, strings, key order) that both share.

``use_fast_path(False)`` sends every value to the reference (the tests run both ways).
"""

from __future__ import annotations

from .fast import fast_text
from .reference import reference_text, unrepresentable

__all__ = ["canonicalize", "reference_text", "use_fast_path"]

_fast_path = True


def canonicalize(value: object) -> str:
    """Return the canonical JSON text of ``value``, as JavaScript prints it with every object's keys sorted."""
    try:
        text = fast_text(value) if _fast_path else None
        return reference_text(value) if text is None else text
    except RecursionError:  # a stack too full to call either (each handles whatever goes wrong inside it)
        return unrepresentable(value)


def use_fast_path(enabled: bool) -> None:
    """Let ``canonicalize`` try the fast path first (the default), or send every value to the reference."""
    global _fast_path  # noqa: PLW0603 - one switch, read on every call
    _fast_path = enabled
