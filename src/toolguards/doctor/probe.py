"""A registered ``toolguards hook HOST`` command, tried as the host runs it: its program, its guard file, its state
folder, and its answers to synthetic events of that host.

``read_command(text, host)`` reads a registered command line (the one ``toolguards hook install`` writes, or any
``toolguards hook HOST …`` or ``python -m toolguards hook HOST …``); ``check_command`` then finds:

- whether the program exists (a path, or a name on the host's ``PATH``);
- whether the guard file of ``--config`` validates (``toolguards validate``'s checks), or that there is none (the
  shipped default);
- whether the state folder (``--state-dir``, else the user's cache folder + ``toolguards``) can be written;
- how the command answers, run exactly as registered through the shell, in the project folder, with the host's
  environment, and with ``--state-dir <a throwaway folder>`` added at its end, so the user's chains are untouched:
  first the host's new-prompt event, then identical tool calls until the guard file's first reminder (worked out by
  running the same events through this installation's own hook, in-process), at most ``MAX_CALLS``. Every run must
  exit 0 with nothing on stderr, answer nothing where the guard file gives nothing, and, at the reminder, answer JSON
  the host reads (the host's ``validate`` says what it accepts) carrying the reminder; one slower than the
  registration's timeout is a problem too. A command line holding more than toolguards' own options (a shell
  redirection, say) is not run: a throwaway state folder cannot be added to it safely.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..guardfile.loader import check_file
from ..hooks import host as host_module
from ..hooks.protocol import HookError
from .finding import Context, Finding, note, ok, problem

__all__ = ["MAX_CALLS", "HookCommand", "Trial", "check_command", "expand", "read_command", "session_id", "state_folder"]

#: The most identical calls the probe sends while waiting for the guard file's first reminder.
MAX_CALLS = 10
_SCRIPT_NAMES = ("toolguards", "toolguards.exe")
_OPTIONS = ("--config", "--locale", "--state-dir")
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")

#: One synthetic event of a host: the new-prompt event for a session, or its ``number``-th identical tool call.
Event = Callable[[str, int], dict[str, Any]]


@dataclass(frozen=True)
class HookCommand:
    """A registered hook command line, read: its words, the values of toolguards' options in it, and whether it holds
    nothing else after ``hook HOST`` (``plain``)."""

    text: str
    words: tuple[str, ...]
    config: str | None
    locale: str | None
    state_dir: str | None
    plain: bool


def read_command(text: str, host: str) -> HookCommand | None:
    """The command line read, when it runs ``toolguards hook HOST``; None otherwise."""
    try:
        words = shlex.split(text, posix=os.name != "nt")
    except ValueError:
        return None
    start = None
    for index, word in enumerate(words):
        program = os.path.basename(word.strip('"'))
        if (index == 0 and program in _SCRIPT_NAMES) or (index > 0 and program == "toolguards"
                                                         and words[index - 1] == "-m"):
            if words[index + 1 : index + 3] == ["hook", host]:
                start = index + 3
            break
    if start is None:
        return None
    options: dict[str, str] = {}
    rest, index, plain = words[start:], 0, True
    while index < len(rest):
        name, equals, value = rest[index].partition("=")
        if name not in _OPTIONS or not (equals or index + 1 < len(rest)):
            plain = False
            break
        if not equals:
            index += 1
            value = rest[index]
        options[name] = value
        index += 1
    return HookCommand(text, tuple(words), options.get("--config"), options.get("--locale"),
                       options.get("--state-dir"), plain)


def session_id() -> str:
    """A session id no agent uses, for synthetic events (the user's chains stay as they are)."""
    return f"toolguards-doctor-{uuid.uuid4().hex[:12]}"


def expand(text: str, env: Mapping[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` replaced from ``env`` (a name it lacks is left as it is)."""
    return _VARIABLE.sub(lambda found: env.get(found.group(1) or found.group(2), found.group(0)), text)


def _substitute(text: str, values: Mapping[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` of the names in ``values`` replaced, whatever the shell's quotes around them."""
    return _VARIABLE.sub(lambda found: values.get(found.group(1) or found.group(2), found.group(0)), text)


def _program_found(program: str, env: Mapping[str, str]) -> bool:
    if os.sep in program or (os.altsep and os.altsep in program):
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program, path=env.get("PATH", os.defpath)) is not None


def state_folder(command: HookCommand, env: Mapping[str, str], cwd: Path) -> Path:
    """The folder the command keeps its state in, run in ``cwd`` with ``env``: ``--state-dir``, else the user's cache
    folder + toolguards."""
    if command.state_dir is not None:
        return cwd / os.path.expanduser(expand(command.state_dir, env))
    if sys.platform == "linux":  # the hook's own rule (``hooks.command.xdg_cache_dir``), for the host's environment
        base = env.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):
            base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
        return Path(base) / "toolguards"
    from ..hooks.command import default_state_dir  # noqa: PLC0415

    return Path(default_state_dir())


def _unwritable(folder: Path, state_file: str) -> str | None:
    """Why the hook could not write its state file in ``folder``; None when it can."""
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable"
    path = folder / state_file
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return f"{path} is not writable"
    return None


@dataclass(frozen=True)
class _Answer:
    returncode: int | None  # None: no answer in time
    stdout: str
    stderr: str
    seconds: float


def _run(text: str, event: Mapping[str, Any], context: Context, cwd: Path,
         env: Mapping[str, str]) -> _Answer:
    """One run of the command line through the shell, the event on its stdin; a run past the timeout is ended with
    everything it started (its own process group), so nothing it left holds the pipes."""
    started = time.monotonic()
    with subprocess.Popen(text, shell=True, cwd=cwd, env=dict(env), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, start_new_session=os.name != "nt") as process:
        try:
            stdout, stderr = process.communicate(json.dumps(event), timeout=context.timeout)
        except subprocess.TimeoutExpired:
            if os.name != "nt":
                os.killpg(process.pid, signal.SIGKILL)
            process.kill()
            process.communicate()
            return _Answer(None, "", "", context.timeout)
    return _Answer(process.returncode, stdout, stderr, time.monotonic() - started)


def _expected(host: str, events: list[dict[str, Any]], config: Path | None, locale: str | None,
              folder: Path) -> list[str]:
    """What this installation's own hook answers each event (in-process, in its own throwaway state folder)."""
    from ..hooks.command import run_event  # noqa: PLC0415

    return [run_event(host, event, config=config, locale=locale, state_dir=folder)[0] for event in events]


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


@dataclass(frozen=True)
class Trial:
    """How to try one host's registered commands: the host's name in the findings (``label``) and its hook protocol
    (``host``), the folder and environment the host runs a command with, its synthetic events (``reset``, ``call``),
    what it refuses in an answer (``validate``), and how to register the command afresh (``fix``)."""

    label: str
    host: str
    cwd: Path
    env: Mapping[str, str]
    reset: Event
    call: Event
    validate: Callable[[Any], list[str]]
    fix: str
    #: variables the host replaces in the command's text itself before the shell sees it (Gemini CLI's
    #: ``$GEMINI_PROJECT_DIR``…), beside setting them in the environment; ``$SESSION`` stands for the event's session
    substituted: Mapping[str, str] = field(default_factory=dict)


def check_command(trial: Trial, command: HookCommand, where: str, context: Context,
                  timeout: float | None = None) -> list[Finding]:
    """Every finding about one registered command (``where``: its registration; ``timeout``: the registration's, in
    seconds)."""
    label, env, cwd = trial.label, trial.env, trial.cwd
    found: list[Finding] = []
    program = expand(command.words[0], env)
    if not _program_found(program, env):
        found.append(problem(label, where, f"the command's program {program} is not found, so the host cannot run it",
                             trial.fix))
    config = None
    if command.config is None:
        found.append(ok(label, where, "no --config: the hook runs the shipped default guard file"))
    else:
        config = cwd / os.path.expanduser(expand(command.config, env))
        problems = check_file(config)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            found.append(problem(label, str(config), f"the guard file does not validate: {problems[0]}{more}",
                                 f"toolguards validate {shlex.quote(str(config))}, and fix what it says"))
        else:
            found.append(ok(label, str(config), "the guard file validates"))
    folder = state_folder(command, env, cwd)
    why = _unwritable(folder, host_module(trial.host).STATE_FILE)
    if why is not None:
        found.append(problem(label, str(folder), f"the hook cannot keep its state here ({why}): it answers nothing",
                             "make the folder writable, or give the registered command --state-dir DIR"))
    else:
        found.append(ok(label, str(folder), "the state folder is writable"))
    if any(finding.status == "problem" for finding in found):
        return found
    if not command.plain:
        return [*found, note(label, where, "the command line holds more than toolguards' own options, so it was not "
                                           "run (a throwaway state folder cannot be added to it safely)")]
    return found + _answers(trial, command, where, context, timeout, config)


def _answers(trial: Trial, command: HookCommand, where: str, context: Context, timeout: float | None,  # noqa: PLR0917
             config: Path | None) -> list[Finding]:
    label = trial.label
    session = session_id()
    scratch = Path(context.scratch) / session
    events = [trial.reset(session, 0), *(trial.call(session, number) for number in range(1, MAX_CALLS + 1))]
    try:
        expected = _expected(trial.host, events, config, command.locale, scratch / "expected")
    except HookError as exc:
        return [problem(label, where, f"the hook cannot answer: {exc}", trial.fix)]
    first = next((index for index, text in enumerate(expected) if text), None)
    sent = events[: (first if first is not None else 3) + 1]
    values = {name: session if value == "$SESSION" else value for name, value in trial.substituted.items()}
    text = f"{_substitute(command.text, values)} --state-dir {shlex.quote(str(scratch / 'state'))}"
    answers = []
    for number, (event, wanted) in enumerate(zip(sent, expected, strict=False)):
        answer = _run(text, event, context, trial.cwd, {**trial.env, **values})
        answers.append(answer)
        what = "the new-prompt event" if number == 0 else f"the {_ordinal(number)} identical call"
        failure = _failure(answer, wanted, trial.validate)
        if failure is not None:  # the first one is enough: a command that hangs is not waited for again
            return [problem(label, where, f"the command, run as registered, {failure} at {what}",
                            f"run it by hand to see why, or register it afresh: {trial.fix}")]
    slowest = max(answer.seconds for answer in answers)
    if timeout is not None and slowest > timeout:
        return [problem(label, where, f"the command took {slowest:.1f} s to answer, more than the registration's "
                                      f"timeout of {timeout:g} s: the host gives up on it",
                        "raise the registration's timeout")]
    if first is None:
        return [note(label, where, f"the command answers as the host expects, but its guard file gives no reminder "
                                   f"within {MAX_CALLS} identical calls of {_tool(events[1])}",
                     "check the guard file's thresholds and include/exclude")]
    found = [ok(label, where, f"the command answers as the host expects: the reminder at the {_ordinal(first)} "
                              "identical call")]
    if answers[first].stdout.rstrip("\n") != expected[first]:
        found.append(note(label, where, "the command's reminder differs from this installation's: it runs another "
                                        "version of toolguards or another guard file",
                          "install the hook again from the toolguards you use"))
    return found


def _tool(event: Mapping[str, Any]) -> str:
    tool = event.get("tool_name")
    return str(tool) if isinstance(tool, str) else "the synthetic tool"


def _failure(answer: _Answer, wanted: str, validate: Callable[[Any], list[str]]) -> str | None:
    """What is wrong with one answer (None: nothing)."""
    said = answer.stderr.strip().splitlines()
    if answer.returncode is None:
        return f"gives no answer within {answer.seconds:g} s"
    if answer.returncode != 0:
        return f"exits {answer.returncode}" + (f" ({said[-1]})" if said else "")
    if said:
        return f"says {said[0]!r} on stderr"
    if not wanted:
        return f"answers {answer.stdout.strip()[:80]!r} where nothing is due" if answer.stdout.strip() else None
    if not answer.stdout.strip():
        return "answers nothing where the guard file gives a reminder"
    try:
        value = json.loads(answer.stdout)
    except ValueError:
        return f"answers {answer.stdout.strip()[:80]!r}, which is not JSON"
    refused = validate(value)
    if refused:
        return f"answers JSON the host refuses ({refused[0]})"
    return None
