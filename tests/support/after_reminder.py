"""What followed the reminders of a recorded session, as the two surfaces give it: ``toolguards replay --summary
--format json`` (its ``outcomes`` rows and ``cost``) and the "After the reminder" section of ``toolguards report``'s
page, read back into the JSON's shape so that a test can check the two agree.

::

    found = summary(transcript, guard_file)             # the JSON document
    rows(found)                                         # its outcome rows as tuples, in FIELDS order
    found["cost"] == one_tools_cost("Bash", {"input": 1, "output": 1}, 7, 6, 3)
    page = report(transcript, guard_file, tmp_path / "page.html")
    assert shown(page) == figures(found)                # the page says what the JSON says
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from support.hooks import TOOLGUARDS

__all__ = ["FIELDS", "figures", "one_tools_cost", "report", "rows", "shown", "summary"]

#: An outcome row's fields, in the order the tests write a row.
FIELDS = ("guard", "template", "tool", "model", "delivered", "reminders", "changed", "repeated", "ended", "followed")
_COUNTS = ("tokens", "tokens_in_loops", "tokens_after_reminder")


def _run(*words: str, env: Mapping[str, str] | None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(TOOLGUARDS), *words], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def summary(session: Path, guard_file: Path, *options: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``toolguards replay --summary --format json`` of one session under ``guard_file``."""
    done = _run("replay", "--summary", "--format", "json", "--config", str(guard_file), *options, str(session), env=env)
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def rows(document: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """The document's outcome rows, each as a tuple of ``FIELDS``."""
    return [tuple(row[key] for key in FIELDS) for row in document["outcomes"]]


def one_tools_cost(tool: str, turn: Mapping[str, int], turns: int, in_loops: int, after_reminder: int) -> dict[str, Any]:
    """The ``cost`` block of a session where every turn spent ``turn`` tokens and no price applies, whose loops are
    all of ``tool``: ``turns`` turns in all, ``in_loops`` in its loops, ``after_reminder`` after their first reminder."""
    def times(n: int) -> dict[str, int]:
        return {"input": n * turn["input"], "output": n * turn["output"]}

    loops = {"tokens_in_loops": times(in_loops), "tokens_after_reminder": times(after_reminder),
             "dollars_in_loops": None, "dollars_after_reminder": None}
    return {"tokens": times(turns), **loops, "tools": {tool: loops}}


def report(session: Path, guard_file: Path, page: Path, env: Mapping[str, str] | None = None) -> str:
    """``toolguards report`` of one session under ``guard_file``: the page's HTML."""
    _run("report", "--config", str(guard_file), "-o", str(page), str(session), env=env)
    return page.read_text(encoding="utf-8")


def figures(document: Mapping[str, Any]) -> dict[str, Any]:
    """What the report's section shows of a JSON document: the outcome rows and the three token counts."""
    cost = document["cost"]
    return {"outcomes": rows(document), **{name: None if cost is None else cost[name] for name in _COUNTS}}


def shown(page: str) -> dict[str, Any]:
    """The "After the reminder" section of a report page, in the shape of ``figures``."""
    start = page.index('<section id="after">')
    section = page[start:page.index("</section>", start)]
    found = []
    for cells in re.findall(r"<tr data-guard=.*?</tr>", section):
        texts = [html.unescape(text) for text in re.findall(r"<td[^>]*>(.*?)</td>", cells)]
        shares = (int(text.split("/")[0]) for text in texts[6:9])  # "1/2 (50%)": the count before its n
        found.append((texts[0], texts[1], texts[2], texts[3] or None, texts[4] == "yes", int(texts[5]), *shares,
                      int(texts[9])))
    every = re.search(r'<tr data-tool=""><td>[^<]*\([^:<]*: (\d+) / (\d+)\)</td>', section)
    counts = dict(re.findall(r'data-tokens="(\w+)">(\d+ / \d+)', section))
    tokens: dict[str, Any] = {name: None for name in _COUNTS}
    if every is not None:
        tokens["tokens"] = {"input": int(every[1]), "output": int(every[2])}
        for name in ("in_loops", "after_reminder"):
            spent, made = counts[name].split(" / ")
            tokens[f"tokens_{name}"] = {"input": int(spent), "output": int(made)}
    return {"outcomes": found, **tokens}
