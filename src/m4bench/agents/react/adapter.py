"""Adapter for the built-in react agent (runs as ``python -m m4bench.agents.react``).

Inside an isolating sandbox the agent needs the Python interpreter it was installed
with and a minimal copy of the ``m4bench`` package: only ``__init__``, ``errors``,
``fileio`` and ``agents`` are mounted (under :data:`PACKAGE_ROOT`), never the task
catalog. The model endpoint's ``host:port`` is the only allowed egress.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import m4bench
from m4bench.agents.atif import Agent, Step, Trajectory, TrajectoryContext, assemble
from m4bench.agents.base import (
    AgentContext,
    CliAdapter,
    TraceSummary,
    endpoint_of,
    final_metrics,
    read_jsonl,
)
from m4bench.agents.outcome import INFRA_KINDS, InfraFailure, InfraKind
from m4bench.agents.react.loop import AGENT_NAME, EXIT_PROVIDER, SKILLS_DIR
from m4bench.agents.usage import Usage
from m4bench.errors import M4BenchError

PACKAGE_ROOT = Path("/opt/m4bench/lib")
TRAJECTORY = Path(".react/trajectory.json")
_PACKAGE_PARTS = ("__init__.py", "errors.py", "fileio.py", "egress_marker.py", "agents")


class ReactAdapter(CliAdapter):
    name = AGENT_NAME
    credential_env: tuple[str, ...] = ("M4BENCH_REACT_API_KEY",)
    skills_subdir = str(SKILLS_DIR)

    def command(self, ctx: AgentContext) -> list[str]:
        if not ctx.endpoint:
            raise M4BenchError(
                "agent react: needs an endpoint (none was given)",
                hint="pass --endpoint with the base URL of an OpenAI-compatible server "
                "(e.g. http://127.0.0.1:11434/v1 for Ollama) and --model with its model",
            )
        if not ctx.model:
            raise M4BenchError(
                "agent react: needs a model (none was given)",
                hint=f"pass --model with a model {ctx.endpoint} serves (e.g. qwen3:8b)",
            )
        argv = [sys.executable, "-m", "m4bench.agents.react"]
        argv += ["--endpoint", ctx.endpoint, "--model", ctx.model]
        argv += ["--instruction", str(ctx.instruction_path), "--workdir", str(ctx.workdir)]
        if ctx.database is not None:
            argv += ["--database", str(ctx.database)]
        argv += ["--trajectory", str(ctx.workdir / TRAJECTORY)]
        argv += ["--max-steps", str(ctx.max_steps), "--max-tokens", str(ctx.max_tokens)]
        return [*argv, "--wall-seconds", str(ctx.wall_seconds)]

    def environment(self, ctx: AgentContext) -> dict[str, str]:
        env = self.base_environment(ctx)
        # ``python3`` in run_shell is the agent's own interpreter, with DuckDB.
        env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
        env["PYTHONPATH"] = str(PACKAGE_ROOT)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def default_endpoints(self, ctx: AgentContext) -> tuple[str, ...]:
        return (endpoint_of(ctx.endpoint),) if ctx.endpoint else ()

    def runtime_mounts(self) -> list[tuple[Path, Path]]:
        """Interpreter prefixes (in place) and the minimal package under PACKAGE_ROOT."""
        dirs = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent}
        mounts = [(d, d) for d in sorted(dirs) if not d.is_relative_to("/usr")]
        package = Path(m4bench.__file__).parent
        mounts += [(package / part, PACKAGE_ROOT / "m4bench" / part) for part in _PACKAGE_PARTS]
        return mounts

    def infrastructure_failure(
        self, ctx: AgentContext, returncode: int | None, trace: Path, stderr: Path | None = None
    ) -> InfraFailure | None:
        """The agent exits EXIT_PROVIDER only when the provider or the endpoint failed;
        the last error event of its trace names the kind, the provider's words and its
        ``Retry-After`` (a trace of an older agent names no kind: it exited so only when
        the endpoint was never reached)."""
        if returncode != EXIT_PROVIDER:
            return None
        events = read_jsonl(trace)[0] if trace.is_file() else []
        errors = [event for event in events if event.get("type") == "error"]
        error: dict[str, Any] = errors[-1] if errors else {}
        named = error.get("kind")
        kind: InfraKind = next((k for k in INFRA_KINDS if k == named), "endpoint_unreachable")
        words = " ".join(str(error.get("message") or "no answer").split())[:500]
        words = words.split("/chat/completions: ", 1)[-1]  # the URL is named below
        wait = error.get("retry_after")
        retry_after = float(wait) if isinstance(wait, int | float) and wait >= 0 else None
        if kind == "endpoint_unreachable":
            detail = f"{ctx.endpoint} ({words}); start the model server or fix --endpoint"
        else:
            detail = f"{ctx.endpoint}: {words}"
        return InfraFailure(kind=kind, detail=detail, retry_after=retry_after)

    def parse_trace(self, path: Path) -> TraceSummary:
        events, bad = read_jsonl(path)
        summary = TraceSummary(agent=self.name, unparsed_lines=bad)
        models: set[str] = set()
        for event in events:
            if event.get("type") == "step":
                step = Step.model_validate(event.get("step"))
                if step.source == "agent":
                    _count_step(summary, step, models)
            elif event.get("type") == "error":
                summary.errors.append(str(event.get("message")))
            elif event.get("type") == "final" and event.get("stop_reason") != "done":
                summary.errors.append(f"stopped: {event.get('stop_reason')}")
        summary.model_strings = sorted(models)
        return summary

    def to_atif(self, path: Path, context: TrajectoryContext | None = None) -> Trajectory:
        """The loop's own steps (system prompt, instruction, model turns, with their
        times) under the run's session id."""
        events, _ = read_jsonl(path)
        agent = Agent(name=self.name, version=m4bench.__version__)
        steps: list[Step] = []
        extra = {}
        for event in events:
            if event.get("type") == "agent":
                agent = Agent.model_validate(event.get("agent"))
            elif event.get("type") == "step":
                steps.append(Step.model_validate(event.get("step")))
            elif event.get("type") == "final":
                extra["stop_reason"] = event.get("stop_reason")
        return assemble(
            steps,
            agent=agent,
            context=context or TrajectoryContext(),
            totals=final_metrics(self.parse_trace(path)),
            extra=extra,
        )


def _count_step(summary: TraceSummary, step: Step, models: set[str]) -> None:
    """Add one model turn of the trace to the summary."""
    summary.usage.turns += 1
    summary.usage.tool_calls += len(step.tool_calls or [])
    if step.model_name:
        models.add(step.model_name)
    if step.metrics is not None:
        prompt = step.metrics.prompt_tokens or 0
        cached = min(step.metrics.cached_tokens or 0, prompt)
        summary.usage = summary.usage.plus(
            Usage(
                input_uncached=prompt - cached,
                input_cache_read=cached,
                output=step.metrics.completion_tokens or 0,
            )
        )
