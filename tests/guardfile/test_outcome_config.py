"""The guard file's keys for outcomes and A/B comparisons (``shadow``, ``outcomes.log``, ``prices``) and the
``--prices`` file: every mistake a diagnostic at its place, nothing falling back to a default."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolguards as tg
from toolguards.guardfile.diagnostics import ConfigError
from toolguards.guardfile.prices import Price, load_prices

SHADOW = "must be true, false or a share of the agents from 0 to 1"
PRICE = "must be a number >= 0 (US dollars per million tokens)"


@pytest.mark.parametrize(("text", "expected"), [
    ("guards:\n  - id: repeat-tool-reminder\n    shadow: 2\n", [f"g.yaml:3:13: guards[0].shadow: invalid shadow 2 — {SHADOW}"]),
    ("guards:\n  - id: repeat-tool-reminder\n    shadow: -0.1\n",
     [f"g.yaml:3:13: guards[0].shadow: invalid shadow -0.1 — {SHADOW}"]),
    ('guards:\n  - id: repeat-tool-reminder\n    shadow: "half"\n',
     [f'g.yaml:3:13: guards[0].shadow: invalid shadow "half" — {SHADOW}']),
    ("guards:\n  - id: repeat-tool-reminder\n    shadow: null\n",
     [f"g.yaml:3:13: guards[0].shadow: invalid shadow null — {SHADOW}"]),
    ("outcomes: {log: ''}\nguards: []\n", ["g.yaml:1:17: outcomes.log: must not be empty"]),
    ("outcomes: {file: x.jsonl}\nguards: []\n",
     ["g.yaml:1:12: outcomes.file: unknown key `file` (expected one of: `log`)"]),
    ("outcomes: x.jsonl\nguards: []\n", ['g.yaml:1:11: outcomes: must be a mapping, not the string "x.jsonl"']),
    ("prices:\n  gpt-5*: {input: -1, output: 10}\nguards: []\n",
     [f"g.yaml:2:19: prices.gpt-5*.input: invalid price -1 — {PRICE}"]),
    ("prices:\n  gpt-5*: {input: 1}\nguards: []\n", ["g.yaml:2:11: prices.gpt-5*: missing required key `output`"]),
    ("prices:\n  gpt-5*: {input: 1, output: '10', cached: 0.1}\nguards: []\n",
     [f'g.yaml:2:30: prices.gpt-5*.output: invalid price "10" — {PRICE}',
      "g.yaml:2:36: prices.gpt-5*.cached: unknown key `cached` (expected one of: `input`, `output`)"]),
    ("prices: [gpt]\nguards: []\n", ["g.yaml:1:9: prices: must be a mapping, not a list"]),
    ("guards:\n  - id: a\n    kind: repeat-tool-reminder\n  - id: 'a#outcomes'\n    kind: repeat-tool-reminder\n",
     ["g.yaml:4:9: guards[1].id: guard id `a#outcomes` is taken: the reminders of guards[0] wait for their outcomes "
      "under it (choose another id)"]),
])
def test_every_mistake_is_a_positioned_diagnostic(tmp_path, monkeypatch, text, expected):
    monkeypatch.chdir(tmp_path)
    Path("g.yaml").write_text(text, encoding="utf-8")
    assert [str(problem) for problem in tg.check_file("g.yaml")] == expected


@pytest.mark.parametrize(("value", "share"), [(True, 1.0), (False, 0.0), (0, 0.0), (1, 1.0), (0.25, 0.25)])
def test_shadow_values(value, share):
    engine = tg.from_mapping({"guards": [{"id": "repeat-tool-reminder", "shadow": value}]})
    assert engine.shadow == (share,)


def test_the_log_is_relative_to_the_guard_file_and_prices_keep_their_order(tmp_path):
    from toolguards.guardfile.loader import check_bytes

    text = b"outcomes: {log: o.jsonl}\nprices:\n  gpt-5-mini: {input: 0.25, output: 2}\n  'gpt-5*': {input: 1.25, output: 10}\nguards: []\n"
    checked = check_bytes("g.yaml", text, tmp_path)
    assert checked.guard_file.outcome_log == tmp_path / "o.jsonl"
    prices = checked.guard_file.prices
    assert (prices.price("gpt-5-mini"), prices.price("gpt-5.1"), prices.price("o3"), prices.price(None)) == (
        Price(0.25, 2.0), Price(1.25, 10.0), None, None)
    assert Price(3, 15).cost(1_000_000, 200_000) == pytest.approx(6.0)


def test_a_prices_file_is_the_table_at_its_top_level(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("claude-*: {input: 3, output: 15}\n", encoding="utf-8")
    assert load_prices(path).price("claude-sonnet-4-5") == Price(3.0, 15.0)
    path.write_text("claude-*: {input: 3, output: -15}\nx: 1\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_prices(path)
    assert [str(d) for d in raised.value.diagnostics] == [
        f"{path}:1:30: claude-*.output: invalid price -15 — {PRICE}",
        f"{path}:2:4: x: must be a mapping, not the integer 1"]
