"""Same version + seed + size gives byte-identical Parquet; another seed other data."""

from __future__ import annotations

from pathlib import Path

from m4bench.fileio import sha256_file
from m4bench.home import DataHome
from m4bench.sources.layout import Source
from m4bench.sources.synth import synthesize_mimic_iv


def _file_hashes(source: Source) -> dict[str, str]:
    files = sorted(source.layout.parquet_dir.rglob("*.parquet"))
    return {str(p.relative_to(source.layout.root)): sha256_file(p) for p in files}


def test_same_seed_gives_identical_files(mimic_source: Source, tmp_path: Path) -> None:
    again = synthesize_mimic_iv(DataHome(tmp_path), stays=200, seed=7, progress=False)
    first, second = _file_hashes(mimic_source), _file_hashes(again)
    assert len(first) == 31
    assert first == second
    assert mimic_source.manifest.fingerprint() == again.manifest.fingerprint()


def test_other_seed_gives_other_data(mimic_source: Source, tmp_path: Path) -> None:
    other = synthesize_mimic_iv(DataHome(tmp_path), stays=200, seed=8, progress=False)
    first, second = _file_hashes(mimic_source), _file_hashes(other)
    changed = {k for k in first if first[k] != second[k]}
    for table in ("chartevents", "labevents", "admissions", "patients", "icustays", "inputevents"):
        assert any(table in k for k in changed), table
    # dictionaries do not depend on the seed
    assert not any("d_items" in k or "d_labitems" in k for k in changed)


def test_manifest_records_generator_parameters(mimic_source: Source) -> None:
    m = mimic_source.manifest
    assert (m.kind, m.public, m.dataset, m.dataset_version) == (
        "synthetic",
        True,
        "mimic-iv",
        "3.1",
    )
    assert m.parameters["seed"] == 7
    assert m.parameters["stays"] == 200
    assert m.parameters["generator_version"]
    for entry in m.tables.values():
        assert sha256_file(mimic_source.layout.resolve(entry.file)) == entry.file.sha256
