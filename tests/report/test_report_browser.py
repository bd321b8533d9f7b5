"""The report page in a real browser: headless Chromium, JavaScript on, driven over the DevTools protocol
(tests/chromium.py). The page loads with no console error and no request but its own file, shows the totals
``replay --summary`` prints and the expected longest run first, its script works, and data never runs as script."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_report_command import summary_figures

from conftest import SHARED_FIXTURES, require
from support.chromium import Browser
from toolguards.cli import main

pytestmark = pytest.mark.needs_shared



@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    require("chromium", "the report's browser test drives it headless", "chromium")
    started = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield started
    started.close()


def opened(browser: Browser, page: Path) -> None:
    browser.open(page.as_uri())
    assert browser.evaluate("document.documentElement.getAttribute('data-ready')") == "1"  # the script ran


CODEX = SHARED_FIXTURES / "hosts" / "sessions" / "codex-rollout" / "codemie-rollout-2026-05-11T11-26-55.jsonl"
PELICAN = SHARED_FIXTURES / "transcripts" / "anthropic-llm-anthropic-test-tools.json"


@pytest.mark.parametrize(
    ("options", "first_row"),
    [
        # `toolguards report ../shared/fixtures/`: its one repeated call is a tool asked twice, with two answers.
        ([], [str(PELICAN), "main", "pelican_name_generator", "2 Δ", "{}", f"{PELICAN}:11"]),
        # Codex polls counted: the rollout's six identical write_stdin polls come first.
        (["--count-polls"], [str(CODEX), "019e1625-789d-76c0-80ab-3724b5ddb799", "write_stdin", "6 Δ",
                             '{"chars":"","max_output_tokens":22000,"session_id":98003,"yield_time_ms":1000}',
                             f"{CODEX}:330"]),
    ],
)
def test_the_page_of_the_shared_fixtures(browser, tmp_path, capsys, options, first_row):
    code = main(["replay", "--summary", *options, str(SHARED_FIXTURES)])
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("replayed "))
    page = tmp_path / "report.html"
    assert main(["report", "-o", str(page), *options, str(SHARED_FIXTURES)]) == code  # 1: its schema files fail
    capsys.readouterr()
    opened(browser, page)

    assert browser.problems() == []
    assert browser.requests() == [page.as_uri()]

    shown = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('[data-total]')]"
        ".map(e => [e.dataset.total, Number(e.textContent)]))"
    )
    figures, counts = summary_figures(line)
    assert shown == figures
    rows = browser.evaluate(
        "[...document.querySelectorAll('#reminders-by-threshold tbody tr')]"
        ".map(r => [r.dataset.guard, r.dataset.count, r.querySelector('.drawn').textContent])"
    )
    assert {(guard, int(count)): int(n) for guard, count, n in rows} == counts

    first = browser.evaluate(
        "[...document.querySelector('#longest-runs tbody tr').cells].slice(1).map(c => c.textContent.trim())"
    )
    assert first == first_row

    # The script works: a click sorts the table by length (shortest first), the filter hides sessions.
    lengths = "[...document.querySelectorAll('#longest-runs tbody td.length')].map(c => Number(c.dataset.v))"
    before = browser.evaluate(lengths)
    browser.evaluate("document.querySelectorAll('#longest-runs th')[4].click()")
    assert browser.evaluate(lengths) == sorted(before)
    browser.evaluate(
        "(() => { const f = document.getElementById('session-filter'); f.value = 'dsh-sessions';"
        " f.dispatchEvent(new Event('input')); })()"
    )
    assert browser.evaluate("document.getElementById('shown').textContent") == f"4 / {figures['sessions']}"
    assert browser.problems() == []

    shot = tmp_path / "report.png"
    browser.screenshot(shot)
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and shot.stat().st_size > 10_000


def test_data_never_runs_as_script(browser, tmp_path):
    texts = ["<script>window.pwned = 1</script>", '"><img src=x onerror="window.pwned = 2">',
             "</title></svg><script>window.pwned = 3</script>"]
    session = tmp_path / "s.jsonl"
    session.write_text("".join(
        json.dumps({"type": "post-execute", "agent": text, "tool": text, "arguments": {"q": text}, "result": i}) + "\n"
        for text in texts for i in range(5)
    ), encoding="utf-8")
    page = tmp_path / "report.html"
    assert main(["report", "-o", str(page), str(session)]) == 0
    opened(browser, page)
    assert browser.problems() == []
    assert browser.requests() == [page.as_uri()]
    assert browser.evaluate("typeof window.pwned") == "undefined"
    assert browser.evaluate("document.scripts.length") == 1
    assert browser.evaluate("document.images.length") == 0
    tools = browser.evaluate("[...document.querySelectorAll('#tool-table tbody td:first-child')].map(c => c.textContent)")
    assert sorted(tools) == sorted(texts)
    assert re.search(r"<script>window", page.read_text(encoding="utf-8")) is None
