"""``toolguards validate``: exit codes, parsable output, GitHub annotations."""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolguards.cli import main

BAD = "guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: []\n"


def test_valid_file_exits_0(write_guard_file, capsys):
    path = write_guard_file("guards:\n  - id: repeat-tool-reminder\n")
    assert main(["validate", path]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "toolguards validate: 1 file, 0 problems\n"


def test_problems_exit_1_one_per_line_on_stdout(write_guard_file, capsys):
    bad = write_guard_file(BAD, name="bad.yaml")
    good = write_guard_file("guards: []\n", name="good.yaml")
    assert main(["validate", good, bad]) == 1
    out, err = capsys.readouterr()
    assert out == "bad.yaml:4:19: guards[0].config.thresholds: `thresholds` must not be empty\n"
    assert err == "toolguards validate: 2 files, 1 problem\n"


def test_default_paths_are_guards_yaml_here(write_guard_file, capsys):
    write_guard_file(BAD, name="guards/a.yaml")
    write_guard_file("guards: []\n", name="guards/b.yaml")
    assert main(["validate"]) == 1
    assert capsys.readouterr().out.startswith("guards/a.yaml:4:19: ")


def test_nothing_to_validate_is_a_usage_error(write_guard_file, capsys):
    write_guard_file("x", name="other/x.txt")
    assert main(["validate"]) == 2
    assert "no PATH given and no guards/*.yaml here" in capsys.readouterr().err


def test_github_annotations(write_guard_file, capsys):
    path = write_guard_file(BAD + "      include: [a, 1]\n", name="g,1.yaml")
    assert main(["validate", "--format", "github", path]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "::error file=g%2C1.yaml,line=4,col=19::guards[0].config.thresholds: `thresholds` must not be empty",
        "::error file=g%2C1.yaml,line=5,col=20::guards[0].config.include[1]: must be a string, not the integer 1",
    ]


def test_locale_option(write_guard_file, capsys):
    path = write_guard_file("guards: []\n")
    assert main(["validate", "--locale", "fr", path]) == 1
    assert capsys.readouterr().out == "g.yaml: locale `fr` has no templates (available: en, zh)\n"


@pytest.mark.parametrize("argv", [["validate", "--format", "xml", "g.yaml"], ["nosuchcommand"], []])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2


def test_python_dash_m(write_guard_file):
    path = write_guard_file(BAD)
    done = subprocess.run([sys.executable, "-m", "toolguards", "validate", path], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stdout == "g.yaml:4:19: guards[0].config.thresholds: `thresholds` must not be empty\n"
    assert "Traceback" not in done.stderr
