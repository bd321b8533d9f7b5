"""``toolguards validate``: exit codes, parsable output, GitHub annotations."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import Watchdog
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


@pytest.mark.parametrize(
    ("format_", "expected"),
    [
        ("text", [
            "big.yaml:1:1: the file is 104857600 bytes; a guard file may be at most 1048576 bytes (1 MiB)",
            "dir.yaml: a folder without any *.yaml or *.yml file",
            "pipe.yaml: not a regular file (a named pipe)",
            "tab.yaml:2:5: the file holds a control character U+0001, which YAML does not allow",
            "utf.yaml:1:13: the file is not UTF-8 text (byte 0xe9)",
        ]),
        ("github", [
            "::error file=big.yaml,line=1,col=1::the file is 104857600 bytes; a guard file may be at most 1048576 "
            "bytes (1 MiB)",
            "::error file=dir.yaml::a folder without any *.yaml or *.yml file",
            "::error file=pipe.yaml::not a regular file (a named pipe)",
            "::error file=tab.yaml,line=2,col=5::the file holds a control character U+0001, which YAML does not allow",
            "::error file=utf.yaml,line=1,col=13::the file is not UTF-8 text (byte 0xe9)",
        ]),
    ],
)
def test_files_that_cannot_be_read_are_one_line_each_at_once(write_guard_file, tmp_path, capsys, format_, expected):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    with open(tmp_path / "big.yaml", "wb") as sparse:
        sparse.truncate(104_857_600)
    (tmp_path / "dir.yaml").mkdir()
    os.mkfifo(tmp_path / "pipe.yaml")
    write_guard_file(b"guards:\r\n\t \xc3\xa9 \x01\n", name="tab.yaml")
    write_guard_file(b"guards: [caf\xe9]\n", name="utf.yaml")
    names = ["big.yaml", "dir.yaml", "pipe.yaml", "tab.yaml", "utf.yaml"]
    with Watchdog(tmp_path / "pipe.yaml"):
        assert main(["validate", "--format", format_, *names]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == expected
    assert err == "toolguards validate: 4 files, 5 problems\n"


def test_github_annotations_write_control_characters_out(write_guard_file, capsys):
    path = write_guard_file('guards: []\nlocale: "a\\x85b\\x9b\\u2028c"\n')
    assert main(["validate", "--format", "github", path]) == 1
    assert capsys.readouterr().out == (
        '::error file=g.yaml,line=2,col=9::locale: "a\\x85b\\x9b\\u2028c" is not a locale name such as `en` or `zh-CN`\n'
    )


def test_a_folder_stands_for_every_yaml_and_yml_file_under_it(write_guard_file, capsys):
    write_guard_file(BAD, name="guards/b.yml")
    write_guard_file(BAD, name="guards/nested/a.yaml")
    write_guard_file("guards: []\n", name="guards/a.yaml")
    write_guard_file("not a guard file", name="guards/notes.txt")
    assert main(["validate", "guards"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "guards/b.yml:4:19: guards[0].config.thresholds: `thresholds` must not be empty",
        "guards/nested/a.yaml:4:19: guards[0].config.thresholds: `thresholds` must not be empty",
    ]
    assert err == "toolguards validate: 3 files, 2 problems\n"
    assert main(["validate", "."]) == 1
    assert capsys.readouterr().err == "toolguards validate: 3 files, 2 problems\n"
