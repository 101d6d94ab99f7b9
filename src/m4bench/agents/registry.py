"""Agent adapters by name.

The registry is built per call from factories, so nothing global is mutated; other
layers (the runner's ``oracle``, ``replay`` and ``mutant``) pass their own extra
factories to :func:`get_adapter`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from m4bench.agents.base import AgentAdapter
from m4bench.agents.claude_code import ClaudeCodeAdapter
from m4bench.agents.codex import CodexAdapter
from m4bench.agents.gemini_cli import GeminiCliAdapter
from m4bench.agents.mini_swe_agent import MiniSweAgentAdapter
from m4bench.agents.react.adapter import ReactAdapter
from m4bench.errors import M4BenchError

AdapterFactory = Callable[[], AgentAdapter]

BUILTIN_ADAPTERS: Mapping[str, AdapterFactory] = {
    "claude-code": ClaudeCodeAdapter,
    "codex": CodexAdapter,
    "gemini-cli": GeminiCliAdapter,
    "mini-swe-agent": MiniSweAgentAdapter,
    "react": ReactAdapter,
}


def adapter_names(extra: Mapping[str, AdapterFactory] | None = None) -> list[str]:
    return sorted({**BUILTIN_ADAPTERS, **(extra or {})})


def get_adapter(name: str, extra: Mapping[str, AdapterFactory] | None = None) -> AgentAdapter:
    """The adapter called ``name``; ``extra`` adds or overrides factories."""
    factories = {**BUILTIN_ADAPTERS, **(extra or {})}
    factory = factories.get(name)
    if factory is None:
        raise M4BenchError(
            f"unknown agent {name!r}", hint=f"choose one of: {', '.join(sorted(factories))}"
        )
    return factory()
