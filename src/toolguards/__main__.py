"""``python -m toolguards``: the same as the ``toolguards`` command."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
