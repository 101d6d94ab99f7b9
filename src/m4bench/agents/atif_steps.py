"""Building ATIF steps from a trace read event by event.

A trace often tells a step in pieces (a message split over several events, a tool's
result arriving after its call), so steps are drafted first and made into validated
:class:`atif.Step` records once the whole trace is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from m4bench.agents.atif import Metrics, Observation, ObservationResult, Step, ToolCall, iso

Source = Literal["system", "user", "agent"]


@dataclass
class DraftStep:
    """One step being read; ``at`` is its clock time when the trace tells it."""

    source: Source
    message: str = ""
    reasoning: str | None = None
    model_name: str | None = None
    calls: list[ToolCall] = field(default_factory=list)
    results: list[ObservationResult] = field(default_factory=list)
    metrics: Metrics | None = None
    at: datetime | None = None

    def to_step(self, step_id: int) -> Step:
        agent = self.source == "agent"
        return Step(
            step_id=step_id,
            timestamp=iso(self.at) if self.at is not None else None,
            source=self.source,
            model_name=self.model_name if agent else None,
            message=self.message,
            reasoning_content=self.reasoning if agent else None,
            tool_calls=list(self.calls) if agent and self.calls else None,
            observation=Observation(results=list(self.results)) if self.results else None,
            metrics=self.metrics if agent else None,
        )


class StepBuilder:
    """Drafts steps in order and attaches each tool result to the step that made the call."""

    def __init__(self) -> None:
        self.drafts: list[DraftStep] = []
        self._by_call: dict[str, DraftStep] = {}

    def add(
        self,
        source: Source,
        *,
        message: str = "",
        reasoning: str | None = None,
        model_name: str | None = None,
        calls: list[ToolCall] | None = None,
        metrics: Metrics | None = None,
        at: datetime | None = None,
    ) -> DraftStep:
        draft = DraftStep(
            source, message, reasoning, model_name, list(calls or []), [], metrics, at
        )
        self.drafts.append(draft)
        for call in draft.calls:
            self._by_call[call.tool_call_id] = draft
        return draft

    def attach_calls(self, draft: DraftStep, calls: list[ToolCall]) -> None:
        """Add tool calls to a step already drafted (a message told in several events)."""
        draft.calls.extend(calls)
        for call in calls:
            self._by_call[call.tool_call_id] = draft

    def observe(self, tool_call_id: str, text: str) -> None:
        """The result of call ``tool_call_id``; a result of an unknown call goes to the
        last step (or a new system step) without naming a call."""
        draft = self._by_call.get(tool_call_id)
        if draft is not None:
            draft.results.append(ObservationResult(source_call_id=tool_call_id, content=text))
        else:
            self.observe_last(text)

    def observe_last(self, text: str) -> None:
        """Feedback that answers no particular call, on the last step."""
        draft = self.drafts[-1] if self.drafts else self.add("system")
        draft.results.append(ObservationResult(content=text))

    def steps(self) -> list[Step]:
        """The drafted steps as validated ATIF steps, numbered from 1."""
        return [draft.to_step(index) for index, draft in enumerate(self.drafts, start=1)]
