"""Is the agent's program there? Checked before the agent starts, so a CLI that is not
installed is a harness error with a fix, not a publishable failed run (exit 127)."""

from __future__ import annotations

import shutil

from m4bench.agents.base import agent_executable
from m4bench.errors import M4BenchError

# The docker backend runs the agent in its image, whose programs the host cannot see.
_UNCHECKED_BACKENDS = frozenset({"docker"})


def host_sees_programs(backend: str) -> bool:
    """Whether the host can tell which programs ``backend`` runs with."""
    return backend not in _UNCHECKED_BACKENDS


def check_agent_command(agent: str, argv: list[str], path: str, backend: str) -> None:
    """Raise a user error when ``argv``'s program is not on ``path`` (the sandbox's
    PATH; bwrap shows the host's /usr, the none backend is the host itself).

    A program named by an absolute path (the harness's own Python) is the adapter's
    choice and mounted by it; only bare names are looked up.
    """
    program = agent_executable(argv)
    if not host_sees_programs(backend) or "/" in program:
        return
    if shutil.which(program, path=path) is None:
        raise M4BenchError(
            f"agent {agent}: program {program!r} not found on the sandbox's PATH ({path})",
            hint="install it where the sandbox sees it (/usr/local/bin or /usr/bin; "
            "see docs/agents.md), then run again",
        )
