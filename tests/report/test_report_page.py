"""The report page: every piece of data escaped, nothing to fetch, the same labels in every locale, and the layout
choices (folding, marks, what is left out) that the page promises."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from jinja2 import FileSystemLoader
from jinja2.sandbox import ImmutableSandboxedEnvironment

from conftest import REPO
from toolguards.cli import main
from toolguards.report.page import FOLD_ABOVE, locales, report_templates_dir, resolve_page_locale

NASTY = [
    "<script>window.pwned = 1</script>",
    '"><img src=x onerror="window.pwned = 2">',
    "</title></text></svg><script>window.pwned = 3</script>",
    "' onmouseover='window.pwned = 4",
    "&lt;already escaped&gt; &amp;",
    "<!-- not a comment --> ]]> {{ 7 * 7 }} {% raw %}",
]

# Every element the page itself writes; anything else would be data that escaped as markup.
ELEMENTS = {
    "html", "head", "meta", "link", "title", "style", "body", "header", "h1", "h2", "h3", "p", "span", "b", "code",
    "nav", "a", "main", "section", "dl", "div", "dt", "dd", "table", "thead", "tbody", "tr", "th", "td", "ul", "li",
    "button", "pre", "figure", "figcaption", "svg", "line", "rect", "text", "small", "g", "path", "details",
    "summary", "input", "script",
}


class Page(HTMLParser):
    """The page as a browser's tokenizer sees it: tags with their attributes, and the text between them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        raise AssertionError(f"a comment in the page: {data!r}")


def events_file(folder: Path, name: str, lines: list[dict]) -> str:
    path = folder / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def post(agent: str, tool: str, arguments: object, result: object = None) -> dict:
    event = {"type": "post-execute", "agent": agent, "tool": tool, "arguments": arguments}
    if result is not None:
        event["result"] = result
    return event


def report(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["report", "-o", "-", *args]) == 0
    return capsys.readouterr().out


@pytest.fixture
def nasty_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    lines = []
    for number, text in enumerate(NASTY):
        # A long polled run of a tool named after the text, with changing results: it lands in every section.
        lines += [post(text, text, {"q": text}, result=f"{text} {i}") for i in range(4 + number)]
    path = events_file(tmp_path, "s<b>&'\".jsonl", lines)
    return report([path], capsys)


def test_every_data_text_is_escaped(nasty_page):
    page = Page(nasty_page)
    names = {tag for tag, _ in page.tags}
    assert names <= ELEMENTS, names - ELEMENTS
    assert [tag for tag, _ in page.tags].count("script") == 1
    for tag, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert "src" not in attrs, (tag, attrs)
        if "href" in attrs:
            assert attrs["href"] == "data:," or str(attrs["href"]).startswith("#"), attrs
    text = "".join(page.text)
    for nasty in NASTY:
        assert nasty in text  # shown as text, exactly as it was
        assert json.dumps({"q": nasty}, ensure_ascii=False, separators=(",", ":"))[:40] in text  # the arguments
    assert "s<b>&'\".jsonl" in text  # the path
    assert "window.pwned" not in "".join(data for data in page.text if data.lstrip().startswith("(function"))


def test_the_suggested_yaml_is_escaped_text_that_loads(nasty_page, tmp_path):
    match = re.search(r'<pre id="suggested-yaml">(.*?)</pre>', nasty_page, re.S)
    assert match is not None
    text = Page(match.group(1)).text
    assert not Page(match.group(1)).tags
    path = tmp_path / "suggested.yaml"
    path.write_text("".join(text), encoding="utf-8")
    from toolguards.guardfile.loader import load

    guard = load(path).guards[0]
    # A name with `*` would be a wildcard in an override: it is named beside the YAML instead.
    assert [o.tools for o in guard.settings.overrides] == [tuple(sorted(t for t in NASTY if "*" not in t))]
    assert "which an override would read as a wildcard" in nasty_page


def test_nothing_is_fetched_and_only_the_pages_own_script_and_style_run(nasty_page):
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', nasty_page)
    assert csp is not None
    script = re.search(r"<script>(.*?)</script>", nasty_page, re.S)
    style = re.search(r"<style>(.*?)</style>", nasty_page, re.S)
    assert script is not None and style is not None

    def digest(text: str) -> str:
        return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")

    assert html.unescape(csp.group(1)) == (
        f"default-src 'none'; style-src '{digest(style.group(1))}'; script-src '{digest(script.group(1))}'; "
        "img-src data:"
    )
    assert not re.search(r"\b(?:https?|ftp)://", nasty_page)
    assert "@import" not in style.group(1) and "url(" not in style.group(1)
    for name in ("fetch(", "XMLHttpRequest", "WebSocket", "import(", "sendBeacon", ".src"):
        assert name not in script.group(1)


@pytest.mark.parametrize(("name", "closing"), [("style.css", "</style"), ("script.js", "</script")])
def test_the_inlined_files_cannot_end_their_element(name, closing):
    text = (report_templates_dir() / name).read_text(encoding="utf-8").casefold()
    assert closing not in text and "<!--" not in text


def label_names(locale: str) -> set[str]:
    env = ImmutableSandboxedEnvironment(loader=FileSystemLoader(str(report_templates_dir() / locale)))
    module = env.get_template("labels.j2").module
    return {name for name in dir(module) if not name.startswith("_")}


def test_every_locale_has_the_same_labels():
    assert locales() == ["en", "zh"]
    english = label_names("en")
    assert len(english) > 60
    for locale in locales():
        assert label_names(locale) == english, locale


@pytest.mark.parametrize(
    ("requested", "expected"), [("en", "en"), ("zh", "zh"), ("zh-CN", "zh"), ("ZH_tw", "zh"), ("fr", None)]
)
def test_page_locales_resolve_like_reminder_locales(requested, expected):
    assert resolve_page_locale(requested) == expected


@pytest.mark.parametrize(("locale", "lang", "heading"), [("en", "en", "Totals"), ("zh", "zh", "总计")])
def test_every_locale_renders_the_page(tmp_path, capsys, locale, lang, heading):
    path = events_file(tmp_path, "s.jsonl", [post("main", "grep", {"q": 1}) for _ in range(4)])
    page = report(["--locale", locale, path], capsys)
    assert f'<html lang="{lang}">' in page
    assert f'<h2>{heading}</h2>' in page
    assert "{{" not in page and "{%" not in page


@pytest.mark.parametrize(("sessions", "folded"), [(FOLD_ABOVE, False), (FOLD_ABOVE + 1, True)])
def test_timelines_are_folded_for_large_folders(tmp_path, capsys, sessions, folded):
    paths = [events_file(tmp_path, f"s{i:02}.jsonl", [post("main", "grep", {"q": i})]) for i in range(sessions)]
    page = report(paths, capsys)
    details = re.findall(r'<details class="session"[^>]*>', page)
    assert len(details) == sessions
    assert all((" open" in tag) != folded for tag in details)


def test_configured_thresholds_are_marked_and_tools_that_never_repeat_are_left_out_of_the_what_if(tmp_path, capsys):
    config = tmp_path / "g.yaml"
    config.write_text("guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: [4, 12]\n", "utf-8")
    path = events_file(tmp_path, "s.jsonl", [post("main", "grep", {"q": 1}) for _ in range(5)] + [post("main", "ls", {})])
    page = report(["--config", str(config), path], capsys)
    rows = re.findall(r'<tr data-threshold="(\d+)">\n<td class="num" data-v="\d+">\d+(.*?)</td>', page)
    assert [int(t) for t, _ in rows] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 12]
    assert [int(t) for t, mark in rows if "configured" in mark] == [4, 12]
    assert "¹" in dict(rows)["4"] and "¹" not in dict(rows)["12"]
    tools_table = page[page.index('class="sortable what-if-tools"'):]
    tools_table = tools_table[: tools_table.index("</table>")]
    assert "<code>grep</code>" in tools_table and "<code>ls</code>" not in tools_table


def test_the_problems_section_lists_failed_inputs_and_records_not_read(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("toolguards.report.page.MAX_FAILURES", 2)
    path = events_file(tmp_path, "s.jsonl", [{"type": "nope"}, post("m", "grep", {}), {"type": "also"}, {"type": "nope"}])
    missing = [str(tmp_path / f"missing{i}.jsonl") for i in range(3)]
    assert main(["report", "-o", "-", path, *missing]) == 1
    page = capsys.readouterr().out
    section = page[page.index('<section id="problems">'):]
    assert [html.unescape(m) for m in re.findall(r"<li><code>(.*?)</code></li>", section)] == [
        f"{missing[0]}:1: cannot read the input: No such file or directory",
        f"{missing[1]}:1: cannot read the input: No such file or directory",
    ]
    assert "and 1 more input" in section
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td><code>(\w+)</code></td><td>(\w+)</td><td><code>(.*?)</code>',
                      section)
    assert rows == [("2", "nope", "events", f"{path}:1"), ("1", "also", "events", f"{path}:3")]


@pytest.mark.parametrize(
    ("compare", "expected"),
    [
        (False, ["1 reminder", "1 reminder with resultAware"]),
        (True, ["A 1 reminder", "A 1 reminder with resultAware", "B 1 reminder", "B 1 reminder with resultAware"]),
    ],
)
def test_the_what_if_bars_say_what_they_count(tmp_path, capsys, compare, expected):
    path = events_file(tmp_path, "s.jsonl", [post("main", "grep", {"q": 1}) for _ in range(3)])
    page = report([*(["--compare", str(REPO / "examples" / "result-aware.yaml")] if compare else []), path], capsys)
    chart = page[page.index('<figure class="chart">'):]
    titles = re.findall(r'<rect class="wi[^"]*"[^>]*><title>(.*?)</title>', chart[: chart.index("</figure>")])
    assert titles[: len(expected)] == expected  # the first threshold, 2
