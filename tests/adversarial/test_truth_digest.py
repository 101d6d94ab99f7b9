"""A ground truth changed in place, at the same size, stops the run before the agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_runs import SOURCE, TASK, attempt_dir, hostile_run, private_home, shared_home
from synthetic_sources import SyntheticSources

from m4bench.provision.ground_truth import ground_truth_path
from m4bench.tasks.catalog import Catalog

pytestmark = pytest.mark.adversarial


def test_a_same_size_tampered_truth_is_a_harness_error_before_the_agent(
    tmp_path_factory: pytest.TempPathFactory,
    synthetic_sources: SyntheticSources,
    catalog: Catalog,
    tmp_path: Path,
) -> None:
    home = private_home(shared_home(tmp_path_factory, synthetic_sources), tmp_path / "home")
    truth = ground_truth_path(home, SOURCE, catalog.task(TASK))
    data = bytearray(truth.read_bytes())
    middle = len(data) // 2
    data[middle] ^= 0xFF
    truth.write_bytes(bytes(data))
    results = tmp_path / "results"
    marker = tmp_path / "agent-ran"
    record = hostile_run(home, results, f"touch {marker}\n", catalog)
    assert record.status == "harness_error"
    assert str(truth) in (record.error or "")
    assert "sha256" in (record.error or "") and "manifest" in (record.error or "")
    assert not marker.exists()
    assert record.score is None
    assert not (attempt_dir(results, record) / "workdir").exists()
