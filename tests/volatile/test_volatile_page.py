"""docs/volatile.md is run: its guard files load, its invalid one gives exactly the diagnostics shown, and the
reminder it quotes is the one the kind renders."""

from __future__ import annotations

import re

import toolguards as tg
from conftest import REPO

PAGE = (REPO / "docs" / "volatile.md").read_text(encoding="utf-8")


def test_every_guard_file_on_the_page_but_the_invalid_one_loads(write_guard_file):
    invalid = PAGE.split("<!-- volatile:invalid -->\n```yaml\n", 1)[1].split("```", 1)[0]
    blocks = re.findall(r"```yaml\n(.*?)```", PAGE, re.DOTALL)
    assert len(blocks) == 4 and invalid in blocks
    for block in blocks:
        if block != invalid:
            assert tg.check_file(write_guard_file(block)) == []


def test_the_invalid_guard_file_gives_the_diagnostics_shown(write_guard_file):
    after = PAGE.split("<!-- volatile:invalid -->\n```yaml\n", 1)[1]
    invalid, rest = after.split("```", 1)
    shown = rest.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    assert [str(d) for d in tg.check_file(write_guard_file(invalid))] == shown


def test_the_quoted_reminder_is_the_one_the_kind_renders():
    quoted = PAGE.split("At its first threshold the model reads:\n\n```text\n", 1)[1].split("\n```", 1)[0]
    engine = tg.from_mapping({"guards": [{"id": "no-progress-reminder"}]})
    decisions = [engine.post_execute(tg.ToolEvent("read_page", {"offset": i}, agent="a", result="denied"))
                 for i in range(3)]
    assert decisions[2].additional_contexts[0].text == quoted
