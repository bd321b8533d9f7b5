"""Reminder wording: Jinja2 template files per locale, sandboxed, checked in full when a guard file loads.

Each locale is a folder (``templates/en``, ``templates/zh``); a guard file's ``templateDirs`` are searched before the
shipped folder. Templates run in Jinja2's immutable sandbox with ``StrictUndefined`` and no autoescaping; the text they
fill in (a tool's arguments, say) is data, never template source. At load every template is parsed, checked for
unknown variables and for sandbox escapes (attributes that start with ``_``, calls of methods that mutate), then
rendered once with sample values, so a broken template is a config error naming its file and line, not a surprise in
the middle of a session.

Template files are read as guard files are (see ``reading.py``): the first folder that holds the name decides, and a
name there that is not a regular file, or is larger than 64 KiB, or is not UTF-8 text, is a problem, never skipped for
the next folder nor left to block or fill memory.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import (
    BaseLoader,
    Environment,
    StrictUndefined,
    Template,
    TemplateError,
    TemplateNotFound,
    TemplateSyntaxError,
)
from jinja2 import nodes as jnodes
from jinja2.exceptions import SecurityError
from jinja2.loaders import split_template_path
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .reading import MAX_TEMPLATE_BYTES, FileRefused, NotUtf8, decode_utf8, read_small_file, size_limit

__all__ = ["TemplateProblem", "Templates", "available_locales", "resolve_locale", "sandbox"]

# Methods that change their object; the immutable sandbox refuses them at render time, this list refuses them at load.
_MUTATING = frozenset(
    {
        "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "add", "discard",
        "sort", "reverse", "difference_update", "intersection_update", "symmetric_difference_update",
    }
)


# Names Jinja itself provides inside loops and macros.
_IMPLICIT = frozenset({"loop", "varargs", "kwargs", "caller"})


# The most a template may build by repeating a string or list, and the largest exponent: a reminder is a few lines.
MAX_REPEAT = 100_000
MAX_EXPONENT = 64


class _Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with ``*`` and ``**`` kept from building huge values (``{{ 'x' * 10**9 }}``)."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int) and abs(right) > MAX_EXPONENT:
            raise SecurityError(f"an exponent above {MAX_EXPONENT} is not allowed in a template")
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                repeats = isinstance(sequence, (str, list, tuple)) and isinstance(times, int)
                if repeats and len(sequence) * times > MAX_REPEAT:
                    raise SecurityError(f"a value longer than {MAX_REPEAT} is not allowed in a template")
        return super().call_binop(context, operator, left, right)

    def make_globals(self, d: Mapping[str, Any] | None) -> dict[str, Any]:
        # A plain dict, where Jinja makes a ChainMap over the environment's globals: every render copies its
        # template's globals twice, and a ChainMap copies in Python, at half the cost of rendering a short reminder.
        # The copy is taken when the template loads; nothing changes the environment's globals after that (which
        # Jinja asks of its callers anyway).
        return {**self.globals, **(d or {})}


def sandbox(loader: BaseLoader) -> ImmutableSandboxedEnvironment:
    """The environment every guard template runs in: the immutable sandbox, ``StrictUndefined``, no autoescaping."""
    return _Sandbox(loader=loader, undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False,
                    auto_reload=False)


@dataclass(frozen=True)
class TemplateProblem:
    """Why a template cannot be used; ``file``/``line``/``column`` where the template itself is at fault."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None


class _Unreadable(TemplateError):
    """A template file that is there but cannot be used: ``problem`` says why, as a guard file's would."""

    def __init__(self, filename: str, problem: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(f"`{filename}`: {problem}")
        self.filename, self.problem, self.line, self.column = filename, problem, line, column


class _FolderLoader(BaseLoader):
    """Template names looked up in folders, first match wins, each file read with ``read_small_file``."""

    def __init__(self, folders: Sequence[Path]) -> None:
        self.folders = tuple(folders)
        #: the text of every template read, by file name, for the checks that parse it again
        self.sources: dict[str, str] = {}

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        pieces = split_template_path(template)  # refuses `..`
        for folder in self.folders:
            filename = os.path.normpath(posixpath.join(str(folder), *pieces))
            try:
                raw = read_small_file(filename, MAX_TEMPLATE_BYTES)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except FileRefused as refused:
                if refused.kind is not None:
                    raise _Unreadable(filename, f"not a regular file ({refused.kind})") from None
                size = f"the file is {refused.size} bytes; a template may be at most {size_limit(MAX_TEMPLATE_BYTES)}"
                raise _Unreadable(filename, size) from None
            except OSError as exc:
                raise _Unreadable(filename, f"cannot read the file: {exc.strerror or exc}") from None
            except ValueError as exc:  # a NUL character in the name
                raise _Unreadable(filename, f"cannot read the file: {exc}") from None
            try:
                source = decode_utf8(raw)
            except NotUtf8 as exc:
                raise _Unreadable(filename, str(exc), exc.line, exc.column) from None
            self.sources[filename] = source
            return source, filename, lambda: True
        raise TemplateNotFound(template)


#: Folders beside the locales that are not one: ``report/`` holds the report page's templates (``report/<locale>/``).
NOT_LOCALES = frozenset({"report"})


def available_locales(roots: Sequence[Path]) -> list[str]:
    """Every locale that has a folder under one of ``roots``, sorted."""
    found: set[str] = set()
    for root in roots:
        if root.is_dir():
            found.update(child.name for child in root.iterdir() if child.is_dir() and child.name not in NOT_LOCALES)
    return sorted(found)


def resolve_locale(requested: str, available: Sequence[str]) -> str | None:
    """The available locale for ``requested``: itself, else its language (``zh-CN`` → ``zh``); case-insensitive."""
    by_folded = {name.casefold().replace("_", "-"): name for name in available}
    wanted = requested.casefold().replace("_", "-")
    return by_folded.get(wanted) or by_folded.get(wanted.split("-")[0])


class Templates:
    """The templates of one locale, looked up in ``roots`` (first match wins)."""

    def __init__(self, roots: Sequence[Path], locale: str) -> None:
        self.locale = locale
        self.folders = tuple(root / locale for root in roots if (root / locale).is_dir())
        self._loader = _FolderLoader(self.folders)
        self._env = sandbox(self._loader)

    def load(self, name: str, sample: Mapping[str, Any]) -> Template | TemplateProblem:
        """The compiled template ``name``, checked against the variables in ``sample`` and rendered with them once."""
        try:
            template = self._env.get_template(name)
        except TemplateNotFound:
            searched = ", ".join(str(folder) for folder in self.folders) or "no folder"
            return TemplateProblem(f"template `{name}` not found for locale `{self.locale}` (searched: {searched})")
        except TemplateSyntaxError as exc:
            return TemplateProblem(f"template syntax error: {exc.message}", exc.filename, exc.lineno)
        except _Unreadable as exc:  # a problem of the file, reported at it: never a reason to look elsewhere
            return TemplateProblem(exc.problem, exc.filename, exc.line, exc.column)
        except TemplateError as exc:
            return TemplateProblem(f"template `{name}` cannot be read: {exc}")
        filename = template.filename or name
        source = self._loader.sources[filename] if template.filename else ""
        problem = _static_problem(self._env.parse(source), set(sample), filename, set(self._env.globals) | _IMPLICIT)
        if problem is not None:
            return problem
        try:
            template.render(sample)
        except Exception as exc:  # any failure of a sample render is the template's fault
            return TemplateProblem(f"template failed to render: {exc}", filename, _template_line(exc, filename))
        return template


def _static_problem(
    tree: jnodes.Template, variables: set[str], filename: str, builtins: set[str]
) -> TemplateProblem | None:
    assigned = builtins | {node.name for node in tree.find_all(jnodes.Name) if node.ctx in ("store", "param")}
    for node in tree.find_all((jnodes.Name, jnodes.Getattr, jnodes.Getitem, jnodes.Call)):
        if isinstance(node, jnodes.Name) and node.ctx == "load":
            if node.name not in variables and node.name not in assigned:
                known = ", ".join(f"`{name}`" for name in sorted(variables))
                return TemplateProblem(f"unknown variable `{node.name}` (known: {known})", filename, node.lineno)
        elif isinstance(node, jnodes.Getattr) and node.attr.startswith("_"):
            return TemplateProblem(f"access to `{node.attr}` is not allowed in a template", filename, node.lineno)
        elif (
            isinstance(node, jnodes.Getitem)
            and isinstance(node.arg, jnodes.Const)
            and isinstance(node.arg.value, str)
            and node.arg.value.startswith("_")
        ):
            return TemplateProblem(f"access to `{node.arg.value}` is not allowed in a template", filename, node.lineno)
        elif isinstance(node, jnodes.Call) and isinstance(node.node, jnodes.Getattr) and node.node.attr in _MUTATING:
            return TemplateProblem(f"calling `{node.node.attr}` is not allowed in a template", filename, node.lineno)
    return None


def _template_line(exc: BaseException, filename: str) -> int | None:
    # Jinja rewrites tracebacks so that frames of template code carry the template's file name and line.
    line = None
    trace = exc.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == filename:
            line = trace.tb_lineno
        trace = trace.tb_next
    return line

