"""Gemini CLI's steps of ``toolguards hook install|uninstall gemini``: what Gemini CLI still needs before it runs the
hooks in the current folder.

After the settings file is merged (``toolguards.hooks.install``), install says in one line each why Gemini CLI would
not run the hook here (``toolguards.hooks.gemini_settings.install_notes``): the folder is not trusted (the user's
decision: install never writes ``trustedFolders.json``), ``hooksConfig.enabled`` is false in the settings in effect, or
``hooksConfig.disabled`` names the hook. Gemini CLI has no review of its own to record, so ``--trust`` is not for it,
and uninstall has nothing of its own to undo.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .gemini_settings import install_notes

__all__ = ["TRUST", "installed", "uninstalled"]

#: Gemini CLI runs the hooks of a trusted folder without a review of its own.
TRUST = False


def installed(hooks_file: str, document: Mapping[str, Any], trust: bool, dry_run: bool) -> list[str]:
    """Install's Gemini CLI notes for the current folder, one line each (none when it will run the hook)."""
    return [f"note: {note}" for note in install_notes(os.getcwd(), hooks_file, document, os.environ)]


def uninstalled(hooks_file: str, before: Mapping[str, Any], after: Mapping[str, Any], dry_run: bool) -> list[str]:
    """Uninstall leaves nothing of Gemini CLI's behind: no lines."""
    return []
