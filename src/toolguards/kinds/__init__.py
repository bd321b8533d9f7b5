"""The registry of guard kinds: an explicit dict of the built-in kinds, extended by ``toolguards.kinds`` entry points.

A new built-in kind is one module in this folder (its docstring the kind's YAML reference, ``KIND`` its registry
entry) plus its templates, and one line below; the interfaces it implements are in ``toolguards.guard``, and
``toolguards schema`` regenerates the committed JSON Schema from this registry.

A third-party package registers a kind with an entry point whose name is the kind's name and whose object satisfies
``GuardKind`` (an instance, or a class that takes no arguments). It is checked when the registry is first built; a
broken plugin is logged with its entry point's name and left out, so a file that uses it fails as an unknown kind.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from ..guard import GuardKind
from ..warnings_once import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.metadata import EntryPoints

__all__ = ["BUILTIN_KINDS", "ENTRY_POINT_GROUP", "registry"]

#: The built-in kinds by name: the module (in this folder) whose ``KIND`` each is, in the schema's order.
_BUILTIN = {
    "repeat-tool-reminder": "repeat_tool_reminder",
    "cycle-reminder": "cycle_reminder",
    "repeated-error-reminder": "repeated_error_reminder",
    "no-progress-reminder": "no_progress_reminder",
}


class _BuiltinKinds(Mapping[str, GuardKind]):
    """The built-in kinds by name; a kind's module is imported when the kind is first looked up, so that a process
    that handles one hook event imports only the kinds its guard file uses (each costs milliseconds)."""

    def __getitem__(self, name: str) -> GuardKind:
        kind: GuardKind = importlib.import_module(f"{__name__}.{_BUILTIN[name]}").KIND
        return kind

    def __contains__(self, name: object) -> bool:
        return name in _BUILTIN

    def __iter__(self) -> Iterator[str]:
        return iter(_BUILTIN)

    def __len__(self) -> int:
        return len(_BUILTIN)


BUILTIN_KINDS: Mapping[str, GuardKind] = _BuiltinKinds()

ENTRY_POINT_GROUP = "toolguards.kinds"


def entry_points(group: str) -> EntryPoints:
    """The installed entry points of ``group`` (importlib.metadata, imported here: it alone costs more than a hook
    call, which builds its engine from the compiled cache without scanning)."""
    from importlib.metadata import entry_points as installed  # noqa: PLC0415

    return installed(group=group)


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
            warn("toolguards: skipping %s: it failed to load: %s", label, exc)
            continue
        problem = _plugin_problem(point.name, kind, kinds)
        if problem:
            warn("toolguards: skipping %s: %s", label, problem)
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
