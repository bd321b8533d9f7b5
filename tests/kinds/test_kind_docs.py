"""Each kind's docstring is its YAML reference, and the reference is run: its valid example loads, its invalid example
produces exactly the diagnostics the docstring lists, and its option defaults are the kind's own."""

from __future__ import annotations

import importlib
import re
import textwrap
from types import ModuleType

import pytest

from toolguards.guardfile.loader import check_file
from toolguards.kinds import BUILTIN_KINDS

MODULES = {name: importlib.import_module(f"toolguards.kinds.{name.replace('-', '_')}") for name in BUILTIN_KINDS}


def block(module: ModuleType, heading: str) -> str:
    """The literal block after a ``heading::`` line of the module docstring, dedented."""
    doc = module.__doc__ or ""
    match = re.search(rf"^{re.escape(heading)}::\n\n((?:    .*\n|\n)+)", doc, re.MULTILINE)
    assert match, f"{module.__name__} has no `{heading}::` block"
    return textwrap.dedent(match.group(1)).strip("\n") + "\n"


@pytest.mark.parametrize("name", list(MODULES))
def test_the_valid_example_loads(name, write_guard_file):
    assert check_file(write_guard_file(block(MODULES[name], "Valid"))) == []


@pytest.mark.parametrize("name", list(MODULES))
def test_the_invalid_example_gives_exactly_the_diagnostics_listed(name, write_guard_file):
    path = write_guard_file(block(MODULES[name], "Invalid"), "g.yaml")
    expected = block(MODULES[name], "Diagnostics (the file named ``g.yaml``)").splitlines()
    assert [str(d) for d in check_file(path)] == expected


def defaults(schema: dict, shown: dict, path: str = "") -> list[tuple[str, object, object]]:
    """(key, the docstring's value, the schema's default) for every option the schema gives a default."""
    found = []
    for key, value in shown.items():
        option = schema["properties"][key]
        if "default" in option:
            found.append((f"{path}{key}", value, option["default"]))
        elif isinstance(value, dict) and "properties" in option:
            found += defaults(option, value, f"{path}{key}.")
    return found


def options(module: ModuleType) -> str:
    heading = next(line for line in (module.__doc__ or "").splitlines() if line.startswith("Options (all optional"))
    return block(module, heading.removesuffix("::"))


@pytest.mark.parametrize("name", list(MODULES))
def test_the_options_show_the_kinds_own_defaults(name):
    # The defaults are written once, in the kind's settings dataclass; its schema carries them to editors, and the
    # docstring's option list must show the same values.
    from ruamel.yaml import YAML

    shown = YAML(typ="safe").load(options(MODULES[name]))
    found = defaults(dict(BUILTIN_KINDS[name].config_schema), shown)
    assert len(found) >= 3
    assert [(key, value) for key, value, _ in found] == [(key, default) for key, _, default in found]
