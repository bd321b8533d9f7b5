"""``ignoreArguments`` and ``resultNormalizers`` in the kinds that compare arguments, results and errors: calls that
differ only in an ignored argument form one run, a result that differs only in a normalized part is the same result,
and a guard without them compares exactly as before."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolguards as tg
from conftest import FIRST, detailed
from toolguards.guardfile.diagnostics import ConfigError

PGID = [{"pattern": r"Process Group PGID: \d+", "replacement": "Process Group PGID: <pgid>"}]


def engine(kind: str, **config: Any) -> tg.Engine:
    return tg.from_mapping({"guards": [{"id": kind, "config": config}]})


def fired(decisions: list[tg.PostToolDecision]) -> list[int]:
    return [i for i, d in enumerate(decisions, 1) if d.additional_contexts]


def shell_result(pgid: int, output: str = "smoke check failed") -> str:
    """A Gemini CLI run_shell_command result (llmContent) as Gemini CLI 0.61 writes it: a new PGID every call."""
    return f"<untrusted_context>\nOutput: {output}\nProcess Group PGID: {pgid}\n</untrusted_context>"


def run(eng: tg.Engine, calls: list[tuple[str, Any, Any]], agent: str = "a") -> list[tg.PostToolDecision]:
    return [eng.post_execute(tg.ToolEvent(tool, arguments, agent=agent, result=result))
            for tool, arguments, result in calls]


def progress(i: int) -> dict[str, Any]:
    return {"command": "pytest -q", "task_progress": f"- [x] step {i}"}


def test_calls_that_differ_only_in_an_ignored_argument_form_one_run():
    calls = [("execute_command", progress(i), None) for i in range(8)]
    assert fired(run(engine("repeat-tool-reminder"), calls)) == []
    decisions = run(engine("repeat-tool-reminder", ignoreArguments=["task_progress"]), calls)
    assert fired(decisions) == [3, 5, 8]
    assert decisions[2].additional_contexts[0].text == FIRST
    # the reminder quotes the latest call's full arguments, the ignored part included
    full = json.dumps(progress(4), separators=(",", ":"), sort_keys=True)
    assert decisions[4].additional_contexts[0].text == detailed("execute_command", 5, full)


@pytest.mark.parametrize(
    ("paths", "arguments", "positions"),
    [
        (["options.requestId"], [{"q": "x", "options": {"requestId": i}} for i in range(3)], [3]),
        (["*.requestId"], [{"q": "x", "options": {"requestId": i}} for i in range(3)], [3]),
        (["edits.*.id"], [{"edits": [{"id": i, "text": "t"}]} for i in range(3)], [3]),
        (["options.requestId"], [{"q": str(i), "options": {"requestId": i}} for i in range(3)], []),
        (["requestId"], [{"q": "x", "options": {"requestId": i}} for i in range(3)], []),  # a top-level key only
    ],
)
def test_paths_in_nested_arguments(paths, arguments, positions):
    eng = engine("repeat-tool-reminder", thresholds=[3], ignoreArguments=paths)
    assert fired(run(eng, [("t", a, None) for a in arguments])) == positions


def test_an_override_sets_its_own_paths_and_the_rest_keep_the_guards():
    eng = engine("repeat-tool-reminder", thresholds=[3], ignoreArguments=["nonce"],
                 overrides=[{"tools": ["execute_command"], "ignoreArguments": ["task_progress"]}])
    assert fired(run(eng, [("execute_command", progress(i), None) for i in range(3)])) == [3]
    assert fired(run(eng, [("execute_command", {"nonce": i}, None) for i in range(3)], agent="b")) == []
    assert fired(run(eng, [("fetch", {"nonce": i}, None) for i in range(3)], agent="c")) == [3]


def test_a_gemini_shell_result_with_changing_pgids_reminds_once_normalized():
    calls = [("run_shell_command", {"command": "echo smoke check failed"}, shell_result(7363 + i)) for i in range(5)]
    assert fired(run(engine("repeat-tool-reminder", resultAware=True), calls)) == []
    normalized = engine("repeat-tool-reminder", overrides=[
        {"tools": ["run_shell_command"], "resultAware": True, "resultNormalizers": PGID}])
    assert fired(run(normalized, calls)) == [3, 5]
    # a re-run whose output did change is still progress
    changed = [*calls[:2], ("run_shell_command", {"command": "echo smoke check failed"}, shell_result(9, "passed"))]
    assert fired(run(normalized, changed, agent="b")) == []


def test_normalizers_reach_into_structured_results():
    result = [{"content": [{"type": "text", "text": f"fetched at 12:00:0{i}\nno rows"}]} for i in range(3)]
    eng = engine("repeat-tool-reminder", thresholds=[3], resultAware=True,
                 resultNormalizers=[{"pattern": r"\d\d:\d\d:\d\d"}])
    assert fired(run(eng, [("query", {"sql": "select 1"}, r) for r in result])) == [3]


def test_the_cycle_guard_leaves_the_ignored_argument_out_and_quotes_it():
    calls = [(tool, {"path": "a.py", "task_progress": f"step {i}"}, None) for i in range(3) for tool in ("read", "test")]
    assert fired(run(engine("cycle-reminder"), calls)) == []
    decisions = run(engine("cycle-reminder", repetitions=[2, 3], ignoreArguments=["task_progress"]), calls)
    assert fired(decisions) == [4, 6]
    assert '{"path":"a.py","task_progress":"step 2"}' in decisions[5].additional_contexts[0].text


def test_the_error_guard_keys_the_normalized_error_and_quotes_the_error_as_it_came():
    errors = [f"Error: quota exceeded (request 3f2a{i}c1e-77aa)" for i in range(3)]
    calls = [tg.ToolEvent("fetch", {"page": i}, agent="a", error=e) for i, e in enumerate(errors)]
    plain = engine("repeated-error-reminder")
    assert fired([plain.post_execute(c) for c in calls]) == []
    eng = engine("repeated-error-reminder", thresholds=[2, 3],
                 resultNormalizers=[{"pattern": r"request [0-9a-f-]+", "replacement": "r"}])
    decisions = [eng.post_execute(c) for c in calls]
    assert fired(decisions) == [2, 3]
    facts = decisions[2].additional_contexts[0]
    assert facts.metadata["error"] == errors[2]
    assert errors[2] in facts.text


def test_without_the_options_the_state_is_the_same_as_before():
    # The keys are digested from the very same text: a persisted state does not change when the options are absent.
    from toolguards.stores.mapping import holding

    calls = [tg.ToolEvent("t", {"q": 1, "p": "x"}, agent="a", result="r", call_id=f"c{i}") for i in range(2)]
    states = []
    for config in ({"resultAware": True}, {"resultAware": True, "ignoreArguments": [], "resultNormalizers": []},
                   {"resultAware": True, "ignoreArguments": ["absent"], "resultNormalizers": [{"pattern": "nope"}]}):
        eng = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "config": config}]}, stores="mapping")
        held: dict[str, Any] = {}
        with holding("a", held):
            for call in calls:
                eng.post_execute(call)
        states.append(held)
    assert states[0] == states[1] == states[2]
    assert states[0]["repeat-tool-reminder"]["state"]["count"] == 2


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"ignoreArguments": ["a..b", "ok", "c\\"]},
         ["<mapping>: guards[0].config.ignoreArguments[0]: invalid path `a..b`: empty segment at character 3",
          "<mapping>: guards[0].config.ignoreArguments[2]: invalid path `c\\`: lone backslash at character 2"]),
        ({"ignoreArguments": ["x", "x"]},
         ["<mapping>: guards[0].config.ignoreArguments: `ignoreArguments` must not contain duplicates"]),
        ({"ignoreArguments": "x"},
         ['<mapping>: guards[0].config.ignoreArguments: must be a list, not the string "x"']),
        ({"resultNormalizers": [{"pattern": "("}, {"replacement": "x"}, {"pattern": "", "x": 1}]},
         ["<mapping>: guards[0].config.resultNormalizers[1]: missing required key `pattern`",
          "<mapping>: guards[0].config.resultNormalizers[2].x: unknown key `x` (expected one of: `pattern`, "
          "`replacement`)",
          "<mapping>: guards[0].config.resultNormalizers[2].pattern: a normalizer's pattern must not be empty"]),
        ({"resultNormalizers": [{"pattern": "("}]},
         ["<mapping>: guards[0].config.resultNormalizers[0].pattern: not an RE2 pattern: missing ): ("]),
        ({"overrides": [{"tools": ["x"], "resultNormalizers": [{"pattern": "(?=a)"}], "ignoreArguments": ["*."]}]},
         ["<mapping>: guards[0].config.overrides[0].ignoreArguments[0]: invalid path `*.`: empty segment at "
          "character 2",
          "<mapping>: guards[0].config.overrides[0].resultNormalizers[0].pattern: not an RE2 pattern: invalid perl "
          "operator: (?="]),
    ],
)
def test_mistakes_are_reported_with_their_place(config, expected):
    with pytest.raises(ConfigError) as raised:
        engine("repeat-tool-reminder", **config)
    assert [str(d) for d in raised.value.diagnostics] == expected


def test_an_inherited_mistake_is_reported_once():
    with pytest.raises(ConfigError) as raised:
        engine("repeat-tool-reminder", ignoreArguments=["a."], overrides=[{"tools": ["x"]}, {"tools": ["y"]}])
    assert [str(d) for d in raised.value.diagnostics] == [
        "<mapping>: guards[0].config.ignoreArguments[0]: invalid path `a.`: empty segment at character 2"]


def test_a_bad_pattern_in_a_file_points_at_its_line_and_column(write_guard_file):
    path = write_guard_file(
        "guards:\n"
        "  - id: repeated-error-reminder\n"
        "    config:\n"
        "      resultNormalizers:\n"
        "        - pattern: 'ok'\n"
        "        - {replacement: x, pattern: '[z-a]'}\n"
    )
    assert [str(d) for d in tg.check_file(path)] == [
        "g.yaml:6:37: guards[0].config.resultNormalizers[1].pattern: not an RE2 pattern: invalid character class "
        "range: z-a"]
