"""What the built-in guard kinds share: a per-agent chain over tracked calls, and the plain parts of a kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jinja2 import Template

from ..patterns import ToolFilter
from ..store import StateStore
from .base import TemplateSlot, TemplateUse, digest_function

__all__ = ["ChainGuard", "PlainKind", "configured_templates"]


class ChainGuard:
    """A guard that keeps one chain per agent in its store, over the calls its include/exclude patterns track."""

    def __init__(self, guard_id: str, settings: Any, templates: Mapping[str, Template], store: StateStore) -> None:
        self.id = guard_id
        self.settings = settings
        self._templates = templates
        self._store = store
        self._tracked = ToolFilter(settings.include, settings.exclude)
        self._digest = digest_function(store)

    def reset(self, agent: Any) -> None:
        """A new user prompt: start the agent's chain afresh."""
        self._store.reset(agent)

    def forget(self, agent: Any) -> None:
        """The host disposed of the agent: drop its chain."""
        self._store.forget(agent)


def configured_templates(
    slots: Mapping[str, TemplateSlot], configured: Mapping[str, str], names: Sequence[str]
) -> list[TemplateUse]:
    """The uses of ``names`` slots: the file name from the config's ``templates`` mapping, else the slot's default."""
    return [
        TemplateUse(slot, slot, configured.get(slot, slots[slot].default),
                    ("templates", slot) if slot in configured else None)
        for slot in names
    ]


class PlainKind:
    """A kind whose guard renders each of its slots once, has no cross-option checks, and is built from settings."""

    guard: type[ChainGuard]
    slots: Mapping[str, TemplateSlot]

    def problems(self, settings: Any) -> Sequence[tuple[tuple[str | int, ...], str]]:
        """Nothing beyond the schema."""
        return ()

    def templates(self, settings: Any) -> Sequence[TemplateUse]:
        """Every slot, as configured or by default."""
        return configured_templates(self.slots, settings.templates, list(self.slots))

    def create(self, guard_id: str, settings: Any, templates: Mapping[str, Template], store: StateStore) -> Any:
        """A guard instance."""
        return self.guard(guard_id, settings, templates, store)
