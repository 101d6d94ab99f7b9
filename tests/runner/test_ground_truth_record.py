"""A run records the ground truth it was scored against only when its manifest vouches
for the file."""

from __future__ import annotations

import shutil
from pathlib import Path

from run_bench import SOURCE, Bench

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


def test_no_record_for_a_file_its_manifest_does_not_describe(bench: Bench, tmp_path: Path) -> None:
    truth = _copy(bench, tmp_path)
    with truth.open("ab") as handle:
        handle.write(b"\0")
    assert ground_truth_record(truth) is None
