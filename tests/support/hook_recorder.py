"""A hook command that records what the host sends it: ``python hook_recorder.py FOLDER`` writes its stdin, byte for
byte, to a new file ``FOLDER/<nanoseconds>-<pid>.json`` and prints nothing (the host sees a hook that adds nothing).

Registered beside toolguards for the same events, it shows the real-host tests the exact hook input a host program
sends, without wrapping or changing toolguards' own registration.
"""

from __future__ import annotations

import os
import sys
import time


def main() -> None:
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    data = sys.stdin.buffer.read()
    with open(os.path.join(folder, f"{time.time_ns():020d}-{os.getpid()}.json"), "wb") as file:
        file.write(data)


if __name__ == "__main__":
    main()
