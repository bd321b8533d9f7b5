"""``toolguards hook install|uninstall HOST``: write or remove the hook's registration in the host's own config file.

::

    toolguards hook install HOST [--scope project|user | --settings PATH] [--config PATH] [--dry-run]
                                 [--http URL [--token-env VAR]] [--trust]
    toolguards hook uninstall HOST [--scope project|user | --settings PATH] [--dry-run] [--http URL]

``commands.hook`` reads the command line into a ``Registration``; ``run`` does it. The file is the host module's
``CONFIG_FILE`` under the current folder (``--scope project``, the default) or the home folder (``--scope user``; the
host's ``USER_FOLDER_ENV``, such as ``CODEX_HOME`` or ``CLAUDE_CONFIG_DIR``, stands for the file's first folder where
it is set), or ``--settings PATH``. Install merges the host's entries (``register``) into its ``hooks``:

- an event the installed host does not accept (``SINCE``, asked of ``PROGRAM --version`` by
  ``toolguards.hooks.versions``) is left out, and an entry of ours an earlier install made for it is taken out; the
  summary line says which and why;
- the registered command is the absolute path of this installation's ``toolguards`` (``--config PATH``, the guard file,
  adds ``--config <its absolute path>``, after checking the file; without it, a host with a shipped guard file of its
  own, the module's ``GUARD_FILE``, gets that one: ``gemini``'s reminds below Gemini CLI's own loop detection), so it
  runs from any folder and any virtualenv; for ``claude``, ``--http URL`` registers ``{"type": "http", "url": URL}``
  handlers (``toolguards serve``) instead, and ``--token-env VAR`` adds the bearer token a served ``--token-file`` asks
  for, read by Claude Code from the environment variable ``VAR`` (``"headers": {"Authorization": "Bearer ${VAR}"},
  "allowedEnvVars": [VAR]``: the token itself is never written into the file); for the hosts with command hooks
  only, ``--http URL`` registers a ``curl`` command that posts the event to URL and starts no Python
  (``toolguards.hooks.curl``; ``--token-env VAR`` sends ``$VAR`` as the token there too);
- an entry that already runs ``toolguards hook HOST`` (any path to it, or ``python -m toolguards``) or such a curl
  command for HOST — or, with ``--http``, posts to that URL — is updated where it stands, so running install twice
  leaves one entry; every other hook and setting is kept, in its order;
- the file is read as strict JSON: a file that is not valid JSON (comments included), that repeats a key, or whose
  ``hooks`` has an unexpected shape is refused with a message and left untouched. An empty or missing file is a new one;
- the previous file is kept as ``<file>.toolguards.bak``; the new one is written aside and renamed over it, with the
  old file's permissions and its indentation;
- ``--dry-run`` prints the resulting file on stdout and writes nothing;
- for a host with steps of its own (``HOST_STEPS``), install says in one line each what the host still needs before
  it runs the hooks: for ``codex`` (``toolguards.hooks.codex_install``), their review, which ``--trust`` records as the
  host does, and the project's trust; for ``gemini`` (``toolguards.hooks.gemini_install``), the folder's trust and
  hooks switched off.

Uninstall removes only our entries (and the matcher groups and event lists that held nothing else), and the trust
install recorded for them. Exit codes: 0 done (or nothing to do), 1 refused, 2 a usage error. A summary line goes to
stderr, then one line per note.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from . import curl, host, versions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .protocol import Host

__all__ = [
    "BACKUP_SUFFIX",
    "ENV_NAME",
    "HOST_STEPS",
    "HostSteps",
    "InstallError",
    "Registration",
    "config_path",
    "indent_of",
    "installed_command",
    "merge",
    "ours",
    "read_document",
    "run",
    "trusts",
    "unmerge",
    "write_document",
]

BACKUP_SUFFIX = ".toolguards.bak"

#: What Claude Code takes as an environment variable's name in a header (``$VAR`` or ``${VAR}``).
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SCRIPT_NAMES = ("toolguards", "toolguards.exe")


#: Hosts with steps of their own around install (their trust, their settings): the module of those steps.
HOST_STEPS: Mapping[str, str] = MappingProxyType({
    "codex": "toolguards.hooks.codex_install",
    "gemini": "toolguards.hooks.gemini_install",
})


class HostSteps(Protocol):
    """What install and uninstall do about a host's trust and settings, after merging its hooks file; each returns
    the lines to print, and raises InstallError before writing anything it refuses."""

    #: whether ``--trust`` means something for this host (it runs a hook only once it is reviewed)
    TRUST: bool

    def installed(self, hooks_file: str, document: Mapping[str, Any], trust: bool, dry_run: bool) -> list[str]: ...

    def uninstalled(self, hooks_file: str, before: Mapping[str, Any], after: Mapping[str, Any],
                    dry_run: bool) -> list[str]: ...


class InstallError(Exception):
    """A file or setting install refuses to touch; the message names it."""


def installed_command() -> str:
    """The absolute path of this installation's ``toolguards`` command; InstallError where there is none."""
    candidates = []
    if os.path.basename(sys.argv[0]) in _SCRIPT_NAMES:
        candidates.append(sys.argv[0])
    for folder in dict.fromkeys((sysconfig.get_path("scripts"), os.path.dirname(sys.executable))):
        candidates += [os.path.join(folder, name) for name in _SCRIPT_NAMES]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    raise InstallError(f"cannot find the installed `toolguards` command (looked for {', '.join(candidates)})")


def _quote(path: str) -> str:
    return shlex.quote(path) if os.name != "nt" else (f'"{path}"' if " " in path else path)


def ours(handler: Any, host_name: str, url: str | None = None) -> bool:
    """Whether a handler runs ``toolguards hook HOST`` (or, given ``url``, is an http hook posting to it)."""
    if not isinstance(handler, dict):
        return False
    if url is not None and handler.get("type") == "http" and handler.get("url") == url:
        return True
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    if curl.is_curl_hook(command, host_name):
        return True
    try:
        words = shlex.split(command, posix=os.name != "nt")
    except ValueError:
        return False
    for index, word in enumerate(words):
        program = os.path.basename(word.strip('"'))
        if (index == 0 and program in _SCRIPT_NAMES) or (index > 0 and program == "toolguards"
                                                         and words[index - 1] == "-m"):
            return words[index + 1 : index + 3] == ["hook", host_name]
    return False


def _handlers(entry: Any) -> list[Any] | None:
    """The handlers list of a matcher group; None for an entry that is a handler itself (or is not ours to read)."""
    if isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
        return list(entry["hooks"])
    return None


def _event_lists(document: dict[str, Any], path: str, create: bool) -> dict[str, Any] | None:
    hooks = document.get("hooks")
    if hooks is None and create:
        hooks = document["hooks"] = {}
    if hooks is not None and not isinstance(hooks, dict):
        raise InstallError(f"{path}: `hooks` is a {_json_type(hooks)}, not an object; left untouched")
    return hooks


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def merge(document: dict[str, Any], host_name: str, hook: Mapping[str, Any], path: str = "the file",
          url: str | None = None, *, left_out: Collection[str] = ()) -> None:
    """Add or update the host's entries running ``hook`` in a hooks document, in place; for the events ``left_out``,
    take ours out instead."""
    module = host(host_name)
    for key, value in module.FILE_KEYS.items():
        document.setdefault(key, value)
    hooks = _event_lists(document, path, create=True)
    assert hooks is not None
    for event, entry in module.register(hook).items():
        if event in left_out:
            _unmerge_event(hooks, event, host_name, url)
            continue
        entries = hooks.setdefault(event, [])
        if not isinstance(entries, list):
            raise InstallError(f"{path}: `hooks.{event}` is a {_json_type(entries)}, not a list; left untouched")
        if not _update(entries, host_name, dict(hook), url):
            entries.append(entry)


def _update(entries: list[Any], host_name: str, hook: dict[str, Any], url: str | None) -> bool:
    """Point our first handler in ``entries`` at ``hook`` and drop any other of ours; False when there is none."""
    found = False
    for entry in list(entries):
        handlers = _handlers(entry)
        for handler in ([entry] if handlers is None else handlers):
            if not ours(handler, host_name, url):
                continue
            if found:
                _drop(entries, entry, handler)
                continue
            found = True
            if handler.get("type", hook.get("type")) == hook.get("type"):
                handler.update(hook)  # keeps what the user added to our entry (a timeout, say)
            else:
                handler.clear()
                handler.update(hook)
    return found


def _drop(entries: list[Any], entry: Any, handler: Any) -> None:
    handlers = _handlers(entry)
    if handlers is None:
        entries.remove(entry)
        return
    entry["hooks"] = [item for item in entry["hooks"] if item is not handler]
    if not entry["hooks"]:
        entries.remove(entry)


def unmerge(document: dict[str, Any], host_name: str, path: str = "the file", url: str | None = None) -> int:
    """Remove our entries from a hooks document, in place; how many handlers were removed."""
    hooks = _event_lists(document, path, create=False)
    if not hooks:
        return 0
    removed = sum(_unmerge_event(hooks, event, host_name, url) for event in list(hooks))
    if not hooks and removed:
        del document["hooks"]
    return removed


def _unmerge_event(hooks: dict[str, Any], event: str, host_name: str, url: str | None) -> int:
    """Remove our handlers from one event's list (and the list, when that leaves it empty); how many were removed."""
    entries = hooks.get(event)
    if not isinstance(entries, list):
        return 0  # none, or someone else's: not ours to judge
    removed = 0
    for entry in list(entries):
        handlers = _handlers(entry)
        for handler in ([entry] if handlers is None else handlers):
            if ours(handler, host_name, url):
                _drop(entries, entry, handler)
                removed += 1
    if not entries and removed:
        del hooks[event]
    return removed


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise InstallError(f"the key `{key}` appears twice")
        found[key] = value
    return found


def read_document(path: str) -> tuple[dict[str, Any], str | None]:
    """The JSON object in ``path`` and its text (None: no file); InstallError for anything but a JSON object."""
    try:
        with open(path, "rb") as file:
            raw = file.read()
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise InstallError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
        if not text.strip():
            return {}, text
        document = json.loads(text, object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as exc:
        raise InstallError(f"{path}: is not UTF-8 text ({exc.reason} at byte {exc.start}); left untouched") from None
    except json.JSONDecodeError as exc:
        raise InstallError(f"{path}: is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                           "left untouched") from None
    except InstallError as exc:
        raise InstallError(f"{path}: {exc}; left untouched") from None
    if not isinstance(document, dict):
        raise InstallError(f"{path}: holds a JSON {_json_type(document)}, not an object; left untouched")
    return document, text


def _indent(text: str | None) -> int | str | None:
    """The indentation of the file as it was: its first indented key's, none for a one-line file, else 2."""
    if text is None or not text.strip():
        return 2
    if "\n" not in text.strip():
        return None
    found = re.search(r'^([ \t]+)"', text, re.MULTILINE)
    return found.group(1) if found else 2


#: The indentation a rewritten file keeps (``toolguards mcp install`` writes its files the same way).
indent_of = _indent


def write_document(path: str, text: str, previous: str | None) -> str | None:
    """Write ``text`` to ``path`` (backing up the previous file); the backup's path, if one was made."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    backup = None
    mode = None
    if previous is not None:
        backup = path + BACKUP_SUFFIX
        mode = os.stat(path).st_mode & 0o7777
        with open(backup, "w", encoding="utf-8", newline="") as file:
            file.write(previous)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8", newline="") as file:
        file.write(text)
    if mode is not None:
        os.chmod(temporary, mode)
    os.replace(temporary, path)
    return backup


@dataclass(frozen=True)
class Registration:
    """What ``toolguards hook install|uninstall`` is asked to do (``commands.hook`` reads it from the command line)."""

    #: ``install`` or ``uninstall``
    action: str
    host: str
    #: ``project`` (the current folder's file) or ``user`` (the home folder's)
    scope: str = "project"
    #: the host's settings file, instead of the scope's
    settings: str | None = None
    #: the guard file the hook runs with (install)
    config: str | None = None
    dry_run: bool = False
    #: http hooks posting to this URL instead of a command (claude)
    http: str | None = None
    #: with ``http``: the environment variable holding the bearer token (install)
    token_env: str | None = None
    #: record the hooks' trust as the host's own review does (install, a host that ``trusts``)
    trust: bool = False


def trusts(host_name: str) -> bool:
    """Whether ``--trust`` means something for the host: it runs a hook only once it is reviewed."""
    steps = _host_steps(host_name)
    return steps is not None and steps.TRUST


def run(options: Registration) -> int:
    """Write or remove the registration; 0 done (or nothing to do), 1 refused. A summary line goes to stderr, then
    one line per note."""
    action = options.action
    module = host(options.host)
    trust = options.trust and action == "install"
    steps = _host_steps(options.host)
    path = options.settings or config_path(module, options.scope)
    prefix = f"toolguards hook {action}"
    try:
        document, previous = read_document(path)
        before = json.loads(json.dumps(document))
        if action == "install":
            hook = _hook(module, options)
            skipped = versions.left_out(module)
            merge(document, options.host, hook, path, options.http, left_out=skipped)
            events = [event for event in module.register(hook) if event not in skipped]
            summary = "; ".join([f"{', '.join(events)} run {hook.get('command') or hook.get('url')}",
                                 *skipped.values()])
        else:
            removed = unmerge(document, options.host, path, options.http)
            summary = f"removed {removed} hook{'s' if removed != 1 else ''} of toolguards hook {options.host}"
        text = json.dumps(document, indent=_indent(previous), ensure_ascii=False) + "\n"
        notes: list[str] = []
        if steps is not None:
            notes = (steps.installed(path, document, trust, options.dry_run) if action == "install"
                     else steps.uninstalled(path, before, document, options.dry_run))
        if options.dry_run:
            sys.stdout.write(text)
            print(f"{prefix}: {path} (dry run, nothing written): {summary}", file=sys.stderr)
        elif document == before and (previous is not None or action == "uninstall"):
            print(f"{prefix}: {path} unchanged: {summary}", file=sys.stderr)
        else:
            backup = write_document(path, text, previous)
            kept = f" (the previous file is {backup})" if backup else ""
            print(f"{prefix}: {path}: {summary}{kept}", file=sys.stderr)
        for note in notes:
            print(f"{prefix}: {note}", file=sys.stderr)
        return 0
    except (InstallError, OSError) as exc:
        message = str(exc) if isinstance(exc, InstallError) else f"{path}: {exc.strerror or exc}"
        print(f"{prefix}: {message}", file=sys.stderr)
        return 1


def config_path(module: Host, scope: str) -> str:
    """The host's hooks file for ``scope``: under the current folder, or the user's folder (moved by the host's
    ``USER_FOLDER_ENV`` where it is set, resolved through symlinks as the host resolves it)."""
    parts = module.CONFIG_FILE.split("/")
    if scope == "project":
        return os.path.join(os.getcwd(), *parts)
    moved = os.environ.get(module.USER_FOLDER_ENV) if module.USER_FOLDER_ENV else None
    if moved:
        return os.path.join(os.path.realpath(os.path.expanduser(moved)), *parts[1:])
    return os.path.join(os.path.expanduser("~"), *parts)


def _host_steps(host_name: str) -> HostSteps | None:
    name = HOST_STEPS.get(host_name)
    if name is None:
        return None
    found: HostSteps = importlib.import_module(name)
    return found


def _hook(module: Any, options: Registration) -> dict[str, Any]:
    if options.http is not None and not module.HTTP:
        return _curl_hook(module, options)
    if options.http is not None:
        hook: dict[str, Any] = {"type": "http", "url": options.http}
        if options.token_env is not None:
            hook["headers"] = {"Authorization": f"Bearer ${{{options.token_env}}}"}
            hook["allowedEnvVars"] = [options.token_env]
        return hook
    command = f"{_quote(installed_command())} hook {options.host}"
    guard_file = options.config
    if guard_file is None and module.GUARD_FILE is not None:
        from ..resources import shipped_guard_file  # noqa: PLC0415

        guard_file = os.fspath(shipped_guard_file(module.GUARD_FILE))
    if guard_file is not None:
        guard_file = os.path.abspath(guard_file)
        from ..guardfile.loader import check_file  # noqa: PLC0415

        problems = check_file(guard_file)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InstallError(f"the guard file has problems, so nothing was installed: {problems[0]}{more}")
        command += f" --config {_quote(guard_file)}"
    handler: dict[str, Any] = module.handler(command)
    return handler


def _curl_hook(module: Any, options: Registration) -> dict[str, Any]:
    """The handler of a host with only command hooks that posts each event to ``--http URL`` (hooks.curl)."""
    program = shutil.which("curl")
    trouble = curl.curl_problem(program)
    if trouble is not None or program is None:
        raise InstallError(f"nothing was installed: {trouble}")
    assert options.http is not None  # _hook hands over only an http registration
    handler: dict[str, Any] = module.handler(curl.command(os.path.abspath(program), options.http, options.token_env))
    return handler
