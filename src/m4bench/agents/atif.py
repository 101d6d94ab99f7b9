"""ATIF trajectories (Agent Trajectory Interchange Format), built with the ``atif`` models.

Every trajectory m4bench writes is an :class:`atif.Trajectory`: the package's pydantic
models validate each step as it is made (sequential ids, agent-only fields on agent
steps, observation results naming the step's own tool calls). m4bench declares
:data:`ATIF_VERSION` and uses no field introduced after it, so readers of that revision
accept the files too; ``session_id`` is always set, as that revision requires.

A trajectory always holds the user's instruction as a ``user`` step before the agent's
first step, so a run whose agent never answered still has one valid step. Times are
ISO 8601 in UTC: the trace's own times where it records them, else the run's start plus
the offsets the trace gives; a step whose time the trace does not tell has none.

Import-light on purpose (pydantic and ``atif`` only): the react agent uses it inside the
sandbox.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from atif import (
    Agent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
)
from pydantic import BaseModel, ConfigDict

from m4bench.fileio import atomic_write_text

ATIF_VERSION = "ATIF-v1.6"
UNKNOWN_VERSION = "unknown"
"""``agent.version`` when neither the trace nor the harness knows the agent's version."""
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NO_TIMES = (
    "The agent's trace records no time per event: only the steps before its first "
    "step carry a time, the agent's start."
)
_MIN_UNIX_SECONDS = 1e8  # 1973: smaller numbers are offsets, not clock times

__all__ = [
    "ATIF_VERSION",
    "EPOCH",
    "NO_TIMES",
    "UNKNOWN_VERSION",
    "Agent",
    "FinalMetrics",
    "Metrics",
    "Observation",
    "ObservationResult",
    "Step",
    "ToolCall",
    "Trajectory",
    "TrajectoryContext",
    "assemble",
    "at_offset",
    "dump_trajectory",
    "event_time",
    "iso",
    "with_instruction",
    "write_trajectory",
]


class TrajectoryContext(BaseModel):
    """What the harness knows of a run that its trace may not say.

    ``started_at``: when the agent started (the epoch when unknown, so a trajectory
    converted without a run stays deterministic); ``instruction``: the text the agent
    was given; ``session_id``: the run's id, used when the trace names no session.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    started_at: datetime = EPOCH
    instruction: str = ""
    session_id: str | None = None


def iso(at: datetime) -> str:
    """``at`` as ISO 8601 in UTC with milliseconds, e.g. ``2026-05-02T10:00:00.250Z``."""
    utc = at.astimezone(UTC) if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def event_time(value: Any) -> datetime | None:
    """A clock time from a trace field: an ISO 8601 string or Unix seconds; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and value >= _MIN_UNIX_SECONDS:
        return datetime.fromtimestamp(float(value), tz=UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    return None


def at_offset(context: TrajectoryContext, seconds: float) -> str:
    """The ISO time ``seconds`` after the run's start."""
    return iso(context.started_at + timedelta(seconds=max(seconds, 0.0)))


def with_instruction(steps: list[Step], context: TrajectoryContext) -> list[Step]:
    """``steps`` renumbered from 1, with the instruction as a ``user`` step unless one
    precedes the agent's first step; steps before the agent's first one that carry no
    time were given at the run's start."""
    first_agent = next((i for i, s in enumerate(steps) if s.source == "agent"), len(steps))
    head, tail = steps[:first_agent], steps[first_agent:]
    if not any(step.source == "user" for step in head):
        head = [*head, Step(step_id=1, source="user", message=context.instruction)]
    start = iso(context.started_at)
    head = [s if s.timestamp else s.model_copy(update={"timestamp": start}) for s in head]
    return [s.model_copy(update={"step_id": i}) for i, s in enumerate([*head, *tail], start=1)]


def assemble(
    steps: list[Step],
    *,
    agent: Agent,
    context: TrajectoryContext,
    totals: FinalMetrics,
    session_id: str | None = None,
    notes: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Trajectory:
    """The validated trajectory of a run: the instruction step added, steps numbered,
    ``session_id`` the trace's own or else the run's, ``total_steps`` counted, and a
    note when no agent step has a time."""
    full = with_instruction(steps, context)
    agent_steps = [step for step in full if step.source == "agent"]
    if agent_steps and not any(step.timestamp for step in agent_steps):
        notes = "\n".join(filter(None, [notes, NO_TIMES]))
    draft = Trajectory(
        schema_version=ATIF_VERSION,
        session_id=session_id or context.session_id or "unknown",
        agent=agent,
        steps=full,
        notes=notes,
        final_metrics=totals.model_copy(update={"total_steps": len(full)}),
        extra=extra or None,
    )
    # Steps were made by the models' validators; validating the whole document once more
    # catches fields set on a copy (model_copy does not validate).
    return Trajectory.model_validate(draft.model_dump(mode="json", exclude_none=True))


def dump_trajectory(trajectory: Trajectory) -> str:
    """The JSON text m4bench writes: fields in ATIF order, unset fields left out."""
    return trajectory.model_dump_json(indent=2, exclude_none=True) + "\n"


def write_trajectory(path: Path, trajectory: Trajectory) -> None:
    atomic_write_text(path, dump_trajectory(trajectory))
