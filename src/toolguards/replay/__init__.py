"""``toolguards replay``: recorded sessions in, the reminders the guards would inject out."""

from __future__ import annotations
