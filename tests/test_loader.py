"""Guard files that fail loud: every problem, with its line, column and JSON path, in one run."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolguards as tg
from toolguards.loader import check_file
from toolguards.resources import shipped_templates_dir


def config(line: str) -> str:
    """A guard file whose repeat-tool-reminder config holds ``line`` (at line 4, indented 6)."""
    return f"guards:\n  - id: repeat-tool-reminder\n    config:\n      {line}\n"


THRESHOLD = "every threshold must be an integer >= 2"
CONFIG_KEYS = (
    "`thresholds`, `include`, `exclude`, `argumentsPreviewChars`, `repeatEvery`, `resultAware`, `block`, "
    "`overrides`, `templates`"
)
KINDS = "`repeat-tool-reminder`, `cycle-reminder`, `repeated-error-reminder`"
PREVIEW = "must be an integer >= 1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the reference's fail-loud configs, in its own words
        (config("thresholds: []"), ["g.yaml:4:19: guards[0].config.thresholds: `thresholds` must not be empty"]),
        (config("thresholds: [3, 2.5]"),
         [f"g.yaml:4:23: guards[0].config.thresholds[1]: invalid threshold 2.5 — {THRESHOLD}"]),
        (config('thresholds: ["3"]'),
         [f'g.yaml:4:20: guards[0].config.thresholds[0]: invalid threshold "3" — {THRESHOLD}']),
        (config("thresholds: [true]"),
         [f"g.yaml:4:20: guards[0].config.thresholds[0]: invalid threshold true — {THRESHOLD}"]),
        (config("thresholds: [1, 4]"),
         [f"g.yaml:4:20: guards[0].config.thresholds[0]: invalid threshold 1 — {THRESHOLD}"]),
        (config("thresholds: [-3]"),
         [f"g.yaml:4:20: guards[0].config.thresholds[0]: invalid threshold -3 — {THRESHOLD}"]),
        (config("thresholds: [3, 5, 3]"),
         ["g.yaml:4:19: guards[0].config.thresholds: `thresholds` must not contain duplicates"]),
        (config("thresholds: [3, 3.0]"),
         ["g.yaml:4:19: guards[0].config.thresholds: `thresholds` must not contain duplicates"]),
        (config("thresholds: 3"), ["g.yaml:4:19: guards[0].config.thresholds: must be a list, not the integer 3"]),
        (config("argumentsPreviewChars: 0"),
         [f"g.yaml:4:30: guards[0].config.argumentsPreviewChars: invalid argumentsPreviewChars 0 — {PREVIEW}"]),
        (config("argumentsPreviewChars: 12.5"),
         [f"g.yaml:4:30: guards[0].config.argumentsPreviewChars: invalid argumentsPreviewChars 12.5 — {PREVIEW}"]),
        (config('argumentsPreviewChars: "500"'),
         [f'g.yaml:4:30: guards[0].config.argumentsPreviewChars: invalid argumentsPreviewChars "500" — {PREVIEW}']),
        (config("argumentsPreviewChars: true"),
         [f"g.yaml:4:30: guards[0].config.argumentsPreviewChars: invalid argumentsPreviewChars true — {PREVIEW}"]),
        # unknown keys, at the key
        (config("threshold: [3]"),
         ["g.yaml:4:7: guards[0].config.threshold: unknown key `threshold` (expected one of: {config_keys}); "
          "did you mean `thresholds`?"]),
        ("guards: []\nlocal: en\n",
         ["g.yaml:2:1: local: unknown key `local` (expected one of: `version`, `locale`, `templateDirs`, "
          "`guards`); did you mean `locale`?"]),
        ("guards:\n  - id: repeat-tool-reminder\n    nmae: x\n",
         ["g.yaml:3:5: guards[0].nmae: unknown key `nmae` (expected one of: `id`, `name`, `kind`, `config`); "
          "did you mean `name`?"]),
        (config("templates: {frist: x.j2}"),
         ["g.yaml:4:19: guards[0].config.templates.frist: unknown key `frist` (expected one of: `first`, "
          "`detailed`, `truncated`); did you mean `first`?"]),
        # kinds and ids
        ("guards:\n  - id: loop\n    kind: repeat-tool-remindr\n",
         ["g.yaml:3:11: guards[0].kind: unknown kind \"repeat-tool-remindr\" (known kinds: {kinds})"]),
        ("guards:\n  - id: loop\n",
         ["g.yaml:2:9: guards[0].id: the guard has no `kind` and its id \"loop\" is not a known kind "
          "(known kinds: {kinds})"]),
        ("guards:\n  - id: a\n    kind: repeat-tool-reminder\n  - id: a\n    kind: repeat-tool-reminder\n",
         ["g.yaml:4:9: guards[1].id: duplicate guard id `a` (also guards[0].id)"]),
        ("guards:\n  - name: x\n", ["g.yaml:2:5: guards[0]: missing required key `id`"]),
        ("guards:\n  - id: ''\n    kind: repeat-tool-reminder\n", ["g.yaml:2:9: guards[0].id: must not be empty"]),
        # the shape of the file
        ("version: 2\nguards: []\n", ["g.yaml:1:10: version: must be 1, not 2 (the only format version)"]),
        ("locale: en\n", ["g.yaml:1:1: top level: missing required key `guards`"]),
        ("- id: repeat-tool-reminder\n", ["g.yaml:1:1: top level: must be a mapping, not a list"]),
        ("guards\n", ['g.yaml:1:1: top level: must be a mapping, not the string "guards"']),
        ("guards: {id: x}\n", ["g.yaml:1:9: guards: must be a list, not a mapping"]),
        (config("include: grep"), ['g.yaml:4:16: guards[0].config.include: must be a list, not the string "grep"']),
        (config("exclude: [1]"), ["g.yaml:4:17: guards[0].config.exclude[0]: must be a string, not the integer 1"]),
        ("guards: []\nlocale: 'en us'\n",
         ['g.yaml:2:9: locale: "en us" is not a locale name such as `en` or `zh-CN`']),
        # reading and parsing
        ("guards: []\nguards: []\n", ["g.yaml:2:1: guards: duplicate key `guards` (first defined at line 1)"]),
        ("guards: [\n", ["g.yaml:2:1: YAML syntax error: expected the node content, but found '<stream end>'"]),
        ("guards:\n  - id: x\n   bad: 1\n",
         ["g.yaml:3:4: YAML syntax error: expected <block end>, but found '<block mapping start>'"]),
        ("guards: 'open\n", ["g.yaml:2:1: YAML syntax error: found unexpected end of stream"]),
        ("", ["g.yaml:1:1: the file is empty: expected a mapping with a `guards` list"]),
        ("# only a comment\n", ["g.yaml:1:1: the file is empty: expected a mapping with a `guards` list"]),
        (b"guards: []\nname: caf\xe9\n", ["g.yaml:2:10: the file is not UTF-8 text (byte 0xe9)"]),
        ("a: &x [*x]\n", ["g.yaml:1:4: top level: a recursive alias is not allowed"]),
        ("base: &b {thresholds: [3]}\nguards:\n  - id: repeat-tool-reminder\n    config:\n      <<: *b\n",
         ["g.yaml:1:1: base: unknown key `base` (expected one of: `version`, `locale`, `templateDirs`, `guards`)",
          "g.yaml:5:7: guards[0].config: YAML merge keys (`<<`) are not supported: write the keys out"]),
        ("guards: []\nlocale: !!binary aGVsbG8=\n", ["g.yaml:2:9: locale: unsupported YAML tag `tag:yaml.org,2002:binary`"]),
        # what only Python can check
        ("locale: fr\nguards: []\n", ["g.yaml:1:9: locale: locale `fr` has no templates (available: en, zh)"]),
        ("templateDirs: [nowhere]\nguards: []\n",
         ["g.yaml:1:16: templateDirs[0]: template folder `{tmp}/nowhere` does not exist"]),
        (config("templates: {first: missing.j2}"),
         ["g.yaml:4:26: guards[0].config.templates.first: template `missing.j2` not found for locale `en` "
          "(searched: {shipped}/en); nor as `repeat-tool-reminder/missing.j2`"]),
    ],
)
def test_exact_diagnostics(write_guard_file, tmp_path, text, expected):
    path = write_guard_file(text)
    shipped = shipped_templates_dir()
    got = [str(d) for d in check_file(path)]
    assert got == [line.format(tmp=tmp_path, shipped=shipped, config_keys=CONFIG_KEYS, kinds=KINDS) for line in expected]


def test_every_problem_of_a_file_in_one_run_in_file_order(write_guard_file):
    path = write_guard_file(
        "version: 1\n"
        "locale: fr\n"
        "guards:\n"
        "  - id: repeat-tool-reminder\n"
        "    config:\n"
        "      thresholds: [3, 3]\n"
        "      argumentsPreviewChars: 0\n"
        "      exclude: [mcp_*]\n"
        "  - id: repeat-tool-reminder\n"
        "    kind: nope\n"
        "    kind: again\n"
    )
    assert [str(d) for d in check_file(path)] == [
        "g.yaml:2:9: locale: locale `fr` has no templates (available: en, zh)",
        "g.yaml:6:19: guards[0].config.thresholds: `thresholds` must not contain duplicates",
        "g.yaml:7:30: guards[0].config.argumentsPreviewChars: invalid argumentsPreviewChars 0 — must be an integer >= 1",
        "g.yaml:9:9: guards[1].id: duplicate guard id `repeat-tool-reminder` (also guards[0].id)",
        f'g.yaml:10:11: guards[1].kind: unknown kind "nope" (known kinds: {KINDS})',
        "g.yaml:11:5: guards[1].kind: duplicate key `kind` (first defined at line 10)",
    ]


def test_missing_file_is_a_diagnostic(write_guard_file):
    write_guard_file("guards: []\n")
    assert [str(d) for d in check_file("absent.yaml")] == ["absent.yaml:1:1: cannot read the file: No such file or directory"]


def test_load_raises_config_error_with_every_diagnostic(write_guard_file):
    path = write_guard_file(config("thresholds: [1, 1]"))
    with pytest.raises(tg.ConfigError) as caught:
        tg.load(path)
    assert [d.line for d in caught.value.diagnostics] == [4, 4, 4]
    assert str(caught.value).count("\n") == 2


@pytest.mark.parametrize(
    ("line", "thresholds", "preview"),
    [
        ("thresholds: [8, 3, 5]", (3, 5, 8), 500),
        ("thresholds: [3.0, 4]", (3, 4), 500),
        ("argumentsPreviewChars: 40.0", (3, 5, 8), 40),
        ("include: []", (3, 5, 8), 500),
    ],
)
def test_normalized_settings(write_guard_file, line, thresholds, preview):
    engine = tg.load(write_guard_file(config(line)))
    (guard,) = engine.guards
    assert guard.settings.thresholds == thresholds
    assert all(type(t) is int for t in guard.settings.thresholds)
    assert guard.settings.arguments_preview_chars == preview
    assert type(guard.settings.arguments_preview_chars) is int


def test_omitted_keys_take_the_reference_defaults(write_guard_file):
    (guard,) = tg.load(write_guard_file("guards:\n  - id: repeat-tool-reminder\n")).guards
    settings = guard.settings
    assert (settings.thresholds, settings.include, settings.exclude, settings.arguments_preview_chars) == (
        (3, 5, 8), (), (), 500,
    )


def test_seed_entry_is_valid_unchanged(write_guard_file):
    seed_entry = (
        "guards:\n"
        "- id: repeat-tool-reminder\n"
        "  name: '@deepseek-ai/dsh-repeat-tool-reminder'\n"
        "  config:\n"
        "    thresholds: [3, 5, 8]        # default; consecutive counts that trigger a reminder\n"
        "    include: []                  # tool-name patterns to track; empty ⇒ all tools\n"
        "    exclude: [todo_write]        # tool-name patterns transparent to the chain\n"
        "    argumentsPreviewChars: 500   # default; cap on arguments quoted in the detailed reminder\n"
    )
    assert check_file(write_guard_file(seed_entry)) == []


def test_patterns_matching_no_tool_are_valid(write_guard_file):
    assert check_file(write_guard_file(config("exclude: ['mcp_*', '*', 'pr.be', 'a?b']"))) == []


def test_shipped_default_is_valid_and_spells_out_todo_write():
    engine = tg.load_default()
    (guard,) = engine.guards
    assert guard.id == "repeat-tool-reminder"
    assert guard.settings.exclude == ("todo_write",)
    assert guard.settings.thresholds == (3, 5, 8)


def test_from_mapping_same_checks_with_json_paths():
    with pytest.raises(tg.ConfigError) as caught:
        tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": {"threshold": [3]}}], "extra": 1})
    assert [str(d) for d in caught.value.diagnostics] == [
        "<mapping>: extra: unknown key `extra` (expected one of: `version`, `locale`, `templateDirs`, `guards`)",
        f"<mapping>: guards[0].config.threshold: unknown key `threshold` (expected one of: {CONFIG_KEYS}); "
        "did you mean `thresholds`?",
    ]


def test_from_mapping_accepts_tuples_and_builds_an_engine():
    engine = tg.from_mapping({"guards": ({"id": "repeat-tool-reminder", "config": {"thresholds": (4, 2)}},)})
    assert engine.guards[0].settings.thresholds == (2, 4)


def test_locale_argument_without_templates_lists_available(write_guard_file):
    path = write_guard_file("guards: []\n")
    with pytest.raises(tg.ConfigError) as caught:
        tg.load(path, locale="fr")
    assert str(caught.value) == "g.yaml: locale `fr` has no templates (available: en, zh)"


@pytest.mark.parametrize(("requested", "resolved"), [("zh-CN", "zh"), ("zh_TW", "zh"), ("EN", "en"), ("en-GB", "en")])
def test_locale_falls_back_to_its_language(requested, resolved):
    assert tg.load_default(locale=requested).locale == resolved


def test_locale_argument_beats_the_file(write_guard_file):
    path = write_guard_file("locale: en\nguards: []\n")
    assert tg.load(path, locale="zh").locale == "zh"
    assert tg.load(path).locale == "en"


def test_template_dirs_are_relative_to_the_file(write_guard_file, tmp_path: Path, monkeypatch):
    folder = tmp_path / "conf" / "mine" / "en" / "repeat-tool-reminder"
    folder.mkdir(parents=True)
    (folder / "first.j2").write_text("Stop repeating {{ tool }}.\n", encoding="utf-8")
    path = write_guard_file("templateDirs: [mine]\nguards:\n  - id: repeat-tool-reminder\n", name="conf/g.yaml")
    monkeypatch.chdir(tmp_path / "conf" / "mine")  # a different working folder must not matter
    engine = tg.load(tmp_path / path)
    texts = [engine.post_execute(tg.ToolEvent("grep", {}, agent="a")).additional_contexts for _ in range(3)]
    assert [c.text for c in texts[2]] == ["Stop repeating grep."]
