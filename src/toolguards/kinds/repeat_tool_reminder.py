"""``repeat-tool-reminder``: remind an agent that repeats the exact same tool call.

Each agent's tracked calls form a chain keyed by (tool name, canonical arguments). A call identical to the agent's
previous tracked call adds one to the run's count; any other tracked call starts a new run at 1. When the count equals
a threshold the guard adds a reminder to the post-execute decision: the first threshold renders the short ``first``
template, every later one the ``detailed`` template, which quotes the canonical arguments cut to
``argumentsPreviewChars`` (the key always compares the full text). Past the highest threshold the chain is silent.

Untracked calls (see include/exclude) neither count nor reset a run; denied calls count like any other; a call with a
``call_id`` already seen for that agent (the last 64 ids are kept) is not counted again. A new user prompt resets the
agent's chain. The guard never blocks and never replaces a result.

Options (all optional)::

    thresholds: [3, 5, 8]        # integers >= 2, no duplicates, not empty; normalized ascending
    include: []                  # tool-name patterns to track (`*` wildcard); empty: every tool
    exclude: []                  # tool-name patterns the chain ignores
    argumentsPreviewChars: 500   # integer >= 1: cap, in code points, on the arguments quoted by `detailed`
    templates:                   # file names under templates/<locale>/
      first: repeat-tool-reminder/first.j2          # variables: tool, count, arguments
      detailed: repeat-tool-reminder/detailed.j2    # variables: tool, count, arguments
      truncated: repeat-tool-reminder/truncated.j2  # variables: head, omitted (the preview's cut marker)

Valid::

    guards:
      - id: repeat-tool-reminder
        config:
          thresholds: [3, 5, 8]
          exclude: [todo_write, "mcp_*"]

Invalid (``thresholds`` must not be empty; ``threshold`` is not a known key)::

    guards:
      - id: repeat-tool-reminder
        config:
          thresholds: []
          threshold: 3

The preview is cut at a code point, never inside one; the reference counts UTF-16 units, so the two cuts differ only
for arguments with characters above U+FFFF (emoji, rare CJK).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from jinja2 import Template

from ..events import ContextEntry
from ..patterns import ToolFilter
from ..store import StateStore
from .base import Call, Effect, TemplateSlot, digest_function

__all__ = ["CALL_ID_WINDOW", "KIND", "RepeatSettings", "RepeatToolReminder"]

NAME = "repeat-tool-reminder"
#: How many recent call ids per agent are remembered for de-duplication.
CALL_ID_WINDOW = 64

_SAMPLE = {"tool": "grep", "count": 5, "arguments": '{"path":"src","pattern":"TODO"}'}


@dataclass(frozen=True)
class RepeatSettings:
    """The validated options of one repeat-tool-reminder guard, defaults applied."""

    thresholds: tuple[int, ...] = (3, 5, 8)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    arguments_preview_chars: int = 500
    templates: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


# State per agent: (digest of the last tracked call, its run length, recent call ids or None).
_State = tuple[int, int, "tuple[str, ...] | None"]


def _advance(state: _State | None, digest: int, call_id: str | None) -> tuple[_State | None, int | None]:
    """The chain step: the new state and the run length of this call (None: a repeated delivery, not counted)."""
    if state is None:
        last, count, ids = 0, 0, None
    else:
        last, count, ids = state
        if call_id is not None and ids is not None and call_id in ids:
            return state, None
    count = count + 1 if state is not None and last == digest else 1
    if call_id is not None:
        ids = (*ids[1 - CALL_ID_WINDOW :], call_id) if ids else (call_id,)
    return (digest, count, ids), count


class RepeatToolReminder:
    """One configured repeat-tool-reminder guard."""

    def __init__(
        self, guard_id: str, settings: RepeatSettings, templates: Mapping[str, Template], store: StateStore
    ) -> None:
        self.id = guard_id
        self.settings = settings
        self._templates = templates
        self._store = store
        self._tracked = ToolFilter(settings.include, settings.exclude)
        self._digest = digest_function(store)
        self._first = settings.thresholds[0]
        self._thresholds = frozenset(settings.thresholds)

    def observe(self, call: Call) -> Effect | None:
        """Count the call and return a reminder when its run length is a threshold."""
        tool = call.tool
        if not self._tracked(tool):
            return None
        canonical = call.canonical_arguments()
        digest = self._digest(tool, canonical)
        call_id = call.event.call_id
        count = self._store.update(call.agent, lambda state: _advance(state, digest, call_id))
        if count is None or count not in self._thresholds:
            return None
        slot = "first" if count == self._first else "detailed"
        text = self._templates[slot].render(tool=tool, count=count, arguments=self._preview(canonical))
        source = {"kind": "plugin", "plugin": self.id, "form": "notice", "summary": f"{tool} × {count}"}
        metadata = {"guard": self.id, "kind": NAME, "tool": tool, "count": count, "template": slot}
        return Effect((ContextEntry(text, source, metadata),))

    def _preview(self, canonical: str) -> str:
        cap = self.settings.arguments_preview_chars
        if len(canonical) <= cap:
            return canonical
        return self._templates["truncated"].render(head=canonical[:cap], omitted=len(canonical) - cap)

    def reset(self, agent: Any) -> None:
        """Start the agent's chain afresh."""
        self._store.reset(agent)

    def forget(self, agent: Any) -> None:
        """Drop the agent's chain."""
        self._store.forget(agent)


class RepeatToolReminderKind:
    """The registry entry for repeat-tool-reminder."""

    name = NAME
    config_schema: Mapping[str, Any] | None = None  # in schemas/toolguards.schema.json, $defs/repeatToolReminderConfig
    slots: Mapping[str, TemplateSlot] = MappingProxyType(
        {
            "first": TemplateSlot(f"{NAME}/first.j2", _SAMPLE),
            "detailed": TemplateSlot(f"{NAME}/detailed.j2", _SAMPLE),
            "truncated": TemplateSlot(f"{NAME}/truncated.j2", {"head": '{"path":"src","pat', "omitted": 17}),
        }
    )

    def parse(self, config: Mapping[str, Any]) -> RepeatSettings:
        """Settings from a schema-valid config mapping (integral floats become ints, thresholds sorted)."""
        defaults = RepeatSettings()
        return RepeatSettings(
            thresholds=tuple(sorted(int(t) for t in config.get("thresholds", defaults.thresholds))),
            include=tuple(config.get("include", ())),
            exclude=tuple(config.get("exclude", ())),
            arguments_preview_chars=int(config.get("argumentsPreviewChars", defaults.arguments_preview_chars)),
            templates=MappingProxyType(dict(config.get("templates", {}))),
        )

    def template_names(self, settings: RepeatSettings) -> Mapping[str, str]:
        """Configured template names over the defaults."""
        return {slot: settings.templates.get(slot, spec.default) for slot, spec in self.slots.items()}

    def create(
        self, guard_id: str, settings: RepeatSettings, templates: Mapping[str, Template], store: StateStore
    ) -> RepeatToolReminder:
        """A guard instance."""
        return RepeatToolReminder(guard_id, settings, templates, store)


KIND = RepeatToolReminderKind()
