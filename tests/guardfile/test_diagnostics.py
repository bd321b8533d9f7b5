from __future__ import annotations

import pytest

from toolguards import ConfigError, Diagnostic, from_mapping
from toolguards.guardfile.diagnostics import format_json_path


@pytest.mark.parametrize(
    ("diagnostic", "text"),
    [
        (Diagnostic("g.yaml", 4, 19, "m"), "g.yaml:4:19: m"),
        (Diagnostic("<mapping>", None, None, "guards: m"), "<mapping>: guards: m"),
        (Diagnostic("g.yaml", 2, 1, "unknown key `a\nb`\t\x7f\u2028"), "g.yaml:2:1: unknown key `a\\nb`\\t\\x7f\\u2028"),
        # C1 controls: NEL ends a line for Python's splitlines, CSI starts a terminal escape sequence
        (Diagnostic("g\x85.yaml", 1, 2, "`\x85\x9b\x80\x9f\xa0`"), "g\\x85.yaml:1:2: `\\x85\\x9b\\x80\\x9f\xa0`"),
        (Diagnostic("g.yaml", None, None, "\x1b[31mred"), "g.yaml: \\x1b[31mred"),
    ],
)
def test_str(diagnostic, text):
    assert str(diagnostic) == text


@pytest.mark.parametrize(
    ("path", "text"),
    [((), "top level"), (("guards",), "guards"), (("guards", 0, "config", "include", 2), "guards[0].config.include[2]")],
)
def test_format_json_path(path, text):
    assert format_json_path(path) == text


def test_error_lists_diagnostics_one_a_line_in_file_order():
    error = ConfigError([Diagnostic("g.yaml", 5, 1, "b"), Diagnostic("g.yaml", 2, 3, "a")])
    assert str(error) == "g.yaml:2:3: a\ng.yaml:5:1: b"
    assert [d.line for d in error.diagnostics] == [2, 5]


def test_from_mapping_has_no_positions():
    with pytest.raises(ConfigError) as caught:
        from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": {"thresholds": []}}]})
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.path, diagnostic.line, diagnostic.column) == ("<mapping>", None, None)
    assert str(diagnostic) == "<mapping>: guards[0].config.thresholds: `thresholds` must not be empty"
