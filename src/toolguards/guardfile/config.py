"""A schema-valid guard file as frozen values: the only form of the config that guards and the engine see."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..guard import GuardKind

__all__ = ["DEFAULT_LOCALE", "GuardFile", "GuardSpec", "build_guard_file"]

DEFAULT_LOCALE = "en"


@dataclass(frozen=True)
class GuardSpec:
    """One entry of ``guards:``: its id, kind, display name and the kind's parsed settings."""

    index: int
    id: str
    kind: str
    name: str | None
    settings: Any


@dataclass(frozen=True)
class GuardFile:
    """A guard file (or mapping) after the schema check."""

    source: str
    base_dir: Path | None
    version: int
    locale: str | None
    template_dirs: tuple[Path, ...]
    guards: tuple[GuardSpec, ...]


def build_guard_file(
    source: str,
    base_dir: Path | None,
    data: Mapping[str, Any],
    kinds: Mapping[str, GuardKind],
    valid_guards: Collection[int] | None = None,
) -> GuardFile:
    """Frozen values from schema-valid data; relative template folders are resolved against ``base_dir``.

    ``valid_guards`` limits the guards built to those indexes (the loader checks the templates of the valid guards of a
    file that has problems elsewhere, so that one run reports everything).
    """
    base = base_dir or Path.cwd()
    guards = []
    for index, entry in enumerate(data["guards"]):
        if valid_guards is not None and index not in valid_guards:
            continue
        kind_name = entry.get("kind", entry["id"])  # the schema guarantees the id is a kind when `kind` is absent
        kind = kinds[kind_name]
        guards.append(
            GuardSpec(index, entry["id"], kind_name, entry.get("name"), kind.parse(entry.get("config") or {}))
        )
    return GuardFile(
        source=source,
        base_dir=base_dir,
        version=int(data.get("version", 1)),
        locale=data.get("locale"),
        template_dirs=tuple(base / folder for folder in data.get("templateDirs", ())),
        guards=tuple(guards),
    )
