"""The react loop: ask the model, run the tool calls it makes, repeat.

Stops when the model answers without a tool call, at the step, token or wall-clock
limit, or when a request fails for good: with the infrastructure kind of a provider
failure (``rate_limited``, ``provider_error``, ``auth_error``, ``quota_exhausted``,
``endpoint_unreachable``; see :mod:`m4bench.agents.outcome`) whether or not the model
had answered earlier in the run, else ``model_error`` (a request the endpoint refused as
malformed, or an answer that is no chat completion). The error event of the trace names
the kind and the provider's ``Retry-After``. Each ATIF step (the system
prompt, the instruction, then one per model turn, each with its time) is printed to
stdout as one JSON line (the harness keeps stdout outside the workdir) and the ATIF
trajectory is written at the end.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import m4bench
from m4bench.agents.atif import (
    Agent,
    FinalMetrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
    TrajectoryContext,
    assemble,
    at_offset,
    write_trajectory,
)
from m4bench.agents.base import openai_usage, step_metrics
from m4bench.agents.outcome import INFRA_KINDS
from m4bench.agents.react.client import ChatClient, ChatError, ProviderFailure
from m4bench.agents.react.tools import TOOL_DEFINITIONS, Toolbox
from m4bench.agents.usage import Usage

AGENT_NAME = "react"

SYSTEM_PROMPT = (
    "You are a data analyst working in the directory {workdir}. "
    "Use the tools to explore the task database with SQL and to read and write files. "
    "Follow the task instruction exactly. When the requested files are written, reply "
    "with a short summary and no tool call."
)
SKILLS_DIR = Path(".react/skills")

# Exit status of ``python -m m4bench.agents.react`` per stop reason; any limit exits 3.
# EXIT_PROVIDER is the agent's explicit signal that the provider or the endpoint failed
# (the kind is in the trace's error event): the runner records the run as that
# infrastructure outcome, not as the agent's failure.
EXIT_LIMIT = 3
EXIT_MODEL_ERROR = 4
EXIT_PROVIDER = 5
EXIT_CODES: Mapping[str, int] = {
    "done": 0,
    "model_error": EXIT_MODEL_ERROR,
    **{kind: EXIT_PROVIDER for kind in INFRA_KINDS},
}


def skills_prompt(workdir: Path) -> str:
    """One line per skill in ``<workdir>/.react/skills`` (read on demand with read_file)."""
    lines = []
    for skill in sorted((workdir / SKILLS_DIR).glob("*/SKILL.md")):
        description = ""
        for line in skill.read_text(encoding="utf-8", errors="replace").splitlines()[:20]:
            if line.startswith("description:"):
                description = line.partition(":")[2].strip()
                break
        lines.append(f"- {skill.parent.name}: {description} (read {skill})")
    if not lines:
        return ""
    return "\n\nSkills you may read before starting:\n" + "\n".join(lines)


@dataclass(frozen=True)
class ReactConfig:
    endpoint: str
    model: str
    instruction: str
    workdir: Path
    database: Path | None = None
    api_key: str | None = None
    max_steps: int = 50
    max_tokens: int = 2_000_000
    wall_seconds: float = 1800.0
    trajectory_path: Path | None = None


@dataclass
class _State:
    """The loop's progress: ``steps`` are the model's turns, ``head`` the system prompt
    and the instruction before them; times are ``context.started_at`` plus the
    monotonic clock since ``started``."""

    usage: Usage
    context: TrajectoryContext
    head: list[Step] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def now(self) -> str:
        return at_offset(self.context, time.monotonic() - self.started)

    def limit_reached(self, config: ReactConfig) -> str | None:
        if len(self.steps) >= config.max_steps:
            return "step_limit"
        if self.usage.input_total + self.usage.output >= config.max_tokens:
            return "token_limit"
        if time.monotonic() - self.started >= config.wall_seconds:
            return "time_limit"
        return None


def _emit(out: TextIO, record: dict[str, Any]) -> None:
    out.write(json.dumps(record, sort_keys=True) + "\n")
    out.flush()


def _normalise(message: dict[str, Any], step: int) -> dict[str, Any]:
    """The assistant message as it is sent back: every tool call has an id and JSON
    string arguments (some servers omit ids or send arguments as an object)."""
    calls = []
    for index, raw in enumerate(message.get("tool_calls") or []):
        if not isinstance(raw, dict):
            continue
        function = raw.get("function") if isinstance(raw.get("function"), dict) else {}
        assert isinstance(function, dict)
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {})
        calls.append(
            {
                "id": str(raw.get("id") or f"call_{step}_{index}"),
                "type": "function",
                "function": {"name": str(function.get("name", "")), "arguments": arguments},
            }
        )
    clean: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if calls:
        clean["tool_calls"] = calls
    return clean


def _tool_calls(message: dict[str, Any]) -> list[ToolCall]:
    return [
        ToolCall(
            tool_call_id=raw["id"],
            function_name=raw["function"]["name"],
            arguments={"raw": raw["function"]["arguments"]},
        )
        for raw in message.get("tool_calls", [])
    ]


def _ask(client: ChatClient, messages: list[dict[str, Any]]) -> tuple[dict[str, Any], Any, str]:
    response = client.complete(messages, TOOL_DEFINITIONS)
    try:
        message = response["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ChatError(f"response has no choices[0].message: {str(response)[:300]}") from exc
    return message, response.get("usage"), str(response.get("model") or client.model)


def _one_step(
    client: ChatClient, toolbox: Toolbox, messages: list[dict[str, Any]], state: _State
) -> Step:
    message, raw_usage, model = _ask(client, messages)
    usage = openai_usage(raw_usage)
    state.usage = state.usage.plus(usage)
    message = _normalise(message, len(state.steps) + 1)
    calls = _tool_calls(message)
    messages.append(message)
    results = []
    for call in calls:
        result = toolbox.call(call.function_name, call.arguments["raw"])
        results.append(ObservationResult(source_call_id=call.tool_call_id, content=result))
        messages.append({"role": "tool", "tool_call_id": call.tool_call_id, "content": result})
    for call in calls:
        try:
            parsed = json.loads(call.arguments["raw"])
            call.arguments = parsed if isinstance(parsed, dict) else call.arguments
        except json.JSONDecodeError:
            pass
    return Step(
        step_id=len(state.head) + len(state.steps) + 1,
        timestamp=state.now(),
        source="agent",
        model_name=model,
        message=str(message.get("content") or ""),
        tool_calls=calls or None,
        observation=Observation(results=results) if results else None,
        metrics=step_metrics(usage),
    )


def run_react(config: ReactConfig, out: TextIO | None = None) -> Trajectory:
    """Run the loop to completion or a limit; returns (and writes) the trajectory.
    Steps go to ``out`` (default: the current ``sys.stdout``)."""
    out = out if out is not None else sys.stdout
    client = ChatClient(config.endpoint, config.model, config.api_key)
    toolbox = Toolbox(config.workdir, config.database)
    system = SYSTEM_PROMPT.format(workdir=config.workdir) + skills_prompt(config.workdir)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": config.instruction},
    ]
    context = TrajectoryContext(started_at=datetime.now(UTC), instruction=config.instruction)
    state = _State(usage=Usage(), context=context)
    agent = Agent(
        name=AGENT_NAME,
        version=m4bench.__version__,
        model_name=config.model,
        tool_definitions=TOOL_DEFINITIONS,
    )
    _emit(out, {"type": "agent", "agent": agent.model_dump(mode="json", exclude_none=True)})
    start = state.now()
    state.head = [
        Step(step_id=1, timestamp=start, source="system", message=system),
        Step(step_id=2, timestamp=start, source="user", message=config.instruction),
    ]
    for step in state.head:
        _emit_step(out, step)
    stop = None
    while stop is None:
        stop = state.limit_reached(config)
        if stop is not None:
            break
        try:
            step = _one_step(client, toolbox, messages, state)
        except ProviderFailure as exc:
            stop = exc.kind
            error = {"message": str(exc), "kind": exc.kind, "retry_after": exc.retry_after}
            _emit(out, {"type": "error", **error})
            break
        except ChatError as exc:
            stop = "model_error"
            _emit(out, {"type": "error", "message": str(exc)})
            break
        state.steps.append(step)
        _emit_step(out, step)
        if not step.tool_calls:
            stop = "done"
    return _finish(config, agent, state, stop, out)


def _emit_step(out: TextIO, step: Step) -> None:
    _emit(out, {"type": "step", "step": step.model_dump(mode="json", exclude_none=True)})


def _finish(config: ReactConfig, agent: Agent, state: _State, stop: str, out: TextIO) -> Trajectory:
    metrics = FinalMetrics(
        total_prompt_tokens=state.usage.input_total,
        total_completion_tokens=state.usage.output,
        total_cached_tokens=state.usage.input_cache_read,
    )
    _emit(out, {"type": "final", "stop_reason": stop, "final_metrics": metrics.model_dump()})
    trajectory = assemble(
        [*state.head, *state.steps],
        agent=agent,
        context=state.context,
        totals=metrics,
        extra={"stop_reason": stop},
    )
    if config.trajectory_path is not None:
        write_trajectory(config.trajectory_path, trajectory)
    return trajectory
