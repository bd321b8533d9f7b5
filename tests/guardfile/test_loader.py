"""Guard files that fail loud: every problem, with its line, column and JSON path, in one run."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path
from typing import Any

import pytest

import toolguards as tg
from conftest import Watchdog
from toolguards.guardfile.loader import check_file
from toolguards.resources import shipped_templates_dir


def config(line: str) -> str:
    """A guard file whose repeat-tool-reminder config holds ``line`` (at line 4, indented 6)."""
    return f"guards:\n  - id: repeat-tool-reminder\n    config:\n      {line}\n"


THRESHOLD = "every threshold must be an integer >= 2"
CONFIG_KEYS = (
    "`thresholds`, `include`, `exclude`, `argumentsPreviewChars`, `repeatEvery`, `resultAware`, `block`, "
    "`ignoreArguments`, `resultNormalizers`, `overrides`, `templates`"
)
KINDS = "`repeat-tool-reminder`, `cycle-reminder`, `repeated-error-reminder`, `no-progress-reminder`"
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
          "`guards`, `outcomes`, `prices`); did you mean `locale`?"]),
        ("guards:\n  - id: repeat-tool-reminder\n    nmae: x\n",
         ["g.yaml:3:5: guards[0].nmae: unknown key `nmae` (expected one of: `id`, `name`, `kind`, `config`, "
          "`shadow`); did you mean `name`?"]),
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
         ["g.yaml:1:1: base: unknown key `base` (expected one of: `version`, `locale`, `templateDirs`, `guards`, `outcomes`, `prices`)",
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


@pytest.mark.parametrize(("options", "expected"), [
    # a schema problem in one option, one option against another in two others: both in one run
    ("      thresholds: [3, 5]\n      repeatEvery: 1\n      block: {atCount: 3}\n", [
        "g.yaml:6:20: guards[0].config.repeatEvery: invalid repeatEvery 1 — must be an integer >= 2",
        "g.yaml:7:24: guards[0].config.block.atCount: invalid block.atCount 3 — must be above the first threshold (3)",
    ]),
    # and a template that does not exist, named by an option the schema accepted
    ("      thresholds: [4]\n      argumentsPreviewChars: 0\n      templates: {first: nowhere.j2}\n", [
        "g.yaml:6:30: guards[0].config.argumentsPreviewChars: invalid argumentsPreviewChars 0 — must be an integer >= 1",
        "g.yaml:7:26: guards[0].config.templates.first: template `nowhere.j2` not found for locale `en` (searched: "
        "{shipped}); nor as `repeat-tool-reminder/nowhere.j2`",
    ]),
    # an override with a problem of its own leaves the guard's other options to be checked
    ("      thresholds: [5]\n      block: {atCount: 4}\n      overrides: [{tools: []}]\n", [
        "g.yaml:6:24: guards[0].config.block.atCount: invalid block.atCount 4 — must be above the first threshold (5)",
        "g.yaml:7:27: guards[0].config.overrides[0].tools: `tools` must name at least one tool pattern",
    ]),
])
def test_options_are_checked_against_each_other_beside_schema_problems(write_guard_file, options, expected):
    path = write_guard_file("version: 1\nguards:\n  - id: repeat-tool-reminder\n    config:\n" + options)
    shipped = shipped_templates_dir() / "en"
    assert [str(d) for d in check_file(path)] == [line.format(shipped=shipped) for line in expected]


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
        "<mapping>: extra: unknown key `extra` (expected one of: `version`, `locale`, `templateDirs`, `guards`, `outcomes`, `prices`)",
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


CONTROL = "which YAML does not allow"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # the character YAML refuses, where it stands: after tabs, multi-byte text, CR LF, a lone CR, a byte-order mark
        (b"guards: []\nname: a\x01b\n", [f"g.yaml:2:8: the file holds a control character U+0001, {CONTROL}"]),
        (b"guards:\n  - id: x\x00\n", [f"g.yaml:2:10: the file holds a control character U+0000, {CONTROL}"]),
        (b"version: 1\nguards:\n  - id: repeat\x01tool\n",
         [f"g.yaml:3:15: the file holds a control character U+0001, {CONTROL}"]),
        ("guards: []\nname: 中文é\x01\n".encode(), [f"g.yaml:2:10: the file holds a control character U+0001, {CONTROL}"]),
        ("guards: []\n😀\x01".encode(), [f"g.yaml:2:2: the file holds a control character U+0001, {CONTROL}"]),
        (b"guards: []\nname:\t\x1b\n", [f"g.yaml:2:7: the file holds a control character U+001B, {CONTROL}"]),
        (b"guards: []\r\nname: x\x1b\r\n", [f"g.yaml:2:8: the file holds a control character U+001B, {CONTROL}"]),
        (b"guards: []\rname: \x7f\r", [f"g.yaml:2:7: the file holds a control character U+007F, {CONTROL}"]),
        (b"\xef\xbb\xbfname: \x00\nguards: []\n", [f"g.yaml:1:7: the file holds a control character U+0000, {CONTROL}"]),
        (b"guards: []\n\xef\xbb\xbf\x01", [f"g.yaml:2:1: the file holds a control character U+0001, {CONTROL}"]),
        # C1 controls, but not NEL (U+0085), which YAML allows and does not count as a line break
        ("guards: []\n# \x85\x80 \x9f\n".encode(),
         [f"g.yaml:2:4: the file holds a control character U+0080, {CONTROL}",
          f"g.yaml:2:6: the file holds a control character U+009F, {CONTROL}"]),
        ("guards: []\n# \u2028 \ufffe \uffff\n".encode(),
         [f"g.yaml:2:5: the file holds a noncharacter U+FFFE, {CONTROL}",
          f"g.yaml:2:7: the file holds a noncharacter U+FFFF, {CONTROL}"]),
        # the first twenty, then a count
        (b"guards: []\n" + b"\x00" * 25,
         [*(f"g.yaml:2:{column}: the file holds a control character U+0000, {CONTROL}" for column in range(1, 21)),
          "g.yaml:2:21: and 5 more characters that YAML does not allow"]),
        # bytes that are not UTF-8 come first; an escaped control character is text like any other
        (b"\x01\xff", ["g.yaml:1:2: the file is not UTF-8 text (byte 0xff)"]),
        (b"guards: []\rname: caf\xe9\r", ["g.yaml:2:10: the file is not UTF-8 text (byte 0xe9)"]),
        (b"\xef\xbb\xbfname: caf\xe9", ["g.yaml:1:10: the file is not UTF-8 text (byte 0xe9)"]),
        (b'guards: []\nlocale: "a\\x01"\n', ['g.yaml:2:9: locale: "a\\u0001" is not a locale name such as `en` or `zh-CN`']),
    ],
)
def test_characters_yaml_refuses_are_reported_where_they_stand(write_guard_file, raw, expected):
    assert [str(d) for d in check_file(write_guard_file(raw))] == expected


def test_the_refused_characters_are_exactly_those_the_yaml_reader_refuses():
    from ruamel.yaml.reader import Reader

    from toolguards.guardfile import document

    every = "".join(map(chr, range(0x110000)))
    assert document._REFUSED.findall(every) == Reader.NON_PRINTABLE.findall(every)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"guards: []\r\nname: x\x01\n", f"g.yaml:2:8: the file holds a control character U+0001, {CONTROL}"),
        ("guards: []\n中\ufffe".encode(), f"g.yaml:2:2: the file holds a noncharacter U+FFFE, {CONTROL}"),
    ],
)
def test_a_character_only_the_reader_refuses_is_reported_the_same_way(write_guard_file, monkeypatch, raw, expected):
    from toolguards.guardfile import document

    monkeypatch.setattr(document, "_REFUSED", re.compile("(?!)"))  # as if ruamel refused more than we check for
    assert [str(d) for d in check_file(write_guard_file(raw))] == [expected]


@pytest.mark.parametrize(
    ("character", "message"),
    [
        ("\x00", f"the file holds a control character U+0000, {CONTROL}"),
        ("\uffff", f"the file holds a noncharacter U+FFFF, {CONTROL}"),
        ("\u00ad", f"the file holds the character U+00AD, {CONTROL}"),
    ],
)
def test_refused_character_wording(character, message):
    from toolguards.guardfile import document

    assert document._refused(character) == message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_at_once(write_guard_file, tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "link.yaml").symlink_to("pipe.yaml")
    with Watchdog(tmp_path / "pipe.yaml"):
        assert [str(d) for d in check_file("pipe.yaml")] == ["pipe.yaml: not a regular file (a named pipe)"]
        assert [str(d) for d in check_file("link.yaml")] == ["link.yaml: not a regular file (a named pipe)"]
        with pytest.raises(tg.ConfigError) as caught:
            tg.load(tmp_path / "pipe.yaml")
        assert str(caught.value) == f"{tmp_path}/pipe.yaml: not a regular file (a named pipe)"


def test_a_folder_a_device_and_a_socket_are_refused(write_guard_file, tmp_path):
    (tmp_path / "dir.yaml").mkdir()
    assert [str(d) for d in check_file("dir.yaml")] == ["dir.yaml: not a regular file (a directory)"]
    if Path("/dev/zero").exists():
        assert [str(d) for d in check_file("/dev/zero")] == ["/dev/zero: not a regular file (a character device)"]
    if hasattr(socket, "AF_UNIX"):
        with socket.socket(socket.AF_UNIX) as listening:
            listening.bind("sock.yaml")  # relative: the temporary folder's path may be too long for a socket
            assert [str(d) for d in check_file("sock.yaml")] == ["sock.yaml: not a regular file (a socket)"]


class OsProxy:
    """The os module as reading.py sees it, with some functions replaced (and nothing changed for anyone else)."""

    def __init__(self, **replaced: Any) -> None:
        self.replaced = replaced

    def __getattr__(self, name: str) -> Any:
        return self.replaced[name] if name in self.replaced else getattr(os, name)


def test_what_is_refused_by_its_kind_or_size_is_never_opened(write_guard_file, tmp_path, monkeypatch):
    from toolguards.guardfile import reading

    (tmp_path / "dir.yaml").mkdir()
    with open(tmp_path / "big.yaml", "wb") as sparse:
        sparse.truncate(2_000_000)

    def no_open(*args: Any) -> int:
        raise AssertionError(f"opened {args}")

    monkeypatch.setattr(reading, "os", OsProxy(open=no_open))
    assert [str(d) for d in check_file("dir.yaml")] == ["dir.yaml: not a regular file (a directory)"]
    assert [str(d) for d in check_file("big.yaml")] == [
        "big.yaml:1:1: the file is 2000000 bytes; a guard file may be at most 1048576 bytes (1 MiB)"
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_path_swapped_for_a_named_pipe_after_the_first_look_is_refused(write_guard_file, tmp_path, monkeypatch):
    from toolguards.guardfile import reading

    regular = os.stat(write_guard_file("guards: []\n", name="regular.yaml"))
    os.mkfifo(tmp_path / "pipe.yaml")
    monkeypatch.setattr(reading, "os", OsProxy(stat=lambda path: regular))  # the first look sees a small file
    with Watchdog(tmp_path / "pipe.yaml"):  # the open does not wait for a writer, the open file is looked at again
        assert [str(d) for d in check_file("pipe.yaml")] == ["pipe.yaml: not a regular file (a named pipe)"]


def test_a_file_that_grows_while_it_is_read_is_read_no_further_than_the_limit(write_guard_file, monkeypatch):
    from toolguards.guardfile import reading

    path = write_guard_file("guards: []\n")
    reads: list[int] = []

    def read(descriptor: int, count: int) -> bytes:
        if not reads:  # after the size was looked at: two more mebibytes
            with open(path, "ab") as grown:
                grown.write(b"#" * 2 * 1024 * 1024)
        chunk = os.read(descriptor, count)
        reads.append(len(chunk))
        return chunk

    monkeypatch.setattr(reading, "os", OsProxy(read=read))
    assert [str(d) for d in check_file(path)] == [
        "g.yaml:1:1: the file is 2097163 bytes; a guard file may be at most 1048576 bytes (1 MiB)"
    ]
    assert sum(reads) == 1024 * 1024 + 1


def test_a_file_over_1_mib_is_refused_unread(write_guard_file, tmp_path):
    with open(tmp_path / "big.yaml", "wb") as sparse:  # 100 MB that take no room on the disk
        sparse.truncate(104_857_600)
    assert [str(d) for d in check_file("big.yaml")] == [
        "big.yaml:1:1: the file is 104857600 bytes; a guard file may be at most 1048576 bytes (1 MiB)"
    ]
    head = b"guards: []\n#"
    write_guard_file(head + b"x" * (1024 * 1024 - len(head)), name="limit.yaml")
    assert check_file("limit.yaml") == []
    write_guard_file(head + b"x" * (1024 * 1024 + 1 - len(head)), name="over.yaml")
    assert [str(d) for d in check_file("over.yaml")] == [
        "over.yaml:1:1: the file is 1048577 bytes; a guard file may be at most 1048576 bytes (1 MiB)"
    ]


def test_a_path_with_a_nul_character_is_a_diagnostic():
    assert [str(d) for d in check_file("a\x00b.yaml")] == ["a\\x00b.yaml:1:1: cannot read the file: embedded null byte"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a flat list stops the composer at the value past the limit, not after a megabyte of parsing
        ("guards: [" + "1, " * 10_000 + "]\n", ["g.yaml:1:30001: the document holds more than 10000 keys and values"]),
        ("guards:\n" + "  - 1\n" * 10_000, ["g.yaml:9999:5: the document holds more than 10000 keys and values"]),
        # aliases: few nodes, many values
        ("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
         "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nguards: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
         ["g.yaml:1:35: guards[7][8][8][9]: the document holds more than 10000 values once aliases expand"]),
    ],
)
def test_too_many_values(write_guard_file, text, expected):
    assert [str(d) for d in check_file(write_guard_file(text))] == expected
