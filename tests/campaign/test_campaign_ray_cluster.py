"""The Ray executor on a cluster of several nodes, one of which dies mid-campaign.

Ray's ``Cluster`` starts a head and two worker nodes on this machine, each its own
raylet and object store, as separate machines would have. The head offers no CPU, so
every run lands on a worker node.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    PlannedRun,
    ResultsDir,
    RetryPolicy,
    SimulatedRun,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.results import ResultRecord

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

from m4bench.campaign.ray_executor import RayExecutor  # noqa: E402

pytestmark = pytest.mark.xdist_group("ray")

POLICY = RetryPolicy(base_delay_seconds=0.0, max_delay_seconds=0.0, infrastructure_retries=2)
SIMULATED = SimulatedRun(seed=11, min_seconds=0.2, max_seconds=0.4, agent_failure_rate=0.25)


class MarksNode:
    """The simulated run, leaving a mark named after the run and the node it ran on."""

    def __init__(self, marks: Path) -> None:
        self.marks = marks

    def __call__(self, run: PlannedRun) -> ResultRecord:
        node = ray.get_runtime_context().get_node_id()
        (self.marks / f"{run.run_id}.{node}").touch()
        return SIMULATED(run)


@pytest.fixture
def cluster() -> Iterator[Any]:
    nodes = cluster_utils.Cluster(
        initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
    )
    workers = [nodes.add_node(num_cpus=1), nodes.add_node(num_cpus=1)]
    ray.init(address=nodes.address, log_to_driver=False)
    nodes.wait_for_nodes()
    # MarksNode lives in this test module, which Ray's workers cannot import by name.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield nodes, workers
    ray.shutdown()
    nodes.shutdown()


def _records(root: Path) -> dict[str, bytes]:
    return {path.parent.name: path.read_bytes() for path in sorted(root.glob("runs/*/result.json"))}


def _nodes_by_run(marks: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for mark in marks.iterdir():
        run_id, node = mark.name.rsplit(".", 1)
        found.setdefault(run_id, set()).add(node)
    return found


def _remove_when_busy(cluster: Any, worker: Any, marks: Path) -> threading.Thread:
    """Kill ``worker`` as soon as a run has started on it (its mark appears)."""

    def watch() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any(mark.name.endswith(worker.node_id) for mark in marks.iterdir()):
                cluster.remove_node(worker)
                return
            time.sleep(0.01)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_runs_spread_over_nodes_and_survive_the_loss_of_one(
    tmp_path: Path, small_profile: Path, cluster: tuple[Any, list[Any]]
) -> None:
    nodes, (doomed, survivor) = cluster
    runs = plan_campaign(load_profile(str(small_profile)))[:12]
    marks = tmp_path / "marks"
    marks.mkdir()
    executor = RayExecutor(MarksNode(marks), POLICY)
    assert executor.capacity == 2  # the CPUs of both worker nodes, none of the head's
    watcher = _remove_when_busy(nodes, doomed, marks)
    settings = DriverSettings("small")
    report = run_campaign(ResultsDir(tmp_path / "ray"), runs, executor, settings)
    watcher.join(timeout=5)
    assert not watcher.is_alive(), "no run ever started on the node meant to die"
    assert report.missing == 0 and report.infra_errors == 0
    ran_on = _nodes_by_run(marks)
    assert sorted(ran_on) == sorted(run.run_id for run in runs)
    # The run caught on the dead node ran again on the other one; later runs all did.
    caught = [run_id for run_id, where in ran_on.items() if doomed.node_id in where]
    assert caught and all(survivor.node_id in ran_on[run_id] for run_id in caught)
    # Every record is the one a single machine writes for the same runs.
    local = tmp_path / "local"
    run_campaign(ResultsDir(local), runs, LocalExecutor(SIMULATED, 2, POLICY), settings)
    assert _records(tmp_path / "ray") == _records(local)
