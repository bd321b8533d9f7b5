"""The suggested guard file: which tools it names, that it loads, and that every name reads back exactly."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from toolguards.guardfile.loader import from_mapping, load
from toolguards.replay.records import Record
from toolguards.report import merge, suggest
from toolguards.report.analyser import Analyser
from toolguards.report.suggest import yaml_string


def report(config: dict, calls: list[tuple[str, object]]):
    engine = from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": config}]})
    analyser = Analyser([engine], ["g.yaml"])
    records = [Record("post-execute", line, "main", tool, {}, result=result)
               for line, (tool, result) in enumerate(calls, 1)]
    return merge(analyser.views, [analyser.analyse("s.jsonl", "events", records)])


def polled(tool: str, results: list[object]) -> list[tuple[str, object]]:
    return [(tool, result) for result in results] + [("other", None)]


@pytest.mark.parametrize(
    ("config", "calls", "aware", "unchanged"),
    [
        # Results change during a run of 3: resultAware would have stayed quiet.
        ({"thresholds": [3]}, polled("status", ["a", "b", "b"]), ["status"], []),
        # Changes only within a run too short to remind: nothing to suggest.
        ({"thresholds": [4]}, polled("status", ["a", "b", "b"]), None, None),
        # Already result-aware, globally or by an override.
        ({"thresholds": [3], "resultAware": True}, polled("status", ["a", "b", "b"]), None, None),
        ({"thresholds": [3], "overrides": [{"tools": ["st*"], "resultAware": True}]}, polled("status", "abc"),
         None, None),
        # Three long runs and no change seen: named, not put in the YAML.
        ({"thresholds": [3]}, polled("wait", [None] * 3) * 3, [], ["wait"]),
        ({"thresholds": [3]}, polled("wait", [None] * 3) * 2, None, None),
    ],
)
def test_which_tools_are_suggested(config, calls, aware, unchanged):
    found = suggest(report(config, calls))
    if aware is None:
        assert found is None
        return
    assert found is not None
    assert [p.tool for p in found.aware] == aware
    assert [p.tool for p in found.unchanged] == unchanged
    assert (found.yaml is None) == (not aware)


def test_the_suggestion_keeps_the_guards_settings_and_loads(tmp_path):
    config = {"thresholds": [4, 9], "include": ["*"], "exclude": ["todo_write"]}
    found = suggest(report(config, polled("job status", ["a", "b", "c", "c"])))
    assert found is not None and found.yaml == (
        "version: 1\n"
        "guards:\n"
        '  - id: "repeat-tool-reminder"\n'
        "    config:\n"
        "      thresholds: [4, 9]\n"
        '      include: ["*"]\n'
        '      exclude: ["todo_write"]\n'
        "      overrides:\n"
        '        - tools: ["job status"]\n'
        "          resultAware: true\n"
    )
    path = tmp_path / "suggested.yaml"
    path.write_text(found.yaml, encoding="utf-8")
    settings = load(path).guards[0].settings  # type: ignore[attr-defined]
    assert (settings.thresholds, settings.exclude, settings.overrides[0].tools) == ((4, 9), ("todo_write",),
                                                                                    ("job status",))
    assert settings.overrides[0].rules.result_aware is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [("grep", '"grep"'), ('say "hi"\\', '"say \\"hi\\"\\\\"'), ("a\nb\tc", '"a\\x0ab\\x09c"'),
     ("\u2028\ufeff\x85", '"\\u2028\\ufeff\\x85"'), ("中文", '"中文"'), ("\U0001f600", '"\U0001f600"')],
)
def test_yaml_strings(text, expected):
    assert yaml_string(text) == expected


@given(st.text(st.characters(exclude_categories=("Cs",))))
def test_a_yaml_string_reads_back_as_itself(text):
    assert YAML(typ="safe").load(io.StringIO(f"key: {yaml_string(text)}\n")) == {"key": text}
