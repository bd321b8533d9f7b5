"""MkDocs hooks of the toolguards site (registered in ``mkdocs.yml``), run at build time, so nothing generated is
committed:

- the nav entry ``hosts/*.md`` (any entry with a ``*``) stands for every page of that folder, in file-name order, so
  a page added there is in the nav without a line in ``mkdocs.yml``;
- ``reference/kinds.md`` is written from the docstring of each built-in guard kind's module (its YAML reference);
- ``reference/cli.md`` is written from the ``--help`` of every command, as argparse prints it, and of every
  sub-command a command's help names (``toolguards hook install`` …).
"""

from __future__ import annotations

import contextlib
import fnmatch
import importlib
import io
import os
import re
import textwrap
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

#: The width argparse formats help to (its default is the terminal's): the page must not depend on who built it.
HELP_COLUMNS = "100"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Expand every nav entry with a ``*`` into the pages that match it."""
    docs = Path(config.docs_dir)
    config.nav = _expand(config.nav or [], docs)
    return config


def _expand(nav: list[Any], docs: Path) -> list[Any]:
    expanded: list[Any] = []
    for entry in nav:
        if isinstance(entry, str) and "*" in entry:
            found = sorted(
                path.relative_to(docs).as_posix() for path in docs.rglob("*.md")
                if fnmatch.fnmatch(path.relative_to(docs).as_posix(), entry)
            )
            expanded += found
        elif isinstance(entry, dict):
            expanded.append({title: _expand(value, docs) if isinstance(value, list) else value
                             for title, value in entry.items()})
        else:
            expanded.append(entry)
    return expanded


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated reference pages."""
    files.append(File.generated(config, "reference/kinds.md", content=kinds_page()))
    files.append(File.generated(config, "reference/cli.md", content=cli_page()))
    return files


# --- the guard kinds -------------------------------------------------------------------------------------------------


def kinds_page() -> str:
    """The reference of every built-in guard kind: its module docstring, as Markdown."""
    from toolguards.kinds import BUILTIN_KINDS  # noqa: PLC0415 - the package is what the page documents

    parts = [
        "# Guard kinds\n",
        "Each kind's reference is the docstring of its module (`toolguards.kinds.<name>`), turned into this page when "
        "the site is built; the test suite loads each valid example and checks that the invalid one gives exactly "
        "the diagnostics listed. `python -m pydoc toolguards.kinds.repeat_tool_reminder` prints the same text.\n",
    ]
    for name in BUILTIN_KINDS:
        module = importlib.import_module(f"toolguards.kinds.{name.replace('-', '_')}")
        parts.append(docstring_markdown(module.__doc__ or "", level=2))
    return "\n".join(parts)


_LITERAL = re.compile(r"^(.*?)::$")


def docstring_markdown(doc: str, level: int = 2) -> str:
    """A module docstring in our reST subset as Markdown: the first line ``name``: summary becomes a heading and its
    summary, ``code`` becomes `code`, and a paragraph ending in ``::`` introduces a fenced literal block (YAML, or text
    for diagnostics)."""
    lines = textwrap.dedent(doc).strip("\n").splitlines()
    title, _, summary = lines[0].partition(": ")
    out = [f"{'#' * level} {_inline(title)}", "", _inline(summary[:1].upper() + summary[1:])]
    index = 1
    paragraph: list[str] = []
    while index < len(lines):
        line = lines[index]
        literal = _LITERAL.match(line)
        if literal and not line.startswith(" "):
            intro = (" ".join([*paragraph, literal.group(1)])).strip()
            paragraph = []
            if intro:
                out += ["", _inline(intro) + ":"]
            block, index = _indented(lines, index + 1)
            language = "text" if intro.startswith("Diagnostics") else "yaml"
            out += ["", f"```{language}", *block, "```"]
            continue
        if line.strip():
            paragraph.append(line.strip())
        elif paragraph:
            out += ["", _inline(" ".join(paragraph))]
            paragraph = []
        index += 1
    if paragraph:
        out += ["", _inline(" ".join(paragraph))]
    return "\n".join(out) + "\n"


def _indented(lines: list[str], index: int) -> tuple[list[str], int]:
    """The indented block that starts after blank lines at ``index``, dedented, and the index after it."""
    block: list[str] = []
    while index < len(lines) and not lines[index].strip():
        index += 1
    while index < len(lines) and (lines[index].startswith(" ") or not lines[index].strip()):
        block.append(lines[index])
        index += 1
    return textwrap.dedent("\n".join(block)).strip("\n").splitlines(), index


def _inline(text: str) -> str:
    return re.sub(r"``(.+?)``", r"`\1`", text)


# --- the command line ------------------------------------------------------------------------------------------------


def cli_page() -> str:
    """Every command's ``--help``, as the command prints it."""
    from toolguards.commands import COMMANDS  # noqa: PLC0415

    parts = [
        "# Command line\n",
        "Each section is the command's own `--help`, captured when the site is built, so it is the installed "
        "version's text. `toolguards COMMAND --help` prints it in a terminal.\n",
        _section(["toolguards"], help_text([])),
    ]
    for name in COMMANDS:
        text = help_text([name])
        parts.append(_section(["toolguards", name], text))
        for word in sub_commands(name, text):
            parts.append(_section(["toolguards", name, word], help_text([name, word]), level=3))
    return "\n".join(parts)


def sub_commands(name: str, text: str) -> list[str]:
    """The sub-commands a command's help names as ``toolguards NAME WORD`` (a lowercase word, not an option)."""
    found = re.findall(rf"toolguards {re.escape(name)} ([a-z][a-z-]*)\b", text)
    return list(dict.fromkeys(found))


def help_text(argv: list[str]) -> str:
    """What ``toolguards ARGV --help`` prints on stdout; a build error if it does not exit 0."""
    from toolguards.cli import main  # noqa: PLC0415

    out = io.StringIO()
    saved = {key: os.environ.get(key) for key in ("COLUMNS", "NO_COLOR")}
    os.environ.update({"COLUMNS": HELP_COLUMNS, "NO_COLOR": "1"})
    try:
        with contextlib.redirect_stdout(out):
            try:
                code: object = main([*argv, "--help"])
            except SystemExit as exc:
                code = exc.code
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    if code not in (0, None):
        raise RuntimeError(f"toolguards {' '.join(argv)} --help exited {code}")
    return out.getvalue()


def _section(words: list[str], text: str, level: int = 2) -> str:
    anchor = "-".join(words[1:]) or "toolguards"
    return f"{'#' * level} `{' '.join(words)}` {{ #{anchor} }}\n\n```text\n{text.rstrip()}\n```\n"
