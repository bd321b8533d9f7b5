"""The house keeps its layout: no import circle, one name for one module, a short top level, families as registered.

The rules (the README's Development section describes the layout they keep):
- no import circle anywhere in ``src/toolguards``, counting every import statement (at module level, inside
  functions, under ``TYPE_CHECKING``);
- no two modules share a file name, except members of two families named after the same host, format or framework
  (``hooks/codex.py`` and ``replay/importers/codex.py``) and subcommands named after what they run;
- no module outside ``commands/`` is named like a package of the house (``replay/report.py`` beside ``report/``);
- the top level holds at most ten modules besides its packages;
- no file of the project names the folder its checkout sits in (a local machine path, as a recording made in another
  worktree of the same machine carries).
"""

from __future__ import annotations

import ast
import importlib
from collections import defaultdict
from pathlib import Path

import pytest

import toolguards
from toolguards.doctor import CHECKS
from toolguards.hooks import HOSTS
from toolguards.kinds import BUILTIN_KINDS
from toolguards.mcp_proxy.clients import CLIENTS
from toolguards.replay.importers import READERS
from toolguards.stores import STORES

SRC = Path(toolguards.__file__).resolve().parent
PACKAGES = sorted(path.parent.name for path in SRC.glob("*/__init__.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in SRC.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """The house's modules that ``name`` imports anywhere in its text."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(candidate for candidate in candidates if candidate in MODULES and candidate != name)
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle():
    assert circles({name: imports_of(name) for name in MODULES}) == []


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def family_members() -> set[str]:
    """The modules that a family's registry names: host protocols, session formats, kinds, stores, MCP clients,
    doctor's checks of each host, and the frameworks' adapters."""
    members = {*HOSTS.values(), *(module.__name__ for module in READERS.values()), *STORES.values(), *CLIENTS.values(),
               *CHECKS.values()}
    members |= {type(kind).__module__ for kind in BUILTIN_KINDS.values()}
    members |= {name for name in MODULES if name.startswith("toolguards.integrations.")}
    return members


def test_the_families_are_found():
    members = family_members()
    assert {"toolguards.hooks.codex", "toolguards.replay.importers.codex", "toolguards.stores.redis",
            "toolguards.kinds.repeat_tool_reminder", "toolguards.integrations.langchain"} <= members
    assert "toolguards.hooks.driver" not in members


def test_one_name_one_module():
    by_name = defaultdict(list)
    for name, path in MODULES.items():
        if path.name != "__init__.py":
            by_name[path.stem].append(name)
    members = family_members()
    shared = {}
    for stem, names in by_name.items():
        # a subcommand may be named after what it runs (commands/schema.py prints guardfile/schema.py's schema)
        rest = [name for name in names if not name.startswith("toolguards.commands.")]
        if len(rest) > 1 and not all(name in members for name in rest):
            shared[stem] = names
    assert shared == {}


def test_no_module_outside_commands_is_named_like_a_package():
    named = sorted(name for name, path in MODULES.items()
                   if path.stem in PACKAGES and path.name != "__init__.py" and not name.startswith("toolguards.commands."))
    assert named == []


def test_the_top_level_is_short():
    modules = sorted(path.name for path in SRC.glob("*.py"))
    assert len(modules) <= 10, modules


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_says_what_it_holds(package):
    doc = importlib.import_module(f"toolguards.{package}").__doc__ or ""
    assert len(doc.strip()) > 40, f"toolguards.{package} has no docstring describing it"


CHECKOUT = Path(__file__).resolve().parent.parent
#: What the project is made of; a developer's own folders (.venv, caches, site) are not
PROJECT_PARTS = ("src", "tests", "docs", "guards", "templates", "examples", "schemas", "scripts", "benchmarks", ".ci")


def project_files() -> list[Path]:
    found = [path for path in CHECKOUT.iterdir() if path.is_file()]
    for part in PROJECT_PARTS:
        found += [path for path in (CHECKOUT / part).rglob("*") if path.is_file() and "__pycache__" not in path.parts]
    return found


def test_no_file_names_the_folder_the_checkout_sits_in():
    beside = CHECKOUT.parent
    if len(beside.parts) < 2:
        pytest.skip(f"the checkout sits in {beside}, a prefix of every absolute path")
    needle = f"{beside}/".encode()
    named = [str(path.relative_to(CHECKOUT)) for path in project_files() if needle in path.read_bytes()]
    assert named == []
