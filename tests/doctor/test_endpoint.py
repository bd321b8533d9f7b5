"""A registration that posts to a URL: which ones are ours, a curl command read, and what a real ``toolguards serve``
(or nothing) answers, with the exact lines doctor prints."""

from __future__ import annotations

import pytest

from support.doctor_homes import Home, lines
from support.servers import Serve
from toolguards.doctor import codex, gemini
from toolguards.doctor.endpoint import check_url, curl_request, posts_to_hooks
from toolguards.doctor.registrations import registrations


@pytest.mark.parametrize(("url", "host", "expected"), [
    ("http://127.0.0.1:8787/hooks/codex", "codex", True),
    ("https://guards.example/team/hooks/codex/", "codex", True),
    ("http://127.0.0.1:8787/hooks/claude", "codex", False),
    ("http://127.0.0.1:8787/v1/events", "codex", False),
    ("ftp://127.0.0.1/hooks/codex", "codex", False),
])
def test_a_service_hook_route(url, host, expected):
    assert posts_to_hooks(url, host) is expected


@pytest.mark.parametrize(("command", "expected"), [
    ("curl -s -X POST -H 'Content-Type: application/json' -H \"Authorization: Bearer $TOKEN\" --data-binary @- "
     "http://127.0.0.1:8787/hooks/codex",
     ("http://127.0.0.1:8787/hooks/codex", {"Content-Type": "application/json", "Authorization": "Bearer $TOKEN"})),
    ("/usr/bin/curl --header 'X-A: 1' https://h.example/hooks/gemini", ("https://h.example/hooks/gemini", {"X-A": "1"})),
    ("curl -s @-", None),
    ("wget http://127.0.0.1:8787/hooks/codex", None),
    ("curl 'unclosed", None),
])
def test_a_curl_command_read(command, expected):
    assert curl_request(command) == expected


def test_a_curl_registration_is_ours_and_an_http_one_only_on_the_host_route(tmp_path):
    curl = "curl -s --data-binary @- http://127.0.0.1:8787/hooks/gemini"
    document = {"hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": curl},
                                                   {"type": "command", "command": "curl -s http://x/elsewhere"}]}],
                          "BeforeAgent": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:8787/hooks/claude"}]}]}}
    found = registrations("gemini", "project", tmp_path / "settings.json", document)
    assert [(item.event, item.url, item.runs) for item in found] == [
        ("AfterTool", "http://127.0.0.1:8787/hooks/gemini", "a POST to http://127.0.0.1:8787/hooks/gemini")]


@pytest.fixture(scope="module")
def served():
    serve = Serve().ready()
    yield f"http://127.0.0.1:{serve.port}"
    serve.stop()


def posted(home: Home, url: str, module=codex) -> list[str]:
    return lines(check_url(module.NAME, url, {}, "hooks.json", home.context(),
                           event=module.call_event("toolguards-doctor-test", 1), validate=module.validate))


@pytest.mark.parametrize("module", [codex, gemini])
def test_the_service_answers_a_host_s_events(tmp_path, served, module):
    url = f"{served}/hooks/{module.NAME}"
    assert posted(Home.fresh(tmp_path), url, module) == [
        f"{module.NAME}: ok: hooks.json: the service at {url} answers the host's events"]


@pytest.mark.parametrize(("path", "expected"), [
    ("/hooks/nohost", "the service at {url} has no such route (HTTP 404); fix: register the service's /hooks/<host> "
                      "URL"),
    ("/hooks/cursor", "the service at {url} answers HTTP 400: the event has no `conversation_id` string; fix: see "
                      "the service's log"),
])
def test_what_doctor_says_of_a_wrong_route(tmp_path, served, path, expected):
    url = f"{served}{path}"
    assert posted(Home.fresh(tmp_path), url) == [f"codex: problem: hooks.json: {expected.format(url=url)}"]


def test_a_curl_registration_is_posted_with_the_headers_the_shell_fills_in(tmp_path):
    token = tmp_path / "token"
    token.write_text("a-token-of-twenty-chars\n", encoding="utf-8")
    serve = Serve("--token-file", str(token)).ready()
    try:
        url = f"http://127.0.0.1:{serve.port}/hooks/gemini"
        curl = f"curl -s -H 'Authorization: Bearer $TG_TOKEN' --data-binary @- {url}"
        home = Home.fresh(tmp_path)
        home.write("project/.gemini/settings.json", {"hooks": {
            "AfterTool": [{"matcher": "*", "hooks": [{"name": "toolguards", "type": "command", "command": curl}]}],
            "BeforeAgent": [{"hooks": [{"name": "toolguards", "type": "command", "command": curl}]}]}})
        env = {"GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(home.home / "none.json")}
        right = gemini.check(home.context(TG_TOKEN="a-token-of-twenty-chars", **env))
        wrong = gemini.check(home.context(TG_TOKEN="another", **env))
    finally:
        serve.stop()
    where = home.project / ".gemini" / "settings.json"
    assert lines(right)[-1] == f"gemini: ok: {where}: the service at {url} answers the host's events"
    assert lines(wrong)[-1].startswith(f"gemini: problem: {where}: the service at {url} refuses the request (HTTP 401)")
