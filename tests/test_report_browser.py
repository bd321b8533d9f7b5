"""The report page in a real browser: headless Chromium, JavaScript on, driven over the DevTools protocol
(tests/chromium.py). The page loads with no console error and no request but its own file, shows the totals
``replay --summary`` prints and the expected longest run first, its script works, and data never runs as script."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chromium import Browser, executable
from conftest import REPO, SHARED_FIXTURES
from test_report_command import by_threshold, recorded_inputs, summary_figures
from toolguards.cli import main

pytestmark = [
    pytest.mark.skipif(executable() is None, reason="chromium is not installed (Debian: apt-get install -y chromium)"),
    pytest.mark.skipif(not SHARED_FIXTURES.is_dir(), reason=f"the shared fixtures are not here ({SHARED_FIXTURES})"),
]

POLLING = REPO / "examples" / "openai-polling-session.json"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    started = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield started
    started.close()


def opened(browser: Browser, page: Path) -> None:
    browser.open(page.as_uri())
    assert browser.evaluate("document.documentElement.getAttribute('data-ready')") == "1"  # the script ran


def test_the_page_of_the_recorded_sessions(browser, tmp_path, capsys):
    assert main(["replay", "--summary", *recorded_inputs()]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("replayed "))
    page = tmp_path / "report.html"
    assert main(["report", "-o", str(page), *recorded_inputs()]) == 0
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
    assert by_threshold("".join(
        f'<tr data-guard="{g}" data-count="{c}">x<td class="num drawn">{n}</td>' for g, c, n in rows
    )) == counts

    first = browser.evaluate(
        "[...document.querySelector('#longest-runs tbody tr').cells].slice(1).map(c => c.textContent.trim())"
    )
    assert first == [str(POLLING), "main", "get_deploy_status", "7 Δ", '{"job_id":"dep-7731"}', f"{POLLING}:6"]

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
