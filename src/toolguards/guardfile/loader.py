"""Guard file → engine: read, parse with positions, check the schema, freeze, check what a schema cannot, build.

Every problem of a file is collected before anything is reported, and a file with any problem never yields an engine:
nothing falls back to defaults in silence.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jinja2 import Template

from ..engine import Engine, FailureCallback, build_engine, outcome_callback
from ..guard import GuardKind
from ..kinds import registry
from ..resources import default_guard_file, shipped_templates_dir
from ..stores import MemoryStore, StoreFactory, open_stores
from .check import schema_diagnostics
from .config import DEFAULT_LOCALE, GuardFile, build_guard_file
from .diagnostics import ConfigError, Diagnostic, format_json_path
from .document import JsonPath, PositionedDocument, parse_document
from .reading import read_guard_file
from .templates import Templates, available_locales, resolve_locale

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..outcomes.tracker import OutcomeCallback

__all__ = [
    "CheckedFile",
    "StoreFactory",
    "check_bytes",
    "check_file",
    "engine_of",
    "from_mapping",
    "load",
    "load_default",
]

MAPPING_SOURCE = "<mapping>"
#: What ``outcomes.tracker.pending_store_id`` adds to a guard id (a guard of that id would share its rows).
OUTCOMES_SUFFIX = "#outcomes"

#: Where each guard keeps its chains: a factory (guard id → store), or a store URL (``memory``, ``sqlite:///PATH``...).
Stores = StoreFactory | str


def load(
    path: str | os.PathLike[str],
    *,
    locale: str | None = None,
    stores: Stores | None = None,
    on_failure: FailureCallback | None = None,
    on_outcome: OutcomeCallback | None = None,
) -> Engine:
    """The engine for a guard file; raises ConfigError listing every problem of the file.

    ``stores`` chooses where chains live (default: memory); ``on_failure(guard_id, what, exc)`` is called whenever a
    guard fails and is skipped (guard_id None for the engine itself), beside the one log line per kind of failure;
    ``on_outcome(outcome)`` is called with each reminder's resolved outcome (``toolguards.outcomes``), beside the
    file's own outcome log.
    """
    display = os.fspath(path)
    return engine_of(check_bytes(display, read_guard_file(display, path), Path(path).resolve().parent, locale),
                     stores=stores, on_failure=on_failure, on_outcome=on_outcome)


def load_default(
    *,
    locale: str | None = None,
    stores: Stores | None = None,
    on_failure: FailureCallback | None = None,
    on_outcome: OutcomeCallback | None = None,
) -> Engine:
    """The engine for the shipped guards/repeat-tool-reminder.yaml."""
    return load(default_guard_file(), locale=locale, stores=stores, on_failure=on_failure, on_outcome=on_outcome)


def from_mapping(
    data: Mapping[str, Any],
    *,
    locale: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    stores: Stores | None = None,
    on_failure: FailureCallback | None = None,
    on_outcome: OutcomeCallback | None = None,
) -> Engine:
    """The engine for a config built in code; same checks as a file, located by JSON path instead of line."""
    try:
        plain = _plain(data)
    except RecursionError:
        problem = Diagnostic(MAPPING_SOURCE, None, None, "the mapping nests too deeply, or holds itself")
        raise ConfigError([problem]) from None
    document = PositionedDocument(plain)
    checked = _check(MAPPING_SOURCE, Path(base_dir) if base_dir is not None else None, document, locale)
    return engine_of(checked, stores=stores, on_failure=on_failure, on_outcome=on_outcome)


def check_file(path: str | os.PathLike[str], *, locale: str | None = None) -> list[Diagnostic]:
    """Every problem of a guard file (empty when it is valid)."""
    try:
        load(path, locale=locale)
    except ConfigError as error:
        return list(error.diagnostics)
    return []


def _plain(value: Any) -> Any:
    # Hosts may pass tuples or other mappings; the schema check expects JSON's shapes.
    if isinstance(value, Mapping):
        return {key if isinstance(key, str) else str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


@dataclass(frozen=True)
class CheckedFile:
    """A guard file that passed every check, before its guards are built (what ``guardfile.compiled`` caches)."""

    guard_file: GuardFile
    #: the plain data of the file (JSON's shapes)
    data: Any
    templates: Templates
    #: each guard's templates by TemplateUse key, in the order of ``guard_file.guards``
    slots: tuple[dict[str, Template], ...]


def check_bytes(
    display: str, raw: bytes, base_dir: str | os.PathLike[str], locale: str | None = None
) -> CheckedFile:
    """Check a guard file's bytes (named ``display`` in diagnostics, its relative template folders under
    ``base_dir``); ConfigError listing every problem."""
    return _check(display, Path(base_dir), parse_document(display, raw), locale)


def engine_of(
    checked: CheckedFile,
    *,
    stores: Stores | None = None,
    on_failure: FailureCallback | None = None,
    on_outcome: OutcomeCallback | None = None,
    split_prefix: str = "",
) -> Engine:
    """The engine of a checked file, as ``load`` builds it."""
    kinds = registry()
    guard_file = checked.guard_file
    guards = [(kinds[spec.kind], spec.id, spec.settings, slots)
              for spec, slots in zip(guard_file.guards, checked.slots, strict=True)]
    return build_engine(guard_file.source, checked.templates.locale, guards, _store_factory(stores), on_failure,
                        shadow=[spec.shadow for spec in guard_file.guards],
                        on_outcome=outcome_callback(guard_file.outcome_log, on_outcome), split_prefix=split_prefix)


def _check(display: str, base_dir: Path | None, document: PositionedDocument, locale: str | None) -> CheckedFile:
    kinds = registry()
    # A value the reader already rejected (an unsupported tag, say) is not reported a second time by the schema.
    checked = schema_diagnostics(display, document, kinds)
    found = [(path, diagnostic) for path, diagnostic in checked if path not in document.rejected]
    problems = [*(d for _, d in document.problems), *(d for _, d in found), *_duplicate_ids(display, document)]
    bad = {path for path, _ in found} | {path for path, _ in document.problems}
    if () in bad or ("guards",) in bad:
        raise ConfigError(problems)
    # Check the templates of every guard the schema accepted, even when other parts of the file have problems, and
    # the options of a guard against each other, even when some of its other options have problems.
    bad_guards = {path[1] for path in bad if path[:1] == ("guards",) and len(path) > 1 and isinstance(path[1], int)}
    data, mended = _without_bad_options(display, document.data if not bad else _top_valid(document.data, bad), bad,
                                        bad_guards, kinds)
    valid = set(range(len(document.data["guards"]))) - bad_guards | mended
    guard_file = build_guard_file(display, base_dir, data, kinds, valid)
    templates, more = _templates(guard_file, document, locale)
    compiled: list[dict[str, Template]] = []
    if templates is not None:
        for spec in guard_file.guards:
            slots, found_here = _guard_templates(guard_file, document, templates, kinds[spec.kind], spec.settings,
                                                 spec.index)
            compiled.append(slots)
            more += found_here
    problems += more
    if problems or templates is None:
        raise ConfigError(problems)
    return CheckedFile(guard_file, document.data, templates, tuple(compiled))


def _store_factory(stores: Stores | None) -> StoreFactory:
    if stores is None:
        return lambda _guard_id: MemoryStore()
    return open_stores(stores) if isinstance(stores, str) else stores


def _top_valid(data: dict[str, Any], bad: set[JsonPath]) -> dict[str, Any]:
    """The top-level keys without schema problems (invalid locale or templateDirs are left to their defaults here,
    only so that the rest can still be checked: the file is rejected anyway)."""
    return {key: value for key, value in data.items() if not any(path[:1] == (key,) for path in bad) or key == "guards"}


def _without_bad_options(
    display: str, data: dict[str, Any], bad: set[JsonPath], bad_guards: set[int], kinds: Mapping[str, GuardKind]
) -> tuple[dict[str, Any], set[int]]:
    """The data with the options that have schema problems left out of each guard whose problems are all in its
    options, and the guards that this leaves valid: their other options can still be checked against each other and
    against their templates. (The file is rejected anyway; a left-out option's default stands in for it.)"""
    guards = list(data["guards"])
    mended = set()
    for index in bad_guards:
        paths = [path for path in bad if path[:2] == ("guards", index)]
        if not all(len(path) > 3 and path[2] == "config" for path in paths):
            continue  # the guard itself is wrong (its id, its kind, a config that is not a mapping)
        left_out = {path[3] for path in paths}
        entry = guards[index]
        guards[index] = {**entry, "config": {k: v for k, v in entry["config"].items() if k not in left_out}}
        mended.add(index)
    if not mended:
        return data, mended
    mended_data = {**data, "guards": guards}
    still_bad = {path[1] for path, _ in schema_diagnostics(display, PositionedDocument(mended_data), kinds)
                 if path[:1] == ("guards",) and len(path) > 1 and isinstance(path[1], int)}
    return mended_data, mended - still_bad


def _problem(display: str, document: PositionedDocument, path: JsonPath, message: str) -> Diagnostic:
    where = document.value_position(path)
    return Diagnostic(
        display, where.line if where else None, where.column if where else None,
        f"{format_json_path(path)}: {message}",
    )


def _duplicate_ids(display: str, document: PositionedDocument) -> list[Diagnostic]:
    guards = document.data.get("guards") if isinstance(document.data, dict) else None
    if not isinstance(guards, list):
        return []
    first_index: dict[str, int] = {}
    problems = []
    for index, entry in enumerate(guards):
        guard_id = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(guard_id, str):
            continue
        if guard_id in first_index:
            message = f"duplicate guard id `{guard_id}` (also guards[{first_index[guard_id]}].id)"
            problems.append(_problem(display, document, ("guards", index, "id"), message))
        else:
            first_index[guard_id] = index
    for guard_id, index in first_index.items():
        owner = first_index.get(guard_id.removesuffix(OUTCOMES_SUFFIX)) if guard_id.endswith(OUTCOMES_SUFFIX) else None
        if owner is not None:
            message = (f"guard id `{guard_id}` is taken: the reminders of guards[{owner}] wait for their outcomes "
                       "under it (choose another id)")
            problems.append(_problem(display, document, ("guards", index, "id"), message))
    return problems


def _folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot hold templates (None: it can). A name too long for the system, or a folder that cannot
    be read, is a problem of the file like a missing folder, not an OSError for the caller."""
    try:
        if not folder.is_dir():
            return "does not exist"
    except (OSError, ValueError) as exc:
        return f"cannot be used: {getattr(exc, 'strerror', None) or exc}"
    if not os.access(folder, os.R_OK | os.X_OK):
        return "cannot be read"
    return None


def _templates(
    guard_file: GuardFile, document: PositionedDocument, requested: str | None
) -> tuple[Templates | None, list[Diagnostic]]:
    display = guard_file.source
    problems = []
    usable = []
    for index, folder in enumerate(guard_file.template_dirs):
        why = _folder_problem(folder)
        if why is None:
            usable.append(folder)
        else:
            path: JsonPath = ("templateDirs", index)
            problems.append(_problem(display, document, path, f"template folder `{folder}` {why}"))
    roots = [*usable, shipped_templates_dir()]  # a folder with a problem is reported above, never searched
    available = available_locales(roots)
    wanted = requested or guard_file.locale or DEFAULT_LOCALE
    locale = resolve_locale(wanted, available)
    if locale is None:
        choices = ", ".join(available) or "none"
        message = f"locale `{wanted}` has no templates (available: {choices})"
        if requested is None and guard_file.locale is not None:
            problems.append(_problem(display, document, ("locale",), message))
        else:
            problems.append(Diagnostic(display, None, None, message))
        return None, problems
    return Templates(roots, locale), problems


def _guard_templates(  # noqa: PLR0917 - private helper, called once
    guard_file: GuardFile,
    document: PositionedDocument,
    templates: Templates,
    kind: GuardKind,
    settings: Any,
    index: int,
) -> tuple[dict[str, Template], list[Diagnostic]]:
    """Every template the guard renders, loaded and checked; and the kind's own cross-option problems."""
    display = guard_file.source
    config: JsonPath = ("guards", index, "config")
    problems = [_problem(display, document, (*config, *path), message) for path, message in kind.problems(settings)]
    compiled: dict[str, Template] = {}
    for use in kind.templates(settings):
        sample = kind.slots[use.slot].sample
        loaded = templates.load(use.name, sample)
        if not isinstance(loaded, Template) and loaded.file is None and "/" not in use.name:
            # A bare file name also resolves in the kind's own folder (`block.j2` → `<kind>/block.j2`).
            fallback = templates.load(f"{kind.name}/{use.name}", sample)
            if isinstance(fallback, Template) or fallback.file is not None:
                loaded = fallback
            else:
                loaded = replace(loaded, message=f"{loaded.message}; nor as `{kind.name}/{use.name}`")
        if isinstance(loaded, Template):
            compiled[use.key] = loaded
            continue
        path = (*config, *use.configured_at) if use.configured_at is not None else ("guards", index, "id")
        if loaded.file is None:
            problems.append(_problem(display, document, path, loaded.message))
        else:
            used_by = f"the `{use.key}` template of guards[{index}] in {display}"
            where = (loaded.line or 1, loaded.column or 1)
            problems.append(Diagnostic(loaded.file, *where, f"{loaded.message} ({used_by})"))
    return compiled, problems
