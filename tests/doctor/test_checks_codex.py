"""``toolguards doctor codex``: each check of Codex CLI's files, with the exact lines it prints, and one full check
that runs the registered command."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from support.doctor_homes import Home, command, lines, registration
from support.hooks import TOOLGUARDS, codex_problems
from toolguards.doctor import codex
from toolguards.hooks.codex_trust import hook_entries

T = str(TOOLGUARDS)
NOT_REVIEWED = ("Codex has not reviewed this hook, so it skips it (without a word under `codex exec`); fix: "
                "toolguards hook install codex --trust, or review it in /hooks in `codex`")


def trust(home: Home, hooks_file: Path, extra: str = "", digest: str | None = None) -> None:
    """Record Codex's review of every hook of ``hooks_file`` in the user's config.toml (``digest``: another hash)."""
    document = json.loads(hooks_file.read_text(encoding="utf-8"))
    tables = "".join(f'[hooks.state."{entry.key}"]\ntrusted_hash = "{digest or entry.hash}"\n{extra}'
                     for entry in hook_entries(str(hooks_file), document))
    config = home.home / ".codex" / "config.toml"
    before = config.read_text(encoding="utf-8") if config.exists() else ""
    home.write(".codex/config.toml", before + tables)


def trusted_project(home: Home) -> None:
    config = home.home / ".codex" / "config.toml"
    before = config.read_text(encoding="utf-8") if config.exists() else ""
    home.write(".codex/config.toml", before + f'[projects."{home.project}"]\ntrust_level = "trusted"\n')


def installed(home: Home, *options: str) -> Path:
    return home.write("project/.codex/hooks.json", registration("codex", *options))


def reviewed(home: Home) -> None:
    trust(home, installed(home))
    trusted_project(home)


def where(home: Home, options: str = "") -> str:
    return f"codex: ok: {home.project}/.codex/hooks.json: project scope: PostToolUse, UserPromptSubmit run " \
           f"{T} hook codex{options}"


def key(home: Home, event: str, base: Path | None = None) -> str:
    return f"{base or home.project / '.codex' / 'hooks.json'}:{event}:0:0"


TRUSTED = "codex: ok: {home}/.codex/config.toml: Codex trusts 2 toolguards hooks as they are now"
PROJECT_TRUSTED = "codex: ok: {project}: Codex trusts the project"


def case(setup: Callable[[Home], object], *expected: str | Callable[[Home], str]) -> tuple[object, tuple[object, ...]]:
    return setup, expected


CASES = {
    "nothing registered": case(
        lambda home: None,
        "codex: problem: {home}/.codex/hooks.json: no toolguards hook in the hooks files Codex reads here; fix: "
        "toolguards hook install codex --trust (or --scope user --trust)"),
    "installed, not reviewed, project not trusted": case(
        installed, where,
        lambda home: f"codex: problem: {key(home, 'post_tool_use')}: {NOT_REVIEWED}",
        lambda home: f"codex: problem: {key(home, 'user_prompt_submit')}: {NOT_REVIEWED}",
        "codex: problem: {project}: Codex does not trust the project, so it loads none of its hooks; fix: add "
        '[projects."{project}"] trust_level = "trusted" to {home}/.codex/config.toml, or trust the project when '
        "`codex` asks"),
    "reviewed, in a trusted project": case(reviewed, where, TRUSTED, PROJECT_TRUSTED),
    "reviewed, then changed": case(
        lambda home: (trust(home, installed(home), digest="sha256:" + "0" * 64), trusted_project(home)), where,
        *(lambda home, event=event: f"codex: problem: {key(home, event)}: the hook changed after Codex's review (the "
          f"hash in {home.home}/.codex/config.toml is not its hash now), so Codex skips it; fix: toolguards hook "
          "install codex --trust, or review it in /hooks in `codex`" for event in ("post_tool_use",
                                                                                  "user_prompt_submit")),
        PROJECT_TRUSTED),
    "turned off in /hooks": case(
        lambda home: (trust(home, installed(home), extra="enabled = false\n"), trusted_project(home)), where,
        *(lambda home, event=event: f"codex: problem: {key(home, event)}: {home.home}/.codex/config.toml turns this "
          f'hook off (enabled = false); fix: remove enabled = false from [hooks.state."{key(home, event)}"], or turn '
          "it on in /hooks" for event in ("post_tool_use", "user_prompt_submit")),
        PROJECT_TRUSTED),
    "project marked untrusted": case(
        lambda home: (trust(home, installed(home)), home.write(
            ".codex/config.toml", (home.home / ".codex" / "config.toml").read_text(encoding="utf-8")
            + f'[projects."{home.project}"]\ntrust_level = "untrusted"\n')), where, TRUSTED,
        "codex: problem: {project}: {home}/.codex/config.toml marks the project untrusted: Codex loads none of its "
        'hooks; fix: set [projects."{project}"] trust_level = "trusted" in {home}/.codex/config.toml'),
    "hooks switched off": case(
        lambda home: (home.write(".codex/config.toml", "[features]\nhooks = false\n"), reviewed(home)),
        where, TRUSTED, PROJECT_TRUSTED,
        "codex: problem: {home}/.codex/config.toml: [features] hooks = false: Codex runs no hooks; fix: remove the "
        "setting (hooks are on by default)"),
    "hooks switched off by the old name, in the project's config": case(
        lambda home: (home.write("project/.codex/config.toml", "[features]\ncodex_hooks = false\n"), reviewed(home)),
        where, TRUSTED, PROJECT_TRUSTED,
        "codex: problem: {project}/.codex/config.toml: [features] hooks = false: Codex runs no hooks; fix: remove the "
        "setting (hooks are on by default)"),
    "a profile switches hooks off": case(
        lambda home: (home.write(".codex/work.config.toml", "[features]\nhooks = false\n"), reviewed(home)),
        where, TRUSTED, PROJECT_TRUSTED,
        "codex: note: profile work: with --profile work, Codex runs no hooks ([features] hooks = false)"),
    "a legacy profile table switches hooks off": case(
        lambda home: (home.write(".codex/config.toml", "[profiles.fast.features]\nhooks = false\n"), reviewed(home)),
        where, TRUSTED, PROJECT_TRUSTED,
        "codex: note: profile fast: with --profile fast, Codex runs no hooks ([features] hooks = false)"),
    "hooks.json is not JSON": case(
        lambda home: home.write("project/.codex/hooks.json", '{"hooks": {'),
        "codex: problem: {project}/.codex/hooks.json: is not valid JSON (line 1, column 12: Expecting property name "
        "enclosed in double quotes): Codex cannot use it; fix: correct the file, then run toolguards doctor again",
        "codex: problem: {home}/.codex/hooks.json: no toolguards hook in the hooks files Codex reads here; fix: "
        "toolguards hook install codex --trust (or --scope user --trust)"),
    "config.toml is not TOML": case(
        lambda home: (reviewed(home), home.write(".codex/config.toml", "[projects\n")),
        where,
        "codex: problem: {home}/.codex/config.toml: is not valid TOML (Unexpected character: '\\n' at line 1 col 9): "
        "Codex cannot use it; fix: correct the file, then run toolguards doctor again",
        lambda home: f"codex: problem: {key(home, 'post_tool_use')}: {NOT_REVIEWED}",
        lambda home: f"codex: problem: {key(home, 'user_prompt_submit')}: {NOT_REVIEWED}",
        "codex: problem: {project}: Codex does not trust the project, so it loads none of its hooks; fix: add "
        '[projects."{project}"] trust_level = "trusted" to {home}/.codex/config.toml, or trust the project when '
        "`codex` asks"),
    "a handler without a type, and no UserPromptSubmit": case(
        lambda home: (home.write("project/.codex/hooks.json", {"hooks": {"PostToolUse": [
            {"hooks": [{"command": command("codex")}]}]}}), trusted_project(home)),
        f"codex: ok: {{project}}/.codex/hooks.json: project scope: PostToolUse run {T} hook codex",
        lambda home: f'codex: problem: {key(home, "post_tool_use")}: Codex runs only handlers with "type": "command" '
                     "and a command: it passes over this one; fix: toolguards hook install codex --trust",
        "codex: note: UserPromptSubmit: no toolguards hook answers UserPromptSubmit: a new prompt does not start the "
        "chains afresh; fix: toolguards hook install codex --trust",
        PROJECT_TRUSTED),
    "only under an event Codex does not read": case(
        lambda home: (home.write("project/.codex/hooks.json", {"hooks": {"PostToolUseFailure": [
            {"hooks": [{"type": "command", "command": command("codex")}]}]}}), trusted_project(home)),
        f"codex: ok: {{project}}/.codex/hooks.json: project scope: PostToolUseFailure run {T} hook codex",
        lambda home: f"codex: problem: {key(home, 'post_tool_use_failure')}: Codex reads no `PostToolUseFailure` "
                     "event, so it never runs this hook; fix: remove it, or install again: toolguards hook install "
                     "codex --trust",
        "codex: problem: PostToolUse: no toolguards hook answers PostToolUse: no call is counted; fix: toolguards hook "
        "install codex --trust",
        "codex: note: UserPromptSubmit: no toolguards hook answers UserPromptSubmit: a new prompt does not start the "
        "chains afresh; fix: toolguards hook install codex --trust",
        PROJECT_TRUSTED),
    "registered for the user and the project, differently": case(
        lambda home: (trust(home, home.write(".codex/hooks.json", registration("codex", "--locale", "zh"))),
                      reviewed(home)),
        f"codex: ok: {{home}}/.codex/hooks.json: user scope: PostToolUse, UserPromptSubmit run {T} hook codex "
        "--locale zh", where,
        *(f"codex: problem: {event}: 2 different toolguards registrations answer {event} ({{home}}/.codex/hooks.json "
          "(user), {project}/.codex/hooks.json (project)): every call counts 2 times; fix: keep one: toolguards hook "
          "uninstall codex in the scope you do not want" for event in ("PostToolUse", "UserPromptSubmit")),
        "codex: ok: {home}/.codex/config.toml: Codex trusts 4 toolguards hooks as they are now", PROJECT_TRUSTED),
    "in the hook tables of the user's config.toml": case(
        lambda home: home.write(".codex/config.toml",
                                f"[[hooks.PostToolUse]]\n[[hooks.PostToolUse.hooks]]\ntype = \"command\"\n"
                                f"command = '{command('codex')}'\n"),
        f"codex: ok: {{home}}/.codex/config.toml: user scope: PostToolUse run {T} hook codex",
        "codex: note: UserPromptSubmit: no toolguards hook answers UserPromptSubmit: a new prompt does not start the "
        "chains afresh; fix: toolguards hook install codex --trust",
        lambda home: f"codex: problem: {key(home, 'post_tool_use', home.home / '.codex' / 'config.toml')}: Codex has "
                     "not reviewed this hook, so it skips it (without a word under `codex exec`); fix: review it in "
                     "/hooks in `codex`"),
}


def expected_lines(home: Home, expected: tuple[object, ...]) -> list[str]:
    return [item(home) if callable(item) else str(item).format(home=home.home, project=home.project)
            for item in expected]


@pytest.mark.parametrize(("setup", "expected"), CASES.values(), ids=CASES.keys())
def test_what_codex_files_say(tmp_path, setup, expected):
    home = Home.fresh(tmp_path)
    setup(home)
    found, _ = codex.from_files(home.context())
    assert lines(found) == expected_lines(home, expected)


def test_codex_home_moves_the_user_files_and_a_hook_left_in_dot_codex_is_named(tmp_path):
    home = Home.fresh(tmp_path)
    moved = home.home / "elsewhere"
    user = home.write(".codex/hooks.json", registration("codex"))
    trust(home, user)
    found, _ = codex.from_files(home.context(CODEX_HOME=str(moved)))
    assert lines(found) == [
        f"codex: problem: {user}: holds a toolguards hook, but CODEX_HOME is {moved}: Codex reads only that folder; "
        "fix: toolguards hook install codex --scope user --trust with CODEX_HOME set as Codex has it",
        f"codex: problem: {moved}/hooks.json: no toolguards hook in the hooks files Codex reads here; fix: toolguards "
        "hook install codex --trust (or --scope user --trust)"]
    moved.mkdir()
    (moved / "hooks.json").write_text(user.read_text(encoding="utf-8"), encoding="utf-8")
    found, _ = codex.from_files(home.context(CODEX_HOME=str(moved)))
    assert lines(found, ("problem",)) == [
        f"codex: problem: {user}: holds a toolguards hook, but CODEX_HOME is {moved}: Codex reads only that folder; "
        "fix: toolguards hook install codex --scope user --trust with CODEX_HOME set as Codex has it",
        *(f"codex: problem: {moved}/hooks.json:{event}:0:0: Codex has not reviewed this hook, so it skips it (without "
          "a word under `codex exec`); fix: toolguards hook install codex --scope user --trust, or review it in "
          "/hooks in `codex`" for event in ("post_tool_use", "user_prompt_submit"))]


def test_in_a_linked_worktree_a_hook_in_its_own_dot_codex_is_not_read(tmp_path):
    home = Home.fresh(tmp_path)  # the project is the main checkout
    git_dir = home.project / ".git" / "worktrees" / "feature"
    git_dir.mkdir(parents=True)
    (git_dir / "commondir").write_text("../..\n", encoding="utf-8")
    worktree = home.home / "feature"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {git_dir}\n", encoding="utf-8")
    own = home.write("feature/.codex/hooks.json", registration("codex"))
    home.write(".codex/config.toml", f'[projects."{home.project}"]\ntrust_level = "trusted"\n')
    context = home.context()
    found, _ = codex.from_files(type(context)(worktree, context.env, context.scratch))
    assert lines(found) == [
        f"codex: problem: {home.home}/.codex/hooks.json: no toolguards hook in the hooks files Codex reads here; fix: "
        "toolguards hook install codex --trust (or --scope user --trust)"]
    main = home.write("project/.codex/hooks.json", registration("codex"))
    trust(home, main)
    found, _ = codex.from_files(type(context)(worktree, context.env, context.scratch))
    assert lines(found) == [
        f"codex: ok: {main}: project scope: PostToolUse, UserPromptSubmit run {T} hook codex",
        TRUSTED.format(home=home.home),
        f"codex: problem: {own}: Codex reads this linked git worktree's hooks from {main}, not from here; fix: install "
        f"in {home.project}: toolguards hook install codex --trust",
        f"codex: ok: {home.project}: Codex trusts the project"]


def test_managed_requirements_that_allow_only_managed_hooks(tmp_path, monkeypatch):
    home = Home.fresh(tmp_path)
    reviewed(home)
    requirements = home.write("etc/requirements.toml", "allow_managed_hooks_only = true\n")
    monkeypatch.setattr(codex, "REQUIREMENTS", requirements)
    found, _ = codex.from_files(home.context())
    assert lines(found, ("problem",)) == [
        f"codex: problem: {requirements}: allow_managed_hooks_only = true: Codex runs only managed hooks, none of "
        "toolguards'; fix: ask whoever manages this machine to add toolguards' hooks to the managed ones"]


@pytest.mark.parametrize("name", ["reset_event", "call_event"])
def test_the_synthetic_events_have_the_shape_codex_sends(name):
    schema = "user-prompt-submit" if name == "reset_event" else "post-tool-use"
    assert codex_problems(f"{schema}.command.input", getattr(codex, name)("s", 1, "/p")) == []


@pytest.mark.parametrize(("answer", "refused"), [
    ({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "x"}}, []),
    ({"hookSpecificOutput": {"hookEventName": "PostToolUse"}}, ["no hookSpecificOutput.additionalContext"]),
    ({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "x"}},
     ['`hookSpecificOutput.hookEventName` is "PreToolUse", not "PostToolUse"']),
    ({"additional_context": "x"}, ["`top level` has a key the schema does not know: `additional_context`"]),
])
def test_what_codex_refuses_in_an_answer(answer, refused):
    assert codex.validate(answer) == refused


def test_the_full_check_runs_the_registered_command(tmp_path):
    home = Home.fresh(tmp_path)
    reviewed(home)
    found = codex.check(home.context())
    assert lines(found)[3:] == [
        f"codex: ok: {home.project}/.codex/hooks.json: no --config: the hook runs the shipped default guard file",
        f"codex: ok: {home.home}/.cache/toolguards: the state folder is writable",
        f"codex: ok: {home.project}/.codex/hooks.json: the command answers as the host expects: the reminder at the "
        "3rd identical call"]
    assert not (home.home / ".cache").exists()  # the user's state folder was left alone


def test_from_a_subfolder_the_trust_fix_says_where_to_run_it(tmp_path):
    home = Home.fresh(tmp_path)
    installed(home)
    trusted_project(home)
    deeper = home.project / "src" / "pkg"
    deeper.mkdir(parents=True)
    context = home.context()
    found, _ = codex.from_files(type(context)(deeper, context.env, context.scratch))
    assert lines(found, ("problem",)) == [
        f"codex: problem: {key(home, event)}: Codex has not reviewed this hook, so it skips it (without a word under "
        f"`codex exec`); fix: in {home.project}: toolguards hook install codex --trust, or review it in /hooks in "
        "`codex`" for event in ("post_tool_use", "user_prompt_submit")]
