"""ATIF-shaped trajectories (Agent Trajectory Interchange Format), as pydantic records.

Field names follow ATIF so traces travel to other harnesses: a trajectory is a list of
steps (system, user or agent), each with its message, tool calls, observation and
per-step token metrics; ``final_metrics`` holds the totals.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

ATIF_VERSION = "ATIF-v1.6"


class ToolCall(BaseModel):
    tool_call_id: str
    function_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class StepMetrics(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None


class Step(BaseModel):
    step_id: int
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    reasoning_content: str | None = None
    message: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    observation: str | None = None
    metrics: StepMetrics | None = None


class AgentInfo(BaseModel):
    name: str
    version: str | None = None
    model_name: str | None = None
    tool_definitions: list[dict[str, Any]] = Field(default_factory=list)


class FinalMetrics(BaseModel):
    total_prompt_tokens: int = 0
    total_completion_tokens: int = 0
    total_cached_tokens: int = 0
    total_cost_usd: float | None = None
    total_steps: int = 0


class Trajectory(BaseModel):
    schema_version: str = ATIF_VERSION
    session_id: str | None = None
    trajectory_id: str | None = None
    agent: AgentInfo
    steps: list[Step] = Field(default_factory=list)
    notes: str | None = None
    final_metrics: FinalMetrics = Field(default_factory=FinalMetrics)
    extra: dict[str, Any] = Field(default_factory=dict)


class StepBuilder:
    """Numbers steps in order and attaches observations to the call that asked for them."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self._by_call: dict[str, Step] = {}

    def add(self, step_source: Literal["system", "user", "agent"], **fields: Any) -> Step:
        step = Step(step_id=len(self.steps) + 1, source=step_source, **fields)
        self.steps.append(step)
        for call in step.tool_calls:
            self._by_call[call.tool_call_id] = step
        return step

    def attach_calls(self, step: Step, calls: list[ToolCall]) -> None:
        """Add tool calls to an existing step (a message split over several events)."""
        step.tool_calls.extend(calls)
        for call in calls:
            self._by_call[call.tool_call_id] = step

    def observe(self, tool_call_id: str, text: str) -> None:
        step = self._by_call.get(tool_call_id) or (self.steps[-1] if self.steps else None)
        if step is None:
            step = self.add("system", message="")
        step.observation = text if step.observation is None else step.observation + "\n" + text
