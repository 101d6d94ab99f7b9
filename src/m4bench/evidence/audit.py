"""The integrity audit of a campaign: what was planned, what ran, what may be trusted.

Computed from result records only, so it gives the same numbers on a results directory
and on a package's sanitized copies (verification recomputes it and compares). Run
fields are read through the analysis layer's own record adapter, so the audit and the
analysis report count the same things; the runner's nested verdicts (isolation, canary,
lint, exit code) fill what that adapter leaves empty.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from m4bench.analysis.diagnostics import tasks_with_several_truths
from m4bench.analysis.load_results import planned_run_ids, result_to_run
from m4bench.errors import M4BenchError
from m4bench.wording import counted

RUNS_DIR = "runs"
RESULT_FILE = "result.json"
ATTEMPTS_DIR = "attempts"
RETAINED = ("output.csv", "trace.jsonl", "instruction.md", "egress.jsonl")


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


def read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise M4BenchError(
            f"{path}: not readable JSON ({exc})", hint="re-run or remove it"
        ) from exc
    if not isinstance(value, dict):
        raise M4BenchError(f"{path}: expected a JSON object", hint="re-run or remove it")
    return value


def result_records(root: Path) -> dict[str, dict[str, Any]]:
    """``{run_id: record}`` of every ``runs/<run_id>/result.json`` under ``root``."""
    runs = root / RUNS_DIR
    if not runs.is_dir():
        raise M4BenchError(
            f"{root}: no {RUNS_DIR}/ directory of result records",
            hint="pass the results directory of a campaign (m4bench campaign run --results DIR)",
        )
    return {p.parent.name: read_json(p) for p in sorted(runs.glob(f"*/{RESULT_FILE}"))}


def _nested(record: dict[str, Any], *path: str) -> Any:
    node: Any = record
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _flag(value: Any) -> bool | None:
    return None if value is None else bool(value)


def audit_records(
    records: dict[str, dict[str, Any]],
    planned: list[str] | None,
    profile: str | None = None,
    superseded: list[SupersededAttempt] | None = None,
    retained: dict[str, int] | None = None,
) -> IntegrityAudit:
    """The audit of ``records`` against the planned run ids (None: no plan known)."""
    rows = [result_to_run(record, run_id) for run_id, record in records.items()]
    isolated, canary, lint, exits = [], [], [], []
    for record in records.values():
        inner = record.get("record")
        sandbox = _nested(inner if isinstance(inner, dict) else record, "sandbox")
        sandbox = sandbox if isinstance(sandbox, dict) else {}
        isolated.append(_flag(sandbox.get("isolated")))
        canary.append(_flag(_nested(sandbox, "canary", "passed")))
        lint.append(_flag(_nested(sandbox, "lint", "passed")))
        exits.append(sandbox.get("returncode"))
    for i, row in enumerate(rows):
        isolated[i] = row.isolated if row.isolated is not None else isolated[i]
        canary[i] = row.filesystem_canary if row.filesystem_canary is not None else canary[i]
        lint[i] = row.contamination_lint if row.contamination_lint is not None else lint[i]
        exits[i] = row.agent_returncode if row.agent_returncode is not None else exits[i]
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
        isolation_failures=sum(flag is False for flag in isolated),
        canary_failures=sum(flag is False for flag in canary),
        lint_failures=sum(flag is False for flag in lint),
        nonzero_exits=sum(code not in (None, 0) for code in exits),
        missing_rewards=sum(row.reward is None for row in rows),
        strict_passes=sum(row.strict_pass for row in rows),
        mixed_truth_tasks=tasks_with_several_truths(rows),
        failure_reasons=dict(sorted(reasons.items())),
        retained_artifacts=retained or {},
        superseded_attempts=superseded or [],
    )


def superseded_attempts(root: Path, records: dict[str, dict[str, Any]]) -> list[SupersededAttempt]:
    """Attempt records older than the attempt each result record kept."""
    kept = []
    for run_id, record in records.items():
        final = int(record.get("attempt", 1))
        folder = root / RUNS_DIR / run_id / ATTEMPTS_DIR
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            attempt = read_json(path)
            number = int(attempt.get("attempt", 0))
            if number and number != final:
                kept.append(
                    SupersededAttempt(
                        run_id=run_id,
                        attempt=number,
                        state=str(attempt.get("state", "unknown")),
                        error=attempt.get("error"),
                    )
                )
    return sorted(kept, key=lambda a: (a.run_id, a.attempt))


def audit_results_dir(root: Path) -> IntegrityAudit:
    """The audit of a campaign's results directory."""
    records = result_records(root)
    planned, profile = planned_run_ids(root)
    return audit_records(records, planned, profile, superseded_attempts(root, records))
