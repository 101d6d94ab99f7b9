"""The Ray executor on a local Ray instance writes the same records as the local one."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from m4bench.agents.usage import Usage
from m4bench.campaign import (
    DriverSettings,
    InfrastructureError,
    LocalExecutor,
    PlannedRun,
    ResultsDir,
    RetryPolicy,
    SimulatedRun,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.campaign.simulate import simulated_record
from m4bench.results import ResultRecord

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.xdist_group("ray")

from m4bench.campaign.ray_executor import RayExecutor  # noqa: E402

POLICY = RetryPolicy(base_delay_seconds=0.0, max_delay_seconds=0.0, infrastructure_retries=2)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    # FailsOnce lives in this test module, which Ray's workers cannot import by name.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield
    ray.shutdown()


def _result_files(root: Path) -> dict[str, bytes]:
    return {path.parent.name: path.read_bytes() for path in sorted(root.glob("runs/*/result.json"))}


def test_ray_and_local_executors_write_identical_records(
    tmp_path: Path, small_profile: Path, local_ray: None
) -> None:
    runs = plan_campaign(load_profile(str(small_profile)))
    fake = SimulatedRun(seed=5, min_seconds=0.01, max_seconds=0.05, agent_failure_rate=0.3)
    settings = DriverSettings("small", provider_limits={"openai": 4})
    local = run_campaign(
        ResultsDir(tmp_path / "local"), runs, LocalExecutor(fake, 2, POLICY), settings
    )
    on_ray = run_campaign(ResultsDir(tmp_path / "ray"), runs, RayExecutor(fake, POLICY), settings)
    assert (local.done, local.failed, local.missing) == (on_ray.done, on_ray.failed, 0)
    local_files, ray_files = _result_files(tmp_path / "local"), _result_files(tmp_path / "ray")
    assert sorted(ray_files) == sorted(run.run_id for run in runs)
    assert ray_files == local_files


class FailsOnce:
    """Raises an infrastructure error on a run's first execution, marked in a file."""

    def __init__(self, marks: Path) -> None:
        self.marks = marks

    def __call__(self, run: PlannedRun) -> ResultRecord:
        mark = self.marks / run.run_id
        if not mark.exists():
            mark.touch()
            raise InfrastructureError("node lost its sandbox")
        if run.trial == 1:
            return simulated_record(run, "timeout", 0.0, Usage(), 0.0)
        return simulated_record(run, "ok", 1.0, Usage(), 0.0)


def test_ray_retries_infrastructure_errors_but_not_agent_failures(
    tmp_path: Path, small_profile: Path, local_ray: None
) -> None:
    runs = plan_campaign(load_profile(str(small_profile)))[:4]
    marks = tmp_path / "marks"
    marks.mkdir()
    report = run_campaign(
        ResultsDir(tmp_path / "res"),
        runs,
        RayExecutor(FailsOnce(marks), POLICY),
        DriverSettings("small"),
    )
    assert report.missing == 0 and report.infra_errors == 0
    assert report.failed == sum(1 for run in runs if run.trial == 1)
    assert sorted(p.name for p in marks.iterdir()) == sorted(run.run_id for run in runs)
