"""One reward rule: a run's scored output gives its reward whatever the agent's status,
and the campaign, its status, the analysis and the audit all count that reward."""

from __future__ import annotations

from pathlib import Path

from result_records import record, score

from m4bench.analysis.load_results import load_results_dir
from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    PlannedRun,
    ResultsDir,
    RetryPolicy,
    campaign_status,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.evidence.audit import audit_results_dir
from m4bench.results import ResultRecord, RunSpec, counted_reward, read_result, reward_for, row_of
from m4bench.results.record import STATUSES, UNFINISHED

SPEC = RunSpec(task="mimic-meld-24h", agent="replay")
PROFILE = """
name = "rule"
default_agent = "replay"
trials = 2
[agents.replay]
provider = "local"
models = { primary = ["default"] }
[[blocks]]
name = "b"
tasks = ["mimic-meld-24h"]
conditions = ["no-skill", "with-skill"]
"""


def test_a_scored_output_gives_the_reward_whatever_the_status() -> None:
    complete = score(1.0)
    assert reward_for(complete) == 1.0 and reward_for(None) == 0.0
    for status in STATUSES:
        kept = record(SPEC, status=status, scored=complete)
        expected = None if status in UNFINISHED else 1.0
        assert counted_reward(kept) == row_of(kept).reward == expected, status
    unscored = record(SPEC, status="no_output")
    assert counted_reward(unscored) == 0.0 and row_of(unscored).failure_reason == "no_output"


def test_campaign_status_analysis_and_audit_count_a_timed_out_complete_output(
    tmp_path: Path,
) -> None:
    profile = tmp_path / "rule.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    runs = plan_campaign(load_profile(str(profile)))
    late = runs[0]

    def agent(run: PlannedRun) -> ResultRecord:
        if run.run_id == late.run_id:  # wrote a complete output, then was killed
            return record(run, status="timeout", scored=score(1.0))
        return record(run, scored=score(0.5))

    results = ResultsDir(tmp_path / "res")
    report = run_campaign(
        results, runs, LocalExecutor(agent, 2, RetryPolicy()), DriverSettings("rule")
    )
    assert (report.done, report.failed) == (3, 1)
    kept = read_result(results.result_path(late.run_id))
    assert (kept.status, kept.reward) == ("timeout", 1.0)
    cell = next(c for c in campaign_status(results).cells if c.cell == late.cell)
    assert cell.failed == 1 and cell.failure_reasons == {"timeout": 1}
    others = [run for run in runs if run.cell == late.cell and run != late]
    assert cell.mean_reward == (1.0 + 0.5 * len(others)) / (1 + len(others))
    row = next(r for r in load_results_dir(results.root) if r.run_id == late.run_id)
    assert (row.reward, row.failure_reason) == (1.0, "timeout")
    assert audit_results_dir(results.root).failure_reasons == {"timeout": 1}
