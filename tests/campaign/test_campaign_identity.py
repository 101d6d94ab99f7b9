"""A campaign run and the runner's run of it share one id: the runner's files and the
campaign's record of a run sit under the same name."""

from __future__ import annotations

from m4bench.campaign import PlanOptions, load_profile, plan_campaign
from m4bench.campaign.runner_bridge import dataset_of, spec_for


def test_campaign_and_runner_ids_agree() -> None:
    for name in ("paper-primary", "schema-skill"):
        for run in plan_campaign(load_profile(name), PlanOptions(agents=("claude-code",))):
            spec = spec_for(run)
            assert spec.run_id == run.run_id
            assert spec.key == run.cell.key
            assert spec.cell() == run.cell


def test_task_names_say_their_dataset() -> None:
    run = plan_campaign(load_profile("paper-controls"))[0]
    assert dataset_of(run.cell.task) == "eicu"
    assert dataset_of("mimic-sofa-24h") == "mimic-iv"
