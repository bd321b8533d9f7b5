"""``toolguards hook install|uninstall codex``: the hooks' trust in ``$CODEX_HOME/config.toml``, and what install says
Codex still needs (``toolguards.hooks.codex_install``). The real Codex reads what these write in
``tests/realhosts/test_codex.py``; here the files are checked byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit

from conftest import require
from support.docs_blocks import marked
from toolguards.cli import main
from toolguards.guardfile.loader import check_file
from toolguards.hooks.codex_trust import hook_entries

TOOLGUARDS = Path(sys.executable).parent / "toolguards"
COMMAND = f"{TOOLGUARDS} hook codex"
SUMMARY = f"PostToolUse, UserPromptSubmit run {COMMAND}"
REVIEW = ("Codex will not run these hooks until they are reviewed: trust them in /hooks in `codex`, or install again "
          "with --trust")

#: A user's config.toml: comments, order, inline tables and a state of another hook, all to be kept as they are.
CONFIG = """\
# my Codex settings
model = "gpt-5.1-codex"   # the model

[projects."{project}"]
trust_level = "trusted"

[features]
web_search = true

[hooks.state."/elsewhere/hooks.json:stop:0:0"]
enabled = false # off for now
"""


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / ".git").mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    return folder


def codex_config(project: Path) -> Path:
    return project.parent / "codex" / "config.toml"


def run(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["hook", *args])
    out, err = capsys.readouterr()
    assert out == "" or "--dry-run" in args
    return code, [line.removeprefix(f"toolguards hook {args[0]}: ") for line in err.splitlines()]


def trust_the_project(project: Path) -> None:
    codex_config(project).parent.mkdir(exist_ok=True)
    codex_config(project).write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n', encoding="utf-8")


def our_tables(project: Path, hooks_file: Path | None = None) -> str:
    """The tables install appends for the project's two hooks, in Codex's own form."""
    hooks_file = hooks_file or project / ".codex" / "hooks.json"
    entries = hook_entries(str(hooks_file), json.loads(hooks_file.read_text(encoding="utf-8")))
    assert [entry.event for entry in entries] == ["PostToolUse", "UserPromptSubmit"]
    return "".join(f'\n[hooks.state."{entry.key}"]\ntrusted_hash = "{entry.hash}"\n' for entry in entries)


def test_trust_is_appended_keeping_the_users_file_and_uninstall_takes_it_back_out(project, capsys):
    config = codex_config(project)
    config.parent.mkdir()
    original = CONFIG.format(project=project)
    config.write_text(original, encoding="utf-8")
    hooks_file = project / ".codex" / "hooks.json"
    assert run(capsys, "install", "codex", "--trust") == (0, [
        f"{hooks_file}: {SUMMARY}",
        f"{config}: recorded Codex's trust of 2 hooks, as its /hooks review does (the previous file is "
        f"{config}.toolguards.bak)"])
    assert config.read_text(encoding="utf-8") == original + our_tables(project)
    assert Path(f"{config}.toolguards.bak").read_text(encoding="utf-8") == original
    assert run(capsys, "install", "codex", "--trust") == (0, [
        f"{hooks_file} unchanged: {SUMMARY}", f"{config} unchanged: Codex already trusts these hooks"])
    assert run(capsys, "install", "codex") == (0, [f"{hooks_file} unchanged: {SUMMARY}"])  # nothing left to do
    assert run(capsys, "uninstall", "codex") == (0, [
        f"{hooks_file}: removed 2 hooks of toolguards hook codex (the previous file is {hooks_file}.toolguards.bak)",
        f"{config}: removed Codex's trust of 2 hooks (the previous file is {config}.toolguards.bak)"])
    assert config.read_text(encoding="utf-8") == original


def test_a_changed_registration_is_modified_until_trusted_again_and_the_hash_changes_in_place(project, capsys,
                                                                                             tmp_path):
    trust_the_project(project)
    assert run(capsys, "install", "codex", "--trust")[0] == 0
    config = codex_config(project)
    text = config.read_text(encoding="utf-8")
    first = text.splitlines()[4]
    config.write_text(text.replace(first, first + "  # reviewed", 1), encoding="utf-8")  # a comment Codex keeps
    guard_file = tmp_path / "g.yaml"
    guard_file.write_text("guards:\n  - id: repeat-tool-reminder\n", encoding="utf-8")
    code, lines = run(capsys, "install", "codex", "--config", str(guard_file))
    assert (code, lines[1:]) == (0, [REVIEW])  # the command changed: Codex holds it modified
    code, lines = run(capsys, "install", "codex", "--config", str(guard_file), "--trust")
    assert code == 0 and lines[1].startswith(f"{config}: recorded Codex's trust of 2 hooks")
    updated = config.read_text(encoding="utf-8").splitlines()
    assert updated[4].endswith('"  # reviewed') and updated[4] != first + "  # reviewed"
    assert len(updated) == len(text.splitlines())


def test_uninstall_leaves_every_other_state_and_says_which_trusted_hooks_moved(project, capsys):
    hooks_file = project / ".codex" / "hooks.json"
    assert run(capsys, "install", "codex", "--trust")[0] == 0
    ours = our_tables(project)
    document = json.loads(hooks_file.read_text(encoding="utf-8"))
    document["hooks"]["PostToolUse"].append({"hooks": [{"type": "command", "command": "mine"}]})
    document["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "also mine"}]}]
    hooks_file.write_text(json.dumps(document), encoding="utf-8")
    config = codex_config(project)
    others = [entry for entry in hook_entries(str(hooks_file), document) if "toolguards" not in entry.handler["command"]]
    mine = "".join(f'\n[hooks.state."{entry.key}"]\ntrusted_hash = "{entry.hash}"\n' for entry in others)
    config.write_text(config.read_text(encoding="utf-8") + mine, encoding="utf-8")
    state = ours.split("\n[")[1]
    config.write_text(config.read_text(encoding="utf-8").replace(state, state + "enabled = false\n"), encoding="utf-8")
    assert run(capsys, "uninstall", "codex")[1][1:] == [
        f"{config}: removed Codex's trust of 2 hooks (the previous file is {config}.toolguards.bak)",
        f"Codex will ask to review 1 other hook of {hooks_file} again: removing ours moved them"]
    # the disabled state of our first hook stays (it is the user's); the others' trust is untouched
    first = ours.split("\n")[1]
    assert config.read_text(encoding="utf-8") == f"{first}\nenabled = false\n" + mine


def test_a_config_that_is_not_toml_refuses_trust_before_anything_is_written(project, capsys):
    config = codex_config(project)
    config.parent.mkdir()
    config.write_text("model = [\n", encoding="utf-8")
    code, lines = run(capsys, "install", "codex", "--trust")
    assert code == 1 and lines[0].startswith(f"{config}: is not valid TOML (") and lines[0].endswith("); left untouched")
    assert not (project / ".codex").exists() and config.read_text(encoding="utf-8") == "model = [\n"
    code, lines = run(capsys, "install", "codex")  # without --trust the hooks are written; trust is unknown
    assert code == 0 and lines[1].startswith(f"{config}: is not valid TOML (")
    assert lines[1].endswith("); left untouched, so whether Codex trusts these hooks is not known")


def test_a_dry_run_writes_no_trust(project, capsys):
    code, lines = run(capsys, "install", "codex", "--trust", "--dry-run")
    assert code == 0 and lines[1] == (f"{codex_config(project)} (dry run, nothing written): would record Codex's "
                                      "trust of 2 hooks")
    assert not codex_config(project).exists() and not (project / ".codex").exists()


def test_what_install_says_of_the_project_and_the_hooks_feature(project, capsys):
    config = codex_config(project)
    config.parent.mkdir()
    for text, expected in [
        ("", f'Codex loads no hooks of {project} until the project is trusted: trust it when `codex` asks there, or '
             f'add [projects."{project}"] trust_level = "trusted" to {config}'),
        (f'[projects."{project}"]\ntrust_level = "untrusted"\n',
         f"{project} is marked untrusted in {config}: Codex loads no hooks of the project until it is marked trusted"),
        (f'[features]\nhooks = false\n[projects."{project}"]\ntrust_level = "trusted"\n',
         f"{config} turns Codex's hooks off ([features] hooks = false): it runs none"),
    ]:
        config.write_text(text, encoding="utf-8")
        assert run(capsys, "install", "codex", "--trust")[1][2:] == [expected]


def test_a_linked_worktree_is_told_where_codex_reads_its_hooks(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    git = require("git", "a linked worktree is made with git", "git")
    subprocess.run([git, "init", "-q", str(repo)], check=True)
    subprocess.run([git, "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    subprocess.run([git, "-C", str(repo), "worktree", "add", "-q", str(tmp_path / "linked")], check=True,
                   capture_output=True)
    monkeypatch.chdir(tmp_path / "linked")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    config = tmp_path / "codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    assert run(capsys, "install", "codex", "--trust")[1][2:] == [
        f"Codex reads the hooks of {tmp_path / 'linked'} from {repo / '.codex' / 'hooks.json'} (this is a linked git "
        f"worktree), not from {tmp_path / 'linked' / '.codex' / 'hooks.json'}: install in {repo}"]


def test_user_scope_follows_codex_home_through_a_symlink_and_so_do_the_keys(project, capsys, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "codex").symlink_to(real)
    (real / "config.toml").write_text("", encoding="utf-8")
    (real / "config.toml").rename(real / "settings.toml")
    (real / "config.toml").symlink_to(real / "settings.toml")
    code, lines = run(capsys, "install", "codex", "--scope", "user", "--trust")
    assert code == 0 and lines[0] == f"{real / 'hooks.json'}: {SUMMARY}"
    assert (real / "config.toml").is_symlink()  # written through the link, as Codex writes it
    assert (real / "settings.toml").read_text(encoding="utf-8") == our_tables(project, real / "hooks.json").lstrip()
    assert not (tmp_path / "home").exists()


def test_trust_is_for_codex_only(project, capsys):
    with pytest.raises(SystemExit) as exit_code:
        main(["hook", "install", "claude", "--trust"])
    assert exit_code.value.code == 2
    assert capsys.readouterr().err.endswith(
        "\ntoolguards hook install: --trust: only codex, which runs a hook only once it is reviewed\n")
    with pytest.raises(SystemExit):
        main(["hook", "uninstall", "codex", "--trust"])
    assert capsys.readouterr().err.endswith("\ntoolguards hook uninstall: unrecognized arguments: --trust\n")


def test_the_codex_page_commands_and_guard_file(tmp_path):
    page = "docs/hosts/codex.md"
    assert marked(page, "tested: codex:install").text == "cd your/project\ntoolguards hook install codex --trust\n"
    block = marked(page, "tested: codex:guard-file").text
    assert "- tools: [Bash]" in block
    path = tmp_path / "g.yaml"
    path.write_text(block, encoding="utf-8")
    assert check_file(path) == []
    for name in ("codex:trust-toml", "codex:project-trust-toml"):
        tomlkit.parse(marked(page, f"tested: {name}").text.replace("…", ""))
