"""The react loop: ask the model, run the tool calls it makes, repeat.

Stops when the model answers without a tool call, at the step, token or wall-clock
limit, or when the endpoint fails (``endpoint_unreachable`` when it was never reached
before the model's first answer, ``model_error`` otherwise). Each step is printed to
stdout as one JSON line (the harness keeps stdout outside the workdir) and the ATIF
trajectory is written at the end.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from m4bench.agents.atif import AgentInfo, FinalMetrics, Step, StepMetrics, ToolCall, Trajectory
from m4bench.agents.base import openai_usage
from m4bench.agents.react.client import ChatClient, ChatError, EndpointUnreachable
from m4bench.agents.react.tools import TOOL_DEFINITIONS, Toolbox
from m4bench.agents.usage import Usage
from m4bench.fileio import atomic_write_text

AGENT_NAME = "react"

SYSTEM_PROMPT = (
    "You are a data analyst working in the directory {workdir}. "
    "Use the tools to explore the task database with SQL and to read and write files. "
    "Follow the task instruction exactly. When the requested files are written, reply "
    "with a short summary and no tool call."
)
SKILLS_DIR = Path(".react/skills")

# Exit status of ``python -m m4bench.agents.react`` per stop reason; any limit exits 3.
# EXIT_UNREACHABLE is the agent's explicit signal that the run never reached its model:
# the runner records it as an infrastructure failure, not as the agent's.
EXIT_LIMIT = 3
EXIT_UNREACHABLE = 5
EXIT_CODES = {"done": 0, "model_error": 4, "endpoint_unreachable": EXIT_UNREACHABLE}


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
    usage: Usage
    steps: list[Step]
    started: float

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
    observations = []
    for call in calls:
        result = toolbox.call(call.function_name, call.arguments["raw"])
        observations.append(f"[{call.function_name}] {result}")
        messages.append({"role": "tool", "tool_call_id": call.tool_call_id, "content": result})
    for call in calls:
        try:
            parsed = json.loads(call.arguments["raw"])
            call.arguments = parsed if isinstance(parsed, dict) else call.arguments
        except json.JSONDecodeError:
            pass
    return Step(
        step_id=len(state.steps) + 1,
        timestamp=f"{time.monotonic() - state.started:.3f}",
        source="agent",
        model_name=model,
        message=str(message.get("content") or ""),
        tool_calls=calls,
        observation="\n".join(observations) or None,
        metrics=StepMetrics(
            prompt_tokens=usage.input_total,
            completion_tokens=usage.output,
            cached_tokens=usage.input_cache_read,
        ),
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
    state = _State(usage=Usage(), steps=[], started=time.monotonic())
    agent = AgentInfo(name=AGENT_NAME, model_name=config.model, tool_definitions=TOOL_DEFINITIONS)
    _emit(out, {"type": "agent", "agent": agent.model_dump(mode="json")})
    stop = None
    while stop is None:
        stop = state.limit_reached(config)
        if stop is not None:
            break
        try:
            step = _one_step(client, toolbox, messages, state)
        except ChatError as exc:
            never_answered = isinstance(exc, EndpointUnreachable) and not state.steps
            stop = "endpoint_unreachable" if never_answered else "model_error"
            _emit(out, {"type": "error", "message": str(exc)})
            break
        state.steps.append(step)
        _emit(out, {"type": "step", "step": step.model_dump(mode="json")})
        if not step.tool_calls:
            stop = "done"
    return _finish(config, agent, state, stop, out)


def _finish(
    config: ReactConfig, agent: AgentInfo, state: _State, stop: str, out: TextIO
) -> Trajectory:
    metrics = FinalMetrics(
        total_prompt_tokens=state.usage.input_total,
        total_completion_tokens=state.usage.output,
        total_cached_tokens=state.usage.input_cache_read,
        total_steps=len(state.steps),
    )
    _emit(out, {"type": "final", "stop_reason": stop, "final_metrics": metrics.model_dump()})
    trajectory = Trajectory(
        agent=agent,
        steps=state.steps,
        final_metrics=metrics,
        extra={"stop_reason": stop},
    )
    if config.trajectory_path is not None:
        atomic_write_text(config.trajectory_path, trajectory.model_dump_json(indent=2) + "\n")
    return trajectory
