"""A campaign whose ground truth was rebuilt part way is flagged, with the runs to redo."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from result_records import record, score
from typer.testing import CliRunner

from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    PlannedRun,
    PlanOptions,
    ResultsDir,
    RetryPolicy,
    campaign_status,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.cli import app
from m4bench.results import ResultRecord
from m4bench.results.record import GroundTruthRecord

FAST = RetryPolicy(base_delay_seconds=0.0, max_delay_seconds=0.0, infrastructure_retries=1)
OLD, NEW = "a" * 64, "b" * 64
RunFunction = Callable[[PlannedRun], ResultRecord]


def _scored_against(truth_of: dict[str, str]) -> tuple[list[str], RunFunction]:
    """A run function recording the truth named for its run id (NEW by default)."""
    calls: list[str] = []

    def run(planned: PlannedRun) -> ResultRecord:
        calls.append(planned.run_id)
        sha = truth_of.get(planned.run_id, NEW)
        truth = GroundTruthRecord(key="k", sha256=sha, rows=3, source_fingerprint="f")
        return record(planned, scored=score(0.5), ground_truth=truth)

    return calls, run


def _campaign(results: ResultsDir, runs: list[PlannedRun], run: RunFunction, resume: bool) -> None:
    executor = LocalExecutor(run, 2, FAST)
    run_campaign(results, runs, executor, DriverSettings("small", resume=resume))


def test_runs_scored_against_two_truths_are_listed_until_redone(
    tmp_path: Path, small_profile: Path
) -> None:
    runs = plan_campaign(load_profile(str(small_profile)), PlanOptions())
    task = runs[0].cell.task
    stale = sorted(run.run_id for run in runs if run.cell.task == task)[:2]
    results = ResultsDir(tmp_path / "res")
    _, first = _scored_against(dict.fromkeys(stale, OLD))
    _campaign(results, runs, first, resume=False)

    status = campaign_status(results)
    same_task = sorted(run.run_id for run in runs if run.cell.task == task)
    assert status.mixed_truths == {
        task: {OLD: stale, NEW: [r for r in same_task if r not in stale]}
    }

    shown = CliRunner().invoke(app, ["campaign", "status", str(results.root)])
    assert shown.exit_code == 0, shown.output
    assert f"runs of {task} were scored against 2 different ground truths" in shown.output
    assert f"2 on {OLD[:12]}" in shown.output
    document = json.loads(
        CliRunner().invoke(app, ["campaign", "status", str(results.root), "--json"]).output
    )
    assert document["mixed_ground_truths"][task][OLD] == stale

    # What the warning says to do: delete the stale runs and resume.
    for run_id in stale:
        shutil.rmtree(results.root / "runs" / run_id)
    calls, again = _scored_against({})
    _campaign(results, runs, again, resume=True)
    assert sorted(calls) == stale
    assert campaign_status(results).mixed_truths == {}


def test_runs_without_a_recorded_truth_are_not_flagged(tmp_path: Path, small_profile: Path) -> None:
    runs = plan_campaign(load_profile(str(small_profile)), PlanOptions())
    results = ResultsDir(tmp_path / "res")
    _campaign(results, runs, lambda planned: record(planned, reward=1.0), resume=False)
    status = campaign_status(results)
    assert status.total("done") == len(runs) and status.mixed_truths == {}
