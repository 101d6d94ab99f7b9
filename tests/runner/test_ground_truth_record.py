"""A run records the ground truth it was scored against, from the manifest that vouches
for the file; a truth its manifest does not describe stops the run before the agent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from run_bench import SOURCE, Bench

from m4bench.errors import M4BenchError
from m4bench.fileio import sha256_file
from m4bench.provision.ground_truth import ground_truth_path, manifest_path_for
from m4bench.runner.prepare import ground_truth_record


def _copy(bench: Bench, folder: Path) -> Path:
    truth = ground_truth_path(bench.home, SOURCE, "mimic-meld-24h")
    copied = folder / truth.name
    shutil.copy(truth, copied)
    shutil.copy(manifest_path_for(truth), manifest_path_for(copied))
    return copied


def test_the_record_is_the_manifest_s_identity_of_the_file(bench: Bench, tmp_path: Path) -> None:
    truth = _copy(bench, tmp_path)
    record = ground_truth_record(truth)
    assert record is not None
    assert record.sha256 == sha256_file(truth)
    assert record.rows > 0


def test_no_record_without_a_manifest(bench: Bench, tmp_path: Path) -> None:
    truth = _copy(bench, tmp_path)
    manifest_path_for(truth).unlink()
    assert ground_truth_record(truth) is None


def test_a_file_its_manifest_does_not_describe_stops_the_run_early(
    bench: Bench, tmp_path: Path
) -> None:
    truth = _copy(bench, tmp_path)
    with truth.open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(M4BenchError, match="not the file its manifest describes") as caught:
        ground_truth_record(truth)
    assert "m4bench setup" in (caught.value.hint or "")
    manifest_path_for(truth).write_text("{not json", encoding="utf-8")
    with pytest.raises(M4BenchError, match="invalid GroundTruthManifest"):
        ground_truth_record(truth)


def test_a_run_against_a_changed_truth_is_a_harness_error_before_the_agent(
    bench: Bench, tmp_path: Path
) -> None:
    truth = ground_truth_path(bench.home, SOURCE, "mimic-meld-24h")
    saved = truth.read_bytes()
    try:
        truth.write_bytes(saved + b"\0")
        record = bench.run(tmp_path, "mimic-meld-24h", "oracle", sandbox="none")
    finally:
        truth.write_bytes(saved)
    assert record.status == "harness_error"
    assert record.error is not None and "manifest describes" in record.error
    assert record.timings.agent == 0.0 and record.score is None
