"""``toolguards doctor gemini``: each check of Gemini CLI's files, with the exact lines it prints, and one full check
that runs the registered command."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from support.doctor_homes import Home, command, lines, registration
from support.hooks import TOOLGUARDS
from toolguards.doctor import gemini
from toolguards.resources import shipped_guard_file

T = str(TOOLGUARDS)
SHIPPED = shipped_guard_file("gemini-cli.yaml")
UNTRUSTED = ("gemini: problem: {project}: Gemini CLI runs no hooks in this folder until it is trusted (no rule for it "
             "in {home}/.gemini/trustedFolders.json); `gemini -p` exits 55 here; fix: start `gemini` here once and "
             'choose "Trust folder", or add "{project}": "TRUST_FOLDER" to {home}/.gemini/trustedFolders.json')
TRUSTED = ("gemini: ok: {project}: Gemini CLI trusts this folder ({home}/.gemini/trustedFolders.json gives {project} "
           "TRUST_FOLDER)")
WHERE = (f"gemini: ok: {{project}}/.gemini/settings.json: project scope: AfterTool, BeforeAgent run {T} hook gemini "
         f"--config {SHIPPED}")
NONE = ("gemini: problem: {project}/.gemini/settings.json: no toolguards hook in the settings files Gemini CLI reads "
        "here; fix: toolguards hook install gemini (or --scope user)")


def installed(home: Home, **settings: object) -> None:
    home.write("project/.gemini/settings.json", registration("gemini", "--config", str(SHIPPED), **settings))


def trusted(home: Home) -> None:
    home.write(".gemini/trustedFolders.json", {str(home.project): "TRUST_FOLDER"})


def guard(home: Home, thresholds: str) -> None:
    home.write("g.yaml", f"guards:\n  - id: repeat-tool-reminder\n    config:\n      thresholds: {thresholds}\n")
    home.write("project/.gemini/settings.json", registration("gemini", "--config", str(home.home / "g.yaml")))
    trusted(home)


def guard_where(home: Home) -> str:
    return (f"gemini: ok: {home.project}/.gemini/settings.json: project scope: AfterTool, BeforeAgent run {T} hook "
            f"gemini --config {home.home}/g.yaml")


LOOP = ("Gemini CLI's own loop detection takes the 5th identical call and stops at the next, so guard "
        "`repeat-tool-reminder`'s reminders at {late} never arrive{rest}; fix: thresholds below 5 (the install's "
        "default, guards/gemini-cli.yaml, reminds at 3 and 4), or model.disableLoopDetection: true in the settings")


DEFAULT_LOOP = ("gemini: note: " + str(shipped_guard_file("repeat-tool-reminder.yaml")) + ": "
                + LOOP.format(late="5, 8", rest=" (at 3 they do)"))


def case(setup: Callable[[Home], object], *expected: str | Callable[[Home], str]) -> tuple[object, tuple[object, ...]]:
    return setup, expected


CASES = {
    "nothing registered, in a folder not trusted": case(lambda home: None, UNTRUSTED, NONE),
    "installed in a folder not trusted": case(installed, WHERE, UNTRUSTED),
    "installed in a trusted folder": case(lambda home: (installed(home), trusted(home)), WHERE, TRUSTED),
    "trusted by the environment": case(
        lambda home: (installed(home), home.write(".gemini/settings.json", {"security": {"folderTrust": {
            "enabled": False}}})), WHERE,
        "gemini: ok: {project}: Gemini CLI trusts this folder (folder trust is switched off "
        "(security.folderTrust.enabled is false))"),
    "hooks switched off": case(
        lambda home: (installed(home, hooksConfig={"enabled": False}), trusted(home)), WHERE, TRUSTED,
        "gemini: problem: hooksConfig.enabled: Gemini CLI's hooks are switched off (false): it runs none; fix: remove "
        "hooksConfig.enabled: false from the settings"),
    "the user's settings disable our hook by name": case(
        lambda home: (installed(home), trusted(home),
                      home.write(".gemini/settings.json", {"hooksConfig": {"disabled": ["toolguards"]}})),
        WHERE, TRUSTED,
        'gemini: problem: {home}/.gemini/settings.json: the user settings\' hooksConfig.disabled names "toolguards": '
        'Gemini CLI skips the hook; fix: take "toolguards" out of hooksConfig.disabled'),
    "a matcher that narrows the tools counted": case(
        lambda home: (home.write("project/.gemini/settings.json", {"hooks": {
            "AfterTool": [{"matcher": "run_shell_command", "hooks": [
                {"name": "toolguards", "type": "command", "command": command("gemini")}]}],
            "BeforeAgent": [{"hooks": [{"name": "toolguards", "type": "command", "command": command("gemini")}]}]}}),
                      trusted(home)),
        f"gemini: ok: {{project}}/.gemini/settings.json: project scope: AfterTool, BeforeAgent run {T} hook gemini",
        TRUSTED,
        'gemini: note: {project}/.gemini/settings.json: hooks.AfterTool[0]: the matcher "run_shell_command" narrows '
        'the calls counted to the tools it matches; fix: remove the matcher, or make it "*"',
        DEFAULT_LOOP),
    "a handler without a type, and no BeforeAgent": case(
        lambda home: (home.write("project/.gemini/settings.json", {"hooks": {
            "AfterTool": [{"hooks": [{"command": command("gemini")}]}]}}), trusted(home)),
        f"gemini: ok: {{project}}/.gemini/settings.json: project scope: AfterTool run {T} hook gemini", TRUSTED,
        'gemini: problem: {project}/.gemini/settings.json: hooks.AfterTool[0]: Gemini CLI runs only handlers with '
        '"type": "command": it drops this one without a word; fix: toolguards hook install gemini',
        "gemini: note: BeforeAgent: no toolguards hook answers BeforeAgent: a new prompt does not start the chains "
        "afresh; fix: toolguards hook install gemini",
        DEFAULT_LOOP),
    "settings that do not parse, and comments that do": case(
        lambda home: (home.write("project/.gemini/settings.json", "// mine\n" + __import__("json").dumps(
            registration("gemini", "--config", str(SHIPPED)))), trusted(home),
                      home.write(".gemini/settings.json", '{"ui": {')),
        WHERE,
        'gemini: problem: {home}/.gemini/settings.json: is not valid JSON (line 1, column 9: Expecting property name '
        'enclosed in double quotes): Gemini CLI stops with an error; fix: correct the file (comments are allowed)',
        TRUSTED),
    "a setting of the wrong type": case(
        lambda home: (installed(home, hooksConfig={"enabled": "no", "disabled": "toolguards"}), trusted(home)),
        WHERE,
        "gemini: note: {project}/.gemini/settings.json: `hooksConfig.disabled` is a string, not a list: Gemini CLI "
        "warns, and keeps the value; fix: correct the setting",
        "gemini: note: {project}/.gemini/settings.json: `hooksConfig.enabled` is a string, not a boolean: Gemini CLI "
        "warns, and keeps the value; fix: correct the setting",
        TRUSTED),
    "registered for the user and the project, differently": case(
        lambda home: (installed(home), trusted(home), home.write(".gemini/settings.json", registration("gemini"))),
        f"gemini: ok: {{home}}/.gemini/settings.json: user scope: AfterTool, BeforeAgent run {T} hook gemini", WHERE,
        TRUSTED,
        *(f"gemini: problem: {event}: 2 different toolguards registrations answer {event} ({{home}}/.gemini/"
          "settings.json (user), {project}/.gemini/settings.json (project)): every call counts 2 times; fix: keep one: "
          "toolguards hook uninstall gemini in the scope you do not want" for event in ("AfterTool", "BeforeAgent")),
        DEFAULT_LOOP),
    "thresholds past Gemini CLI's loop detection, and one before it": case(
        lambda home: guard(home, "[3, 5, 8]"), guard_where, TRUSTED,
        "gemini: note: {home}/g.yaml: " + LOOP.format(late="5, 8", rest=" (at 3 they do)")),
    "thresholds all past Gemini CLI's loop detection": case(
        lambda home: guard(home, "[5, 8]"), guard_where, TRUSTED,
        "gemini: problem: {home}/g.yaml: " + LOOP.format(late="5, 8", rest=": none of them can")),
    "Gemini CLI's loop detection switched off": case(
        lambda home: (guard(home, "[5, 8]"), home.write(".gemini/settings.json", {"model": {
            "disableLoopDetection": True}})), guard_where, TRUSTED,
        "gemini: note: model.disableLoopDetection: Gemini CLI's own loop detection is off: only toolguards answers a "
        "loop"),
}


def expected_lines(home: Home, expected: tuple[object, ...]) -> list[str]:
    return [item(home) if callable(item) else str(item).format(home=home.home, project=home.project)
            for item in expected]


@pytest.mark.parametrize(("setup", "expected"), CASES.values(), ids=CASES.keys())
def test_what_gemini_files_say(tmp_path, setup, expected):
    home = Home.fresh(tmp_path)
    setup(home)
    found, _ = gemini.from_files(home.context(GEMINI_CLI_SYSTEM_SETTINGS_PATH=str(home.home / "etc" / "system.json")))
    assert lines(found) == expected_lines(home, expected)


@pytest.mark.parametrize(("answer", "refused"), [
    ({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "x"}}, []),
    ({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": ""}},
     ["no hookSpecificOutput.additionalContext"]),
    ({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "x"}},
     ['hookSpecificOutput.hookEventName is not "AfterTool"']),
    ({"additional_context": "x"}, ["no hookSpecificOutput object"]),
])
def test_what_gemini_cli_would_not_hand_the_model(answer, refused):
    assert gemini.validate(answer) == refused


def test_the_full_check_runs_the_registered_command_with_gemini_cli_s_variables(tmp_path):
    home = Home.fresh(tmp_path)
    home.write("project/guards/g.yaml", SHIPPED.read_text(encoding="utf-8"))
    home.write("project/.gemini/settings.json", registration("gemini", "--config", "$GEMINI_PROJECT_DIR/guards/g.yaml"))
    trusted(home)
    found = gemini.check(home.context(GEMINI_CLI_SYSTEM_SETTINGS_PATH=str(home.home / "etc" / "system.json")))
    assert lines(found)[2:] == [
        f"gemini: ok: {home.project}/guards/g.yaml: the guard file validates",
        f"gemini: ok: {home.home}/.cache/toolguards: the state folder is writable",
        f"gemini: ok: {home.project}/.gemini/settings.json: the command answers as the host expects: the reminder at "
        "the 3rd identical call"]


def test_gemini_cli_home_moves_the_user_settings_and_a_hook_left_in_the_home_folder_is_named(tmp_path):
    home = Home.fresh(tmp_path)
    left = home.write(".gemini/settings.json", registration("gemini"))
    moved = home.home / "gemini-home"
    context = home.context(GEMINI_CLI_HOME=str(moved), GEMINI_CLI_TRUST_WORKSPACE="true",
                           GEMINI_CLI_SYSTEM_SETTINGS_PATH=str(home.home / "etc" / "system.json"))
    found, _ = gemini.from_files(context)
    assert lines(found) == [
        f"gemini: problem: {left}: holds a toolguards hook, but GEMINI_CLI_HOME moves the user's settings to "
        f"{moved}/.gemini/settings.json: Gemini CLI never reads this file; fix: move the hooks to "
        f"{moved}/.gemini/settings.json",
        f"gemini: ok: {home.project}: Gemini CLI trusts this folder (GEMINI_CLI_TRUST_WORKSPACE=true trusts every "
        "folder)",
        NONE.format(project=home.project)]
    (moved / ".gemini").mkdir(parents=True)
    (moved / ".gemini" / "settings.json").write_text(left.read_text(encoding="utf-8"), encoding="utf-8")
    left.unlink()
    found, _ = gemini.from_files(context)
    assert lines(found, ("ok", "problem")) == [
        f"gemini: ok: {moved}/.gemini/settings.json: user scope: AfterTool, BeforeAgent run {T} hook gemini",
        f"gemini: ok: {home.project}: Gemini CLI trusts this folder (GEMINI_CLI_TRUST_WORKSPACE=true trusts every "
        "folder)"]
