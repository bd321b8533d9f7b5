"""What Gemini CLI's own files say about whether it will run the hook: folder trust, hooks switched off, loop detection.

Read as Gemini CLI 0.61 reads them (``packages/core/src/utils/trust.ts``, ``packages/cli/src/config/settings.ts``,
``packages/core/src/hooks/hookRegistry.ts``):

- **settings files**, merged in this order, later wins: the system defaults (``$GEMINI_CLI_SYSTEM_DEFAULTS_PATH``, else
  ``system-defaults.json`` beside the system file), the user's ``<home>/.gemini/settings.json`` (``<home>`` is
  ``$GEMINI_CLI_HOME``, else the home folder), the system file (``$GEMINI_CLI_SYSTEM_SETTINGS_PATH``, else
  ``/etc/gemini-cli/settings.json`` on Linux) — and, in a trusted folder, the project's ``.gemini/settings.json``
  before the system file. Comments are allowed in them;
- **folder trust** (``security.folderTrust.enabled``, true unless a user or system file says false; the project's
  file cannot switch it off): ``$GEMINI_CLI_TRUST_WORKSPACE=true`` trusts any folder and ``=false`` (or
  ``$GEMINI_RESTRICTED_MODE=true``) none; else the longest rule of ``trustedFolders.json``
  (``$GEMINI_CLI_TRUSTED_FOLDERS_PATH``, else ``<home>/.gemini/trustedFolders.json``) whose folder holds the project,
  both sides resolved through symbolic links: ``TRUST_FOLDER`` trusts that folder and everything under it,
  ``TRUST_PARENT`` its parent, ``DO_NOT_TRUST`` distrusts. No rule: not trusted (``gemini -p`` then exits with
  "not running in a trusted directory"; the interactive CLI asks). An IDE's trust signal, which overrides the file,
  cannot be seen from files;
- in a folder that is not trusted Gemini CLI runs **no hook from any settings file**, the user's included; and
  ``--skip-trust`` trusts the folder only after the settings were read, so a project's hooks are still left out;
- ``hooksConfig.enabled: false`` switches every hook off, and ``hooksConfig.disabled`` lists hook names it skips
  (install names ours ``toolguards``);
- ``model.disableLoopDetection: true`` switches Gemini CLI's own loop detection off (it takes the 5th identical call).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["HOOK_NAME", "Trust", "folder_trust", "install_notes", "merged", "read_settings", "settings_files",
           "trusted_folders_file"]

#: The name install gives our handlers (``toolguards.hooks.gemini.handler``), which ``hooksConfig.disabled`` names.
HOOK_NAME = "toolguards"
_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
_COMMENTS = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', re.DOTALL)


def _home(env: Mapping[str, str]) -> str:
    return env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~")  # as Node's os.homedir()


def trusted_folders_file(env: Mapping[str, str]) -> str:
    """The trust file Gemini CLI reads and writes."""
    return env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(_home(env), ".gemini", "trustedFolders.json")


def settings_files(env: Mapping[str, str]) -> dict[str, str]:
    """The settings files that are not the project's, by scope, in the order Gemini CLI merges them."""
    if "GEMINI_CLI_SYSTEM_SETTINGS_PATH" in env:
        system = env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]
    elif sys.platform == "darwin":
        system = "/Library/Application Support/GeminiCli/settings.json"
    elif os.name == "nt":
        system = "C:\\ProgramData\\gemini-cli\\settings.json"
    else:
        system = "/etc/gemini-cli/settings.json"
    defaults = env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or os.path.join(os.path.dirname(system),
                                                                         "system-defaults.json")
    return {"system defaults": defaults, "user": os.path.join(_home(env), ".gemini", "settings.json"),
            "system": system}


def read_settings(path: str) -> dict[str, Any]:
    """A settings file as Gemini CLI reads it (comments allowed); {} for a missing or unreadable one."""
    try:
        with open(path, encoding="utf-8") as file:
            value = json.loads(_COMMENTS.sub(lambda found: found.group(1) or "", file.read()))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _get(settings: Mapping[str, Any], *keys: str) -> Any:
    value: Any = settings
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def merged(*documents: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    """The value at ``keys`` that the last document holding one gives (None: no document sets it)."""
    found = None
    for document in documents:
        value = _get(document, *keys)
        if value is not None:
            found = value
    return found


@dataclass(frozen=True)
class Trust:
    """Whether Gemini CLI trusts a folder: ``trusted`` (None: no rule, so not trusted), and why."""

    trusted: bool | None
    reason: str


def folder_trust(folder: str, env: Mapping[str, str]) -> Trust:
    """Gemini CLI's verdict on ``folder``, from the environment, the settings and the trust file."""
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":
        return Trust(False, "the environment distrusts every folder (GEMINI_CLI_TRUST_WORKSPACE=false)")
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return Trust(True, "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder")
    files = settings_files(env)
    if merged(*(read_settings(path) for path in files.values()), keys=("security", "folderTrust", "enabled")) is False:
        return Trust(True, "folder trust is switched off (security.folderTrust.enabled is false)")
    path = trusted_folders_file(env)
    rules = read_settings(path)
    target = os.path.realpath(folder)
    best: tuple[int, str, str] | None = None
    for rule, level in rules.items():
        if level not in _LEVELS:
            return Trust(False, f"{path} gives {rule} the unknown level {level!r} (Gemini CLI refuses to start)")
        holder = os.path.realpath(os.path.dirname(rule) if level == "TRUST_PARENT" else rule)
        inside = target == holder or target.startswith(holder.rstrip(os.sep) + os.sep)
        if inside and (best is None or len(rule) > best[0]):
            best = (len(rule), rule, level)
    if best is None:
        return Trust(None, f"no rule for it in {path}")
    return Trust(best[2] != "DO_NOT_TRUST", f"{path} gives {best[1]} {best[2]}")


def install_notes(folder: str, path: str, written: Mapping[str, Any], env: Mapping[str, str]) -> list[str]:
    """Why Gemini CLI would not run the hook in ``folder`` after install wrote ``written`` to ``path`` (the project's
    or the user's settings file): one line each, none when it will run it."""
    notes = []
    trust = folder_trust(folder, env)
    if trust.trusted is not True:
        rule = f"{json.dumps(folder)}: \"TRUST_FOLDER\""
        notes.append(f"Gemini CLI runs no hooks in {folder} until the folder is trusted ({trust.reason}): start "
                     f'`gemini` there once and choose "Trust folder", or add {rule} to {trusted_folders_file(env)}')
    files = settings_files(env)
    documents = {scope: read_settings(file) for scope, file in files.items()}
    if os.path.realpath(path) == os.path.realpath(files["user"]):
        documents["user"] = dict(written)
    else:  # the project's file, which Gemini CLI merges after the user's and before the system's
        documents = {**{scope: documents[scope] for scope in ("system defaults", "user")}, "project": dict(written),
                     "system": documents["system"]}
    if merged(*documents.values(), keys=("hooksConfig", "enabled")) is False:
        notes.append("Gemini CLI's hooks are switched off (hooksConfig.enabled is false): it runs none")
    for scope, document in documents.items():
        disabled = _get(document, "hooksConfig", "disabled")
        if isinstance(disabled, list) and HOOK_NAME in disabled:
            notes.append(f"the {scope} settings' hooksConfig.disabled names {HOOK_NAME!r}: Gemini CLI skips the hook")
    return notes
