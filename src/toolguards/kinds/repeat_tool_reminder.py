"""``repeat-tool-reminder``: remind an agent that repeats the exact same tool call.

Each agent's tracked calls form a chain keyed by (tool name, canonical arguments). A call identical to the agent's
previous tracked call adds one to the run's count; any other tracked call starts a new run at 1. When the count equals
a threshold the guard adds a reminder to the post-execute decision: the first threshold renders the short ``first``
template, every later one the ``detailed`` template, which quotes the canonical arguments cut to
``argumentsPreviewChars`` (the key always compares the full text). Past the highest threshold the chain is silent,
unless ``repeatEvery`` asks for more.

Untracked calls (see include/exclude) neither count nor reset a run; denied calls count like any other; a call with a
``call_id`` already seen for that agent (the last 64 ids are kept) is not counted again. A new user prompt resets the
agent's chain. Without ``block`` the guard never blocks and it never replaces a result.

Options (all optional; the defaults are the reference's)::

    thresholds: [3, 5, 8]        # integers >= 2, no duplicates, not empty; normalized ascending
    include: []                  # tool-name patterns to track (`*` wildcard); empty: every tool
    exclude: []                  # tool-name patterns the chain ignores
    argumentsPreviewChars: 500   # integer >= 1: cap, in code points, on the arguments quoted by `detailed`
    repeatEvery: 5               # past the highest threshold, remind again every N calls (13, 18, …); default: silent
    resultAware: true            # a repeated call whose result differs from the previous one's starts a new run;
                                 # a call without a result never resets; default false
    block:                       # default: never block
      atCount: 12                # from this run length on, the decision is a block (reminders still ride along);
                                 # must be above the first threshold
      feedback: repeat-tool-reminder/block.j2   # the block's feedback (variables: tool, count, arguments)
    overrides:                   # per-tool settings, first match wins (patterns as include/exclude)
      - tools: [bash_output, "*_status"]
        thresholds: [10, 20]     # an override may set thresholds, repeatEvery, resultAware, block,
        resultAware: true        # argumentsPreviewChars; the rest comes from the guard's own settings
    templates:                   # file names under templates/<locale>/; a bare name also resolves in
      first: repeat-tool-reminder/first.j2          # repeat-tool-reminder/ (variables: tool, count, arguments)
      detailed: repeat-tool-reminder/detailed.j2    # variables: tool, count, arguments
      truncated: repeat-tool-reminder/truncated.j2  # variables: head, omitted (the preview's cut marker)

Valid::

    guards:
      - id: repeat-tool-reminder
        config:
          thresholds: [3, 5, 8]
          exclude: [todo_write, "mcp_*"]
          overrides:
            - tools: ["*_status"]
              resultAware: true

Invalid (``thresholds`` must not be empty; ``threshold`` is not a known key; ``atCount`` must be above 3)::

    guards:
      - id: repeat-tool-reminder
        config:
          thresholds: []
          threshold: 3
          block: {atCount: 3}

The preview is cut at a code point, never inside one; the reference counts UTF-16 units, so the two cuts differ only
for arguments with characters above U+FFFF (emoji, rare CJK).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from jinja2 import Template

from ..canonical import canonicalize
from ..events import ContextEntry
from ..patterns import ToolFilter
from ..store import StateStore
from .base import (
    CALL_ID_WINDOW,
    Call,
    CallIds,
    Effect,
    TemplateSlot,
    TemplateUse,
    notice,
    remember_call_id,
    seen_call_id,
)
from .common import ChainGuard, configured_templates

__all__ = ["CALL_ID_WINDOW", "KIND", "Block", "Override", "RepeatSettings", "RepeatToolReminder", "Rules"]

NAME = "repeat-tool-reminder"
_SAMPLE = {"tool": "grep", "count": 5, "arguments": '{"path":"src","pattern":"TODO"}'}
# Bounds the per-tool cache of rules; distinct tool names are few.
_CACHE_LIMIT = 4096


@dataclass(frozen=True)
class Block:
    """Block from ``at_count`` on, with ``feedback`` rendered from this template."""

    at_count: int
    feedback: str = f"{NAME}/block.j2"


@dataclass(frozen=True)
class Rules:
    """The settings that decide when a run reminds or blocks (the part an override may change)."""

    thresholds: tuple[int, ...] = (3, 5, 8)
    repeat_every: int | None = None
    result_aware: bool = False
    block: Block | None = None
    arguments_preview_chars: int = 500

    def fires(self, count: int) -> bool:
        """Whether a run of this length draws a reminder."""
        if count in self.thresholds:
            return True
        last = self.thresholds[-1]
        return self.repeat_every is not None and count > last and (count - last) % self.repeat_every == 0


@dataclass(frozen=True)
class Override:
    """Rules for the tools matching ``tools``."""

    tools: tuple[str, ...]
    rules: Rules


@dataclass(frozen=True)
class RepeatSettings(Rules):
    """The validated options of one repeat-tool-reminder guard, defaults applied."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    overrides: tuple[Override, ...] = ()
    templates: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


# State per agent: (digest of the last tracked call, its run length) while the agent's calls carry no call id and no
# result is compared, as most do — the smallest state keeps memory per tracked agent low; else (digest, run length,
# recent call ids, digest of its result or None).
_State = tuple[int, int] | tuple[int, int, CallIds, "int | None"]


def _advance(
    state: _State | None, digest: int, call_id: str | None, result: int | None
) -> tuple[_State | None, int | None]:
    """The chain step: the new state and the run length of this call (None: a repeated delivery, not counted)."""
    ids: CallIds = None
    last_result: int | None = None
    if state is None:
        same, count = False, 0
    else:
        if len(state) == 2:
            last, count = state
        else:
            last, count, ids, last_result = state
            if seen_call_id(ids, call_id):
                return state, None
        same = last == digest
        if same and result is not None and last_result is not None and result != last_result:
            same = False  # resultAware: the same call got a different answer, so it is making progress
    count = count + 1 if same else 1
    kept = result if result is not None else (last_result if same else None)
    ids = remember_call_id(ids, call_id)
    return ((digest, count) if ids is None and kept is None else (digest, count, ids, kept)), count


class RepeatToolReminder(ChainGuard):
    """One configured repeat-tool-reminder guard."""

    settings: RepeatSettings

    def __init__(
        self, guard_id: str, settings: RepeatSettings, templates: Mapping[str, Template], store: StateStore
    ) -> None:
        super().__init__(guard_id, settings, templates, store)
        self._overrides = [
            (ToolFilter(o.tools, ()), o.rules, f"overrides[{i}].") for i, o in enumerate(settings.overrides)
        ]
        self._rules_cache: dict[str, tuple[Rules, str]] = {}

    def _rules(self, tool: str) -> tuple[Rules, str]:
        """The rules for ``tool`` and its block template's key prefix: the first matching override, else the guard."""
        found = self._rules_cache.get(tool)
        if found is None:
            matches = ((rules, prefix) for match, rules, prefix in self._overrides if match(tool))
            found = next(matches, (self.settings, ""))
            if len(self._rules_cache) >= _CACHE_LIMIT:
                self._rules_cache.clear()
            self._rules_cache[tool] = found
        return found

    def observe(self, call: Call) -> Effect | None:
        """Count the call; a reminder when its run length is a threshold, a block from ``block.atCount`` on."""
        tool = call.tool
        if not self._tracked(tool):
            return None
        rules, prefix = self._rules(tool) if self._overrides else (self.settings, "")
        canonical = call.canonical_arguments()
        digest = self._digest(tool, canonical)
        result = call.event.result
        result_digest = self._digest(canonicalize(result)) if rules.result_aware and result is not None else None
        call_id = call.event.call_id
        count = self._store.update(call.agent, lambda state: _advance(state, digest, call_id, result_digest))
        if count is None:
            return None
        blocks = rules.block is not None and count >= rules.block.at_count
        if not blocks and not rules.fires(count):
            return None
        variables = {"tool": tool, "count": count, "arguments": self._preview(canonical, rules)}
        contexts: tuple[ContextEntry, ...] = ()
        if rules.fires(count):
            slot = "first" if count == rules.thresholds[0] else "detailed"
            metadata = {"guard": self.id, "kind": NAME, "tool": tool, "count": count, "template": slot}
            if blocks:
                metadata["blocked"] = True
            text = self._templates[slot].render(variables)
            contexts = (ContextEntry(text, notice(self.id, f"{tool} × {count}"), metadata),)
        feedback = self._templates[f"{prefix}block"].render(variables) if blocks else None
        return Effect(contexts, feedback)

    def _preview(self, canonical: str, rules: Rules) -> str:
        cap = rules.arguments_preview_chars
        if len(canonical) <= cap:
            return canonical
        return self._templates["truncated"].render(head=canonical[:cap], omitted=len(canonical) - cap)


def _rules(config: Mapping[str, Any], base: Rules) -> Rules:
    block = config.get("block")
    return replace(
        base,
        thresholds=tuple(sorted(int(t) for t in config["thresholds"])) if "thresholds" in config else base.thresholds,
        repeat_every=int(config["repeatEvery"]) if "repeatEvery" in config else base.repeat_every,
        result_aware=bool(config.get("resultAware", base.result_aware)),
        block=Block(int(block["atCount"]), block.get("feedback", Block.feedback)) if block else base.block,
        arguments_preview_chars=int(config.get("argumentsPreviewChars", base.arguments_preview_chars)),
    )


class RepeatToolReminderKind:
    """The registry entry for repeat-tool-reminder."""

    name = NAME
    config_schema: Mapping[str, Any] | None = None  # in schemas/toolguards.schema.json, $defs/repeatToolReminderConfig
    slots: Mapping[str, TemplateSlot] = MappingProxyType(
        {
            "first": TemplateSlot(f"{NAME}/first.j2", _SAMPLE),
            "detailed": TemplateSlot(f"{NAME}/detailed.j2", _SAMPLE),
            "truncated": TemplateSlot(f"{NAME}/truncated.j2", {"head": '{"path":"src","pat', "omitted": 17}),
            "block": TemplateSlot(f"{NAME}/block.j2", {**_SAMPLE, "count": 12}),
        }
    )

    def parse(self, config: Mapping[str, Any]) -> RepeatSettings:
        """Settings from a schema-valid config mapping (integral floats become ints, thresholds sorted)."""
        rules = _rules(config, Rules())
        return RepeatSettings(
            **{name: getattr(rules, name) for name in Rules.__dataclass_fields__},
            include=tuple(config.get("include", ())),
            exclude=tuple(config.get("exclude", ())),
            overrides=tuple(Override(tuple(o["tools"]), _rules(o, rules)) for o in config.get("overrides", ())),
            templates=MappingProxyType(dict(config.get("templates", {}))),
        )

    def problems(self, settings: RepeatSettings) -> Sequence[tuple[tuple[str | int, ...], str]]:
        """A block must start above the first threshold, in the guard and in each override."""
        found = []
        for path, rules in [((), settings), *((("overrides", i), o.rules) for i, o in enumerate(settings.overrides))]:
            if rules.block is not None and rules.block.at_count <= rules.thresholds[0]:
                message = (
                    f"invalid block.atCount {rules.block.at_count} — must be above the first threshold "
                    f"({rules.thresholds[0]})"
                )
                found.append(((*path, "block", "atCount"), message))
        return found

    def templates(self, settings: RepeatSettings) -> Sequence[TemplateUse]:
        """first, detailed and truncated, and a block feedback per configured block."""
        uses = configured_templates(self.slots, settings.templates, ("first", "detailed", "truncated"))
        blocks = [("", (), settings.block)] + [
            (f"overrides[{i}].", ("overrides", i), o.rules.block) for i, o in enumerate(settings.overrides)
        ]
        for prefix, path, block in blocks:
            if block is not None:
                uses.append(TemplateUse(f"{prefix}block", "block", block.feedback, (*path, "block", "feedback")))
        return uses

    def create(
        self, guard_id: str, settings: RepeatSettings, templates: Mapping[str, Template], store: StateStore
    ) -> RepeatToolReminder:
        """A guard instance."""
        return RepeatToolReminder(guard_id, settings, templates, store)


KIND = RepeatToolReminderKind()
