"""Reminder templates: every locale has the same names and renders; broken or unsafe templates fail at load."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from jinja2 import Template

import toolguards as tg
from conftest import Watchdog
from toolguards.guardfile.loader import check_file
from toolguards.guardfile.templates import Templates, available_locales, resolve_locale
from toolguards.kinds import BUILTIN_KINDS
from toolguards.resources import shipped_templates_dir

SHIPPED = shipped_templates_dir()


def names(locale: str) -> set[str]:
    folder = SHIPPED / locale
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*.j2")}


def test_every_locale_has_the_same_template_names():
    locales = available_locales([SHIPPED])
    assert locales == ["en", "zh"]
    assert all(names(locale) == names("en") for locale in locales)


def test_every_kind_slot_has_a_template_in_every_locale():
    for locale in available_locales([SHIPPED]):
        for kind in BUILTIN_KINDS.values():
            for slot in kind.slots.values():
                assert slot.default in names(locale), (locale, slot.default)


@pytest.mark.parametrize("locale", available_locales([SHIPPED]))
def test_every_template_renders_with_its_kinds_sample(locale):
    templates = Templates([SHIPPED], locale)
    for kind in BUILTIN_KINDS.values():
        for slot in kind.slots.values():
            loaded = templates.load(slot.default, slot.sample)
            assert isinstance(loaded, Template), loaded
            text = loaded.render(slot.sample)
            assert text and not text.endswith("\n") and "{{" not in text


def test_english_first_template_is_the_seed_text_byte_for_byte():
    templates = Templates([SHIPPED], "en")
    first = templates.load("repeat-tool-reminder/first.j2", {})
    assert first.render() == (  # type: ignore[union-attr]
        "You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result "
        "before calling again: if the task is not complete, try a different approach or different arguments instead "
        "of repeating the call."
    )


@pytest.mark.parametrize(
    ("requested", "available", "resolved"),
    [
        ("en", ["en", "zh"], "en"),
        ("zh-CN", ["en", "zh"], "zh"),
        ("zh-CN", ["en", "zh", "zh-CN"], "zh-CN"),
        ("zh_cn", ["zh-CN"], "zh-CN"),
        ("fr", ["en", "zh"], None),
    ],
)
def test_resolve_locale(requested, available, resolved):
    assert resolve_locale(requested, available) == resolved


def user_template(tmp_path: Path, body: str) -> str:
    folder = tmp_path / "mine" / "en"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "first.j2").write_text(body, encoding="utf-8")
    return "templateDirs: [mine]\nguards:\n  - id: repeat-tool-reminder\n    config:\n      templates: {first: first.j2}\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("line one\n{{ tool }\n", "mine/en/first.j2:2:1: template syntax error: unexpected '}'"),
        ("{% if %}\n", "mine/en/first.j2:1:1: template syntax error: Expected an expression, got 'end of statement block'"),
        ("a\nb {{ toool }}\n", "mine/en/first.j2:2:1: unknown variable `toool` (known: `arguments`, `count`, `tool`)"),
        ("{{ tool.__class__ }}\n", "mine/en/first.j2:1:1: access to `__class__` is not allowed in a template"),
        ("{{ tool['__class__'] }}\n", "mine/en/first.j2:1:1: access to `__class__` is not allowed in a template"),
        ("{{ [].append(1) }}\n", "mine/en/first.j2:1:1: calling `append` is not allowed in a template"),
        ("{{ count / 0 }}\n", "mine/en/first.j2:1:1: template failed to render: division by zero"),
        ("{{ tool | nosuchfilter }}\n", "mine/en/first.j2:1:1: template syntax error: No filter named 'nosuchfilter'."),
        ("{{ 'x' * 10**9 }}\n", "mine/en/first.j2:1:1: template failed to render: a value longer than 100000 is not allowed in a template"),
        ("{{ count ** 1000 }}\n", "mine/en/first.j2:1:1: template failed to render: an exponent above 64 is not allowed in a template"),
        ("{{ 'x' * 1000000 }}\n", "mine/en/first.j2:1:1: template failed to render: a value longer than 100000 is not allowed in a template"),
        ("{{ [tool] * count * 100000 }}\n", "mine/en/first.j2:1:1: template failed to render: a value longer than 100000 is not allowed in a template"),
        ("{{ range(100001) | length }}\n", "mine/en/first.j2:1:1: template failed to render: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."),
    ],
)
def test_broken_user_templates_fail_at_load(write_guard_file, tmp_path, body, expected):
    path = write_guard_file(user_template(tmp_path, body))
    (got,) = check_file(path)
    folder = str(tmp_path) + "/"
    assert str(got).replace(folder, "") == f"{expected} (the `first` template of guards[0] in g.yaml)"


def test_a_user_template_overrides_the_shipped_one(write_guard_file, tmp_path):
    path = write_guard_file(user_template(tmp_path, "{% set n = count * 2 %}Twice {{ n }} for {{ tool }}\n"))
    engine = tg.load(path)
    decisions = [engine.post_execute(tg.ToolEvent("grep", {}, agent="a")) for _ in range(3)]
    assert decisions[2].additional_contexts[0].text == "Twice 6 for grep"



@pytest.mark.parametrize(("body", "expected"), [
    ("{% for i in range(count) %}{{ i }}{% endfor %}", "012"),  # the sandbox's own range
    ("{% set ns = namespace(n=count) %}{% set ns.n = ns.n + 1 %}{{ ns.n }} {{ dict(tool=tool).tool }}", "4 grep"),
    ("{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}", "aba"),
])
def test_a_user_template_sees_jinjas_globals(write_guard_file, tmp_path, body, expected):
    engine = tg.load(write_guard_file(user_template(tmp_path, body + "\n")))
    decisions = [engine.post_execute(tg.ToolEvent("grep", {}, agent="a")) for _ in range(3)]
    assert decisions[2].additional_contexts[0].text == expected


def _fifo(path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    os.mkfifo(path)


def _sparse(size: int) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        with open(path, "wb") as sparse:
            sparse.truncate(size)

    return make


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        # never skipped for the shipped `repeat-tool-reminder/first.j2`, never waited on, never read whole
        (_fifo, "mine/en/first.j2:1:1: not a regular file (a named pipe)"),
        (Path.mkdir, "mine/en/first.j2:1:1: not a regular file (a directory)"),
        (_sparse(104_857_600),
         "mine/en/first.j2:1:1: the file is 104857600 bytes; a template may be at most 65536 bytes (64 KiB)"),
        (_sparse(65_537), "mine/en/first.j2:1:1: the file is 65537 bytes; a template may be at most 65536 bytes (64 KiB)"),
        (lambda path: path.write_bytes(b"line one\n\tTwo caf\xe9 {{ tool }}\n"),
         "mine/en/first.j2:2:9: the file is not UTF-8 text (byte 0xe9)"),
        (lambda path: path.write_bytes("中文\r\n中".encode() + b"\xff"), "mine/en/first.j2:2:2: the file is not UTF-8 text (byte 0xff)"),
    ],
)
def test_a_template_file_that_cannot_be_one_is_reported_at_it(write_guard_file, tmp_path, make, expected):
    path = write_guard_file(user_template(tmp_path, "unused"))
    (tmp_path / "mine" / "en" / "first.j2").unlink()
    make(tmp_path / "mine" / "en" / "first.j2")
    with Watchdog(tmp_path / "mine" / "en" / "first.j2"):
        (got,) = check_file(path)
    assert str(got).replace(str(tmp_path) + "/", "") == f"{expected} (the `first` template of guards[0] in g.yaml)"


def test_a_template_of_64_kib_loads(write_guard_file, tmp_path):
    path = write_guard_file(user_template(tmp_path, "{{ tool }}" + "x" * (64 * 1024 - len("{{ tool }}"))))
    assert check_file(path) == []


def test_an_included_template_that_is_a_named_pipe_is_a_render_problem(write_guard_file, tmp_path):
    path = write_guard_file(user_template(tmp_path, '{% include "other.j2" %}\n'))
    _fifo(tmp_path / "mine" / "en" / "other.j2")
    with Watchdog(tmp_path / "mine" / "en" / "other.j2"):
        (got,) = check_file(path)
    assert str(got).replace(str(tmp_path) + "/", "") == (
        "mine/en/first.j2:1:1: template failed to render: `mine/en/other.j2`: not a regular file (a named pipe) "
        "(the `first` template of guards[0] in g.yaml)"
    )
