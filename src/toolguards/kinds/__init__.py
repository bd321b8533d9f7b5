"""The registry of guard kinds: an explicit dict of the built-in kinds, extended by ``toolguards.kinds`` entry points.

A new built-in kind is one module in this folder (its docstring the kind's YAML reference) plus its templates, and one
line below; the interfaces it implements are in ``toolguards.guard``, and ``toolguards schema`` regenerates the
committed JSON Schema from this registry.

A third-party package registers a kind with an entry point whose name is the kind's name and whose object satisfies
``GuardKind`` (an instance, or a class that takes no arguments). It is checked when the registry is first built; a
broken plugin is logged with its entry point's name and left out, so a file that uses it fails as an unknown kind.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from importlib.metadata import entry_points
from types import MappingProxyType

from ..guard import GuardKind
from .cycle_reminder import KIND as CYCLE_REMINDER
from .repeat_tool_reminder import KIND as REPEAT_TOOL_REMINDER
from .repeated_error_reminder import KIND as REPEATED_ERROR_REMINDER

__all__ = ["BUILTIN_KINDS", "ENTRY_POINT_GROUP", "registry"]

log = logging.getLogger("toolguards")

_BUILTIN: dict[str, GuardKind] = {
    REPEAT_TOOL_REMINDER.name: REPEAT_TOOL_REMINDER,
    CYCLE_REMINDER.name: CYCLE_REMINDER,
    REPEATED_ERROR_REMINDER.name: REPEATED_ERROR_REMINDER,
}
BUILTIN_KINDS: Mapping[str, GuardKind] = MappingProxyType(_BUILTIN)

ENTRY_POINT_GROUP = "toolguards.kinds"


@functools.cache
def registry() -> Mapping[str, GuardKind]:
    """Every kind this installation knows: the built-in ones, then valid entry-point plugins."""
    kinds = dict(BUILTIN_KINDS)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        label = f"entry point `{point.name} = {point.value}` of group `{ENTRY_POINT_GROUP}`"
        try:
            loaded = point.load()
            kind = loaded() if isinstance(loaded, type) else loaded
        except Exception as exc:  # a plugin's import error must not break the guards that do not use it
            log.warning("toolguards: skipping %s: it failed to load: %s", label, exc)
            continue
        problem = _plugin_problem(point.name, kind, kinds)
        if problem:
            log.warning("toolguards: skipping %s: %s", label, problem)
            continue
        kinds[point.name] = kind
    return MappingProxyType(kinds)


def _plugin_problem(name: str, kind: object, known: Mapping[str, GuardKind]) -> str | None:
    if name in known:
        return f"the kind `{name}` is already registered"
    if not isinstance(kind, GuardKind):
        return "its object lacks name, slots, config_schema, state, parse, problems, templates or create"
    if kind.name != name:
        return f"its kind is named `{kind.name}`, not `{name}` as the entry point says"
    if not isinstance(kind.config_schema, Mapping):
        return "a plugin kind must give the JSON Schema of its config as `config_schema`"
    return None
