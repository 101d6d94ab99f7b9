"""Files holding ground-truth rows or row-level data are the harness user's alone."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from bwrap_probe import bwrap_works
from hostile_runs import SOURCE, TASK, attempt_dir, private_home, shared_home
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome
from m4bench.provision.agent_catalog import agent_mounts
from m4bench.provision.ground_truth import ground_truth_path
from m4bench.runner import RunOptions, RunSpec, execute_run
from m4bench.sandbox.bwrap import SANDBOX_GID
from m4bench.scoring import score_output
from m4bench.tasks.catalog import Catalog

pytestmark = pytest.mark.adversarial


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _oracle(home: DataHome, results: Path, catalog: Catalog, sandbox: str) -> Path:
    spec = RunSpec.model_validate({"task": TASK, "agent": "oracle"})
    options = RunOptions(sandbox=sandbox, timeout=120, catalog=catalog)
    record = execute_run(spec, home=home, source=SOURCE, results_dir=results, options=options)
    assert record.status == "ok" and record.reward == 1.0, record.error
    return attempt_dir(results, record)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    return shared_home(tmp_path_factory, synthetic_sources)


def test_a_run_s_kept_files_and_the_truth_are_private(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    folder = _oracle(home, tmp_path / "results", catalog, "none")
    assert _mode(folder) == 0o700
    kept = sorted(p.name for p in folder.iterdir())
    assert {"diff.parquet", "output.csv", "trace.jsonl", "stderr.log"} <= set(kept)
    assert {p.name: _mode(p) for p in folder.iterdir()} == dict.fromkeys(kept, 0o600)
    truth = ground_truth_path(home, SOURCE, catalog.task(TASK))
    assert _mode(truth) == 0o600 and _mode(truth.parent) == 0o700
    assert _mode(home.source_dir(SOURCE)) == 0o700


def test_a_diff_the_scorer_writes_anywhere_is_private(
    home: DataHome, catalog: Catalog, tmp_path: Path
) -> None:
    task = catalog.task(TASK)
    truth = ground_truth_path(home, SOURCE, task)
    output = tmp_path / "output.csv"
    output.write_text("subject_id,hadm_id,stay_id\n1,2,3\n", encoding="utf-8")
    diff = tmp_path / "diff.parquet"
    score_output(task.card.evaluation, truth, output, diff_path=diff)
    assert diff.is_file() and _mode(diff) == 0o600


@pytest.mark.bwrap
@pytest.mark.skipif(os.geteuid() != 0 or not bwrap_works(), reason="needs root and bubblewrap")
def test_a_root_harness_shares_private_data_with_its_sandbox_by_group_only(
    tmp_path_factory: pytest.TempPathFactory,
    synthetic_sources: SyntheticSources,
    catalog: Catalog,
    tmp_path: Path,
) -> None:
    copy = private_home(shared_home(tmp_path_factory, synthetic_sources), tmp_path / "home")
    mounted = [host for host, _ in agent_mounts(copy, SOURCE, "native", TASK)]
    for path in mounted:
        path.chmod(0o600)
    _oracle(copy, tmp_path / "results", catalog, "bwrap")  # the sandbox user read them
    for path in mounted:
        info = path.stat()
        assert not info.st_mode & stat.S_IROTH, path
        assert info.st_gid == SANDBOX_GID and stat.S_IMODE(info.st_mode) == 0o640, path
