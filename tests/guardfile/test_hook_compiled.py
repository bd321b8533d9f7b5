"""The compiled guard-file cache gives exactly the engine ``load()`` gives, and is rebuilt whenever it may be wrong."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import toolguards
from conftest import FIRST, REPO
from toolguards.events import ToolEvent
from toolguards.guardfile import compiled
from toolguards.guardfile.diagnostics import ConfigError
from toolguards.resources import default_guard_file
from toolguards.stores import MemoryStore

GUARD_FILES = sorted([*(REPO / "guards").glob("*.yaml"), *(REPO / "examples").glob("*.yaml")])


def memory(_guard_id: str) -> MemoryStore[Any]:
    return MemoryStore()


def events(seed: int, count: int = 1500) -> list[ToolEvent | str]:
    """A long, loopy session of two agents: runs of identical calls, cycles, repeated errors, polls whose answer
    changes or not, re-delivered call ids, untracked tools, and new prompts ("reset:<agent>")."""
    rng = random.Random(seed)
    found: list[ToolEvent | str] = []
    serial = 0
    while len(found) < count:
        agent = rng.choice(["main", "agent:7"])
        shape = rng.choice(["run", "cycle", "errors", "poll", "mixed", "reset", "redeliver", "todo"])
        if shape == "reset":
            found.append(f"reset:{agent}")
            continue
        length = rng.randint(1, 15)
        for step in range(length):
            serial += 1
            call_id = f"c{serial}"
            if shape == "run":
                found.append(ToolEvent("grep", {"q": "TODO", "path": "src"}, agent, call_id=call_id, result="3 hits"))
            elif shape == "cycle":
                tool = ["read_file", "run_tests", "edit"][step % rng.choice([2, 3])]
                found.append(ToolEvent(tool, {"path": "a.py"}, agent, call_id=call_id))
            elif shape == "errors":
                found.append(ToolEvent("bash", {"command": f"make t{step}"}, agent, call_id=call_id,
                                       error="make: *** No rule to make target"))
            elif shape == "poll":
                answer = rng.choice(["pending", "pending", "done"])
                found.append(ToolEvent("job_status", {"id": 4}, agent, call_id=call_id, result={"state": answer}))
            elif shape == "redeliver":
                found.append(ToolEvent("grep", {"q": "x"}, agent, call_id=f"c{serial - step}"))
            elif shape == "todo":
                found.append(ToolEvent("todo_write", {"items": [step]}, agent, call_id=call_id))
            else:
                found.append(ToolEvent(rng.choice(["grep", "ls"]), {"q": rng.randint(0, 2)}, agent, call_id=call_id,
                                       denied=rng.random() < 0.1))
    return found


def said(engine: toolguards.Engine, session: list[ToolEvent | str]) -> list[Any]:
    found = []
    for event in session:
        if isinstance(event, str):
            engine.pre_step(event.split(":", 1)[1], user_prompt=True)
            continue
        decision = engine.post_execute(event)
        found.append((decision.kind, decision.feedback,
                      [(c.text, dict(c.source), dict(c.metadata)) for c in decision.additional_contexts]))
    return found


@pytest.mark.parametrize("path", GUARD_FILES, ids=lambda path: f"{path.parent.name}/{path.name}")
@pytest.mark.parametrize("locale", [None, "zh"])
def test_the_compiled_engine_is_the_loaded_engine(tmp_path, path, locale):
    session = events(seed=len(path.name))
    expected = said(toolguards.load(path, locale=locale), session)
    assert sum(len(contexts) for _, _, contexts in expected) > 20  # the session makes every file remind, often
    missed = compiled.cached_engine(path, locale=locale, cache_dir=tmp_path, stores=memory)  # compiles, then builds
    assert said(missed, session) == expected
    assert len(list(tmp_path.glob("*.json"))) == 1
    hit = compiled.cached_engine(path, locale=locale, cache_dir=tmp_path, stores=memory)
    assert said(hit, session) == expected
    assert (hit.source, hit.locale, [g.id for g in hit.guards]) == (str(path), "zh" if locale else "en",
                                                                  [g.id for g in missed.guards])


def test_the_result_aware_example_blocks_alike(tmp_path):
    path = REPO / "examples" / "result-aware.yaml"
    session: list[ToolEvent | str] = [ToolEvent("grep", {"q": 1}, "a", call_id=f"b{i}") for i in range(14)]
    expected = said(toolguards.load(path), session)
    assert [kind for kind, _, _ in expected].count("block") == 3
    assert said(compiled.cached_engine(path, cache_dir=tmp_path, stores=memory), session) == expected
    assert said(compiled.cached_engine(path, cache_dir=tmp_path, stores=memory), session) == expected


def test_the_default_file_is_the_shipped_one(tmp_path):
    session = events(seed=3, count=300)
    expected = said(toolguards.load_default(), session)
    assert said(compiled.cached_engine(None, cache_dir=tmp_path, stores=memory), session) == expected
    hit = compiled.cached_engine(None, cache_dir=tmp_path, stores=memory)
    assert said(hit, session) == expected
    assert hit.source == str(default_guard_file())  # the shipped file, in the checkout or in an installed wheel


def reminds_at(engine: toolguards.Engine, calls: int = 4) -> list[int]:
    return [n for n in range(1, calls + 1)
            if engine.post_execute(ToolEvent("grep", {"q": 1}, "a", call_id=f"r{n}")).additional_contexts]


def texts(engine: toolguards.Engine, calls: int = 3) -> list[str]:
    return [c.text for n in range(calls)
            for c in engine.post_execute(ToolEvent("grep", {"q": 1}, "a", call_id=f"t{n}")).additional_contexts]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def engine_at(guards: Path, cache: Path, locale: str | None = None) -> toolguards.Engine:
    return compiled.cached_engine(guards, locale=locale, cache_dir=cache, stores=memory)


def test_a_changed_guard_file_is_compiled_again(tmp_path):
    guards = write(tmp_path / "g.yaml", "guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [2]}\n")
    assert reminds_at(engine_at(guards, tmp_path / "cache")) == [2]
    write(guards, "guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [3]}\n")
    assert reminds_at(engine_at(guards, tmp_path / "cache")) == [3]


def test_changed_shadowed_and_included_templates_are_seen(tmp_path):
    guards = write(tmp_path / "g.yaml", "templateDirs: [mine]\nguards:\n  - id: repeat-tool-reminder\n"
                                        "    config: {thresholds: [2, 3]}\n")
    (tmp_path / "mine").mkdir()  # with no locale folder yet
    cache = tmp_path / "cache"
    assert texts(engine_at(guards, cache)) == [FIRST, texts(toolguards.load(guards))[1]]
    first = write(tmp_path / "mine" / "en" / "repeat-tool-reminder" / "first.j2", "mine: {{ tool }}")
    assert texts(engine_at(guards, cache))[0] == "mine: grep"  # a new file where the search looks first
    write(first, "{% include 'parts/head.j2' %} {{ count }}")
    head = write(tmp_path / "mine" / "en" / "parts" / "head.j2", "head")
    assert texts(engine_at(guards, cache))[0] == "head 2"
    (entry,) = cache.glob("*.json")
    assert str(head) in json.loads(entry.read_text())["files"]
    write(head, "HEAD")
    assert texts(engine_at(guards, cache))[0] == "HEAD 2"  # an included template is part of the key too
    first.unlink()
    assert texts(engine_at(guards, cache))[0] == FIRST


def test_a_template_found_in_the_kinds_folder_stays_found_there_until_the_bare_name_appears(tmp_path):
    guards = write(tmp_path / "g.yaml", "templateDirs: [mine]\nguards:\n  - id: repeat-tool-reminder\n"
                                        "    config:\n      thresholds: [2]\n      templates: {first: first.j2}\n")
    (tmp_path / "mine" / "en").mkdir(parents=True)
    cache = tmp_path / "cache"
    assert texts(engine_at(guards, cache)) == [FIRST]  # resolved as repeat-tool-reminder/first.j2
    write(tmp_path / "mine" / "en" / "first.j2", "bare")
    assert texts(engine_at(guards, cache)) == ["bare"]


def test_a_new_locale_folder_changes_what_a_locale_resolves_to(tmp_path):
    guards = write(tmp_path / "g.yaml", "templateDirs: [mine]\nguards:\n  - id: repeat-tool-reminder\n"
                                        "    config: {thresholds: [2]}\n")
    (tmp_path / "mine").mkdir()
    cache = tmp_path / "cache"
    zh = texts(engine_at(guards, cache, locale="zh-TW"))
    assert zh == texts(toolguards.load(guards, locale="zh"))
    shutil.copytree(REPO / "templates" / "zh", tmp_path / "mine" / "zh-TW")  # a locale needs every template
    write(tmp_path / "mine" / "zh-TW" / "repeat-tool-reminder" / "first.j2", "繁體")
    assert texts(engine_at(guards, cache, locale="zh-TW")) == ["繁體"]


def test_a_dynamic_include_is_never_cached_but_still_works(tmp_path):
    guards = write(tmp_path / "g.yaml", "templateDirs: [mine]\nguards:\n  - id: repeat-tool-reminder\n"
                                        "    config: {thresholds: [2]}\n")
    write(tmp_path / "mine" / "en" / "repeat-tool-reminder" / "first.j2",
          "{% set part = 'p.j2' %}{% include part %}")
    write(tmp_path / "mine" / "en" / "p.j2", "dynamic")
    assert texts(engine_at(guards, tmp_path / "cache")) == ["dynamic"]
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],  # cut short
    lambda text: "[]",
    lambda text: text.replace('"thresholds": [2]', '"thresholds": [4]'),  # edited: the checksum no longer matches
    lambda text: text.replace('"toolguards": "', '"toolguards": "0.0.0-'),  # another version's entry
    lambda text: json.dumps({**json.loads(text), "check": compiled._checksum({**json.loads(text), "guards": [
        {"id": "x", "kind": "no-such-kind", "config": {}, "templates": {}}]}), "guards": [
        {"id": "x", "kind": "no-such-kind", "config": {}, "templates": {}}]}),  # consistent but unusable
])
def test_a_damaged_or_foreign_entry_is_rebuilt_never_trusted(tmp_path, damage):
    guards = write(tmp_path / "g.yaml", "guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: [2]}\n")
    cache = tmp_path / "cache"
    engine_at(guards, cache)
    (entry,) = cache.glob("*.json")
    entry.write_text(damage(entry.read_text()))
    assert reminds_at(engine_at(guards, cache)) == [2]
    assert json.loads(entry.read_text())["guards"][0]["config"] == {"thresholds": [2]}  # and rewritten


def test_another_version_uses_its_own_entry(tmp_path, monkeypatch):
    guards = write(tmp_path / "g.yaml", "guards:\n  - id: repeat-tool-reminder\n")
    engine_at(guards, tmp_path)
    monkeypatch.setattr(compiled, "__version__", "9.9.9")
    engine_at(guards, tmp_path)
    assert sorted(json.loads(p.read_text())["key"]["toolguards"] for p in tmp_path.glob("*.json")) == sorted([
        "9.9.9", toolguards.__version__])


def test_a_file_with_problems_raises_as_load_does_and_is_not_cached(tmp_path):
    guards = write(tmp_path / "g.yaml", "guards:\n  - id: repeat-tool-reminder\n    config: {thresholds: []}\n")
    for path in (guards, tmp_path / "missing.yaml"):
        with pytest.raises(ConfigError) as loaded:
            toolguards.load(path)
        with pytest.raises(ConfigError) as cached:
            engine_at(path, tmp_path / "cache")
        assert [str(d) for d in cached.value.diagnostics] == [str(d) for d in loaded.value.diagnostics]
    assert not (tmp_path / "cache").exists()


PROBE = """
import json, sys
from toolguards.guardfile import compiled
from toolguards.events import ToolEvent
from toolguards.stores import MemoryStore
engine = compiled.cached_engine(None, cache_dir=sys.argv[1], stores=lambda _: MemoryStore())
heavy = ("ruamel", "jsonschema", "jinja2", "importlib.metadata", "platformdirs", "toolguards.guardfile.loader",
         "toolguards.kinds.cycle_reminder")
def loaded():
    return sorted({m.split(".")[0] if m.split(".")[0] != "toolguards" else m for m in sys.modules
                   if m.startswith(heavy)})
before = loaded()
engine.post_execute(ToolEvent("grep", {}, "a"))
engine.post_execute(ToolEvent("grep", {}, "a"))
counted = loaded()
reminded = engine.post_execute(ToolEvent("grep", {}, "a")).additional_contexts[0].text[:12]
print(json.dumps([before, counted, loaded(), reminded]))
"""


def test_a_hit_imports_neither_the_loader_nor_jinja2_until_a_reminder_is_rendered(tmp_path):
    runs = [subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, check=True)
            for _ in range(2)]
    miss, hit = (json.loads(run.stdout) for run in runs)
    assert miss[0] != []  # the first run compiled the file with the full loader
    assert hit == [[], [], ["jinja2"], FIRST[:12]]
