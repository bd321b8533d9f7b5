"""The rules every command keeps, checked on every command the registry names (a new one is covered by itself):

- ``--help`` exits 0 and lists the command's exit codes;
- a usage error (an option that does not exist) exits 2 with the usage and one line ``toolguards <command>:
  <problem>``, nothing on stdout — except what a host runs (``toolguards hook HOST``), which keeps the host's
  contract: exit 0, one line on stderr, nothing on stdout;
- an option several commands take has one metavar and one help wherever it is taken (``commands.options.SHARED``);
- ``-V`` and ``--version`` print the version.
"""

from __future__ import annotations

import re

import pytest

from toolguards import __version__
from toolguards.cli import main
from toolguards.commands import COMMANDS, command
from toolguards.commands.options import SHARED
from toolguards.hooks import HOSTS

#: What a host runs, with its own contract: ``toolguards hook`` and ``toolguards hook HOST`` (not the commands under it).
HOST_RUN = [("hook",), *(("hook", host) for host in HOSTS)]


def forms() -> list[tuple[str, ...]]:
    """Every command line a person types, as the words before its options: the top level, each command, and each
    command under one (``hook install``)."""
    found: list[tuple[str, ...]] = [()]
    for name in COMMANDS:
        found.append((name,))
        found += [(name, sub) for sub in getattr(command(name), "SUBCOMMANDS", ())]
    return found


FORMS = forms()


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[object, str, str]:
    try:
        code: object = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # argparse wraps help at the terminal's width; one line per option here


def prog(form: tuple[str, ...]) -> str:
    return " ".join(("toolguards", *form))


def test_the_walk_finds_every_command_and_the_commands_under_them():
    assert ("hook", "install") in FORMS and ("mcp", "uninstall") in FORMS
    assert len(FORMS) == 1 + len(COMMANDS) + 4


@pytest.mark.parametrize("form", FORMS, ids=prog)
def test_help_exits_0_and_lists_the_exit_codes(capsys, form):
    code, out, err = run(capsys, [*form, "--help"])
    assert (code, err) == (0, "")
    assert out.startswith(f"usage: {prog(form)}")
    codes = out.split("\nexit codes:", 1)
    assert len(codes) == 2, out
    assert re.match(r"( each command's own|\n  (N|\d+)\b)", codes[1]), codes[1]


@pytest.mark.parametrize("form", [form for form in FORMS if form not in HOST_RUN], ids=prog)
def test_an_option_that_does_not_exist_is_a_usage_error_in_one_line(capsys, form):
    code, out, err = run(capsys, [*form, "--no-such-option"])
    lines = err.splitlines()
    assert (code, out) == (2, "")
    assert lines[0].startswith(f"usage: {prog(form)} ")
    assert re.fullmatch(rf"{re.escape(prog(form))}: [^:\n]+(: .+)?", lines[-1]), lines[-1]
    assert not any(line.startswith(prog(form) + ":") for line in lines[:-1])
    assert "error:" not in err


@pytest.mark.parametrize("form", HOST_RUN, ids=prog)
def test_what_a_host_runs_exits_0_with_one_line_on_stderr_and_nothing_on_stdout(capsys, form):
    code, out, err = run(capsys, [*form, "--no-such-option"])
    assert (code, out) == (0, "")
    assert err.count("\n") == 1 and err.startswith(f"toolguards {form[0]}: ")


def options_of(help_text: str) -> dict[str, str]:
    """Each option line of a help text (one per option at this width) by its flags, whitespace normalized."""
    found = {}
    for line in help_text.splitlines():
        match = re.match(r"  (-\S.*)", line)
        if match:
            text = " ".join(match.group(1).split())
            for flag in re.findall(r"(?:^|, )(--?[\w-]+)", text.split("  ")[0] if "  " in text else text):
                found[flag] = text
    return found


@pytest.mark.parametrize("form", FORMS, ids=prog)
def test_a_shared_option_has_one_metavar_and_one_help_everywhere(capsys, form):
    _, out, _ = run(capsys, [*form, "--help"])
    found = options_of(out)
    for flag, (metavar, text) in SHARED.items():
        if flag not in found:
            continue
        expected = " ".join(part for part in (flag, metavar, text) if part is not None)
        if text is None:
            assert found[flag].startswith(expected + " "), found[flag]
        else:
            assert found[flag] == expected, f"{prog(form)}: {found[flag]!r} is not {expected!r}"


def test_the_shared_options_are_found_where_they_are_taken(capsys):
    taken = {flag: [] for flag in SHARED}
    for form in FORMS:
        _, out, _ = run(capsys, [*form, "--help"])
        for flag in options_of(out):
            if flag in taken:
                taken[flag].append(prog(form))
    assert [flag for flag, where in taken.items() if not where] == []  # the table names no option nobody takes
    assert taken["--config"] == ["toolguards hook", "toolguards hook install", "toolguards replay",
                                 "toolguards report", "toolguards serve", "toolguards mcp", "toolguards mcp install"]
    assert taken["--settings"] == ["toolguards hook install", "toolguards hook uninstall", "toolguards mcp install",
                                   "toolguards mcp uninstall"]


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_version(capsys, flag):
    assert run(capsys, [flag]) == (0, f"toolguards {__version__}\n", "")
