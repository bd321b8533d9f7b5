"""The shipped data is found from a wheel in a fresh venv and from an editable install, from any working folder."""

from __future__ import annotations

import json
import os
import posixpath
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow

PROBE = """
import json, sys, toolguards as tg
from toolguards import resources
engine = tg.load_default(locale="zh")
decisions = [engine.post_execute(tg.ToolEvent("grep", {"q": "x"}, agent="a")) for _ in range(3)]
print(json.dumps({
    "data": str(resources.data_dir()),
    "module": tg.__file__,
    "guards": [g.id for g in engine.guards],
    "reminder": decisions[2].additional_contexts[0].text,
}))
"""


def _run(args: list[str], cwd: Path) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fresh venv for the module's installs (the wheel's, then the checkout's editable one): each test installs
    what it checks over whatever is there, and the dependencies are fetched once."""
    path = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=True).create(path)
    return path / ("Scripts" if os.name == "nt" else "bin")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(REPO)], REPO)
    (built,) = out.glob("toolguards-*.whl")
    return built


def test_wheel_carries_the_data(wheel: Path):
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "toolguards/_data/guards/repeat-tool-reminder.yaml",
        "toolguards/_data/schemas/toolguards.schema.json",
        "toolguards/_data/templates/en/repeat-tool-reminder/first.j2",
        "toolguards/_data/templates/zh/repeat-tool-reminder/detailed.j2",
        "toolguards/doctor/schemas/claude-code-settings.schema.json",
        "toolguards/doctor/schemas/codex-post-tool-use.command.output.schema.json",
        "toolguards/doctor/schemas/gemini-settings.hooks-subset.schema.json",
        "toolguards/doctor/schemas/LICENSE-APACHE-2.0",
        "toolguards/py.typed",
    ):
        assert expected in names
    # the editor-schema comment of a shipped guard file names the schema shipped beside it, in the wheel too
    for name in sorted(n for n in names if n.startswith("toolguards/_data/guards/")):
        first = zipfile.ZipFile(wheel).read(name).decode("utf-8").splitlines()[0]
        target = first.removeprefix("# yaml-language-server: $schema=")
        assert target != first and posixpath.normpath(posixpath.join(posixpath.dirname(name), target)) in names


def test_wheel_in_a_fresh_venv_loads_the_default_from_outside_the_checkout(
    wheel: Path, fresh_venv: Path, tmp_path: Path
):
    bin_dir = fresh_venv
    pip = [str(bin_dir / "python"), "-m", "pip", "install", "--quiet"]
    _run([*pip, str(wheel)], tmp_path)  # with its dependencies
    _run([*pip, "--force-reinstall", "--no-deps", str(wheel)], tmp_path)  # over an editable install, if one is there
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    report = json.loads(_run([str(bin_dir / "python"), "-c", PROBE], elsewhere))
    assert str(bin_dir.parent) in report["data"] and report["data"].endswith("_data")
    assert str(REPO) not in report["module"]
    assert report["guards"] == ["repeat-tool-reminder"]
    assert report["reminder"].startswith("你正在用完全相同的参数重复同一个工具调用")
    default = Path(report["data"]) / "guards" / "repeat-tool-reminder.yaml"
    _run([str(bin_dir / "toolguards"), "validate", str(default)], elsewhere)


def test_editable_install_finds_the_checkout_data(fresh_venv: Path, tmp_path: Path):
    bin_dir = fresh_venv
    _run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "-e", str(REPO)], tmp_path)
    report = json.loads(_run([str(bin_dir / "python"), "-c", PROBE], tmp_path))
    assert Path(report["module"]).resolve() == REPO / "src" / "toolguards" / "__init__.py"
    assert Path(report["data"]).resolve() == REPO
    assert report["reminder"].startswith("你正在")
