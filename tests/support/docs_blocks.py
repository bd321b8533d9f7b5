"""The fenced blocks of the documentation (README.md and docs/**/*.md), each with the marker that says how it is tested.

A marker is an HTML comment on the line before the opening fence (blank lines between are allowed), invisible on the
rendered page: ``<!-- run -->``, ``<!-- console: exit 1 -->``, ``<!-- not-run: needs a real Claude Code -->``… (the
list, with what each does, is in docs/development.md and in tests/docs/test_docs.py). A line ``--8<-- "PATH"`` in a
block is replaced by that repository file, as the site's snippets extension does at build time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from conftest import REPO

__all__ = ["REPO", "Block", "all_blocks", "blocks", "marked", "pages"]

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<language>[\w+-]*)")
_MARKER = re.compile(r"^<!--\s*(?P<name>[\w:-]+)\s*(?::\s*(?P<argument>.*?))?\s*-->$")
_SNIPPET = re.compile(r'^(?P<indent> *)--8<-- "(?P<path>[^"]+)"$')


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    page: str  #: the page, relative to the repository: ``README.md``, ``docs/ci.md``
    line: int  #: the 1-based line of the opening fence
    language: str
    marker: str | None  #: ``run``, ``console``… (None: no marker)
    argument: str  #: what follows ``marker:`` (empty if nothing)
    text: str  #: the content, dedented, with ``--8<--`` includes resolved

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """Every Markdown page of the documentation: the README, then docs/ in path order."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    name = page.relative_to(REPO).as_posix()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = opening.group("indent"), opening.group("fence")
        content: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].startswith(indent + fence):
            content.append(lines[end][len(indent):] if lines[end].startswith(indent) else lines[end].lstrip())
            end += 1
        marker, argument = _marker_before(lines, index)
        found.append(Block(name, index + 1, opening.group("language"), marker, argument, _resolve(content)))
        index = end + 1
    return found


def _marker_before(lines: list[str], index: int) -> tuple[str | None, str]:
    before = index - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    if before < 0:
        return None, ""
    match = _MARKER.match(lines[before].strip())
    if match is None:
        return None, ""
    return match.group("name"), match.group("argument") or ""


def _resolve(content: list[str]) -> str:
    out: list[str] = []
    for line in content:
        snippet = _SNIPPET.match(line)
        if snippet is None:
            out.append(line)
            continue
        included = (REPO / snippet.group("path")).read_text(encoding="utf-8").splitlines()
        out += [snippet.group("indent") + text if text else text for text in included]
    return "".join(f"{line}\n" for line in out)


def all_blocks() -> list[Block]:
    """Every block of every page."""
    return [block for page in pages() for block in blocks(page)]


def marked(page: str, marker: str) -> Block:
    """The one block of ``page`` (relative to the repository) whose marker is ``marker`` (``tested: serve:curl``)."""
    name, _, argument = marker.partition(":")
    found = [block for block in blocks(REPO / page)
             if block.marker == name.strip() and block.argument == argument.strip()]
    assert len(found) == 1, f"{page} has {len(found)} blocks marked <!-- {marker} -->, not one"
    return found[0]
