"""``toolguards.hooks.gemini_settings``: Gemini CLI's folder trust and hook switches read from its files, and the notes
``toolguards hook install gemini`` prints from them (the real CLI's verdicts are checked in tests/realhosts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO
from support.docs_blocks import marked
from toolguards.cli import main
from toolguards.hooks.gemini_settings import Trust, folder_trust, install_notes
from toolguards.resources import shipped_guard_file


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / ".gemini").mkdir(parents=True)
    (tmp_path / "work" / "app" / "sub").mkdir(parents=True)
    (tmp_path / "work" / "apple").mkdir()
    return tmp_path / "home"


def environment(home: Path, **more: str) -> dict[str, str]:
    return {"HOME": str(home), "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(home / "no-system.json"), **more}


def write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


TRUST_FILE = "{home}/.gemini/trustedFolders.json"


@pytest.mark.parametrize(
    ("rules", "folder", "expected"),
    [
        (None, "app", Trust(None, f"no rule for it in {TRUST_FILE}")),
        ({"app": "TRUST_FOLDER"}, "app", Trust(True, f"{TRUST_FILE} gives {{work}}/app TRUST_FOLDER")),
        ({"app": "TRUST_FOLDER"}, "app/sub", Trust(True, f"{TRUST_FILE} gives {{work}}/app TRUST_FOLDER")),
        ({"app": "TRUST_FOLDER"}, "apple", Trust(None, f"no rule for it in {TRUST_FILE}")),
        ({"app/sub": "TRUST_PARENT"}, "app", Trust(True, f"{TRUST_FILE} gives {{work}}/app/sub TRUST_PARENT")),
        ({"": "TRUST_FOLDER", "app": "DO_NOT_TRUST"}, "app/sub",
         Trust(False, f"{TRUST_FILE} gives {{work}}/app DO_NOT_TRUST")),
        ({"app": "DO_NOT_TRUST", "app/sub": "TRUST_FOLDER"}, "app/sub",
         Trust(True, f"{TRUST_FILE} gives {{work}}/app/sub TRUST_FOLDER")),
        ({"app": "yes"}, "app",
         Trust(False, f"{TRUST_FILE} gives {{work}}/app the unknown level 'yes' (Gemini CLI refuses to start)")),
    ],
    ids=["no file", "the folder", "a folder under it", "a name that only starts alike", "a child's TRUST_PARENT",
         "the longest rule wins", "a trusted folder inside a distrusted one", "an unknown level"],
)
def test_folder_trust_from_the_trust_file(home, rules, folder, expected):
    work = home.parent / "work"
    if rules is not None:
        write(home / ".gemini" / "trustedFolders.json",
              {str(work / rule) if rule else str(work): level for rule, level in rules.items()})
    found = folder_trust(str(work / folder), environment(home))
    assert found == Trust(expected.trusted, expected.reason.format(home=home, work=work))


def test_a_link_to_a_trusted_folder_is_trusted_and_the_environment_and_settings_come_first(home):
    work = home.parent / "work"
    write(home / ".gemini" / "trustedFolders.json", {str(work / "app"): "TRUST_FOLDER"})
    (work / "link").symlink_to(work / "app")
    assert folder_trust(str(work / "link"), environment(home)).trusted is True
    apple = str(work / "apple")
    assert folder_trust(apple, environment(home, GEMINI_CLI_TRUST_WORKSPACE="true")) == Trust(
        True, "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder")
    assert folder_trust(str(work / "app"), environment(home, GEMINI_CLI_TRUST_WORKSPACE="false")) == Trust(
        False, "the environment distrusts every folder (GEMINI_CLI_TRUST_WORKSPACE=false)")
    write(home / ".gemini" / "settings.json", {"security": {"folderTrust": {"enabled": False}}})
    assert folder_trust(apple, environment(home)) == Trust(
        True, "folder trust is switched off (security.folderTrust.enabled is false)")
    moved = home / "elsewhere.json"
    write(moved, {apple: "TRUST_FOLDER"})
    (home / ".gemini" / "settings.json").unlink()
    assert folder_trust(apple, environment(home, GEMINI_CLI_TRUSTED_FOLDERS_PATH=str(moved))).trusted is True


def test_install_notes(home):
    work, env = home.parent / "work", environment(home)
    project = str(work / "app")
    path = str(work / "app" / ".gemini" / "settings.json")
    trust_file = home / ".gemini" / "trustedFolders.json"
    assert install_notes(project, path, {}, env) == [
        f"Gemini CLI runs no hooks in {project} until the folder is trusted (no rule for it in {trust_file}): start "
        f'`gemini` there once and choose "Trust folder", or add "{project}": "TRUST_FOLDER" to {trust_file}']
    write(trust_file, {project: "TRUST_FOLDER"})
    assert install_notes(project, path, {"hooksConfig": {"enabled": True}}, env) == []
    assert install_notes(project, path, {"hooksConfig": {"enabled": False}}, env) == [
        "Gemini CLI's hooks are switched off (hooksConfig.enabled is false): it runs none"]
    # comments are allowed in Gemini CLI's settings files; the project's file is merged over the user's
    (home / ".gemini" / "settings.json").write_text(
        '{\n  // mine\n  "hooksConfig": {"enabled": false, "disabled": ["toolguards"]}\n}\n', encoding="utf-8")
    assert install_notes(project, path, {"hooksConfig": {"enabled": True}}, env) == [
        "the user settings' hooksConfig.disabled names 'toolguards': Gemini CLI skips the hook"]
    user_path = str(home / ".gemini" / "settings.json")
    assert install_notes(project, user_path, {"hooks": {}}, env) == []  # the user's file, as install rewrote it


def test_install_registers_the_gemini_guard_file_and_notes_an_untrusted_folder(home, monkeypatch, capsys):
    work = home.parent / "work" / "app"
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(home / "no-system.json"))
    assert main(["hook", "install", "gemini"]) == 0
    lines = capsys.readouterr().err.splitlines()
    written = json.loads((work / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    command = written["hooks"]["AfterTool"][0]["hooks"][0]["command"]
    assert command.endswith(f" hook gemini --config {shipped_guard_file('gemini-cli.yaml')}")
    assert lines[0].endswith(f"AfterTool, BeforeAgent run {command}")
    trust_file = home / ".gemini" / "trustedFolders.json"
    assert lines[1:] == [
        f"toolguards hook install: note: Gemini CLI runs no hooks in {work} until the folder is trusted (no rule for "
        f'it in {trust_file}): start `gemini` there once and choose "Trust folder", or add "{work}": "TRUST_FOLDER" '
        f"to {trust_file}"]
    write(trust_file, {str(work): "TRUST_FOLDER"})
    mine = REPO / "guards" / "repeat-tool-reminder.yaml"
    assert main(["hook", "install", "gemini", "--config", str(mine)]) == 0
    assert len(capsys.readouterr().err.splitlines()) == 1
    written = json.loads((work / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert written["hooks"]["BeforeAgent"][0]["hooks"][0]["command"].endswith(f" hook gemini --config {mine}")


def test_the_page_shows_what_install_writes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert main(["hook", "install", "gemini"]) == 0
    capsys.readouterr()
    written = json.loads((tmp_path / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    command = written["hooks"]["AfterTool"][0]["hooks"][0]["command"]
    assert command.endswith(f"hook gemini --config {shipped_guard_file('gemini-cli.yaml')}")
    shown = json.loads(marked("docs/hosts/gemini-cli.md", "tested: gemini:settings").text.replace("COMMAND", command))
    assert shown == written
