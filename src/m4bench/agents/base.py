"""The adapter protocol every agent implements, and the records it produces.

An adapter knows how to start one agent non-interactively (command line and
environment inside the sandbox), where that agent loads skills from, which endpoints
it must reach, and how to read its trace into a :class:`TraceSummary` and an ATIF
:class:`~m4bench.agents.atif.Trajectory`. It knows nothing of tasks, ground truth or
scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from m4bench.agents.atif import FinalMetrics, Metrics, Trajectory, TrajectoryContext
from m4bench.agents.outcome import InfraFailure
from m4bench.agents.usage import Usage
from m4bench.errors import M4BenchError


class AgentContext(BaseModel):
    """What an adapter needs to build a command. Paths are as the agent sees them."""

    model_config = ConfigDict(frozen=True)

    workdir: Path
    instruction_path: Path
    model: str | None = None
    endpoint: str | None = None
    database: Path | None = None
    home: Path = Path("/tmp")
    credentials: dict[str, str] = Field(default_factory=dict)
    reasoning_effort: str | None = None
    max_steps: int = Field(default=100, ge=1)
    max_tokens: int = Field(default=2_000_000, ge=1)
    wall_seconds: float = Field(default=1800.0, gt=0)


class TraceSummary(BaseModel):
    """What a trace says about a run, independent of the agent that wrote it."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    model_strings: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    """Tokens, turns, tool calls and cost, as the trace reports them."""
    web_tool_uses: int = 0
    errors: list[str] = Field(default_factory=list)
    unparsed_lines: int = 0


class AgentAdapter(Protocol):
    """One agent. ``trace_file`` is ``None`` when the trace is the agent's stdout."""

    name: str
    credential_env: tuple[str, ...]

    def command(self, ctx: AgentContext) -> list[str]: ...

    def environment(self, ctx: AgentContext) -> dict[str, str]: ...

    def skills_dir(self, workdir: Path) -> Path: ...

    def prepare(self, ctx: AgentContext, host_workdir: Path) -> None: ...

    def trace_file(self, ctx: AgentContext) -> Path | None: ...

    def default_endpoints(self, ctx: AgentContext) -> tuple[str, ...]: ...

    def runtime_mounts(self) -> list[tuple[Path, Path]]: ...

    def parse_trace(self, path: Path) -> TraceSummary: ...

    def to_atif(self, path: Path, context: TrajectoryContext | None = None) -> Trajectory:
        """The trace as a valid ATIF trajectory; ``context`` gives the run's start,
        instruction and id (without it: the epoch, an empty instruction, no id)."""
        ...

    def infrastructure_failure(
        self, ctx: AgentContext, returncode: int | None, trace: Path, stderr: Path | None = None
    ) -> InfraFailure | None:
        """Why the run got no model answer because of the provider or the endpoint (see
        :mod:`m4bench.agents.outcome`), read from the agent's exit status and its own
        error lines (``trace``: the stored, redacted trace; ``stderr``: the stored,
        redacted standard error, when there is one); ``None`` when the run's end is the
        model's or the agent's. The runner records such a run as an infrastructure
        outcome, never scored."""
        ...


def with_instruction(argv: list[str], instruction: Path) -> list[str]:
    """``argv`` plus the instruction file's text as its last argument.

    The file is read by a shell inside the sandbox, at run time: the harness never needs
    the agent-side path to exist on the host, and the text never shows on a host
    command line.
    """
    return [*_WRAPPER, str(instruction), *argv]


_WRAPPER = ("/bin/sh", "-c", 'file="$1"; shift; exec "$@" "$(cat "$file")"', "sh")


def agent_executable(argv: list[str]) -> str:
    """The program a command starts: the one :func:`with_instruction` wraps, else the
    command's first word."""
    wrapped = len(argv) > len(_WRAPPER) + 1 and tuple(argv[: len(_WRAPPER)]) == _WRAPPER
    return argv[len(_WRAPPER) + 1] if wrapped else argv[0]


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], int]:
    """JSON objects of a JSONL file and the count of lines that were not JSON objects."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError as exc:
        raise M4BenchError(f"{path}: trace file not found", hint="did the agent start?") from exc
    events: list[dict[str, Any]] = []
    bad = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if isinstance(value, dict):
            events.append(value)
        else:
            bad += 1
    return events, bad


def as_int(value: Any) -> int:
    """A token count from a trace field (missing or malformed counts as 0)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value >= 0:
        return int(value)
    return 0


def endpoint_of(url: str) -> str:
    """``host:port`` of a URL (default ports 443/80)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise M4BenchError(
            f"endpoint {url!r} is not an http(s) URL", hint="pass e.g. http://127.0.0.1:11434/v1"
        )
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.hostname.lower()}:{port}"


class CliAdapter:
    """Defaults shared by the CLI adapters (stdout trace, HOME on the private /tmp)."""

    name = "cli"
    credential_env: tuple[str, ...] = ()
    skills_subdir = ".agent/skills"

    def skills_dir(self, workdir: Path) -> Path:
        return workdir / self.skills_subdir

    def prepare(self, ctx: AgentContext, host_workdir: Path) -> None:
        (host_workdir / self.skills_subdir).mkdir(parents=True, exist_ok=True)

    def trace_file(self, ctx: AgentContext) -> Path | None:
        return None

    def runtime_mounts(self) -> list[tuple[Path, Path]]:
        return []

    def infrastructure_failure(
        self, ctx: AgentContext, returncode: int | None, trace: Path, stderr: Path | None = None
    ) -> InfraFailure | None:
        return None

    def base_environment(self, ctx: AgentContext) -> dict[str, str]:
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(ctx.home),
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
        }
        env.update({k: v for k, v in ctx.credentials.items() if k in self.credential_env})
        return env


def final_metrics(summary: TraceSummary) -> FinalMetrics:
    """ATIF totals from a summary (prompt tokens = every input bucket); the step count
    is set when the trajectory is assembled."""
    return FinalMetrics(
        total_prompt_tokens=summary.usage.input_total,
        total_completion_tokens=summary.usage.output,
        total_cached_tokens=summary.usage.input_cache_read,
        total_cost_usd=summary.usage.cost_usd,
    )


def step_metrics(usage: Usage) -> Metrics:
    """ATIF metrics of one step (prompt tokens = every input bucket, cached included)."""
    return Metrics(
        prompt_tokens=usage.input_total,
        completion_tokens=usage.output,
        cached_tokens=usage.input_cache_read,
    )


def openai_usage(raw: Any) -> Usage:
    """Disjoint buckets from an OpenAI-style ``usage`` object."""
    if not isinstance(raw, dict):
        return Usage()
    prompt = as_int(raw.get("prompt_tokens"))
    details = raw.get("prompt_tokens_details")
    cached = as_int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    cached = min(cached, prompt)
    return Usage(
        input_uncached=prompt - cached,
        input_cache_read=cached,
        output=as_int(raw.get("completion_tokens")),
    )
