"""A schema-valid guard file as frozen values: the only form of the config that guards and the engine see."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..guard import GuardKind
from .prices import NO_PRICES, PriceTable

__all__ = ["DEFAULT_LOCALE", "GuardFile", "GuardSpec", "build_guard_file", "shadow_share"]

DEFAULT_LOCALE = "en"


@dataclass(frozen=True)
class GuardSpec:
    """One entry of ``guards:``: its id, kind, display name and the kind's parsed settings."""

    index: int
    id: str
    kind: str
    name: str | None
    settings: Any
    #: the share of agents the guard withholds its reminders from (``shadow:``; 0 none, 1 all)
    shadow: float = 0.0


@dataclass(frozen=True)
class GuardFile:
    """A guard file (or mapping) after the schema check."""

    source: str
    base_dir: Path | None
    version: int
    locale: str | None
    template_dirs: tuple[Path, ...]
    guards: tuple[GuardSpec, ...]
    #: where each resolved outcome goes as a JSON line (``outcomes.log``, resolved against the file's folder)
    outcome_log: Path | None = None
    prices: PriceTable = NO_PRICES


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
            GuardSpec(index, entry["id"], kind_name, entry.get("name"), kind.parse(entry.get("config") or {}),
                      shadow_share(entry.get("shadow", False)))
        )
    return GuardFile(
        source=source,
        base_dir=base_dir,
        version=int(data.get("version", 1)),
        locale=data.get("locale"),
        template_dirs=tuple(base / folder for folder in data.get("templateDirs", ())),
        guards=tuple(guards),
        outcome_log=base / data["outcomes"]["log"] if "log" in data.get("outcomes", {}) else None,
        prices=PriceTable.of(data.get("prices", {})),
    )


def shadow_share(value: bool | float) -> float:
    """The share of agents of a schema-valid ``shadow:`` value (true: all of them)."""
    return float(value) if not isinstance(value, bool) else (1.0 if value else 0.0)
