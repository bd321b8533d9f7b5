"""Remake docs/report.png, the README's picture of ``toolguards report``, from the shipped examples.

    python docs/make_screenshot.py

It writes the report of examples/looping-session.jsonl and examples/openai-polling-session.json (the shipped guard
file compared with examples/result-aware.yaml) to a temporary folder and photographs the top of the page with
headless Chromium (Debian's ``chromium``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 1560


def main() -> int:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("make_screenshot.py: chromium is not installed (Debian: apt-get install -y chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        page = folder / "report.html"
        subprocess.run(
            [sys.executable, "-m", "toolguards", "report", "-o", str(page), "--compare", "examples/result-aware.yaml",
             "examples/looping-session.jsonl", "examples/openai-polling-session.json"],
            cwd=REPO, check=True,
        )
        subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
             f"--user-data-dir={folder / 'profile'}", f"--window-size={WIDTH},{HEIGHT}",
             f"--screenshot={REPO / 'docs' / 'report.png'}", page.as_uri()],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
    print(f"wrote {REPO / 'docs' / 'report.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
