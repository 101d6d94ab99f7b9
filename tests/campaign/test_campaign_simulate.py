"""Simulated runs: never publishable, say they are simulated, and the audit agrees."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from m4bench.analysis import AnalysisSettings, analyze, analyze_runs
from m4bench.analysis.load_results import load_results_dir
from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    PlanOptions,
    ResultsDir,
    RetryPolicy,
    SimulatedRun,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.campaign.simulate import NOT_PUBLISHABLE
from m4bench.errors import M4BenchError
from m4bench.evidence.audit import audit_results_dir
from m4bench.results import ResultRecord, read_result


def _simulated_campaign(root: Path, profile: Path) -> list[ResultRecord]:
    runs = plan_campaign(load_profile(str(profile)), PlanOptions(trials=6))
    fake = SimulatedRun(seed=3, agent_failure_rate=0.6)
    report = run_campaign(
        ResultsDir(root), runs, LocalExecutor(fake, 4, RetryPolicy()), DriverSettings("small")
    )
    assert report.missing == 0
    return [read_result(path) for path in sorted(root.glob("runs/*/result.json"))]


def test_simulated_records_are_not_publishable_and_say_why(
    tmp_path: Path, small_profile: Path
) -> None:
    records = _simulated_campaign(tmp_path / "res", small_profile)
    assert records and not any(record.publishable for record in records)
    assert all(record.simulated for record in records)
    assert {record.publishable_reason for record in records} == {NOT_PUBLISHABLE}
    # The analysis reads the flag, so its default (publishable runs only) leaves them out.
    rows = load_results_dir(tmp_path / "res")
    assert len(rows) == len(records) and not any(row.publishable for row in rows)
    assert all(row.simulated for row in rows)
    with pytest.raises(M4BenchError) as caught:
        analyze_runs(rows, AnalysisSettings(reps=100, permutation_reps=100), "res")
    assert "every run is simulated" in (caught.value.hint or "")
    settings = AnalysisSettings(reps=100, permutation_reps=100, include_unpublishable=True)
    # Analysed as a campaign (its campaign.json read too), the report still says so.
    included = analyze(tmp_path / "res", tmp_path / "out", settings)
    counts = dict(included.integrity)
    assert counts["Simulated runs (no agent ran)"] == len(records)
    assert counts["Runs planned"] == len(records)
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert f"simulated runs (no agent ran): {len(records)}" in page


def test_the_audit_counts_the_exits_the_failures_imply(tmp_path: Path, small_profile: Path) -> None:
    records = _simulated_campaign(tmp_path / "res", small_profile)
    reasons = Counter(record.failure_reason for record in records if record.failure_reason)
    assert set(reasons) == {"timeout", "nonzero_exit", "no_output"}, reasons
    audit = audit_results_dir(tmp_path / "res")
    assert audit.failure_reasons == dict(reasons)
    # A nonzero exit exits nonzero, a timeout is killed (as the sandbox reports it);
    # a run without output exited cleanly, like every run that did not fail.
    assert audit.nonzero_exits == reasons["nonzero_exit"] + reasons["timeout"]
    assert audit.publishable_failures == len(records)
    assert audit.simulated_runs == len(records)
    assert f"{len(records)} runs are simulated" in " ".join(audit.problems())
    for record in records:
        sandbox = record.sandbox
        assert (sandbox.returncode != 0) == (record.failure_reason in {"nonzero_exit", "timeout"})
        assert sandbox.timed_out == (record.failure_reason == "timeout")
