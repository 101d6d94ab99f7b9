"""A campaign of real runner runs (the oracle agent, no sandbox) on a tiny synthetic source."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    ResultsDir,
    RetryPolicy,
    RunResult,
    campaign_status,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.campaign.runner_bridge import RunnerRunFn, spec_for
from m4bench.fileio import read_model
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.runner import RunOptions, execute_run
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv

pytestmark = pytest.mark.slow

SOURCE = "campaign-mimic"
TASK = "mimic-meld-24h"
PROFILE = f"""
name = "oracle"
default_agent = "oracle"
trials = 2
[agents.oracle]
provider = "local"
models = {{ primary = ["default"] }}
[[blocks]]
name = "b"
tasks = ["{TASK}"]
conditions = ["no-skill", "with-skill"]
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> DataHome:
    data = DataHome(tmp_path_factory.mktemp("campaign-home"))
    synthesize_mimic_iv(data, SOURCE, stays=40, seed=3, progress=False)
    setup(data, SOURCE, [TASK], "native", progress=False)
    return data


def test_oracle_campaign_records_runner_results_once(tmp_path: Path, home: DataHome) -> None:
    profile_path = tmp_path / "oracle.toml"
    profile_path.write_text(PROFILE, encoding="utf-8")
    runs = plan_campaign(load_profile(str(profile_path)))
    results = tmp_path / "results"
    run_fn = RunnerRunFn(
        home=home.root, results=results, sources={"mimic-iv": SOURCE}, sandbox="none"
    )
    # The first run finished inside the runner, but its campaign died before recording.
    execute_run(
        spec_for(runs[0]),
        home=home,
        source=SOURCE,
        results_dir=results / "work",
        options=RunOptions(sandbox="none"),
    )
    report = run_campaign(
        ResultsDir(results),
        runs,
        LocalExecutor(run_fn, 2, RetryPolicy()),
        DriverSettings("oracle", resume=True),
    )
    assert report.done == 4 and report.missing == 0
    records = [read_model(p, RunResult) for p in sorted(results.rglob("result.json"))]
    assert sorted(r.run_id for r in records) == sorted(run.run_id for run in runs)
    assert all(r.reward == 1.0 and r.record["status"] == "ok" for r in records)
    # Each task's runs name the one ground truth they were all scored against.
    truths = {(r.task, r.record["ground_truth"]["sha256"]) for r in records}
    assert len(truths) == len({r.task for r in records})
    assert campaign_status(ResultsDir(results)).mixed_truths == {}
    adopted = results / "work" / runs[0].run_id
    assert sorted(p.name for p in adopted.glob("attempt-*")) == ["attempt-1"]
    assert (adopted / "runner-result.json").exists()
