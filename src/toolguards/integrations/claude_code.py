"""Moved: Claude Code's hook protocol is ``toolguards.hooks.claude``, the command's logic ``toolguards.hooks.command``.

The names this module had are kept here for code that imports them.
"""

from __future__ import annotations

from ..hooks.claude import STATE_FILE
from ..hooks.command import default_state_dir
from ..hooks.protocol import MAIN_AGENT, HookError

__all__ = ["MAIN_AGENT", "STATE_FILE", "HookError", "default_state_dir"]
