"""The pre-commit hook the repository ships (``.pre-commit-hooks.yaml``), and the config docs/ci.md shows for it.

pre-commit installs the repository into an environment of its own and runs the hook's ``entry`` with the staged
files that match ``files`` and ``types``, as arguments: this runs the entry the same way on a project's files.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from support.docs_blocks import REPO, marked

BIN = Path(sys.executable).parent
GOOD = "guards:\n  - id: repeat-tool-reminder\n"
BAD = "guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: []\n"
PROJECT = {"guards/good.yaml": GOOD, "guards/bad.yml": BAD, "guards/notes.md": BAD, "other/bad.yaml": BAD,
           "bad.yaml": BAD}


def hook() -> dict:
    (found,) = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return found


def staged(files: list[str]) -> list[str]:
    """The files pre-commit passes to the hook: those matching ``files`` (re.search) of type yaml (by extension)."""
    pattern = re.compile(hook()["files"])
    assert hook()["types"] == ["yaml"]
    return [name for name in files if pattern.search(name) and name.endswith((".yaml", ".yml"))]


def run_entry(files: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    program, *arguments = hook()["entry"].split()
    return subprocess.run([str(BIN / program), *arguments, *files], cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def test_the_config_the_docs_show_names_the_shipped_hook():
    (repo,) = YAML(typ="safe").load(marked("docs/ci.md", "tested: ci:pre-commit").text)["repos"]
    assert [entry["id"] for entry in repo["hooks"]] == [hook()["id"]] == ["toolguards-validate"]
    assert set(repo) == {"repo", "rev", "hooks"}
    assert hook()["language"] == "python"


def test_the_hook_checks_the_guard_files_it_is_given(tmp_path):
    for name, text in PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    files = staged(sorted(PROJECT))
    assert files == ["guards/bad.yml", "guards/good.yaml"]
    done = run_entry(files, tmp_path)
    assert (done.returncode, done.stdout) == (1, "guards/bad.yml:4:19: guards[0].config.thresholds: `thresholds` must "
                                                 "not be empty\n")
    assert run_entry(["guards/good.yaml"], tmp_path).returncode == 0
