"""A guard file compiled once: its normalized config and its template sources, cached as JSON, so that a process that
handles one event (a hook) builds the engine without ruamel.yaml, jsonschema, the entry-point scan or Jinja2.

``load()`` reads the YAML with positions, checks the schema, scans the ``toolguards.kinds`` entry points and compiles
and test-renders every template: the same work on every hook call. ``cached_engine()`` does it once, writes what came
out of it to ``<cache folder>/<key>.json`` and, on later calls, rebuilds the same engine from that file: each guard's
kind, id and schema-valid ``config`` (parsed again by its kind, which is cheap), the templates it uses by name, and
their sources, which Jinja2 compiles only when a reminder is rendered.

An entry is trusted only when all of this still holds; otherwise the file is compiled again and the entry rewritten:

- it was written by this toolguards version and this cache format, for the same file, display name and locale option,
  and its own checksum matches (a damaged entry is rebuilt, never read);
- the guard file's bytes, and those of every template file read (includes too), have the recorded digests;
- no template file has appeared where the search looks first (an earlier template folder, or the bare name a kind's
  folder was the fallback for), and the template folders still hold the same locales;
- every guard is of a built-in kind (a plugin kind's file is loaded in full on every call), and every template names
  the templates it includes literally.

The engine is built by ``toolguards.engine.build_engine``, which ``load()`` uses too, so that both give the same engine.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .. import __version__
from ..engine import Engine, FailureCallback, build_engine, outcome_callback
from ..values import frozen
from .reading import MAX_BYTES, MAX_TEMPLATE_BYTES, FileRefused, read_guard_file, read_small_file

try:  # as in toolguards.guard: blake2b without loading OpenSSL
    from _blake2 import blake2b
except ImportError:
    from hashlib import blake2b

if TYPE_CHECKING:
    from jinja2 import Environment, Template

    from ..outcomes.tracker import OutcomeCallback
    from ..stores import StoreFactory
    from .loader import CheckedFile

__all__ = ["FORMAT", "Following", "cached_engine", "compile_checked"]

#: The layout of a cache entry: raised whenever it changes, so that older entries are rebuilt.
FORMAT = 2
#: The largest cache entry read back (one holds a guard file and its templates' sources, each bounded).
_MAX_ENTRY_BYTES = 16 * 1024 * 1024


class _Sources:
    """A compiled file's template sources by name; Jinja2 is imported and compiles them on the first render only."""

    def __init__(self, sources: Mapping[str, str]) -> None:
        self._sources = dict(sources)
        self._env: Environment | None = None

    def template(self, name: str) -> Template:
        if self._env is None:
            from jinja2 import DictLoader  # noqa: PLC0415 - only when a reminder is rendered

            from .templates import sandbox  # noqa: PLC0415

            self._env = sandbox(DictLoader(self._sources))
        return self._env.get_template(name)


class _LazyTemplate:
    """Stands for a compiled Jinja2 template in a guard: the kinds only ever call ``render``."""

    __slots__ = ("_compiled", "_name", "_sources")

    def __init__(self, sources: _Sources, name: str) -> None:
        self._sources = sources
        self._name = name
        self._compiled: Template | None = None

    def render(self, *args: Any, **kwargs: Any) -> str:
        if self._compiled is None:
            self._compiled = self._sources.template(self._name)
        return self._compiled.render(*args, **kwargs)


def _digest(data: bytes) -> str:
    return blake2b(data, digest_size=32).hexdigest()


def _checksum(entry: Mapping[str, Any]) -> str:
    body = {key: value for key, value in entry.items() if key != "check"}
    return _digest(json.dumps(body, sort_keys=True, ensure_ascii=False, allow_nan=False).encode("utf-8"))


def _read(path: str, limit: int = MAX_BYTES) -> bytes:
    """A file the cache depends on, read as the loader reads it: never a named pipe or a huge file (OSError then)."""
    try:
        return read_small_file(path, limit)
    except FileRefused as refused:
        raise OSError(f"{path}: refused ({refused.kind or f'{refused.size} bytes'})") from None


def _locales(roots: Sequence[str]) -> list[str]:
    """The locale folders under the template roots, as ``templates.available_locales`` lists them."""
    found: set[str] = set()
    for root in roots:
        if os.path.isdir(root):
            found.update(entry.name for entry in os.scandir(root) if entry.is_dir())
    return sorted(found)


def _fresh(entry: Mapping[str, Any], key: Mapping[str, Any], raw: bytes) -> bool:
    """Whether the entry was made from exactly these files, by this version (see the module docstring)."""
    if entry.get("key") != key or entry.get("check") != _checksum(entry) or entry["digest"] != _digest(raw):
        return False
    for path, digest in entry["files"].items():
        try:
            if _digest(_read(path)) != digest:
                return False
        except OSError:
            return False
    if any(os.path.isfile(path) for path in entry["absent"]):
        return False
    roots = entry["roots"]
    if not all(os.path.isdir(root) and os.access(root, os.R_OK | os.X_OK) for root in roots[:-1]):
        return False
    return bool(_locales(roots) == entry["locales"])


@frozen
class Following:
    """What a hook or a service asks of outcomes beyond the guard file: a callback, an outcome log that replaces the
    file's own (``--outcome-log``), and the prefix of agent keys for the shadow split (a hook's
    ``<host>:<session>:``)."""

    on_outcome: OutcomeCallback | None = None
    log: str | None = None
    split_prefix: str = ""


_NOT_FOLLOWING = Following()


def _engine_of(
    entry: Mapping[str, Any], stores: StoreFactory, on_failure: FailureCallback | None, following: Following
) -> Engine:
    from ..kinds import BUILTIN_KINDS  # noqa: PLC0415 - the built-in kinds only: no entry-point scan

    sources = _Sources(entry["sources"])
    guards = []
    for guard in entry["guards"]:
        kind = BUILTIN_KINDS[guard["kind"]]
        slots = {key: cast("Template", _LazyTemplate(sources, name)) for key, name in guard["templates"].items()}
        guards.append((kind, guard["id"], kind.parse(guard["config"]), slots))
    log = following.log or entry["outcomeLog"]
    return build_engine(entry["source"], entry["locale"], guards, stores, on_failure,
                        shadow=[guard["shadow"] for guard in entry["guards"]],
                        on_outcome=outcome_callback(log, following.on_outcome), split_prefix=following.split_prefix)


def cached_engine(
    path: str | os.PathLike[str] | None,
    *,
    locale: str | None = None,
    cache_dir: str | os.PathLike[str],
    stores: StoreFactory,
    on_failure: FailureCallback | None = None,
    following: Following = _NOT_FOLLOWING,
) -> Engine:
    """The engine ``load(path, ...)`` gives (``load_default`` for None), from a fresh cache entry when there is one;
    ConfigError, as ``load`` raises it, for a file with problems (which is never cached)."""
    # The shipped file is named by this installation's folder, so that finding it needs no pathlib on a hit.
    named = {"default": os.path.dirname(__file__)} if path is None else {
        "file": os.path.realpath(path), "display": os.fspath(path)}
    key = {"format": FORMAT, "toolguards": __version__, **named, "option": locale}
    name = _digest(json.dumps(key, sort_keys=True).encode("utf-8"))[:32]
    entry_path = os.path.join(os.fspath(cache_dir), f"{name}.json")
    try:
        entry = json.loads(_read(entry_path, _MAX_ENTRY_BYTES))
        if isinstance(entry, dict) and _fresh(entry, key, _read(entry["file"])):
            return _engine_of(entry, stores, on_failure, following)
    except Exception:  # a missing, stale or damaged entry is rebuilt below, never trusted
        pass
    if path is None:
        from ..resources import default_guard_file  # noqa: PLC0415

        path = default_guard_file()
    return _rebuild(os.fspath(path), key, entry_path, locale, stores, on_failure, following)


def _rebuild(  # noqa: PLR0917 - private, called once
    display: str,
    key: Mapping[str, Any],
    entry_path: str,
    locale: str | None,
    stores: StoreFactory,
    on_failure: FailureCallback | None,
    following: Following,
) -> Engine:
    from .loader import check_bytes, engine_of  # noqa: PLC0415 - the full loader only on a miss

    raw = read_guard_file(display, display)  # raises the ConfigError load() raises
    real = os.path.realpath(display)
    checked = check_bytes(display, raw, os.path.dirname(real), locale)
    entry = compile_checked(checked, raw, key, real)
    if entry is None:
        if following.log is not None:  # the flag's log replaces the file's
            from dataclasses import replace  # noqa: PLC0415
            from pathlib import Path  # noqa: PLC0415

            checked = replace(checked, guard_file=replace(checked.guard_file, outcome_log=Path(following.log)))
        return engine_of(checked, stores=stores, on_failure=on_failure, on_outcome=following.on_outcome,
                         split_prefix=following.split_prefix)
    _write(entry_path, entry)
    return _engine_of(entry, stores, on_failure, following)


def _write(path: str, entry: Mapping[str, Any]) -> None:
    # Written aside, then renamed over: a concurrent reader sees the old entry or the new one, never half of one.
    # A folder we cannot write costs speed, not correctness, so a failure here is not reported.
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(entry, file, ensure_ascii=False, allow_nan=False)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def compile_checked(
    checked: CheckedFile, raw: bytes, cache_key: Mapping[str, Any], file: str
) -> dict[str, Any] | None:
    """The cache entry of a checked guard file (``raw`` its bytes, ``file`` its real path) under ``cache_key``;
    None when it cannot be cached."""
    from ..kinds import BUILTIN_KINDS  # noqa: PLC0415
    from ..resources import shipped_templates_dir  # noqa: PLC0415
    from .templates import sandbox  # noqa: PLC0415

    guard_file = checked.guard_file
    roots = [*(str(folder) for folder in guard_file.template_dirs), str(shipped_templates_dir())]
    # Every root's locale folder, existing or not: one that appears later is searched first and must be noticed.
    folders = [os.path.join(root, checked.templates.locale) for root in roots]
    found = _TemplateFiles(folders, sandbox)
    guards = []
    for spec, slots in zip(guard_file.guards, checked.slots, strict=True):
        kind = BUILTIN_KINDS.get(spec.kind)
        if kind is None:  # a plugin kind may change with its package: never cached
            return None
        configured = {use.key: use.name for use in kind.templates(spec.settings)}
        for key, template in slots.items():
            if template.name is None or not found.add(template.name):
                return None
            if configured[key] != template.name:  # found in the kind's folder: the bare name must stay missing
                found.absent.update(os.path.join(folder, *configured[key].split("/")) for folder in folders)
        guards.append({
            "id": spec.id,
            "kind": spec.kind,
            "config": checked.data["guards"][spec.index].get("config") or {},
            "templates": {key: template.name for key, template in slots.items()},
            "shadow": spec.shadow,
        })
    entry = {
        "key": dict(cache_key),
        "file": file,
        "digest": _digest(raw),
        "files": found.digests,
        "absent": sorted(found.absent),
        "roots": roots,
        "locales": _locales(roots),
        "source": guard_file.source,
        "locale": checked.templates.locale,
        "guards": guards,
        "outcomeLog": None if guard_file.outcome_log is None else str(guard_file.outcome_log),
        "sources": found.sources,
    }
    try:
        entry["check"] = _checksum(entry)
    except ValueError:  # a value JSON cannot hold exactly (NaN): load in full every time
        return None
    return entry


class _TemplateFiles:
    """The template files a compiled entry depends on, found as Jinja2's FileSystemLoader finds them."""

    def __init__(self, folders: Sequence[str], sandbox: Any) -> None:
        self.folders = folders
        self.sources: dict[str, str] = {}
        self.digests: dict[str, str] = {}
        self.absent: set[str] = set()
        from jinja2 import BaseLoader  # noqa: PLC0415

        self._env = sandbox(BaseLoader())

    def add(self, name: str) -> bool:
        """Record ``name`` and every template it includes; False when an include is not a literal name."""
        from jinja2 import TemplateNotFound, meta  # noqa: PLC0415
        from jinja2.loaders import split_template_path  # noqa: PLC0415

        if name in self.sources:
            return True
        try:
            pieces = split_template_path(name)
        except TemplateNotFound:  # a name that climbs out of its folder is never found, by either engine
            return True
        for folder in self.folders:
            path = os.path.join(folder, *pieces)
            if os.path.isfile(path):
                break
            self.absent.add(path)
        else:
            return True  # not found anywhere: rendering fails alike in both engines
        raw = _read(path, MAX_TEMPLATE_BYTES)
        with open(path, encoding="utf-8") as file:  # text mode, as FileSystemLoader reads it (universal newlines)
            self.sources[name] = file.read()
        self.digests[path] = _digest(raw)
        for included in meta.find_referenced_templates(self._env.parse(self.sources[name])):
            if included is None or not self.add(included):
                return False
        return True
