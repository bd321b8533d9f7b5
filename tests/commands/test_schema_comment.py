"""The editor-schema comment (``# yaml-language-server: $schema=…``) works wherever the guard file is.

No address on the web serves the schema (toolguards has no release nor a public address yet, and one would hold one
version's kinds, without a plugin's): a guard file of one's own names the schema that the installed toolguards prints
beside it (``toolguards schema > toolguards.schema.json``); the shipped files name the schema shipped beside them,
which resolves in the checkout and in an installed wheel alike (``tests/test_packaging.py`` checks the wheel).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from conftest import REPO
from toolguards.cli import main
from toolguards.resources import default_guard_file, schema_file

COMMENT = re.compile(r"# yaml-language-server: \$schema=(\S+)\n")


def named_schema(guard_file: Path) -> Path:
    found = COMMENT.match(guard_file.read_text(encoding="utf-8"))
    assert found is not None, f"{guard_file}: its first line names no schema"
    return (guard_file.parent / found.group(1)).resolve()


@pytest.mark.parametrize("guard_file", [default_guard_file(), *sorted((REPO / "examples").glob("*.yaml"))],
                         ids=lambda path: path.name)
def test_a_shipped_file_names_the_schema_shipped_beside_it(guard_file):
    if not guard_file.is_file():
        pytest.skip("the examples are in the checkout only")
    assert named_schema(guard_file).read_text(encoding="utf-8") == schema_file().read_text(encoding="utf-8")


def test_a_guard_file_of_ones_own_names_the_schema_the_installed_toolguards_prints(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["schema"]) == 0
    Path("toolguards.schema.json").write_text(capsys.readouterr().out, encoding="utf-8")
    mine = Path("guards.yaml")
    mine.write_text("# yaml-language-server: $schema=toolguards.schema.json\nguards:\n  - id: repeat-tool-reminder\n"
                    "    config: {thresholds: [4, 6]}\n", encoding="utf-8")
    schema = json.loads(named_schema(mine).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(YAML(typ="safe").load(mine.read_text(encoding="utf-8")))
    assert main(["validate", str(mine)]) == 0
