"""The integrity audit of a campaign: what was planned, what ran, what may be trusted.

Computed from result records only, so it gives the same numbers on a results directory
and on a package's sanitized copies (verification recomputes it and compares). Records
are read by the results layer's typed readers and reduced to rows as the analysis
reduces them (:func:`m4bench.results.rows.row_of`), so the audit and the analysis report
count the same things.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from m4bench.analysis.diagnostics import tasks_with_several_truths
from m4bench.errors import M4BenchError
from m4bench.results.layout import (
    EGRESS_FILE,
    INSTRUCTION_FILE,
    OUTPUT_FILE,
    RUNS_DIR,
    TRACE_FILE,
    CampaignFolder,
)
from m4bench.results.read import planned_run_ids, read_attempts, read_results
from m4bench.results.record import ResultRecord
from m4bench.results.rows import row_of
from m4bench.wording import counted

RETAINED = (OUTPUT_FILE, TRACE_FILE, INSTRUCTION_FILE, EGRESS_FILE)


class SupersededAttempt(BaseModel):
    """An earlier start of a run, kept as metadata only (its artifacts are not packaged)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    attempt: int
    state: str
    error: str | None = None


class IntegrityAudit(BaseModel):
    """Counts a reviewer checks before trusting a campaign's estimands."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    profile: str | None = None
    runs: int
    expected_runs: int | None = Field(description="planned runs; None without campaign.json")
    missing_runs: int = 0
    unplanned_runs: int = 0
    cells: int
    publishable_failures: int
    simulated_runs: int = Field(default=0, description="rehearsal records: no agent ran")
    isolation_failures: int
    canary_failures: int
    lint_failures: int
    nonzero_exits: int
    missing_rewards: int
    strict_passes: int
    mixed_truth_tasks: int = Field(
        default=0, description="tasks whose runs were scored against different ground truths"
    )
    failure_reasons: dict[str, int] = Field(default_factory=dict)
    retained_artifacts: dict[str, int] = Field(default_factory=dict)
    superseded_attempts: list[SupersededAttempt] = Field(default_factory=list)

    def problems(self) -> list[str]:
        """What makes the campaign incomplete or untrustworthy, one line each."""
        lines = []
        if self.missing_runs:
            runs = counted(self.missing_runs, "planned run has", "planned runs have")
            lines.append(f"{runs} no result record")
        if self.simulated_runs:
            runs = counted(self.simulated_runs, "run is", "runs are")
            lines.append(
                f"{runs} simulated (campaign run --simulate): no agent ran, so nothing here "
                "measures an agent"
            )
        for name in ("isolation_failures", "canary_failures", "lint_failures"):
            count = getattr(self, name)
            if count:
                lines.append(f"{count} {name.replace('_', ' ')}")
        if self.mixed_truth_tasks:
            tasks = counted(self.mixed_truth_tasks, "task has", "tasks have")
            lines.append(
                f"{tasks} runs scored against different ground truths (see `m4bench campaign "
                "status`)"
            )
        return lines


def result_records(root: Path) -> dict[str, ResultRecord]:
    """``{run_id: record}`` of every ``runs/<run_id>/result.json`` under ``root``."""
    folder = CampaignFolder(root)
    if not folder.runs.is_dir():
        raise M4BenchError(
            f"{root}: no {RUNS_DIR}/ directory of result records",
            hint="pass the results directory of a campaign (m4bench campaign run --results DIR)",
        )
    return {item.path.parent.name: item.record for item in read_results(root)}


def audit_records(
    records: dict[str, ResultRecord],
    planned: list[str] | None,
    profile: str | None = None,
    superseded: list[SupersededAttempt] | None = None,
    retained: dict[str, int] | None = None,
) -> IntegrityAudit:
    """The audit of ``records`` against the planned run ids (None: no plan known)."""
    rows = [row_of(record) for record in records.values()]
    reasons = Counter(row.failure_reason for row in rows if row.failure_reason)
    plan = set(planned) if planned is not None else None
    return IntegrityAudit(
        profile=profile,
        runs=len(rows),
        expected_runs=None if plan is None else len(plan),
        missing_runs=0 if plan is None else len(plan - set(records)),
        unplanned_runs=0 if plan is None else len(set(records) - plan),
        cells=len({row.cell for row in rows}),
        publishable_failures=sum(not row.publishable for row in rows),
        simulated_runs=sum(row.simulated for row in rows),
        isolation_failures=sum(row.isolated is False for row in rows),
        canary_failures=sum(row.filesystem_canary is False for row in rows),
        lint_failures=sum(row.contamination_lint is False for row in rows),
        nonzero_exits=sum(row.agent_returncode not in (None, 0) for row in rows),
        missing_rewards=sum(row.reward is None for row in rows),
        strict_passes=sum(row.strict_pass for row in rows),
        mixed_truth_tasks=tasks_with_several_truths(rows),
        failure_reasons=dict(sorted(reasons.items())),
        retained_artifacts=retained or {},
        superseded_attempts=superseded or [],
    )


def superseded_attempts(root: Path, records: dict[str, ResultRecord]) -> list[SupersededAttempt]:
    """Attempt records other than the one that wrote each run's result: the last
    ``finished`` attempt (or, after a crash before it was marked, the last attempt)."""
    folder = CampaignFolder(root)
    kept = []
    for run_id in records:
        attempts = read_attempts(folder, run_id)
        finished = [a.attempt for a in attempts if a.state == "finished"]
        final = max(finished or [a.attempt for a in attempts] or [0])
        kept += [
            SupersededAttempt(
                run_id=run_id, attempt=item.attempt, state=item.state, error=item.error
            )
            for item in attempts
            if item.attempt != final
        ]
    return sorted(kept, key=lambda a: (a.run_id, a.attempt))


def audit_results_dir(root: Path) -> IntegrityAudit:
    """The audit of a campaign's results directory."""
    records = result_records(root)
    planned, profile = planned_run_ids(root)
    return audit_records(records, planned, profile, superseded_attempts(root, records))
