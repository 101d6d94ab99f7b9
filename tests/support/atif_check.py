"""Checks that a trajectory file m4bench wrote is valid ATIF, as other readers see it.

Validation is by the ``atif`` package's models, on the JSON text as written; on top of
them: the declared revision, at least one step, the instruction as a user step before
the agent's first, ISO 8601 times in UTC, an agent version and a session id, and no
field introduced after the declared revision.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from atif import Trajectory

DECLARED = "ATIF-v1.6"
# Fields ATIF v1.7 and later added (a v1.6 reader rejects them).
LATER_ROOT = {"trajectory_id", "subagent_trajectories"}
LATER_STEP = {"llm_call_count"}
LATER_CALL_OR_RESULT = {"extra"}


def check_trajectory(text: str) -> Trajectory:
    """The trajectory in ``text``; fails the test when it is not valid as described."""
    trajectory = Trajectory.model_validate_json(text)
    assert trajectory.schema_version == DECLARED
    assert trajectory.steps, "a trajectory has at least one step"
    assert trajectory.session_id, "ATIF v1.6 requires a session id"
    assert trajectory.agent.version, "agent.version is required"
    first_agent = next(
        (i for i, s in enumerate(trajectory.steps) if s.source == "agent"), len(trajectory.steps)
    )
    assert any(s.source == "user" for s in trajectory.steps[:first_agent]), "no instruction step"
    for step in trajectory.steps:
        if step.timestamp is not None:
            assert step.timestamp.endswith("Z"), step.timestamp
            datetime.fromisoformat(step.timestamp.replace("Z", "+00:00"))
    _no_later_fields(json.loads(text))
    return trajectory


def _no_later_fields(document: dict[str, Any]) -> None:
    assert not LATER_ROOT & set(document), set(document)
    for step in document["steps"]:
        assert not LATER_STEP & set(step), set(step)
        for call in step.get("tool_calls") or []:
            assert not LATER_CALL_OR_RESULT & set(call), set(call)
        for result in (step.get("observation") or {}).get("results", []):
            assert not LATER_CALL_OR_RESULT & set(result), set(result)
