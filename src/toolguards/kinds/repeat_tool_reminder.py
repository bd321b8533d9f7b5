"""``repeat-tool-reminder``: remind an agent that repeats the exact same tool call.

Each agent's tracked calls form a chain keyed by (tool name, canonical arguments). A call identical to the agent's
previous tracked call adds one to the run's count; any other tracked call starts a new run at 1. When the count equals
a threshold the guard adds a reminder to the post-execute decision: the first threshold renders the short ``first``
template, every later one the ``detailed`` template, which quotes the canonical arguments cut to
``argumentsPreviewChars`` (the key always compares the full text). Past the highest threshold the chain is silent,
unless ``repeatEvery`` asks for more.

Volatile parts of a call can be left out of what is compared (docs/volatile.md): ``ignoreArguments`` drops argument
paths from the key before its canonical form is made, and ``resultNormalizers`` rewrite the result before
``resultAware`` compares it; without them every comparison is exact, as the reference's.

Untracked calls (see include/exclude) neither count nor reset a run; denied calls count like any other; a call with a
``call_id`` already seen for that agent (the last 64 ids are kept) is not counted again. A new user prompt resets the
agent's chain. Without ``block`` the guard never blocks and it never replaces a result.

Options (all optional, shown with their defaults, which are the reference's)::

    thresholds: [3, 5, 8]        # integers >= 2, no duplicates, not empty; normalized ascending
    include: []                  # tool-name patterns to track (`*` wildcard); empty: every tool
    exclude: []                  # tool-name patterns the chain ignores
    argumentsPreviewChars: 500   # integer >= 1: cap, in code points, on the arguments quoted by `detailed`
    repeatEvery: 5               # past the highest threshold, remind again every N calls (13, 18, …); default: silent
    resultAware: false           # true: a repeated call whose result differs from the previous one's starts a new
                                 # run (a call without a result never resets)
    ignoreArguments: []          # argument paths left out of the key (`task_progress`, `options.requestId`, `*` for
                                 # any key or item); the reminder still quotes the full arguments
    resultNormalizers: []        # with resultAware: [{pattern, replacement}] RE2 patterns replaced, in order, in
                                 # every string of the result before results compare
    block:                       # default: never block
      atCount: 12                # from this run length on, the decision is a block (reminders still ride along);
                                 # must be above the first threshold
      feedback: repeat-tool-reminder/block.j2   # the block's feedback (variables: tool, count, arguments)
    overrides:                   # per-tool settings, first match wins (patterns as include/exclude)
      - tools: [bash_output, "*_status"]
        thresholds: [10, 20]     # an override may set thresholds, repeatEvery, resultAware, block,
        resultAware: true        # argumentsPreviewChars, ignoreArguments, resultNormalizers; the rest comes from
                                 # the guard's own settings (an override's list replaces the guard's)
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
            - tools: [run_shell_command]
              resultAware: true
              ignoreArguments: [description]
              resultNormalizers:
                - pattern: 'Process Group PGID: \\d+'
                  replacement: 'Process Group PGID: <pgid>'

Invalid::

    guards:
      - id: repeat-tool-reminder
        config:
          thresholds: []
          argumentsPreviewChars: 0
      - id: strict
        kind: repeat-tool-reminder
        config:
          block: {atCount: 3}
      - id: shell
        kind: repeat-tool-reminder
        config:
          ignoreArguments: [options..id]
          overrides:
            - tools: [run_shell_command]
              resultNormalizers: [{pattern: '(\\d+'}]

Diagnostics (the file named ``g.yaml``)::

    g.yaml:4:19: guards[0].config.thresholds: `thresholds` must not be empty
    g.yaml:5:30: guards[0].config.argumentsPreviewChars: invalid argumentsPreviewChars 0 — must be an integer >= 1
    g.yaml:9:24: guards[1].config.block.atCount: invalid block.atCount 3 — must be above the first threshold (3)
    g.yaml:13:25: guards[2].config.ignoreArguments[0]: invalid path `options..id`: empty segment at character 9
    g.yaml:16:41: guards[2].config.overrides[0].resultNormalizers[0].pattern: not an RE2 pattern: missing ): (\\d+

The preview is cut at a code point, never inside one; the reference counts UTF-16 units, so the two cuts differ only
for arguments with characters above U+FFFF (emoji, rare CJK).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from ..events import ContextEntry, Reminder
from ..guard import (
    CALL_ID_WINDOW,
    Call,
    CallIds,
    ChainGuard,
    Effect,
    TemplateSlot,
    TemplateUse,
    call_ids_from_json,
    configured_templates,
)
from ..patterns import ToolFilter
from ..stores.base import StateStore, StateType
from ..values import field, field_names, frozen, replace
from ..volatile import (
    NO_NORMALIZERS,
    NO_PATHS,
    ArgumentPaths,
    KeyOf,
    Normalizers,
    ResultOf,
    key_of,
    normalizers_of,
    result_of,
)
from .fragments import (
    ignore_arguments_schema,
    normalizer_problems,
    path_problems,
    preview_chars_schema,
    result_normalizers_schema,
    template_name_schema,
    templates_schema,
    thresholds_schema,
    tool_patterns_schema,
)

if TYPE_CHECKING:
    from jinja2 import Template  # guards only render templates: Jinja2 is imported where one is compiled

__all__ = [
    "CALL_ID_WINDOW",
    "KIND",
    "Block",
    "Override",
    "RepeatReminder",
    "RepeatSettings",
    "RepeatToolReminder",
    "Rules",
    "Run",
    "TrackedRun",
]

NAME = "repeat-tool-reminder"
_SAMPLE = {"tool": "grep", "count": 5, "arguments": '{"path":"src","pattern":"TODO"}'}
# Bounds the per-tool cache of rules; distinct tool names are few.
_CACHE_LIMIT = 4096


@frozen
class Block:
    """Block from ``at_count`` on, with ``feedback`` rendered from this template."""

    at_count: int
    feedback: str = f"{NAME}/block.j2"


@frozen
class Rules:
    """The settings that decide when a run reminds or blocks (the part an override may change)."""

    thresholds: tuple[int, ...] = (3, 5, 8)
    repeat_every: int | None = None
    result_aware: bool = False
    block: Block | None = None
    arguments_preview_chars: int = 500
    #: argument paths left out of the key (``ignoreArguments``)
    ignore_arguments: ArgumentPaths = NO_PATHS
    #: applied to results before ``resultAware`` compares them (``resultNormalizers``)
    result_normalizers: Normalizers = NO_NORMALIZERS

    def fires(self, count: int) -> bool:
        """Whether a run of this length draws a reminder."""
        if count in self.thresholds:
            return True
        last = self.thresholds[-1]
        return self.repeat_every is not None and count > last and (count - last) % self.repeat_every == 0


@frozen
class Override:
    """Rules for the tools matching ``tools``."""

    tools: tuple[str, ...]
    rules: Rules


@frozen
class RepeatSettings(Rules):
    """The validated options of one repeat-tool-reminder guard, defaults applied."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    overrides: tuple[Override, ...] = ()
    templates: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@frozen
class RepeatReminder(Reminder):
    """A repeat-tool-reminder's facts; ``blocked`` when the same call's decision became a block."""

    blocked: bool = False

    def metadata(self) -> dict[str, Any]:
        """The common facts, and ``blocked: true`` on a blocked call."""
        found = super().metadata()
        if self.blocked:
            found["blocked"] = True
        return found


#: An agent's chain while its calls carry no call id and no result is compared, as most do: (digest of the last
#: tracked call's key, its run length). A plain tuple rather than a NamedTuple, on purpose: an instance of a tuple
#: subclass costs 8 bytes more, and this is the state of nearly every tracked agent (the memory target is 256 bytes
#: per agent). It is told apart from ``TrackedRun`` by its type, never by its length.
Run = tuple[int, int]


class TrackedRun(NamedTuple):
    """An agent's chain with the recent call ids, and the digest of the last result where ``resultAware`` compares
    results."""

    digest: int
    length: int
    call_ids: CallIds
    result: int | None


_State = Run | TrackedRun
_new = tuple.__new__  # builds a TrackedRun in one C call, without its generated __new__

class _RunState:
    """The persisted form of the chain: ``{"digest", "count"}``, plus ``callIds`` and ``result`` when tracked."""

    name = NAME
    version = 1

    def to_json(self, state: _State) -> dict[str, Any]:
        if isinstance(state, TrackedRun):
            ids = None if state.call_ids is None else list(state.call_ids)
            return {"digest": state.digest, "count": state.length, "callIds": ids, "result": state.result}
        digest, length = state
        return {"digest": digest, "count": length}

    def from_json(self, data: Any) -> _State:
        if not isinstance(data, dict) or not set(data) <= {"digest", "count", "callIds", "result"}:
            raise ValueError("not a repeat-tool-reminder state")
        digest, count, result = data["digest"], data["count"], data.get("result")
        if not (_is_int(digest) and _is_int(count) and count >= 1 and (result is None or _is_int(result))):
            raise ValueError("a repeat-tool-reminder state needs integers `digest` and `count`")
        if "callIds" not in data and "result" not in data:
            return (digest, count)
        return TrackedRun(digest, count, call_ids_from_json(data.get("callIds")), result)


def _is_int(value: Any) -> bool:
    return type(value) is int


def _advance(
    digest: int, call_id: str | None, result: int | None, state: _State | None
) -> tuple[_State | None, int | None]:
    """The chain step: the new state and the run length of this call (None: a repeated delivery, not counted). The
    state comes last, so that the store's step is a ``partial`` of the call's facts (cheaper than a closure)."""
    ids: CallIds = None
    last_result: int | None = None
    if state is None:
        same, count = False, 0
    else:
        if isinstance(state, TrackedRun):
            last, count, ids, last_result = state
            if call_id is not None and ids is not None and call_id in ids:  # seen_call_id, inlined: every call
                return state, None
        else:
            last, count = state
        same = last == digest
        if same and result is not None and last_result is not None and result != last_result:
            same = False  # resultAware: the same call got a different answer, so it is making progress
    count = count + 1 if same else 1
    kept = result if result is not None else (last_result if same else None)
    if call_id is not None:  # remember_call_id, inlined
        ids = ids[1 - CALL_ID_WINDOW :] + (call_id,) if ids else (call_id,)  # noqa: RUF005 - as remember_call_id
    if ids is None and kept is None:
        return (digest, count), count
    return _new(TrackedRun, (digest, count, ids, kept)), count


class RepeatToolReminder(ChainGuard):
    """One configured repeat-tool-reminder guard."""

    settings: RepeatSettings

    def __init__(
        self, guard_id: str, settings: RepeatSettings, templates: Mapping[str, Template], store: StateStore
    ) -> None:
        super().__init__(guard_id, settings, templates, store)
        self._overrides = [
            (ToolFilter(o.tools, ()), _plan(o.rules, f"overrides[{i}]."))
            for i, o in enumerate(settings.overrides)
        ]
        self._rules_cache: dict[str, _Plan] = {}
        self._plain = _plan(settings, "")  # the rules of every tool when there are no overrides

    def compares(self, tool: str) -> tuple[Rules, KeyOf, ResultOf]:
        """The rules for ``tool``, and how the guard keys its calls and reads their results (replay's report
        follows the chains with these)."""
        rules, _, key, result, _ = self._rules(tool) if self._overrides else self._plain
        return rules, key, result

    def _rules(self, tool: str) -> _Plan:
        """The rules for ``tool``, its block template's key prefix, its comparisons and the run length below which it
        is silent: the first matching override's, else the guard's."""
        found = self._rules_cache.get(tool)
        if found is None:
            matches = (plan for match, plan in self._overrides if match(tool))
            found = next(matches, self._plain)
            if len(self._rules_cache) >= _CACHE_LIMIT:
                self._rules_cache.clear()
            self._rules_cache[tool] = found
        return found

    def tracks(self, tool: str) -> bool:
        """Whether the chain counts calls of ``tool`` (its include/exclude patterns)."""
        return self._tracked(tool)

    def observe(self, call: Call) -> Effect | None:
        """Count the call; a reminder when its run length is a threshold, a block from ``block.atCount`` on."""
        tool = call.tool
        if not self._tracked(tool):
            return None
        rules, prefix, key_of_call, result_of_call, quiet = self._rules(tool) if self._overrides else self._plain
        key = key_of_call(call)
        digest = self._key_digest(key)
        result = result_of_call(call) if rules.result_aware else None
        result_digest = None if result is None else self._digest(result)
        count = self._store.update(call.agent, partial(_advance, digest, call.event.call_id, result_digest))
        if count is None or count < quiet:  # most calls: a run too short to remind or block
            return None
        fires = rules.fires(count)
        blocks = rules.block is not None and count >= rules.block.at_count
        if not blocks and not fires:
            return None
        variables = {"tool": tool, "count": count, "arguments": self._preview(call.canonical_arguments(), rules)}
        contexts: tuple[ContextEntry, ...] = ()
        if fires:
            slot = "first" if count == rules.thresholds[0] else "detailed"
            facts = RepeatReminder(self.id, NAME, tool, count, slot, f"{tool} × {count}", blocked=blocks)
            contexts = (ContextEntry.of(facts, self._templates[slot].render(variables)),)
        feedback = self._templates[f"{prefix}block"].render(variables) if blocks else None
        return Effect(contexts, feedback)

    def _preview(self, canonical: str, rules: Rules) -> str:
        cap = rules.arguments_preview_chars
        if len(canonical) <= cap:
            return canonical
        return self._templates["truncated"].render(head=canonical[:cap], omitted=len(canonical) - cap)


#: What the guard uses for one tool: its rules, its block template's key prefix, how it keys calls and reads results,
#: and the shortest run that may remind or block.
_Plan = tuple[Rules, str, KeyOf, ResultOf, int]


def _plan(rules: Rules, prefix: str) -> _Plan:
    return rules, prefix, key_of(rules.ignore_arguments), result_of(rules.result_normalizers), _quiet_below(rules)


def _quiet_below(rules: Rules) -> int:
    """The shortest run that may remind or block (a block starts above the first threshold, which the kind checks;
    the smaller of the two all the same)."""
    return min(rules.thresholds[0], rules.block.at_count) if rules.block is not None else rules.thresholds[0]


def _rules(config: Mapping[str, Any], base: Rules) -> Rules:
    block = config.get("block")
    paths = config.get("ignoreArguments")
    normalizers = config.get("resultNormalizers")
    return replace(
        base,
        thresholds=tuple(sorted(int(t) for t in config["thresholds"])) if "thresholds" in config else base.thresholds,
        repeat_every=int(config["repeatEvery"]) if "repeatEvery" in config else base.repeat_every,
        result_aware=bool(config.get("resultAware", base.result_aware)),
        block=Block(int(block["atCount"]), block.get("feedback", Block.feedback)) if block else base.block,
        arguments_preview_chars=int(config.get("argumentsPreviewChars", base.arguments_preview_chars)),
        ignore_arguments=base.ignore_arguments if paths is None else ArgumentPaths(tuple(paths)),
        result_normalizers=base.result_normalizers if normalizers is None else normalizers_of(normalizers),
    )


_DEFAULTS = RepeatSettings()
_RULES: dict[str, Any] = {
    "thresholds": thresholds_schema(_DEFAULTS.thresholds),
    "repeatEvery": {
        "description": "Past the highest threshold, remind again every N calls (with the detailed template); "
                       "default: silent.",
        "type": "integer",
        "minimum": 2,
        "x-toolguards-message": "invalid repeatEvery {value} — must be an integer >= 2",
    },
    "resultAware": {
        "description": "A repeated call whose result differs from the previous one's starts a new run.",
        "type": "boolean",
        "default": _DEFAULTS.result_aware,
    },
    "block": {
        "description": "From this count on, the decision becomes a block (any reminder still rides along); "
                       "default: never.",
        "type": "object",
        "additionalProperties": False,
        "required": ["atCount"],
        "properties": {
            "atCount": {
                "type": "integer",
                "minimum": 3,
                "x-toolguards-message": "invalid block.atCount {value} — must be an integer above the first threshold",
            },
            "feedback": template_name_schema(Block.feedback),
        },
    },
    "argumentsPreviewChars": preview_chars_schema(_DEFAULTS.arguments_preview_chars),
    "ignoreArguments": ignore_arguments_schema(),
    "resultNormalizers": result_normalizers_schema("result (with resultAware)"),
}
#: The rules an override may set, in the schema's order.
_OVERRIDABLE = ("thresholds", "repeatEvery", "resultAware", "block", "argumentsPreviewChars", "ignoreArguments",
                "resultNormalizers")
CONFIG_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "thresholds": _RULES["thresholds"],
        "include": tool_patterns_schema("Tool-name patterns to track; empty: every tool."),
        "exclude": tool_patterns_schema("Tool-name patterns the chain ignores."),
        "argumentsPreviewChars": _RULES["argumentsPreviewChars"],
        "repeatEvery": _RULES["repeatEvery"],
        "resultAware": _RULES["resultAware"],
        "block": _RULES["block"],
        "ignoreArguments": _RULES["ignoreArguments"],
        "resultNormalizers": _RULES["resultNormalizers"],
        "overrides": {
            "type": "array",
            "items": {
                "description": "Settings for the tools that match `tools`; the first matching override wins.",
                "type": "object",
                "additionalProperties": False,
                "required": ["tools"],
                "properties": {
                    "tools": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "string"},
                        "x-toolguards-messages": {"minItems": "`tools` must name at least one tool pattern"},
                    },
                    **{key: _RULES[key] for key in _OVERRIDABLE},
                },
            },
        },
        "templates": templates_schema({slot: f"{NAME}/{slot}.j2" for slot in ("first", "detailed", "truncated")}),
    },
}


class RepeatToolReminderKind:
    """The registry entry for repeat-tool-reminder."""

    name = NAME
    config_schema = CONFIG_SCHEMA
    state: StateType[Any] = _RunState()
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
            **{name: getattr(rules, name) for name in field_names(Rules)},
            include=tuple(config.get("include", ())),
            exclude=tuple(config.get("exclude", ())),
            overrides=tuple(Override(tuple(o["tools"]), _rules(o, rules)) for o in config.get("overrides", ())),
            templates=MappingProxyType(dict(config.get("templates", {}))),
        )

    def problems(self, settings: RepeatSettings) -> Sequence[tuple[tuple[str | int, ...], str]]:
        """A block must start above the first threshold, and every argument path and normalizer pattern must be
        valid, in the guard and in each override (an override's own lists only: the guard's are checked once)."""
        found: list[tuple[tuple[str | int, ...], str]] = []
        for path, rules in [((), settings), *((("overrides", i), o.rules) for i, o in enumerate(settings.overrides))]:
            if rules.block is not None and rules.block.at_count <= rules.thresholds[0]:
                message = (
                    f"invalid block.atCount {rules.block.at_count} — must be above the first threshold "
                    f"({rules.thresholds[0]})"
                )
                found.append(((*path, "block", "atCount"), message))
            # An override that does not set a list shares the guard's, whose problems are reported once.
            if not path or rules.ignore_arguments is not settings.ignore_arguments:
                found += path_problems(rules.ignore_arguments, path)
            if not path or rules.result_normalizers is not settings.result_normalizers:
                found += normalizer_problems(rules.result_normalizers, path)
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
