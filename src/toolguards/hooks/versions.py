"""Which registered events the installed host accepts: ``PROGRAM --version``, asked by ``toolguards hook install``.

A host module's ``SINCE`` maps an event to the first version of the host that accepts it in a config file (Claude Code
before 2.1.101 drops, without a word, a whole settings file that names an event it does not know). Install asks the
host's program on ``PATH`` for its version once, and leaves out every event that version does not accept — and every
event it cannot tell about: no program, a failing one, or no version in what it printed. Each event left out comes
with the reason, one clause for install's summary line::

    PostToolBatch left out: claude 2.1.100 is older than 2.1.101 (claude before 2.1.101 drops a config file that
    names it)

The version is the first ``N.N.N`` the program prints (``2.1.197 (Claude Code)``).
"""

from __future__ import annotations

import re
import shutil
import subprocess

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .protocol import Host

__all__ = ["TIMEOUT", "left_out", "program_version"]

#: Seconds a program may take to print its version.
TIMEOUT = 20.0
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def program_version(program: str) -> tuple[int, ...] | str:
    """The version ``program --version`` prints, or why there is none (a clause: "no `claude` on PATH …")."""
    found = shutil.which(program)
    if found is None:
        return f"no `{program}` on PATH to tell its version"
    try:
        done = subprocess.run([found, "--version"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return f"`{program} --version` did not answer in {TIMEOUT:g} s"
    except OSError as exc:
        return f"`{program} --version` could not run ({exc.strerror or exc})"
    if done.returncode != 0:
        return f"`{program} --version` exited {done.returncode}"
    matched = _VERSION.search(done.stdout)
    if matched is None:
        return f"`{program} --version` printed no version"
    return tuple(int(part) for part in matched.groups())


def left_out(module: Host) -> dict[str, str]:
    """The events of ``module.SINCE`` the installed program does not accept (or cannot be asked about), with why."""
    if not module.SINCE:
        return {}
    program = module.PROGRAM
    version = program_version(program) if program is not None else f"no program of {module.NAME} to ask"
    found = {}
    for event, since in module.SINCE.items():
        if isinstance(version, tuple) and version >= since:
            continue
        why = version if isinstance(version, str) else f"{program} {_dotted(version)} is older than {_dotted(since)}"
        found[event] = f"{event} left out: {why} ({program} before {_dotted(since)} drops a config file that names it)"
    return found
