"""toolguards' handlers in a host's hooks document, and the checks every host shares about them.

A hooks document (Claude Code's and Gemini CLI's settings, Codex's ``hooks.json``) holds ``hooks: {event: [group]}``,
each group ``{"matcher"?, "hooks": [handler]}``; Cursor's holds the handlers themselves in the event's list.
``registrations`` finds toolguards' handlers there, of two forms:

- a command running ``toolguards hook HOST …`` (``probe.read_command``);
- a registration posting the host's events to a ``toolguards serve`` hook route (``…/hooks/HOST``): an ``http``
  handler's ``url``, or a command that runs ``curl`` with that URL.

``where_lines`` says where they are (one ok line per file), ``twice`` flags an event that more than one distinct
registration of ours answers (each call would count twice), and ``tried`` runs each distinct registration once: the
command through ``probe.check_command``, the URL through ``endpoint.check_url``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .endpoint import check_url, curl_request, posts_to_hooks
from .finding import Context, Finding, ok, problem
from .probe import HookCommand, Trial, check_command, expand, read_command, session_id

__all__ = ["Registration", "handlers", "registrations", "tried", "twice", "where_lines"]


@dataclass(frozen=True)
class Registration:
    """One handler of ours: where it is (scope, file, event, group and handler positions) and what it runs."""

    scope: str
    path: Path
    event: str
    group: int
    position: int
    matcher: Any
    handler: Mapping[str, Any]
    command: HookCommand | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def runs(self) -> str:
        """What it runs, as one phrase: the command line, or the URL it posts to."""
        return self.command.text if self.command is not None else f"a POST to {self.url}"


def handlers(document: Mapping[str, Any], grouped: bool = True) -> Iterator[tuple[str, int, int, Any, Any]]:
    """Every handler of a hooks document: (event, group index, handler index, matcher, handler); for a document
    without groups (``grouped`` false) the group index is the handler's and the handler index 0. Entries of the wrong
    shape are passed over, as the hosts pass them over."""
    hooks = document.get("hooks")
    for event, entries in hooks.items() if isinstance(hooks, dict) else ():
        for group_index, entry in enumerate(entries if isinstance(entries, list) else ()):
            if not grouped:
                yield event, group_index, 0, None, entry
                continue
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            matcher = entry.get("matcher") if isinstance(entry, dict) else None
            for index, handler in enumerate(inner if isinstance(inner, list) else ()):
                yield event, group_index, index, matcher, handler


def registrations(host: str, scope: str, path: Path, document: Mapping[str, Any],
                  grouped: bool = True) -> list[Registration]:
    """toolguards' handlers for ``host`` in a parsed hooks document."""
    found = []
    for event, group, position, matcher, handler in handlers(document, grouped):
        if not isinstance(handler, dict):
            continue
        where = (scope, path, event, group, position, matcher, handler)
        command = handler.get("command")
        if handler.get("type") == "http" and isinstance(handler.get("url"), str):
            if posts_to_hooks(handler["url"], host):
                headers = handler.get("headers")
                found.append(Registration(*where, url=handler["url"],
                                          headers=dict(headers) if isinstance(headers, dict) else {}))
        elif isinstance(command, str):
            read = read_command(command, host)
            posted = curl_request(command) if read is None else None
            if read is not None:
                found.append(Registration(*where, command=read))
            elif posted is not None and posts_to_hooks(posted[0], host):
                found.append(Registration(*where, url=posted[0], headers=posted[1]))
    return found


def where_lines(label: str, found: Iterable[Registration]) -> list[Finding]:
    """One ok line per file: its scope, the events that run ours, and what they run."""
    by_file: dict[tuple[str, Path], list[Registration]] = {}
    for registration in found:
        by_file.setdefault((registration.scope, registration.path), []).append(registration)
    lines = []
    for (scope, path), mine in by_file.items():
        runs = " | ".join(dict.fromkeys(registration.runs for registration in mine))
        events = ", ".join(dict.fromkeys(registration.event for registration in mine))
        lines.append(ok(label, str(path), f"{scope} scope: {events} run {runs}"))
    return lines


def twice(label: str, found: Iterable[Registration], events: Iterable[str], fix: str) -> list[Finding]:
    """A problem for each event that more than one distinct registration of ours answers: the host runs each, so
    every call counts twice (or more)."""
    lines = []
    for event in events:
        mine = [registration for registration in found if registration.event == event]
        runs = list(dict.fromkeys(registration.runs for registration in mine))
        if len(runs) > 1:
            places = ", ".join(dict.fromkeys(f"{registration.path} ({registration.scope})" for registration in mine))
            lines.append(problem(label, event, f"{len(runs)} different toolguards registrations answer {event} "
                                               f"({places}): every call counts {len(runs)} times", fix))
    return lines


def tried(trial: Trial, found: Iterable[Registration], context: Context,
          timeout: Callable[[Registration], float | None]) -> list[Finding]:
    """Each distinct registration tried once: a command by ``probe.check_command`` (``timeout``: its registration's,
    in seconds), a URL posted the trial's first synthetic call."""
    lines: list[Finding] = []
    seen = set()
    for registration in found:
        if registration.runs in seen:
            continue
        seen.add(registration.runs)
        if registration.command is not None:
            lines += check_command(trial, registration.command, str(registration.path), context,
                                   timeout(registration))
        elif registration.url is not None:
            headers = registration.headers
            if registration.handler.get("type") != "http":  # a curl command: the shell fills its variables in
                headers = {name: expand(value, trial.env) for name, value in headers.items()}
            lines += check_url(trial.label, registration.url, headers, str(registration.path), context,
                               event=trial.call(session_id(), 1), validate=trial.validate)
    return lines
