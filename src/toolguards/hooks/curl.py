"""A command hook that starts no Python: ``curl`` hands the event to a running ``toolguards serve``.

``toolguards hook install HOST --http URL`` registers, for a host that has only command hooks (Codex CLI, Gemini CLI,
Cursor), this command instead of ``toolguards hook HOST``::

    /usr/bin/curl -q -s -f --connect-timeout 1 --max-time 2 --noproxy '*' -H 'Content-Type: application/json' \\
        -H 'Expect:' --data-binary @- 'http://127.0.0.1:8787/hooks/codex' || true

(one line; with ``--token-env VAR`` also ``-H "Authorization: Bearer $VAR"``). The event the host writes on stdin is
posted to ``URL`` (``POST /hooks/HOST``, ``toolguards.serve.host_routes``), and the answer's body, which is byte for
byte what ``toolguards hook HOST`` prints, goes to stdout. It fails open: a service that is down, slow (past 2 s),
refusing the token, or answering any error prints nothing on stdout or stderr and exits 0, so every host reads "no
reminder" and the tool call goes on. Each part is there for a host's contract:

- ``-f`` keeps an error's body (``{"error": …}``) off stdout, where Codex would fail the hook on JSON outside its schema
  and Cursor and Gemini CLI would read it as their own output; ``|| true`` makes every exit 0 (Codex, Gemini CLI and
  Cursor take exit 2 as a block and other codes as a failed hook);
- ``-s`` prints no error either: Gemini CLI reads stderr as the hook's output when stdout is empty (a message to the
  user), so a service that is down must stay silent. ``toolguards hook install`` says what it registered, and the
  service's own ``/metrics`` count what it answered;
- ``-q`` (first) ignores the user's ``~/.curlrc``, which could add output or options; ``--noproxy '*'`` (for a loopback
  URL only) keeps an ``http_proxy`` in the host's environment from routing 127.0.0.1 to a proxy; ``-H 'Expect:'``
  stops curl from waiting up to a second for a ``100 Continue`` before it sends a large body (from 1 MB on);
- the token is read from the environment when the command runs, never written into the file (it does appear in
  curl's command line, which other users of the machine can list).

The command is written for the shells the hosts run it in: ``sh -c`` / ``bash -c`` (Gemini CLI, Cursor) and
``$SHELL -lc`` (Codex): POSIX shells, bash, zsh and fish read it alike (single-quoted words, one double-quoted
``$VAR``, ``||``). Windows shells do not (cmd.exe and PowerShell quote otherwise), so install refuses it there. The
URL and curl's path must not hold a quote or a backslash, which single quotes cannot carry in every one of those shells.
"""

from __future__ import annotations

import os
import shlex
from urllib.parse import urlsplit

__all__ = ["CONNECT_TIMEOUT", "MAX_TIME", "command", "curl_problem", "is_curl_hook", "url_problem"]

#: Seconds curl waits to connect, and for the whole answer: past them the hook says nothing and the call goes on.
CONNECT_TIMEOUT = 1
MAX_TIME = 2
_LOOPBACK = ("localhost", "127.0.0.1", "::1")
_PROGRAMS = ("curl", "curl.exe")


def url_problem(url: str, host: str) -> str | None:
    """Why ``url`` cannot be the endpoint of such a command for ``host``; None when it can."""
    if os.name == "nt":
        return ("a command hook without Python needs a POSIX shell, and the hosts run their hooks in cmd.exe or "
                "PowerShell on Windows: register the Python hook (without --http)")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an http:// or https:// URL"
    if not parts.path.endswith(f"/hooks/{host}"):
        return f"{url!r} does not end in /hooks/{host}, the endpoint of toolguards serve for {host}"
    return _unquotable("the URL", url)


def curl_problem(curl: str | None) -> str | None:
    """Why curl at this path (None: not on the PATH) cannot be registered; None when it can."""
    if curl is None:
        return "the registered command runs curl, which is not on the PATH (Debian: apt-get install curl)"
    return _unquotable("curl's path", curl)


def _unquotable(what: str, text: str) -> str | None:
    if any(char in text for char in "'\"\\") or not text.isprintable():
        return f"{what} {text!r} holds a quote, a backslash or a control character, which not every shell would keep"
    return None


def command(curl: str, url: str, token_env: str | None = None) -> str:
    """The command line that posts the event on stdin to ``url`` and prints the answer, failing open."""
    words = [shlex.quote(curl), "-q", "-s", "-f", "--connect-timeout", str(CONNECT_TIMEOUT), "--max-time",
             str(MAX_TIME)]
    if urlsplit(url).hostname in _LOOPBACK or (urlsplit(url).hostname or "").startswith("127."):
        words += ["--noproxy", "'*'"]
    words += ["-H", "'Content-Type: application/json'", "-H", "'Expect:'"]
    if token_env is not None:
        words += ["-H", f'"Authorization: Bearer ${token_env}"']
    words += ["--data-binary", "@-", shlex.quote(url), "||", "true"]
    return " ".join(words)


def is_curl_hook(line: str, host: str) -> bool:
    """Whether a registered command line is such a command for ``host`` (any URL ending in /hooks/HOST)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return False
    return (len(words) > 4 and os.path.basename(words[0]) in _PROGRAMS and words[-2:] == ["||", "true"]
            and "--data-binary" in words and urlsplit(words[-3]).path.endswith(f"/hooks/{host}"))
