"""A campaign run and the runner's run of it share one id: the runner's files and the
campaign's record of a run sit under the same name."""

from __future__ import annotations

from m4bench.campaign import PlanOptions, load_profile, plan_campaign
from m4bench.campaign.runner_bridge import spec_for


def test_campaign_and_runner_ids_agree() -> None:
    for name in ("paper-primary", "schema-skill"):
        for run in plan_campaign(load_profile(name), PlanOptions(agents=("claude-code",))):
            spec = spec_for(run)
            assert spec.run_id == run.run_id
            assert spec.key == run.cell.key
            assert spec.cell() == run.cell
