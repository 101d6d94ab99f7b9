"""Every trajectory a campaign writes is valid ATIF, and so is a run's with no answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from atif_check import check_trajectory
from profile_text import local_profile
from synthetic_sources import SyntheticSources

import m4bench
from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    ResultsDir,
    RetryPolicy,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.campaign.runner_bridge import RunnerRunFn
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.results import read_results
from m4bench.results.layout import TRAJECTORY_FILE, artifact_root
from m4bench.runner import RunOptions, RunSpec, execute_run

pytestmark = pytest.mark.slow

SOURCE = "trajectory-mimic"
TASK = "mimic-meld-24h"
PROFILE = local_profile("oracle-trajectories", [TASK], conditions=["no-skill", "with-skill"])


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    data = DataHome(tmp_path_factory.mktemp("trajectory-home"))
    synthetic_sources.copy(data, SOURCE, "mimic-iv", 40, 3, concepts=True)
    setup(data, SOURCE, [TASK], "native", progress=False)
    return data


def test_every_trajectory_of_a_campaign_is_valid_atif(tmp_path: Path, home: DataHome) -> None:
    profile = tmp_path / "profile.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    runs = plan_campaign(load_profile(str(profile)))
    results = tmp_path / "results"
    run_fn = RunnerRunFn(
        home=home.root, results=results, sources={"mimic-iv": SOURCE}, sandbox="none"
    )
    before = datetime.now(UTC)
    report = run_campaign(
        ResultsDir(results), runs, LocalExecutor(run_fn, 2, RetryPolicy()), DriverSettings("t")
    )
    assert report.done == len(runs) == 2
    records = [item.record for item in read_results(results)]
    checked = set()
    for record in records:
        path = artifact_root(results, record.run_id) / record.artifacts[TRAJECTORY_FILE].path
        trajectory = check_trajectory(path.read_text(encoding="utf-8"))
        checked.add(path)
        assert trajectory.session_id == record.run_id
        assert trajectory.agent.version == record.versions.agent == m4bench.__version__
        assert [s.source for s in trajectory.steps][:2] == ["user", "agent"]
        assert _time(trajectory.steps[0].timestamp) >= before - timedelta(seconds=1)
    assert checked == set(results.rglob(TRAJECTORY_FILE))


def test_a_run_with_no_answer_keeps_a_valid_trajectory(tmp_path: Path, home: DataHome) -> None:
    script = tmp_path / "silent.sh"
    script.write_text("exit 3\n", encoding="utf-8")
    record = execute_run(
        RunSpec(task=TASK, agent="replay"),
        home=home,
        source=SOURCE,
        results_dir=tmp_path / "results",
        options=RunOptions(sandbox="none", replay_file=script),
    )
    assert record.status == "nonzero_exit"
    path = tmp_path / "results" / record.run_id / record.artifacts[TRAJECTORY_FILE].path
    trajectory = check_trajectory(path.read_text(encoding="utf-8"))
    [step] = trajectory.steps
    instruction = path.with_name("instruction.md").read_text(encoding="utf-8")
    assert (step.source, step.message) == ("user", instruction)
    assert trajectory.session_id == record.run_id


def _time(stamp: str | None) -> datetime:
    assert stamp is not None
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
