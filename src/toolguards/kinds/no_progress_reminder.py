"""``no-progress-reminder``: remind an agent whose calls keep getting the same result while it changes their arguments.

A loop the exact-match guard cannot see, and the error guard neither when nothing fails: the agent pages through a
blocked page with a new offset, or retries a search with cosmetic changes, and gets the same answer every time. Each
agent's tracked calls that have a result form a chain keyed by the tool (or the ``groups`` entry the tool belongs to,
so that calls of the tools of one group chain together) and the result, compared after ``resultNormalizers`` (see
docs/volatile.md). A call with the same key as the agent's previous counted call and different arguments adds one to
the run; a call with another result, or of another tool outside the group, starts a new run at 1; a call with the same
arguments and the same result as the one before it neither adds nor ends the run (that is the repeat guard's
business, so the two never count the same call). Arguments compare by their canonical form with ``ignoreArguments``
left out. When the run's length equals a threshold the guard adds a reminder: ``first`` at the first threshold,
``detailed`` later, which quotes the latest call's full arguments cut to ``argumentsPreviewChars``.

A call without a result is never counted and changes nothing (a host that does not deliver results gets no reminder
from this guard); untracked calls neither count nor reset; denied calls count like any other (with their result, if
any); a re-delivered ``call_id`` counts once; a new user prompt resets the agent. The guard never blocks.

A tool whose success always reads the same (``write_file`` answering "OK") would look stuck to this guard: list the
tools it watches in ``include``, or leave such tools out with ``exclude``.

Options (all optional, shown with their defaults)::

    thresholds: [3, 5, 8]        # integers >= 2, no duplicates, not empty; normalized ascending
    include: []                  # tool-name patterns to track (`*` wildcard); empty: every tool
    exclude: []                  # tool-name patterns the chain ignores
    groups: []                   # [{tools: [patterns]}]: the calls of a group's tools chain together (the first
                                 # group a tool matches); every other tool chains on its own
    argumentsPreviewChars: 500   # integer >= 1: cap, in code points, on the arguments quoted by `detailed`
    ignoreArguments: []          # argument paths left out before arguments compare (`request_id`, `*.nonce`)
    resultNormalizers: []        # [{pattern, replacement}] RE2 patterns replaced, in order, in every string of the
                                 # result before results compare
    templates:                   # file names under templates/<locale>/
      first: no-progress-reminder/first.j2          # variables: tool, count, arguments
      detailed: no-progress-reminder/detailed.j2    # variables: tool, count, arguments
      truncated: no-progress-reminder/truncated.j2  # variables: head, omitted (the preview's cut marker)

Valid::

    guards:
      - id: no-progress-reminder
        config:
          thresholds: [3, 5]
          include: [read_page, web_fetch, "search_*"]
          groups:
            - tools: [read_page, web_fetch]
          resultNormalizers:
            - pattern: 'fetched at \\d{2}:\\d{2}:\\d{2}'

Invalid::

    guards:
      - id: no-progress-reminder
        config:
          thresholds: [3, 3]
          groups:
            - tools: []
      - id: pages
        kind: no-progress-reminder
        config:
          ignoreArguments: ['page.']
          resultNormalizers: [{pattern: 'a{2,1}'}]

Diagnostics (the file named ``g.yaml``)::

    g.yaml:4:19: guards[0].config.thresholds: `thresholds` must not contain duplicates
    g.yaml:6:18: guards[0].config.groups[0].tools: `tools` must name at least one tool pattern
    g.yaml:10:25: guards[1].config.ignoreArguments[0]: invalid path `page.`: empty segment at character 5
    g.yaml:11:37: guards[1].config.resultNormalizers[0].pattern: not an RE2 pattern: invalid repetition size: {2,1}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from ..events import ContextEntry, Reminder
from ..guard import (
    Call,
    CallIds,
    ChainGuard,
    Effect,
    PlainKind,
    TemplateSlot,
    call_ids_from_json,
    remember_call_id,
    seen_call_id,
)
from ..patterns import ToolFilter
from ..stores.base import StateStore, StateType
from ..values import field, frozen
from ..volatile import NO_NORMALIZERS, NO_PATHS, ArgumentPaths, Normalizers, key_of, normalizers_of, result_of
from .fragments import (
    ignore_arguments_schema,
    normalizer_problems,
    path_problems,
    preview_chars_schema,
    result_normalizers_schema,
    templates_schema,
    thresholds_schema,
    tool_patterns_schema,
)

if TYPE_CHECKING:
    from jinja2 import Template

__all__ = ["KIND", "NoProgressReminder", "NoProgressRun", "NoProgressSettings", "advance"]

NAME = "no-progress-reminder"
_SAMPLE = {"tool": "read_page", "count": 3, "arguments": '{"offset":20,"url":"https://example.com/report"}'}
# Bounds the per-tool cache of chain digests; distinct tool names are few.
_CACHE_LIMIT = 4096


@frozen
class NoProgressSettings:
    """The validated options of one no-progress-reminder guard, defaults applied."""

    thresholds: tuple[int, ...] = (3, 5, 8)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: the tool patterns of each group, in order
    groups: tuple[tuple[str, ...], ...] = ()
    arguments_preview_chars: int = 500
    ignore_arguments: ArgumentPaths = NO_PATHS
    result_normalizers: Normalizers = NO_NORMALIZERS
    templates: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


class NoProgressRun(NamedTuple):
    """An agent's chain: digests of the run's tool or group, of the last counted call's key and of its result; the
    run's length; the recent call ids."""

    chain: int
    arguments: int
    result: int
    length: int
    call_ids: CallIds


class _RunState:
    """The persisted form: ``{"chain", "arguments", "result", "count", "callIds"}`` (digests as integers)."""

    name = NAME
    version = 1

    def to_json(self, state: NoProgressRun) -> dict[str, Any]:
        ids = None if state.call_ids is None else list(state.call_ids)
        return {"chain": state.chain, "arguments": state.arguments, "result": state.result, "count": state.length,
                "callIds": ids}

    def from_json(self, data: Any) -> NoProgressRun:
        if not isinstance(data, dict) or set(data) != {"chain", "arguments", "result", "count", "callIds"}:
            raise ValueError("not a no-progress-reminder state")
        numbers = [data[key] for key in ("chain", "arguments", "result", "count")]
        if not all(type(n) is int for n in numbers) or data["count"] < 1:
            raise ValueError("a no-progress-reminder state needs integer digests and a count >= 1")
        chain, arguments, result, count = numbers
        return NoProgressRun(chain, arguments, result, count, call_ids_from_json(data["callIds"]))


def advance(
    chain: int, arguments: int, result: int, call_id: str | None, state: NoProgressRun | None
) -> tuple[NoProgressRun | None, int | None]:
    """The chain step of a call that has a result: the new state and the run's length when the call counts (1 for a
    call that starts a run; None for a call that does not count: a re-delivery, or the same arguments again)."""
    ids = None if state is None else state.call_ids
    if seen_call_id(ids, call_id):
        return state, None
    ids = remember_call_id(ids, call_id)
    if state is None or state.chain != chain or state.result != result:
        return NoProgressRun(chain, arguments, result, 1, ids), 1
    if state.arguments == arguments:
        return NoProgressRun(chain, arguments, result, state.length, ids), None
    return NoProgressRun(chain, arguments, result, state.length + 1, ids), state.length + 1


class NoProgressReminder(ChainGuard):
    """One configured no-progress-reminder guard."""

    settings: NoProgressSettings

    def __init__(
        self, guard_id: str, settings: NoProgressSettings, templates: Mapping[str, Template], store: StateStore
    ) -> None:
        super().__init__(guard_id, settings, templates, store)
        self._groups = [ToolFilter(patterns) for patterns in settings.groups]
        self._chains: dict[str, int] = {}
        self._key = key_of(settings.ignore_arguments)
        self._result = result_of(settings.result_normalizers)

    def inputs(self, call: Call) -> tuple[int, int, int] | None:
        """The digests of the call's chain, key and result that the step compares; None for a call the guard does not
        count (untracked, or without a result). Replay's report follows the runs with these."""
        tool = call.tool
        if not self._tracked(tool):
            return None
        result = self._result(call)
        if result is None:
            return None
        return self._chain(tool), self._digest(*self._key(call)), self._digest(result)

    def observe(self, call: Call) -> Effect | None:
        """Count the call; a reminder when its run's length is a threshold."""
        found = self.inputs(call)
        if found is None:
            return None
        count = self._store.update(call.agent, partial(advance, *found, call.event.call_id))
        thresholds = self.settings.thresholds
        if count is None or count not in thresholds:
            return None
        tool = call.tool
        slot = "first" if count == thresholds[0] else "detailed"
        text = self._templates[slot].render(tool=tool, count=count, arguments=self._preview(call))
        facts = Reminder(self.id, NAME, tool, count, slot, f"{tool} same result × {count}")
        return Effect((ContextEntry.of(facts, text),))

    def _chain(self, tool: str) -> int:
        """The digest of the tool's chain: its group's (the first it matches), else its own."""
        found = self._chains.get(tool)
        if found is None:
            group = next((index for index, match in enumerate(self._groups) if match(tool)), None)
            found = self._digest("tool", tool) if group is None else self._digest("group", str(group))
            if len(self._chains) >= _CACHE_LIMIT:
                self._chains.clear()
            self._chains[tool] = found
        return found

    def _preview(self, call: Call) -> str:
        canonical = call.canonical_arguments()  # the full arguments, whatever the key leaves out
        cap = self.settings.arguments_preview_chars
        if len(canonical) <= cap:
            return canonical
        return self._templates["truncated"].render(head=canonical[:cap], omitted=len(canonical) - cap)


_DEFAULTS = NoProgressSettings()
CONFIG_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "thresholds": thresholds_schema(_DEFAULTS.thresholds),
        "include": tool_patterns_schema("Tool-name patterns to track; empty: every tool."),
        "exclude": tool_patterns_schema("Tool-name patterns the chain ignores."),
        "groups": {
            "description": "Tools whose calls chain together (the first group a tool matches); every other tool "
                           "chains on its own.",
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["tools"],
                "properties": {
                    "tools": {
                        **tool_patterns_schema("Tool-name patterns of the group."),
                        "minItems": 1,
                        "x-toolguards-messages": {"minItems": "`tools` must name at least one tool pattern"},
                    },
                },
            },
            "default": [],
        },
        "argumentsPreviewChars": preview_chars_schema(_DEFAULTS.arguments_preview_chars),
        "ignoreArguments": ignore_arguments_schema(),
        "resultNormalizers": result_normalizers_schema(),
        "templates": templates_schema({slot: f"{NAME}/{slot}.j2" for slot in ("first", "detailed", "truncated")}),
    },
}


class NoProgressReminderKind(PlainKind):
    """The registry entry for no-progress-reminder."""

    name = NAME
    guard = NoProgressReminder
    config_schema = CONFIG_SCHEMA
    state: StateType[Any] = _RunState()
    slots: Mapping[str, TemplateSlot] = MappingProxyType(
        {
            "first": TemplateSlot(f"{NAME}/first.j2", _SAMPLE),
            "detailed": TemplateSlot(f"{NAME}/detailed.j2", _SAMPLE),
            "truncated": TemplateSlot(f"{NAME}/truncated.j2", {"head": '{"offset":20,"url":"http', "omitted": 23}),
        }
    )

    def parse(self, config: Mapping[str, Any]) -> NoProgressSettings:
        """Settings from a schema-valid config mapping."""
        return NoProgressSettings(
            thresholds=tuple(sorted(int(t) for t in config.get("thresholds", _DEFAULTS.thresholds))),
            include=tuple(config.get("include", ())),
            exclude=tuple(config.get("exclude", ())),
            groups=tuple(tuple(group["tools"]) for group in config.get("groups", ())),
            arguments_preview_chars=int(config.get("argumentsPreviewChars", _DEFAULTS.arguments_preview_chars)),
            ignore_arguments=ArgumentPaths(tuple(config.get("ignoreArguments", ()))),
            result_normalizers=normalizers_of(config.get("resultNormalizers", ())),
            templates=MappingProxyType(dict(config.get("templates", {}))),
        )

    def problems(self, settings: NoProgressSettings) -> Sequence[tuple[tuple[str | int, ...], str]]:
        """Every argument path and every normalizer's pattern must be valid."""
        return path_problems(settings.ignore_arguments) + normalizer_problems(settings.result_normalizers)


KIND = NoProgressReminderKind()
