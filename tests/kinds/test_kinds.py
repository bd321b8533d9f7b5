"""The registry of kinds and the schema's enum of kinds agree; plugins are checked when registered."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolguards.guard import GuardKind
from toolguards.guardfile.check import builtin_schema
from toolguards.kinds import BUILTIN_KINDS, registry
from toolguards.kinds import _plugin_problem as plugin_problem


def test_registry_and_schema_enum_agree():
    guard = builtin_schema()["$defs"]["guard"]
    assert guard["properties"]["kind"]["enum"] == list(BUILTIN_KINDS)
    assert guard["allOf"][0]["then"]["properties"]["id"]["enum"] == list(BUILTIN_KINDS)
    branches = [b["if"]["anyOf"][0]["properties"]["kind"]["const"] for b in guard["allOf"][1:]]
    assert branches == list(BUILTIN_KINDS)


def test_builtin_kinds_satisfy_the_protocol():
    for name, kind in BUILTIN_KINDS.items():
        assert isinstance(kind, GuardKind) and kind.name == name
    assert set(BUILTIN_KINDS) <= set(registry())


def test_every_builtin_kind_module_documents_its_yaml():
    import importlib

    for name in BUILTIN_KINDS:
        module = importlib.import_module(f"toolguards.kinds.{name.replace('-', '_')}")
        doc = module.__doc__ or ""
        assert f"``{name}``" in doc and "Valid::" in doc and "Invalid" in doc and "Options" in doc


class Half:
    name = "half"


class Misnamed:
    name = "other"
    slots: dict[str, Any] = {}
    config_schema: dict[str, Any] = {"type": "object"}
    state: Any = None

    def parse(self, config: Any) -> Any: ...
    def problems(self, settings: Any) -> Any: ...
    def templates(self, settings: Any) -> Any: ...
    def create(self, *args: Any) -> Any: ...


@pytest.mark.parametrize(
    ("name", "kind", "problem"),
    [
        ("repeat-tool-reminder", Misnamed(), "the kind `repeat-tool-reminder` is already registered"),
        ("half", Half(), "its object lacks name, slots, config_schema, state, parse, problems, templates or create"),
        ("misnamed", Misnamed(), "its kind is named `other`, not `misnamed` as the entry point says"),
    ],
)
def test_plugin_problems_name_the_problem(name, kind, problem):
    assert plugin_problem(name, kind, BUILTIN_KINDS) == problem


def test_a_plugin_kind_is_validated_by_its_own_schema(monkeypatch, write_guard_file, caplog):
    import toolguards.kinds as kinds_module
    from toolguards.guardfile.loader import check_file
    from toolguards.kinds.repeat_tool_reminder import KIND

    class Shout(type(KIND)):  # type: ignore[misc]
        name = "shout"
        config_schema = {"type": "object", "additionalProperties": False, "properties": {"loud": {"type": "boolean"}}}

        def parse(self, config: Any) -> Any:
            return KIND.parse({})

    class Point:
        name = "shout"
        value = "demo:Shout"

        def load(self) -> Any:
            return Shout

    monkeypatch.setattr(kinds_module, "entry_points", lambda group: [Point()])
    registry.cache_clear()
    try:
        path = write_guard_file("guards:\n  - id: shout\n    config: {loud: 3}\n  - id: s2\n    kind: shout\n")
        assert [str(d) for d in check_file(path)] == [
            "g.yaml:3:20: guards[0].config.loud: must be true or false, not the integer 3"
        ]
    finally:
        registry.cache_clear()


def test_a_broken_plugin_is_logged_and_left_out(monkeypatch, caplog):
    import toolguards.kinds as kinds_module

    class Point:
        name = "broken"
        value = "nowhere:Kind"

        def load(self) -> Any:
            raise ImportError("No module named 'nowhere'")

    monkeypatch.setattr(kinds_module, "entry_points", lambda group: [Point()])
    registry.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="toolguards"):
            assert "broken" not in registry()
        assert "entry point `broken = nowhere:Kind` of group `toolguards.kinds`" in caplog.text
    finally:
        registry.cache_clear()


def test_the_committed_schema_is_the_one_the_registry_generates(capsys):
    # schemas/toolguards.schema.json is for editors; after changing a kind: toolguards schema > schemas/…
    from toolguards.cli import main
    from toolguards.resources import schema_file

    assert main(["schema"]) == 0
    generated = capsys.readouterr().out
    assert schema_file().read_text(encoding="utf-8") == generated


def test_each_kind_owns_its_config_schema():
    guard_defs = builtin_schema()["$defs"]
    for name, kind in BUILTIN_KINDS.items():
        (branch,) = [b for b in guard_defs["guard"]["allOf"][1:] if b["if"]["anyOf"][0]["properties"]["kind"]["const"]
                     == name]
        ref = branch["then"]["properties"]["config"]["$ref"].removeprefix("#/$defs/")
        assert guard_defs[ref] == kind.config_schema
