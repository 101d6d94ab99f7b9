"""Results folders written before records had format 2 are still read, and still count
the same, except where the reward rule now decides (a timed-out complete output)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from m4bench.analysis.load_results import load_results_dir
from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    ResultsDir,
    RetryPolicy,
    SimulatedRun,
    campaign_status,
    run_campaign,
)
from m4bench.evidence import PackageOptions, package_results, verify_package
from m4bench.evidence.audit import audit_results_dir
from m4bench.results import planned_run_ids, read_manifest, read_result, read_results, row_of
from m4bench.results.layout import CampaignFolder

FORMAT1 = Path(__file__).parent / "data" / "format1"
ORACLE = "mimic-meld-24h.no-skill.native.default.t1-8ab5aff2c6"
LATE = "mimic-meld-24h.no-skill.native.late.t1-dd4c95e9cd"


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    """A writable copy of the format-1 folders."""
    target = tmp_path / "format1"
    shutil.copytree(FORMAT1, target)
    return target


def test_a_run_folder_reads_as_the_runners_record() -> None:
    (stored,) = read_results(FORMAT1 / "run")
    record = stored.record
    assert (record.run_id, record.status, record.reward) == (ORACLE, "ok", 1.0)
    assert record.identity.schema_name == "native" and not record.simulated
    assert record.score is not None and record.score.strict_pass
    assert record.usage.cost_source == "no model" and record.artifacts["output.csv"].bytes > 0


def test_a_campaign_record_is_read_as_the_runner_record_it_nests() -> None:
    records = {item.run_id: item.record for item in read_results(FORMAT1 / "campaign")}
    assert sorted(records) == [ORACLE, LATE]
    late = records[LATE]
    # The campaign wrote reward 0 at its top level; the runner scored the complete
    # output it kept, and that is the run's reward under the reward rule.
    assert late.status == "timeout" and late.sandbox.timed_out
    assert late.score is not None and late.reward == late.score.reward == 1.0
    assert row_of(late).failure_reason == "timeout" and row_of(late).agent_returncode == -15
    assert records[ORACLE].timings.total == pytest.approx(0.418)


def test_a_simulated_campaign_reads_with_its_counts_and_prices() -> None:
    rows = {row.run_id: row for row in load_results_dir(FORMAT1 / "simulated")}
    assert len(rows) == 4 and all(row.simulated and not row.publishable for row in rows.values())
    reasons = sorted(str(row.failure_reason) for row in rows.values())
    assert reasons == ["None", "no_output", "nonzero_exit", "timeout"]
    done = next(row for row in rows.values() if row.failure_reason is None)
    assert done.reward == pytest.approx(0.727379)
    assert all(row.reward == 0.0 for row in rows.values() if row.failure_reason)
    timeout = next(row for row in rows.values() if row.failure_reason == "timeout")
    assert (timeout.input_tokens, timeout.cached_input_tokens, timeout.output_tokens) == (
        587,
        293,
        58,
    )
    assert timeout.cost_usd == pytest.approx(0.0007873)  # as the campaign priced it
    assert timeout.agent_returncode == -15 and timeout.isolated is None


def test_the_audits_of_format1_campaigns_are_unchanged() -> None:
    real = audit_results_dir(FORMAT1 / "campaign")
    assert (real.runs, real.expected_runs, real.missing_runs) == (2, 2, 0)
    assert (real.isolation_failures, real.canary_failures, real.lint_failures) == (2, 2, 1)
    assert real.failure_reasons == {"timeout": 1} and real.nonzero_exits == 1
    assert real.strict_passes == 2 and real.superseded_attempts == []
    simulated = audit_results_dir(FORMAT1 / "simulated")
    assert simulated.simulated_runs == 4 and simulated.isolation_failures == 0
    assert simulated.nonzero_exits == 2 and simulated.publishable_failures == 4


def test_a_package_written_before_still_verifies() -> None:
    report = verify_package(FORMAT1 / "package" / "real.tar.zst")
    assert report.passed, report.failures
    assert report.audit is not None and report.audit.failure_reasons == {"timeout": 1}


def test_a_format1_campaign_is_planned_packaged_and_shown(copied: Path, tmp_path: Path) -> None:
    campaign = copied / "campaign"
    assert planned_run_ids(campaign) == ([ORACLE, LATE], "legacy-fixture")
    package = package_results(campaign, tmp_path / "pkg.tar.zst", PackageOptions())
    assert package.audit.retained_artifacts["output.csv"] == 1  # the late run's, under work/
    assert verify_package(package.path).passed
    status = campaign_status(ResultsDir(campaign))
    assert (status.total("done"), status.total("failed")) == (1, 1)
    (cell,) = [c for c in status.cells if c.cell.agent == "replay"]
    assert cell.mean_reward == 1.0 and cell.failure_reasons == {"timeout": 1}


def test_resuming_a_format1_campaign_adds_format2_records_and_keeps_the_old(
    copied: Path,
) -> None:
    folder = CampaignFolder(copied / "simulated")
    manifest = read_manifest(folder.manifest)
    redo = manifest.runs[0].run_id
    kept = {
        run.run_id: folder.result(run.run_id).read_bytes()
        for run in manifest.runs
        if run.run_id != redo
    }
    shutil.rmtree(folder.run_dir(redo))
    report = run_campaign(
        ResultsDir(folder.root),
        manifest.runs,
        LocalExecutor(SimulatedRun(seed=4, agent_failure_rate=0.5), 1, RetryPolicy()),
        DriverSettings(manifest.profile, resume=True, run_settings=manifest.settings),
    )
    assert (report.complete_before, report.done + report.failed, report.missing) == (3, 1, 0)
    assert {run_id: folder.result(run_id).read_bytes() for run_id in kept} == kept
    assert b'"format_version": 2' in folder.result(redo).read_bytes()
    assert read_result(folder.result(redo)).simulated
    assert len(load_results_dir(folder.root)) == 4
