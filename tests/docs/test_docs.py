"""Every fenced block of README.md and docs/ is run against what the page says, and the site builds with --strict.

Each block carries a marker, an HTML comment on the line before its fence (``tests/support/docs_blocks.py`` reads
them); a block without one fails ``test_every_block_has_a_marker``:

- ``<!-- run -->`` (``run: exit N``): the block is a shell script, run with bash in a fresh workspace (a temporary
  copy of ``examples/`` and ``guards/``, with the page's ``file:`` blocks written in); it must exit 0 (or N). A block
  marked ``<!-- output -->`` right after it is its stdout.
- ``<!-- console -->`` (``console: exit N``): ``$ command`` lines, each followed by what it prints (stdout and stderr,
  as a terminal shows them); every command runs in a fresh workspace and must exit 0 (or N).
- ``<!-- python -->``: a Python script, run with this interpreter in a workspace (``-W error``); a following
  ``<!-- output -->`` block is its stdout.
- ``<!-- validate -->``: a whole guard file, which ``toolguards validate`` must pass; ``validate: guard KIND`` for the
  body of a guard entry (``config:`` …), checked inside a file with one guard of that kind.
- ``<!-- file: PATH -->``: written to PATH in the workspace of each of the page's blocks, before they run.
- ``<!-- same-as: PATH -->``: the block is that repository file, byte for byte.
- ``<!-- tested: ID -->``: another test module reads the block (``support.docs_blocks.marked``) and names ID.
- ``<!-- not-run: REASON -->``: not runnable here, and why (a real host, the user's own sessions…).
- ``<!-- ci:main-job -->``, ``<!-- ci:tests -->``: the README's two commands that ``.ci/run`` runs.

In expected output, a line ending in `` …`` matches any line that starts with the text before it, and a line that is
only ``…`` matches any number of lines. The workspace prints as ``/home/you/project``, the home folder as
``/home/you`` and the folder of the ``toolguards`` program as ``/home/you/.venv/bin``.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from support.docs_blocks import REPO, Block, all_blocks, blocks, pages

BLOCKS = all_blocks()
BIN = Path(sys.executable).parent

#: Blocks that show the behaviour issue 21 asks for and the code does not have yet (the CLI's fixes are another
#: branch's work): (page, the block's first line) → (why, what its output shows while the defect is there). Such a
#: block fails as expected only while its output still shows the defect; once it passes, or fails in another way (the
#: defect fixed, but not as the page says), the test fails, so a merge shows the disagreement.
XFAIL: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}

MARKERS = {"run", "output", "console", "python", "validate", "file", "same-as", "tested", "not-run", "ci:main-job",
           "ci:tests"}
RUNNABLE = {"run", "console", "python", "validate", "same-as"}


def _id(block: Block) -> str:
    return block.where


def _runnable() -> list[object]:
    return [pytest.param(block, id=_id(block)) for block in BLOCKS if block.marker in RUNNABLE]


# --- the markers ------------------------------------------------------------------------------------------------------


def test_every_block_has_a_marker():
    unmarked = [block.where for block in BLOCKS if block.marker not in MARKERS]
    assert unmarked == [], "blocks with no marker (or an unknown one): see tests/docs/test_docs.py for the markers"


def test_a_block_not_run_says_why():
    assert [block.where for block in BLOCKS if block.marker == "not-run" and len(block.argument) < 10] == []


def test_an_output_block_follows_a_block_that_prints_it():
    for page in pages():
        found = blocks(page)
        for before, block in itertools.pairwise(found):
            if block.marker == "output":
                assert before.marker in ("run", "python"), f"{block.where}: an output block after {before.marker}"
        assert found == [] or found[0].marker != "output", f"{found[0].where}: an output block comes first"


def test_a_tested_block_is_read_by_a_test_that_names_it():
    sources = "\n".join(path.read_text(encoding="utf-8") for path in (REPO / "tests").rglob("*.py")
                        if path.name != "test_docs.py")
    for block in BLOCKS:
        if block.marker == "tested":
            named = re.search(rf"[\"'](tested: )?{re.escape(block.argument)}[\"']", sources)
            assert named, f"{block.where}: no test names {block.argument!r}"


def test_the_xfail_list_names_blocks_that_exist():
    firsts = {(block.page, block.text.split("\n", 1)[0]) for block in BLOCKS if block.marker in RUNNABLE}
    assert set(XFAIL) <= firsts


def test_the_readme_keeps_the_two_ci_commands():
    readme = blocks(REPO / "README.md")
    assert [block.marker for block in readme if block.marker and block.marker.startswith("ci:")] == [
        "ci:main-job", "ci:tests"]


# --- running the blocks -----------------------------------------------------------------------------------------------


def workspace(folder: Path) -> Path:
    """A folder like a user's project, in ``folder``: copies of the examples and the shipped guard file."""
    project = folder / "project"
    project.mkdir()
    for name in ("examples", "guards"):
        shutil.copytree(REPO / name, project / name)
    (folder / "home").mkdir()
    return project


def _environment(project: Path) -> dict[str, str]:
    home = project.parent / "home"
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "PYTHONUNBUFFERED": "1",  # stdout and stderr in the order they were written, as on a terminal
        "COLUMNS": "100",
        "NO_COLOR": "1",
    }


def _write_files(block: Block, project: Path) -> None:
    for other in blocks(REPO / block.page):
        if other.marker == "file":
            target = project / other.argument
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(other.text, encoding="utf-8")


def _printed(text: str, project: Path) -> str:
    """Output as the page shows it: the temporary folders under their documented names."""
    for real, shown in ((str(project), "/home/you/project"), (str(project.parent / "home"), "/home/you"),
                        (str(BIN), "/home/you/.venv/bin")):
        text = text.replace(real, shown)
    return "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines())


def matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` is ``expected``, where an expected line ending in `` …`` matches any line that starts with
    the text before it and a line that is only ``…`` any number of lines."""
    want = expected.rstrip("\n").splitlines()
    got = actual.rstrip("\n").splitlines()

    def at(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == "…":
            return any(at(i + 1, k) for k in range(j, len(got) + 1))
        if j == len(got):
            return False
        line = want[i]
        same = got[j].startswith(line[:-2]) if line.endswith(" …") else got[j] == line
        return same and at(i + 1, j + 1)

    return at(0, 0)


def _expected_exit(block: Block) -> int:
    found = re.fullmatch(r"exit (\d+)", block.argument)
    assert found or not block.argument, f"{block.where}: unknown argument {block.argument!r}"
    return int(found.group(1)) if found else 0


def _output_after(block: Block) -> Block | None:
    found = blocks(REPO / block.page)
    at = found.index(block)
    following = found[at + 1] if at + 1 < len(found) else None
    return following if following is not None and following.marker == "output" else None


def _run(argv: list[str], project: Path, merged: bool) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=project, env=_environment(project), text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merged else subprocess.PIPE, timeout=120,
                          stdin=subprocess.DEVNULL)


def console_commands(text: str) -> list[tuple[str, str]]:
    """The (command, expected output) pairs of a console block."""
    pairs: list[tuple[str, list[str]]] = []
    lines = text.rstrip("\n").splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        assert line.startswith("$ ") or pairs, f"a console block starts with `$ `, not {line!r}"
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and index + 1 < len(lines):
                index += 1
                command = command[:-1] + lines[index].strip()
            pairs.append((command, []))
        else:
            pairs[-1][1].append(line)
        index += 1
    return [(command, "\n".join(output)) for command, output in pairs]


def check_console(block: Block, project: Path) -> None:
    for command, expected in console_commands(block.text):
        _write_files(block, project)
        done = _run(["bash", "-c", command], project, merged=True)
        printed = _printed(done.stdout, project)
        assert (done.returncode, matches(expected, printed)) == (_expected_exit(block), True), (
            f"{block.where}: $ {command}\nexit {done.returncode}, printed:\n{printed}")


def check_run(block: Block, project: Path) -> None:
    _write_files(block, project)
    done = _run(["bash", "-euo", "pipefail", "-c", block.text], project, merged=False)
    assert done.returncode == _expected_exit(block), f"{block.where}: exit {done.returncode}\n{done.stderr}"
    output = _output_after(block)
    if output is not None:
        printed = _printed(done.stdout, project)
        assert matches(output.text, printed), f"{block.where} printed:\n{printed}"


def check_python(block: Block, project: Path) -> None:
    _write_files(block, project)
    script = project / "snippet.py"
    script.write_text(block.text, encoding="utf-8")
    done = _run([sys.executable, "-W", "error", str(script)], project, merged=False)
    assert done.returncode == 0, f"{block.where}: exit {done.returncode}\n{done.stderr}"
    assert done.stderr == "", f"{block.where}: {done.stderr}"
    output = _output_after(block)
    if output is not None:
        printed = _printed(done.stdout, project)
        assert matches(output.text, printed), f"{block.where} printed:\n{printed}"


def guard_file(block: Block) -> str:
    """The guard file a ``validate`` block stands for."""
    if not block.argument:
        return block.text
    kind = re.fullmatch(r"guard ([\w-]+)", block.argument)
    assert kind, f"{block.where}: validate takes `guard KIND`, not {block.argument!r}"
    body = "".join(f"    {line}\n" if line else "\n" for line in block.text.splitlines())
    return f"guards:\n  - id: {kind.group(1)}\n{body}"


def check_validate(block: Block, project: Path) -> None:
    _write_files(block, project)
    (project / "snippet.yaml").write_text(guard_file(block), encoding="utf-8")
    done = _run([str(BIN / "toolguards"), "validate", "snippet.yaml"], project, merged=True)
    assert (done.returncode, done.stdout) == (0, "toolguards validate: 1 file, 0 problems\n"), (
        f"{block.where}:\n{guard_file(block)}\n{done.stdout}")


def check_same_as(block: Block, _project: Path) -> None:
    assert block.text == (REPO / block.argument).read_text(encoding="utf-8"), f"{block.where} is not {block.argument}"


CHECKS = {"console": check_console, "run": check_run, "python": check_python, "validate": check_validate,
          "same-as": check_same_as}


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    """Every runnable block, run once a session, several at a time (each in a workspace of its own, so they cannot
    meet; the programs they start are what takes the time): where → None if it did what its page says, else why not."""
    runnable = [block for block in BLOCKS if block.marker in RUNNABLE]
    folders = [tmp_path_factory.mktemp("block") for _ in runnable]

    def outcome(block: Block, folder: Path) -> str | None:
        try:
            CHECKS[str(block.marker)](block, workspace(folder))
        except AssertionError as failure:
            return str(failure)
        return None

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip([block.where for block in runnable], pool.map(outcome, runnable, folders), strict=True))


@pytest.mark.parametrize("block", _runnable())
def test_the_block_does_what_the_page_says(block: Block, outcomes: dict[str, str | None]):
    failure = outcomes[block.where]
    known = XFAIL.get((block.page, block.text.split("\n", 1)[0]))
    if known is not None:
        reason, defects = known
        assert failure is not None, f"{block.where} does what its page says now: take it off XFAIL ({reason})"
        if any(defect in failure for defect in defects):
            pytest.xfail(reason)
        pytest.fail(f"{block.where} ({reason}): the defect is gone, but the block still disagrees:\n{failure}")
    assert failure is None, failure


@pytest.mark.parametrize(("expected", "actual", "same"), [
    ("a\nb", "a\nb\n", True),
    ("a\nb", "a\nc", False),
    ("a\n…\nz", "a\nb\nc\nz", True),
    ("a\n…\nz", "a\nz", True),
    ("a\n…\nz", "a\nb", False),
    ("You are repeating …", "You are repeating the exact same tool call", True),
    ("You are repeating …", "You were repeating", False),
    ("a b …", "a", False),
])
def test_expected_output_may_leave_out_what_a_page_need_not_show(expected, actual, same):
    assert matches(expected, actual) is same


# --- the site ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per session with ``mkdocs build --strict`` (no broken link, no page left out of the nav,
    no missing include); the build's log is in ``build.log`` beside it."""
    for module in ("mkdocs", "material"):
        if importlib.util.find_spec(module) is None:
            message = f"{module} is not installed: the docs extra builds the site (pip install -e '.[docs]')"
            if os.environ.get("CI"):
                pytest.fail(f"{message}; the test extra installs it")
            pytest.skip(message)
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    (out / "build.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    assert done.returncode == 0, done.stdout + done.stderr
    return out / "site"


def test_the_site_builds_with_strict_and_no_warning(site: Path):
    log = (site.parent / "build.log").read_text(encoding="utf-8")
    assert [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))] == []
    assert (site / "index.html").is_file()


def _page_text(site: Path, page: str) -> str:
    html = (site / page / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", html)
    for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'"), ("&amp;", "&")):
        text = text.replace(entity, char)
    return text


def test_the_kinds_reference_is_each_kinds_docstring(site: Path):
    from toolguards.kinds import BUILTIN_KINDS

    text = _page_text(site, "reference/kinds")
    for name in BUILTIN_KINDS:
        doc = importlib.import_module(f"toolguards.kinds.{name.replace('-', '_')}").__doc__ or ""
        summary = doc.split("\n", 1)[0].split(": ", 1)[1].replace("``", "")
        assert summary[:1].upper() + summary[1:] in text
        valid = re.search(r"Valid::\n\n((?:    .*\n|\n)+)", doc)
        assert valid is not None
        for line in valid.group(1).strip("\n").splitlines():
            assert line[4:] in text, f"{name}: {line!r}"


def test_the_cli_reference_is_each_commands_help(site: Path):
    from toolguards.commands import COMMANDS

    text = _page_text(site, "reference/cli")
    assert "usage: toolguards [-h]" in text
    for name in [*COMMANDS, "hook install", "hook uninstall", "mcp install", "mcp uninstall"]:
        assert f"usage: toolguards {name} " in text, name


def test_the_changelog_page_is_the_changelog(site: Path):
    first = (REPO / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
    assert first in _page_text(site, "changelog")


def test_the_shipped_default_shown_is_the_shipped_file(site: Path):
    assert blocks(REPO / "docs/configuration.md")[0].text == (
        REPO / "guards/repeat-tool-reminder.yaml").read_text(encoding="utf-8")
    assert "--8<--" not in _page_text(site, "configuration")
    assert "exclude: [todo_write]" in _page_text(site, "configuration")


# --- the README -------------------------------------------------------------------------------------------------------

JOBS = ("Put it in your agent", "Tune it", "Validate in CI")


def test_the_readme_is_short_and_shows_the_three_jobs_first():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    first_screen = "\n".join(lines[:30])
    for job in JOBS:
        anchor = job.lower().replace(" ", "-")
        assert f"](#{anchor})" in first_screen, job
        assert f"## {job}" in lines, job
