"""``toolguards doctor [HOST ...] [--format text|json]``: say whether the guard will work in each host, and why not.

For each host named (``claude``, ``codex``, ``gemini``, ``cursor``, and ``mcp`` for the MCP clients' proxied servers),
or by default each whose files hold a toolguards registration or whose program is on PATH, the checks of
``toolguards.doctor`` print one finding a line, ``<host>: <ok|note|problem>: <where>: <what>; fix: <fix>``, on stdout
(``--format json``: one JSON object, ``{"ok", "hosts", "findings": [{host, status, where, message, fix}]}``) and a
summary line on stderr. The checks run in the current folder (the project) with the current environment, as the host
would; registered commands run with a throwaway state folder, so the chains of real sessions are untouched.

Exit codes: 0 the guard will work in every host checked (no finding is a problem); 1 it will not somewhere (or no
host has toolguards registered); 2 a usage error (the usage and one line ``toolguards doctor: <problem>`` on stderr, as
every command says it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..doctor import CHECKS, Context, Finding, default_names, examine
from .options import add_option, exit_codes
from .parser import Parser

HELP = "say whether the guard will work in each host (registration, trust, command, guard file), with the fixes"

EPILOG = """hosts: claude (Claude Code), codex (Codex CLI), gemini (Gemini CLI), cursor (Cursor), mcp (the MCP clients'
servers run through toolguards mcp); default: each whose files hold a toolguards registration or whose program is on
PATH.

""" + exit_codes(
    "0 the guard will work in every host checked",
    "1 it will not somewhere: a finding is a problem (or no host has toolguards registered)",
    "2 a usage error",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register doctor's arguments."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("hosts", nargs="*", metavar="HOST",
                        help=f"the hosts to check: {', '.join(CHECKS)} (default: see below)")
    add_option(parser, "--format", choices=("text", "json"), default="text",
               help="text: one finding a line (default); json: one JSON object, for scripts")


def main(argv: Sequence[str]) -> int:
    """Parse doctor's arguments (a usage error: one line, exit 2) and run it."""
    parser = Parser(prog="toolguards doctor", description=HELP)
    add_arguments(parser)
    try:
        options = parser.parse_args(list(argv))
        unknown = [name for name in options.hosts if name not in CHECKS]
        if unknown:
            parser.error(f"unknown host `{unknown[0]}` (known: {', '.join(CHECKS)})")
    except SystemExit as exc:
        return int(exc.code or 0)
    return doctor(options.hosts, options.format)


def run(args: argparse.Namespace) -> int:
    """Run doctor on parsed arguments."""
    return doctor(args.hosts, args.format)


def doctor(names: Sequence[str], output: str) -> int:
    """Check ``names`` (every host found, when empty) and print the findings; the exit code."""
    with tempfile.TemporaryDirectory(prefix="toolguards-doctor-") as scratch:
        context = Context(Path.cwd(), dict(os.environ), Path(scratch))
        chosen = list(dict.fromkeys(names)) or default_names(context)
        findings = examine(chosen, context) if chosen else [Finding(
            "toolguards", "problem", str(context.cwd), "no host here has a toolguards registration, and no host's "
            "program is on PATH", "toolguards hook install HOST (or name the host: toolguards doctor HOST)")]
    problems = sum(finding.status == "problem" for finding in findings)
    notes = sum(finding.status == "note" for finding in findings)
    if output == "json":
        print(json.dumps({"ok": not problems, "hosts": chosen, "findings": [finding.as_json() for finding in findings]},
                         indent=2, ensure_ascii=False))
    else:
        for finding in findings:
            print(finding)
    checked = ", ".join(chosen) or "no host"
    plural = {1: ""}
    print(f"toolguards doctor: {checked}: {problems} problem{plural.get(problems, 's')}, "
          f"{notes} note{plural.get(notes, 's')}", file=sys.stderr)
    return 1 if problems else 0
