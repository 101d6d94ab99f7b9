"""The audit's tie-break check: the reference with every tie point in its other order.

A task whose answer depends on tie points (orders the clinical definition leaves open)
must score 1.0 and pass strictly when an output resolves every tie the other way
(the first alternative order of each): that output is as correct as the reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.provision.alternatives import TieAlternativesEntry
from m4bench.provision.tie_scenarios import Scenario, ScenarioDatabases, task_ties
from m4bench.scoring import Score
from m4bench.tasks.catalog import Task
from m4bench.tasks.reference import write_reference
from m4bench.validity.model import TieAudit


@dataclass(frozen=True)
class TieBreakOutput:
    """The reference's rows under every tie point's other order, written as CSV (None
    when the task has no tie point), or why it could not run."""

    scenario: str | None
    path: Path | None
    error: str | None = None


def tie_break_output(task: Task, databases: ScenarioDatabases, folder: Path) -> TieBreakOutput:
    """Run ``task``'s reference with each of its tie points at its first alternative."""
    ties = task_ties(task, databases.library)
    if not ties:
        return TieBreakOutput(None, None)
    scenario = Scenario(tuple((tie, tie.point.alternative[0]) for tie in ties))
    target = folder / "tie-break.csv"
    try:
        write_reference(databases.run(task, scenario), target)
    except M4BenchError as exc:
        return TieBreakOutput(scenario.label, None, str(exc).splitlines()[0])
    return TieBreakOutput(scenario.label, target)


def tie_audit(
    entry: TieAlternativesEntry | None, output: TieBreakOutput, score: Score | None
) -> TieAudit | None:
    """What the audit records about a task's ties; None when it has no tie point."""
    if entry is None and output.scenario is None:
        return None
    return TieAudit(
        tie_points=entry.tie_points if entry else [],
        cells=entry.cells if entry else {},
        added_keys=entry.added_keys if entry else 0,
        absent_keys=entry.absent_keys if entry else 0,
        tie_break_order=output.scenario,
        tie_break_reward=score.reward if score is not None else None,
        tie_break_strict_pass=bool(score is not None and score.strict_pass),
        error=output.error,
    )
