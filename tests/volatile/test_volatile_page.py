"""docs/volatile.md is run: its guard files load, its invalid one gives exactly the diagnostics shown, and the
reminder it quotes is the one the kind renders."""

from __future__ import annotations

import json

import toolguards as tg
from conftest import FIRST, FIXTURES, REPO, detailed
from support.docs_blocks import marked
from support.hooks import outputs

PAGE = "docs/volatile.md"


def test_the_invalid_guard_file_gives_the_diagnostics_shown(write_guard_file):
    invalid = marked(PAGE, "tested: volatile:invalid").text
    shown = marked(PAGE, "tested: volatile:diagnostics").text.splitlines()
    assert [str(d) for d in tg.check_file(write_guard_file(invalid))] == shown


def test_the_quoted_reminder_is_the_one_the_kind_renders():
    quoted = marked(PAGE, "tested: volatile:reminder").text.removesuffix("\n")
    engine = tg.from_mapping({"guards": [{"id": "no-progress-reminder"}]})
    decisions = [engine.post_execute(tg.ToolEvent("read_page", {"offset": i}, agent="a", result="denied"))
                 for i in range(3)]
    assert decisions[2].additional_contexts[0].text == quoted


def gemini_answer(text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": text}}) + "\n"


def test_real_gemini_shell_results_remind_under_the_shipped_gemini_example(tmp_path):
    # The hook events the real Gemini CLI 0.61 sent (tests/fixtures/gemini): a prompt, a `cat`, then the same `echo`
    # four times, each result with a new `Process Group PGID`. Under the example's normalizer the re-runs are the same
    # result, so the third and fourth draw the reminders; without it, every re-run looks like progress.
    events = [json.loads(line) for line in (FIXTURES / "gemini" / "hook-inputs.jsonl").read_text().splitlines()]
    pgids = {event["tool_response"]["llmContent"].rsplit("PGID: ", 1)[1] for event in events[2:]}
    assert len(pgids) == 4
    example = REPO / "examples" / "gemini-cli.yaml"
    shell = '{"command":"echo smoke check failed","description":"Run the smoke check."}'  # the preview is whole
    assert outputs("gemini", tmp_path / "with", events, "--config", str(example)) == [
        "", "", "", "", gemini_answer(FIRST), gemini_answer(detailed("run_shell_command", 4, shell))]
    plain = tmp_path / "plain.yaml"
    plain.write_text(example.read_text(encoding="utf-8").split("          resultNormalizers:")[0]
                     + "  - id: repeated-error-reminder\n", encoding="utf-8")
    assert outputs("gemini", tmp_path / "without", events, "--config", str(plain)) == [""] * 6
