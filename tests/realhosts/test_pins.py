"""The real hosts' versions are pinned in one list for the installer and one for the tests: the two agree."""

from __future__ import annotations

import re

from conftest import REPO
from support.real_hosts import PROGRAMS


def test_the_installer_installs_the_versions_the_tests_name():
    text = (REPO / ".ci" / "install-hosts").read_text(encoding="utf-8")
    installed = re.findall(r'^\s*"(@[^"@]+/[^"@]+)@([^"]+)"$', text, flags=re.M)
    assert sorted(installed) == sorted(PROGRAMS.values())
