"""toolguards: declarative guards that remind LLM agents when they loop on the same tool call.

A host loads a guard file into an ``Engine`` and calls ``engine.post_execute(event, next)`` after every tool call;
the engine returns the downstream decision with any reminders prepended to its ``additional_contexts``.
"""

from __future__ import annotations

from .canonical import canonicalize
from .diagnostics import ConfigError, Diagnostic
from .engine import Engine
from .events import ContextEntry, PostToolDecision, Reminder, ToolEvent
from .guard import GuardKind
from .kinds import registry
from .loader import check_file, from_mapping, load, load_default
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
