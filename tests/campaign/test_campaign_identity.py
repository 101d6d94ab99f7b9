"""A campaign run and the runner's run of it share one id: the runner's files and the
campaign's record of a run sit under the same name."""

from __future__ import annotations

from m4bench.campaign import PlanOptions, load_profile, plan_campaign
from m4bench.campaign.runner_bridge import dataset_of, outcome_from_record, spec_for
from m4bench.runner import ResultRecord
from m4bench.runner.record import SandboxRecord, UsageRecord, Versions


def test_campaign_and_runner_ids_agree() -> None:
    for name in ("paper-primary", "schema-skill"):
        for run in plan_campaign(load_profile(name), PlanOptions(agents=("claude-code",))):
            spec = spec_for(run)
            assert spec.run_id == run.run_id
            assert spec.key == run.cell.key


def test_runner_statuses_map_to_outcomes() -> None:
    run = plan_campaign(load_profile("paper-controls"))[0]
    assert dataset_of(run.cell.task) == "eicu"
    base = ResultRecord(
        run_id=run.run_id,
        attempt=1,
        identity=spec_for(run),
        source="synthetic-eicu",
        versions=Versions(m4bench="0", python="3.11", duckdb="1.4.1"),
        sandbox=SandboxRecord(backend="none", isolated=False, limits={}),
        status="ok",
        reward=0.75,
        usage=UsageRecord(input_uncached=10, input_cache_read=30, input_cache_write=5, output=7),
    )
    ok = outcome_from_record(base)
    assert (ok.reward, ok.failure_reason) == (0.75, None)
    assert (ok.usage.input_tokens, ok.usage.cached_input_tokens, ok.usage.output_tokens) == (
        45,
        30,
        7,
    )
    timed_out = outcome_from_record(base.model_copy(update={"status": "timeout", "reward": 0.0}))
    assert timed_out.failure_reason == "timeout"
    assert timed_out.record["status"] == "timeout"
