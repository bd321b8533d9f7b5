"""A registration that posts the host's events to a URL (a ``toolguards serve``), tried: does the service answer?

``check_url`` posts one synthetic tool call of a fresh session (the first call of a chain: no reminder is due, so
the service's chains gain one call of a session no agent uses) with the registration's headers, straight to the URL
(no proxy), and finds:

- nothing answers (refused, unreachable, no answer within the timeout): a problem — the host then goes on without
  reminders, saying nothing;
- an HTTP error: 401 or 403 (the service wants a token the request did not carry), 404 (no such route: the URL's
  path must be ``/hooks/<host>``), any other status;
- an answer the host cannot read (a body that is not empty and not the host's JSON);
- otherwise, an ok line.

``curl_request(command)`` reads a command hook that runs ``curl`` (as ``toolguards hook install HOST --http URL``
registers for hosts without http hooks of their own): its URL and its ``-H`` headers.
"""

from __future__ import annotations

import json
import os
import shlex
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from .finding import Context, Finding, ok, problem

__all__ = ["check_url", "curl_request", "posts_to_hooks"]

_SERVE = "start `toolguards serve` at that address before the host starts, or install the hook again with the URL " \
         "the service listens on"


def posts_to_hooks(url: str, host: str) -> bool:
    """Whether ``url`` is a service's hook route for ``host`` (its path ends in ``/hooks/<host>``)."""
    path = urllib.parse.urlsplit(url).path if url.startswith(("http://", "https://")) else ""
    return path.rstrip("/").endswith(f"/hooks/{host}")


def curl_request(command: str) -> tuple[str, dict[str, str]] | None:
    """The URL and headers of a command that runs ``curl`` (None: it does not, or names no http(s) URL)."""
    try:
        words = shlex.split(command, posix=os.name != "nt")
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) not in ("curl", "curl.exe"):
        return None
    url, headers = None, {}
    for index, word in enumerate(words[1:], start=1):
        if word in ("-H", "--header") and index + 1 < len(words):
            name, _, value = words[index + 1].partition(":")
            headers[name.strip()] = value.strip()
        elif url is None and word.startswith(("http://", "https://")):
            url = word
    return (url, headers) if url is not None else None


def check_url(label: str, url: str, headers: Mapping[str, str], where: str, context: Context, *,
              event: Mapping[str, Any], validate: Callable[[Any], list[str]]) -> list[Finding]:
    """The findings of posting ``event`` to ``url`` with ``headers``."""
    request = urllib.request.Request(url, data=json.dumps(event).encode("utf-8"), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=context.timeout) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return [problem(label, where, f"nothing answers at {url} ({getattr(reason, 'strerror', None) or reason}): the "
                                      "host goes on without reminders, without a word", _SERVE)]
    text = body.decode("utf-8", errors="replace").strip()
    if status in (401, 403):
        return [problem(label, where, f"the service at {url} refuses the request (HTTP {status}): it wants a token",
                        "set the environment variable the registration's header names, for the host too, "
                        "to the token the service reads (its --token-file)")]
    if status == 404:
        return [problem(label, where, f"the service at {url} has no such route (HTTP 404)",
                        "register the service's /hooks/<host> URL")]
    if not 200 <= status < 300:
        said = f": {_error(text)[:120]}" if text else ""
        return [problem(label, where, f"the service at {url} answers HTTP {status}{said}", "see the service's log")]
    if text:
        try:
            refused = validate(json.loads(text))
        except ValueError:
            refused = ["it is not JSON"]
        if refused:
            return [problem(label, where, f"the service at {url} answers something the host cannot read "
                                          f"({refused[0]})", "point the registration at toolguards serve's "
                                                             "/hooks/<host> route")]
    return [ok(label, where, f"the service at {url} answers the host's events")]


def _error(text: str) -> str:
    """An error body's message: the service's ``{"error": "…"}``, else the text itself."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value["error"] if isinstance(value, dict) and isinstance(value.get("error"), str) else text
