"""``toolguards doctor claude``: each check of Claude Code's settings files, with the exact lines it prints (a file
Claude Code would ignore without a word above all), and full checks that run the command and post to a served URL."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from support.doctor_homes import Home, command, lines, registration
from support.hooks import TOOLGUARDS
from support.servers import Serve, free_port
from toolguards.doctor import claude
from toolguards.hooks import host

T = str(TOOLGUARDS)
#: the events install registers (``toolguards.hooks.claude.register``), as the where line lists them
REGISTERED = tuple(host("claude").register({}))
EVENTS = ", ".join(REGISTERED)
WHERE = f"claude: ok: {{project}}/.claude/settings.json: project scope: {EVENTS} run {T} hook claude"
NONE = ("claude: problem: {project}/.claude/settings.json: no toolguards hook in the settings files Claude Code reads "
        "here (or none of them is valid); fix: toolguards hook install claude (or --scope user)")
IGNORED = "Claude Code ignores the whole file, without a word under `claude -p`"
OURS_IGNORED = f"{IGNORED}; fix: correct the file: its hooks run only once it is valid"


def installed(home: Home, **settings: object) -> None:
    home.write("project/.claude/settings.json", registration("claude", **settings))


def handler_changed(change: dict[str, object]) -> Callable[[Home], object]:
    def setup(home: Home) -> None:
        document = registration("claude")
        document["hooks"]["PostToolUse"][0]["hooks"][0].update(change)
        home.write("project/.claude/settings.json", document)
    return setup


def case(setup: Callable[[Home], object], *expected: str) -> tuple[object, tuple[str, ...]]:
    return setup, expected


CASES = {
    "nothing registered": case(lambda home: None, NONE),
    "installed in the project": case(installed, WHERE),
    "with a comment": case(
        lambda home: home.write("project/.claude/settings.json", "// mine\n" + json.dumps(registration("claude"))),
        "claude: problem: {project}/.claude/settings.json: is not valid JSON (line 1, column 1: Expecting value): "
        + OURS_IGNORED, NONE),
    "a known setting of the wrong type": case(
        lambda home: installed(home, model=3),
        f"claude: problem: {{project}}/.claude/settings.json: `model` is a number, not a string: {OURS_IGNORED}", NONE),
    "unknown settings pass": case(lambda home: installed(home, notASetting=True, spinnerTipsEnabled=False), WHERE),
    "another file Claude Code ignores": case(
        lambda home: (installed(home), home.write(".claude/settings.json", {"permissions": [], "cleanupPeriodDays": 0})),
        WHERE,
        f"claude: note: {{home}}/.claude/settings.json: `cleanupPeriodDays` must be more than 0: {IGNORED}; fix: "
        "correct the file",
        f"claude: note: {{home}}/.claude/settings.json: `permissions` is a list, not an object: {IGNORED}; fix: correct "
        "the file"),
    "a handler type Claude Code does not know": case(
        handler_changed({"type": "shell"}),
        "claude: problem: {project}/.claude/settings.json: `hooks.PostToolUse[0].hooks[0].type` is \"shell\", not "
        f'"command" or "prompt" or "agent" or "http" or "mcp_tool": {OURS_IGNORED}', NONE),
    "a timeout that is not a number": case(
        handler_changed({"timeout": "30"}),
        "claude: problem: {project}/.claude/settings.json: `hooks.PostToolUse[0].hooks[0].timeout` is a string, not a "
        f"number: {OURS_IGNORED}", NONE),
    "a matcher that is not a string": case(
        lambda home: home.write("project/.claude/settings.json", {"hooks": {"PostToolUse": [
            {"matcher": ["Bash"], "hooks": [{"type": "command", "command": command("claude")}]}]}}),
        "claude: problem: {project}/.claude/settings.json: `hooks.PostToolUse[0].matcher` is a list, not a string: "
        + OURS_IGNORED, NONE),
    "a matcher that narrows the calls counted, and no UserPromptSubmit": case(
        lambda home: home.write("project/.claude/settings.json", {"hooks": {"PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": command("claude")}]}]}}),
        f"claude: ok: {{project}}/.claude/settings.json: project scope: PostToolUse run {T} hook claude",
        'claude: note: {project}/.claude/settings.json: hooks.PostToolUse[0]: the matcher "Bash" narrows the calls '
        'counted to the tools it matches; fix: make it "*"',
        "claude: note: PostToolUseFailure: no toolguards hook answers PostToolUseFailure: a failing call is not "
        "counted; fix: toolguards hook install claude",
        "claude: note: UserPromptSubmit: no toolguards hook answers UserPromptSubmit: a new prompt does not start the "
        "chains afresh; fix: toolguards hook install claude"),
    "all hooks switched off in the local settings": case(
        lambda home: (installed(home), home.write("project/.claude/settings.local.json", {"disableAllHooks": True})),
        WHERE, 'claude: problem: local settings: "disableAllHooks": true: Claude Code runs no hooks; fix: remove the '
               "setting"),
    "managed settings that allow only managed hooks": case(
        lambda home: (installed(home), home.write("etc/claude-code/managed-settings.json",
                                                  {"allowManagedHooksOnly": True})),
        WHERE, "claude: problem: managed settings: \"allowManagedHooksOnly\": true: Claude Code runs only managed "
               "hooks, none of toolguards'; fix: ask whoever manages this machine to add toolguards' hooks to the "
               "managed settings"),
    "managed settings that keep hooks to plugins and managed ones": case(
        lambda home: (installed(home), home.write("etc/claude-code/managed-settings.d/policy.json",
                                                  {"strictPluginOnlyCustomization": ["hooks", "mcp"]})),
        WHERE, 'claude: problem: managed settings: "strictPluginOnlyCustomization": ["hooks", "mcp"]: Claude Code runs '
               "only managed hooks, none of toolguards'; fix: ask whoever manages this machine to add toolguards' "
               "hooks to the managed settings"),
    "registered for the user and the project, differently": case(
        lambda home: (installed(home), home.write(".claude/settings.json", registration("claude", "--locale", "zh"))),
        f"claude: ok: {{home}}/.claude/settings.json: user scope: {EVENTS} run {T} hook claude --locale zh", WHERE,
        *(f"claude: problem: {event}: 2 different toolguards registrations answer {event} ({{home}}/.claude/"
          "settings.json (user), {project}/.claude/settings.json (project)): every call counts 2 times; fix: keep one: "
          "toolguards hook uninstall claude in the scope you do not want" for event in REGISTERED)),
}


@pytest.fixture
def home(tmp_path, monkeypatch) -> Home:
    found = Home.fresh(tmp_path)
    monkeypatch.setattr(claude, "MANAGED", found.home / "etc" / "claude-code")
    return found


@pytest.mark.parametrize(("setup", "expected"), CASES.values(), ids=CASES.keys())
def test_what_claude_code_settings_say(home, setup, expected):
    setup(home)
    found, _ = claude.from_files(home.context())
    assert lines(found) == [item.format(home=home.home, project=home.project) for item in expected]


def test_claude_config_dir_moves_the_user_settings(home):
    moved = home.write("config/settings.json", registration("claude"))
    found, _ = claude.from_files(home.context(CLAUDE_CONFIG_DIR=str(moved.parent)))
    assert lines(found) == [f"claude: ok: {moved}: user scope: {EVENTS} run {T} hook claude"]


def http(home: Home, url: str, **handler: object) -> None:
    hook = {"type": "http", "url": url, **handler}
    home.write("project/.claude/settings.json", {"hooks": {
        "PostToolUse": [{"matcher": "*", "hooks": [hook]}], "PostToolUseFailure": [{"matcher": "*", "hooks": [hook]}],
        "UserPromptSubmit": [{"hooks": [hook]}]}})


HTTP_CASES = {
    "a URL the allow list leaves out": (
        {"allowedHttpHookUrls": ["https://hooks.example/*"]}, {}, {},
        "claude: problem: {project}/.claude/settings.json: allowedHttpHookUrls does not allow {url}: Claude Code blocks "
        "the hook; fix: add the URL to allowedHttpHookUrls"),
    "a header naming a variable the handler does not allow": (
        {}, {"headers": {"Authorization": "Bearer ${TOKEN}"}}, {"TOKEN": "t"},
        "claude: problem: {project}/.claude/settings.json: the header names $TOKEN, which is not in the handler's "
        'allowedEnvVars: Claude Code sends it empty; fix: add "TOKEN" to the handler\'s allowedEnvVars'),
    "a header naming a variable that is not set": (
        {"allowedHttpHookUrls": ["http://127.0.0.1:*"]},
        {"headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN"]}, {},
        "claude: problem: {project}/.claude/settings.json: the header names $TOKEN, which is not set: Claude Code sends "
        "it empty; fix: export TOKEN before starting Claude Code"),
    "settings that keep the variable from every hook": (
        {"httpHookAllowedEnvVars": []}, {"headers": {"Authorization": "Bearer ${TOKEN}"}, "allowedEnvVars": ["TOKEN"]},
        {"TOKEN": "t"},
        "claude: problem: {project}/.claude/settings.json: the header names $TOKEN, which is not in the handler's "
        'allowedEnvVars: Claude Code sends it empty; fix: add "TOKEN" to the handler\'s allowedEnvVars'),
}


@pytest.mark.parametrize(("settings", "handler", "env", "expected"), HTTP_CASES.values(), ids=HTTP_CASES.keys())
def test_what_claude_code_does_with_an_http_hook(home, settings, handler, env, expected):
    url = "http://127.0.0.1:8787/hooks/claude"
    http(home, url, **handler)
    home.write(".claude/settings.json", settings)
    found, _ = claude.from_files(home.context(**env))
    assert lines(found, ("problem",)) == [expected.format(project=home.project, url=url)]


def test_the_full_check_runs_the_registered_command(home):
    installed(home)
    found = claude.check(home.context())
    assert lines(found)[1:] == [
        f"claude: ok: {home.project}/.claude/settings.json: no --config: the hook runs the shipped default guard file",
        f"claude: ok: {home.home}/.cache/toolguards: the state folder is writable",
        f"claude: ok: {home.project}/.claude/settings.json: the command answers as the host expects: the reminder at "
        "the 3rd identical call"]


def test_the_full_check_posts_to_the_served_url_with_the_token(home):
    token = home.write("token", "s3cret-s3cret-s3cret\n")
    serve = Serve("--token-file", str(token)).ready()
    try:
        url = f"http://127.0.0.1:{serve.port}/hooks/claude"
        http(home, url, headers={"Authorization": "Bearer ${TG_TOKEN}"}, allowedEnvVars=["TG_TOKEN"])
        served = claude.check(home.context(TG_TOKEN="s3cret-s3cret-s3cret"))
        refused = claude.check(home.context(TG_TOKEN="wrong"))
    finally:
        serve.stop()
    assert lines(served)[1:] == [f"claude: ok: {home.project}/.claude/settings.json: the service at {url} answers the "
                                 "host's events"]
    assert lines(refused)[1:] == [
        f"claude: problem: {home.project}/.claude/settings.json: the service at {url} refuses the request (HTTP 401): "
        "it wants a token; fix: set the environment variable the registration's header names, for the host too, to "
        "the token the service reads (its --token-file)"]


def test_the_full_check_says_when_nothing_answers_at_the_url(home):
    url = f"http://127.0.0.1:{free_port()}/hooks/claude"
    http(home, url)
    found = claude.check(home.context())
    assert lines(found)[1:] == [
        f"claude: problem: {home.project}/.claude/settings.json: nothing answers at {url} (Connection refused): the "
        "host goes on without reminders, without a word; fix: start `toolguards serve` at that address before the "
        "host starts, or install the hook again with the URL the service listens on"]
