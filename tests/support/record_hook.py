"""A command hook that records what a host sends it: ``python record_hook.py FILE`` appends its stdin to FILE as one
JSON line and prints nothing (an empty stdout is "no decision" to every host), so it sits beside the real hook and
changes nothing the model sees."""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    text = sys.stdin.read()
    line = json.dumps(json.loads(text), ensure_ascii=False)  # one line, whatever whitespace the host used
    with open(argv[1], "a", encoding="utf-8") as file:
        file.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
