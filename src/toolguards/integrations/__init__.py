"""Adapters that put an engine inside a real host; each module imports only its own host's packages.

- ``toolguards.integrations.langchain``: ``GuardMiddleware``, a LangChain v1 agent middleware (extra ``langchain``).
- coding agents' command hooks (Claude Code, Codex CLI, Gemini CLI, Cursor) are ``toolguards.hooks``.
"""

from __future__ import annotations

__all__: list[str] = []
