"""Adapters that put an engine inside a real host; each module imports only its own host's packages.

- ``toolguards.integrations.langchain``: ``GuardMiddleware``, a LangChain v1 agent middleware whose chains live in the
  graph state (extra ``langchain``).
- ``toolguards.integrations.pydantic_ai``: ``GuardCapability``, a pydantic-ai capability (extra ``pydantic-ai``).
- ``toolguards.integrations.openai_agents``: ``GuardFilter``, an OpenAI Agents SDK ``call_model_input_filter`` per run
  (extra ``openai-agents``).
- coding agents' command hooks (Claude Code, Codex CLI, Gemini CLI, Cursor) are ``toolguards.hooks``.
"""

from __future__ import annotations

__all__: list[str] = []
