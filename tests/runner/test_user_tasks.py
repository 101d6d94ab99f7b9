"""A task of $M4BENCH_TASKS runs like a shipped one, and the sandbox hides its folder."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from bwrap_probe import bwrap_works
from run_bench import SOURCE, Bench
from user_tasks import LOCAL_TASK, local_family

from m4bench.campaign.runner_bridge import RunnerRunFn
from m4bench.provision.provisioner import setup
from m4bench.runner import RunOptions, RunSpec, execute_run
from m4bench.tasks.catalog import TASKS_ENV


@pytest.fixture
def user_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "our-tasks"
    local_family(root)
    monkeypatch.setenv(TASKS_ENV, str(root))
    return root.resolve()


@pytest.mark.bwrap
@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot run here")
def test_an_oracle_run_of_a_user_task_scores_one_and_hides_its_folder(
    bench: Bench, tmp_path: Path, user_root: Path
) -> None:
    setup(bench.home, SOURCE, [LOCAL_TASK], "native", progress=False)
    record = execute_run(
        RunSpec(task=LOCAL_TASK, agent="oracle", condition="with-skill"),
        home=bench.home,
        source=SOURCE,
        results_dir=tmp_path / "results",
        options=RunOptions(sandbox="bwrap"),
    )
    assert record.status == "ok", f"{record.status_detail} {record.error}"
    assert record.reward == 1.0 and record.publishable
    canary = record.sandbox.canary
    assert canary is not None and canary.passed
    assert str(user_root) in canary.probed
    assert record.skills and all(s.origin.startswith(LOCAL_TASK) for s in record.skills)


def test_a_campaign_run_function_carries_the_user_folders(
    tmp_path: Path, user_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_fn = RunnerRunFn(home=tmp_path / "home", results=tmp_path / "results")
    assert run_fn.task_roots == (user_root,)
    # A worker process (a Ray node) need not have the variable set.
    monkeypatch.delenv(TASKS_ENV)
    worker_copy = pickle.loads(pickle.dumps(run_fn))
    assert LOCAL_TASK in worker_copy.catalog.names
    assert LOCAL_TASK not in RunnerRunFn(home=tmp_path, results=tmp_path).catalog.names
