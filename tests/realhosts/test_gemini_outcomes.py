"""What followed each reminder in a session the real Gemini CLI 0.61 records under a toolguards hook (installed as
a user installs it, headless against the scripted model): replay finds the two reminders the hook delivered inside
the calls' results, and Gemini CLI's own loop note, with their outcomes and the turns' tokens."""

from __future__ import annotations

import json
import subprocess

import pytest

from support.after_reminder import figures, report, shown, summary
from support.gemini_cli import SCRIPT, Run, run_gemini, toolguards_command
from toolguards.resources import shipped_guard_file


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> Run:
    run = run_gemini(tmp_path_factory.mktemp("gemini-outcomes"), SCRIPT)
    assert run.process.returncode == 0, run.process.stderr
    return run


def test_the_delivered_reminders_and_their_outcomes(loop):
    (chat,) = loop.chat_files()
    done = subprocess.run([str(toolguards_command()), "replay", "--format", "json", "--config",
                           str(shipped_guard_file("gemini-cli.yaml")), str(chat)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    rows = [(row["guard"], row["template"], row["delivered"], row["reminders"], row["changed"], row["repeated"],
             row["ended"], row["followed"]) for row in found["outcomes"]]
    # after the 3rd call the model sent the same call once more; after the 4th it sent it again, and Gemini CLI
    # stopped that call with its own note, after which the prompt ended
    assert rows == [
        ("gemini-cli", "loop-detected", True, 1, 0, 0, 1, 0),
        ("repeat-tool-reminder", "detailed", True, 1, 0, 0, 1, 0),
        ("repeat-tool-reminder", "first", True, 1, 0, 1, 0, 1),
    ]
    # every model turn that made a call has its tokens (the scripted model says 100 in, 10 out); the loop's four
    # turns, and the one after the 3rd call
    assert found["cost"]["tokens_in_loops"] == {"input": 400, "output": 40}
    assert found["cost"]["tokens_after_reminder"] == {"input": 100, "output": 10}


def test_the_report_shows_the_same_figures(loop, tmp_path):
    (chat,) = loop.chat_files()
    guard_file = shipped_guard_file("gemini-cli.yaml")
    found = summary(chat, guard_file)
    assert shown(report(chat, guard_file, tmp_path / "page.html")) == figures(found)
    assert len(found["outcomes"]) == 3  # the rows the test above pins
