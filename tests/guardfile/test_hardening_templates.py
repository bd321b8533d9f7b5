"""User templates cannot escape the sandbox: every attempt is a config error at load, never a surprise at render. And
the text a template fills in (arguments, tool names) is data: `{{ … }}` in it is printed as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolguards as tg

ESCAPES = [
    "{{ tool.__class__.__mro__ }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ lipsum.__globals__ }}",
    "{{ range.__self__ }}",
    "{{ namespace.__init__ }}",
    "{{ joiner().__class__ }}",
    "{{ ''.__class__ }}",
    "{{ ().__class__.__base__.__subclasses__() }}",
    "{% for c in [].__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}",
    "{{ count.__class__ }}",
    "{{ tool.__len__() }}",
    "{{ tool['__class__'] }}",
    "{{ tool['_' ~ '_class__'] }}",
    "{{ tool|attr('__class__') }}",
    "{{ tool|attr('_' ~ '_class__') }}",
    "{{ '{0.__class__}'.format(tool) }}",
    "{{ '{t.__class__}'.format_map({'t': tool}) }}",
    "{% macro m() %}{{ caller.__globals__ }}{% endmacro %}{{ m() }}",
    "{% set x = [] %}{{ x.append(1) }}",
    "{{ {}.update(a=1) }}",
    "{% set d = {} %}{% set _ = d.setdefault('a', 1) %}{{ d }}",
    "{{ dict(a=1).pop('a') }}",
    "{% set l = [3, 1] %}{{ l.sort() }}",
    "{% set x = [] %}{{ (x|attr('append'))(1) }}{{ x }}",
    "{% set x = {} %}{{ (x|attr('update'))(a=1) }}{{ x }}",
    "{{ self }}",
    "{{ config }}",
    "{% include '../../../../etc/passwd' %}",
    "{% import '/etc/passwd' as p %}",
    "{{ range(10**9)|list|length }}",
]


def load_with_first(tmp_path: Path, source: str) -> tg.Engine:
    (tmp_path / "en").mkdir(exist_ok=True)
    (tmp_path / "en" / "mine.j2").write_text(source, encoding="utf-8")
    config = {"templateDirs": ["."], "guards": [{"id": "repeat-tool-reminder", "config": {"templates": {"first": "mine.j2"}}}]}
    return tg.from_mapping(config, base_dir=tmp_path)


@pytest.mark.parametrize("source", ESCAPES)
def test_a_sandbox_escape_is_rejected_at_load(tmp_path: Path, source: str) -> None:
    with pytest.raises(tg.ConfigError) as caught:
        load_with_first(tmp_path, source)
    [problem] = caught.value.diagnostics
    assert problem.path.endswith("mine.j2")
    assert problem.message.endswith("(the `first` template of guards[0] in <mapping>)")


def test_a_plain_user_template_loads(tmp_path: Path) -> None:
    engine = load_with_first(tmp_path, "{{ tool }} × {{ count }}: {{ arguments|truncate(20) }}")
    texts = [e.text for _ in range(3) for e in engine.post_execute(tg.ToolEvent("grep", {"q": 1}, agent="a")).additional_contexts]
    assert texts == ['grep × 3: {"q":1}']


TEMPLATE_TEXT = ["{{ 7*7 }}", "{% for x in range(3) %}x{% endfor %}", "{{ tool.__class__ }}", "{# c #}", "{% raw %}"]


@pytest.mark.parametrize("text", TEMPLATE_TEXT)
def test_template_syntax_in_arguments_and_tool_names_is_printed_as_is(text: str) -> None:
    engine = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": {"thresholds": [2, 3]}}]})
    event = tg.ToolEvent(tool=f"tool {text}", arguments={"q": text}, agent="a")
    texts = [e.text for _ in range(3) for e in engine.post_execute(event).additional_contexts]
    detailed = texts[1]
    assert f"- tool: tool {text}\n" in detailed
    assert f'- arguments: {{"q":"{text}"}}\n' in detailed
    assert "49" not in detailed and "xxx" not in detailed
