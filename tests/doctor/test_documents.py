"""The hosts' files as doctor reads them, and every schema message in our own words."""

from __future__ import annotations

import pytest

from toolguards.doctor.documents import Document, packaged_schema, read_json, read_toml, schema_problems


@pytest.mark.parametrize(("text", "comments", "expected"), [
    ('{"a": 1}', False, Document(None, {"a": 1})),
    ('\ufeff{"a": 1}', False, Document(None, {"a": 1})),
    ("", False, Document(None, {})),
    ('// c\n{"a": "//not a comment", /* b */ "b": 2}', True, Document(None, {"a": "//not a comment", "b": 2})),
    ('// c\n{"a": 1}', False, Document(None, error="is not valid JSON (line 1, column 1: Expecting value)")),
    ("[1]", False, Document(None, [1], "holds a JSON list, not an object")),
    (b"\xff{}", False, Document(None, error="is not UTF-8 text (invalid start byte at byte 0)")),
])
def test_a_json_file(tmp_path, text, comments, expected):
    path = tmp_path / "f.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    assert read_json(path, comments) == Document(path, expected.value, expected.error)


def test_a_missing_file(tmp_path):
    assert read_json(tmp_path / "none.json") == Document(tmp_path / "none.json", exists=False)
    assert read_toml(tmp_path / "none.toml") == Document(tmp_path / "none.toml", exists=False)
    assert not read_json(tmp_path / "none.json").usable


@pytest.mark.parametrize(("text", "expected"), [
    ('a = 1\n[b]\nc = "d"\n', Document(None, {"a": 1, "b": {"c": "d"}})),
    ("a = \n", Document(None, error="is not valid TOML (Unexpected character: '\\n' at line 1 col 4)")),
])
def test_a_toml_file(tmp_path, text, expected):
    path = tmp_path / "f.toml"
    path.write_text(text, encoding="utf-8")
    assert read_toml(path) == Document(path, expected.value, expected.error)


CLAUDE = "claude-code-settings.schema.json"
GEMINI = "gemini-settings.hooks-subset.schema.json"
CODEX = "codex-post-tool-use.command.output.schema.json"


@pytest.mark.parametrize(("schema", "value", "expected"), [
    (CLAUDE, {"model": "opus", "notASetting": [1], "hooks": {"NotAnEvent": 3}}, []),
    (CLAUDE, {"model": 3, "verbose": "yes"}, ["`model` is a number, not a string",
                                              "`verbose` is a string, not a boolean"]),
    (CLAUDE, {"cleanupPeriodDays": 1.5}, ["`cleanupPeriodDays` is a number, not a whole number"]),
    (CLAUDE, {"cleanupPeriodDays": 0}, ["`cleanupPeriodDays` must be more than 0"]),
    (CLAUDE, {"defaultShell": "zsh"}, ['`defaultShell` is "zsh", not "bash" or "powershell"']),
    (CLAUDE, {"forceLoginOrgUUID": 3}, ["`forceLoginOrgUUID` is a number, not a string or a list"]),
    (CLAUDE, {"effortLevel": "extreme", "theme": 3}, []),  # Claude Code drops these values alone, keeping the file
    (CLAUDE, {"hooks": []}, ["`hooks` is a list, not an object"]),
    (CLAUDE, {"hooks": {"PostToolUse": {}}}, ["`hooks.PostToolUse` is an object, not a list"]),
    (CLAUDE, {"hooks": {"PostToolUse": [{"matcher": "*"}]}}, ["`hooks.PostToolUse[0]` has no `hooks`"]),
    (CLAUDE, {"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}, ["`hooks.Stop[0].hooks[0]` has no `type`"]),
    (CLAUDE, {"hooks": {"Stop": [{"hooks": [{"type": "command"}, {"type": "http", "url": "not a url"}]}]}},
     ["`hooks.Stop[0].hooks[0]` has no `command`",
      '`hooks.Stop[0].hooks[1].url` ("not a url") does not match ^[A-Za-z][A-Za-z0-9+.-]*:']),
    (CLAUDE, {"hooks": {"Stop": [{"hooks": [{"type": "mcp_tool", "server": "s"}, {"type": "prompt", "prompt": 1}]}]}},
     ["`hooks.Stop[0].hooks[0]` has no `tool`", "`hooks.Stop[0].hooks[1].prompt` is a number, not a string"]),
    (CLAUDE, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "shell": "fish", "timeout": 0,
                                             "rewakeMessage": ""}]}]}},
     ['`hooks.Stop[0].hooks[0].rewakeMessage` must not be empty',
      '`hooks.Stop[0].hooks[0].shell` is "fish", not "bash" or "powershell"',
      "`hooks.Stop[0].hooks[0].timeout` must be more than 0"]),
    (GEMINI, {"hooksConfig": {"enabled": True, "disabled": ["x"]}, "hooks": {"AfterTool": []}, "ui": 1}, []),
    (GEMINI, {"hooksConfig": {"enable": True}}, ["`hooksConfig` has a key the schema does not know: `enable`"]),
    (GEMINI, {"hooks": {"AfterTool": [{"matcher": 1, "hooks": [{"timeout": "1"}]}]}},
     ["`hooks.AfterTool[0].hooks[0].timeout` is a string, not a number",
      "`hooks.AfterTool[0].matcher` is a number, not a string"]),
    (CODEX, {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": 1}},
     ["`hookSpecificOutput.additionalContext` is a number, not a string"]),
    (CODEX, {"hookSpecificOutput": {"additionalContext": "x"}}, ["`hookSpecificOutput` has no `hookEventName`"]),
    (CODEX, [], ["`top level` is a list, not an object"]),
])
def test_schema_messages(schema, value, expected):
    assert schema_problems(packaged_schema(schema), value) == expected


def test_every_claude_code_event_is_in_the_schema():
    from toolguards.hooks import claude

    events = packaged_schema(CLAUDE)["$defs"]["hooks"]["properties"]
    assert set(claude.EVENTS) <= set(events)
