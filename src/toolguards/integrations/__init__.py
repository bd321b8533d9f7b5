"""Adapters that put an engine inside a real host; each module imports only its own host's packages.

- ``toolguards.integrations.langchain``: ``GuardMiddleware``, a LangChain v1 agent middleware (extra ``langchain``).
- ``toolguards.integrations.claude_code``: the logic of ``toolguards hook claude``, a Claude Code command hook.
"""

from __future__ import annotations

__all__: list[str] = []
