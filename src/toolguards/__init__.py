"""toolguards: declarative guards that remind LLM agents when they loop on the same tool call.

A host loads a guard file into an ``Engine`` and calls ``engine.post_execute(event, next)`` after every tool call;
the engine returns the downstream decision with any reminders prepended to its ``additional_contexts``.

The names below are imported on first use: a hook process that ignores its event, or builds its engine from the
compiled cache (``toolguards.guardfile.compiled``), never pays for the YAML reader, the schema check or Jinja2.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .canonical import canonicalize
    from .engine import Engine
    from .events import ContextEntry, PostToolDecision, Reminder, ToolEvent
    from .guard import GuardKind
    from .guardfile.diagnostics import ConfigError, Diagnostic
    from .guardfile.loader import check_file, from_mapping, load, load_default
    from .kinds import registry
    from .stores import MemoryStore, StateStore, StateType, open_stores

__all__ = [
    "ConfigError",
    "ContextEntry",
    "Diagnostic",
    "Engine",
    "GuardKind",
    "MemoryStore",
    "PostToolDecision",
    "Reminder",
    "StateStore",
    "StateType",
    "ToolEvent",
    "__version__",
    "canonicalize",
    "check_file",
    "from_mapping",
    "load",
    "load_default",
    "open_stores",
    "registry",
]

__version__ = "0.1.0"

# Where each public name lives.
_HOMES = {
    "canonicalize": "canonical",
    "ConfigError": "guardfile.diagnostics",
    "Diagnostic": "guardfile.diagnostics",
    "Engine": "engine",
    "ContextEntry": "events",
    "PostToolDecision": "events",
    "Reminder": "events",
    "ToolEvent": "events",
    "GuardKind": "guard",
    "registry": "kinds",
    "check_file": "guardfile.loader",
    "from_mapping": "guardfile.loader",
    "load": "guardfile.loader",
    "load_default": "guardfile.loader",
    "MemoryStore": "stores",
    "StateStore": "stores",
    "StateType": "stores",
    "open_stores": "stores",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # found once; later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
