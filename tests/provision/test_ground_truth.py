"""Ground truth: reproducible bytes, one per reference file, stale when anything changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from provision_helpers import SOURCE, Provisioned, private_home, sha

from m4bench.errors import M4BenchError
from m4bench.fileio import read_model, write_model
from m4bench.home import DataHome
from m4bench.provision.ground_truth import (
    GROUND_TRUTH_FORMAT_VERSION,
    GroundTruthManifest,
    build_ground_truth,
    ground_truth_path,
    manifest_path_for,
    stale_reason,
    verify_ground_truth,
)
from m4bench.provision.preflight import check_ground_truths
from m4bench.sources.layout import Source, load_source
from m4bench.tasks.catalog import CATALOG_ROOT, Catalog, load_catalog

pytestmark = pytest.mark.xdist_group("provision-synthetic")


def test_raw_and_standard_siblings_share_one_answer(
    provisioned: Provisioned, catalog: Catalog
) -> None:
    standard = ground_truth_path(provisioned.home, SOURCE, catalog.task("mimic-kdigo-48h"))
    raw = ground_truth_path(provisioned.home, SOURCE, "mimic-kdigo-48h-raw")
    assert standard == raw and standard.exists()
    keys = [truth.key for truth in provisioned.report.truths]
    assert len(keys) == len(set(keys)) == len({t.family for t in catalog.tasks})


def test_manifest_describes_the_file(provisioned: Provisioned, catalog: Catalog) -> None:
    task = catalog.task("mimic-sofa-24h")
    truth = ground_truth_path(provisioned.home, SOURCE, task)
    manifest = read_model(manifest_path_for(truth), GroundTruthManifest)
    table = pq.read_table(truth)
    assert manifest.rows == table.num_rows == 200
    assert [c.name for c in manifest.columns] == table.column_names
    assert manifest.output_sha256 == sha(truth)
    assert manifest.inputs.source_fingerprint == provisioned.source.manifest.fingerprint()
    assert set(manifest.inputs.concepts) == set(task.depends_on) != set()
    keys = table.select(manifest.sort_keys).to_pylist()
    assert keys == sorted(keys, key=lambda row: row["stay_id"])


def test_pages_are_lz4_without_dictionaries(provisioned: Provisioned, catalog: Catalog) -> None:
    # The scorer's join reads these far faster than zstd dictionary pages.
    truth = ground_truth_path(provisioned.home, SOURCE, catalog.task("mimic-sofa-24h"))
    chunks = duckdb.sql(
        "SELECT compression, dictionary_page_offset FROM parquet_metadata($path)",
        params={"path": str(truth)},
    ).fetchall()
    assert chunks and {codec for codec, _ in chunks} == {"LZ4_RAW"}
    assert all(dictionary is None for _, dictionary in chunks)


def test_rebuild_is_byte_identical_and_verifies(
    provisioned: Provisioned, catalog: Catalog, tmp_path: Path
) -> None:
    home = private_home(provisioned, tmp_path)
    source = load_source(home, SOURCE)
    task = catalog.task("mimic-urine-output-rate")
    first = build_ground_truth(home, source, task)
    copy = tmp_path / "first.parquet"
    shutil.copyfile(first.path, copy)
    again = build_ground_truth(home, source, task)
    assert again.action == "up-to-date"
    forced = build_ground_truth(home, source, task, force=True)
    assert forced.action == "rebuilt"
    assert first.path.read_bytes() == copy.read_bytes()
    assert forced.manifest == first.manifest
    assert verify_ground_truth(home, source, task) is None


def copied_family(
    provisioned: Provisioned, tmp_path: Path, family: str
) -> tuple[DataHome, Source, Path]:
    """A private home on the session's source, and a catalog holding a copy of ``family``."""
    home = private_home(provisioned, tmp_path)
    root = tmp_path / "catalog"
    shutil.copytree(CATALOG_ROOT / family, root / family)
    return home, load_source(home, SOURCE), root


def test_changed_reference_makes_it_stale_and_changes_the_answer(
    provisioned: Provisioned, tmp_path: Path
) -> None:
    home, source, root = copied_family(provisioned, tmp_path, "kdigo")
    task = load_catalog(root).task("mimic-kdigo-48h")
    original = build_ground_truth(home, source, task)
    reference = root / "kdigo" / "reference.sql"
    text = reference.read_text()
    assert "INTERVAL 48 HOUR" in text
    reference.write_text(text.replace("INTERVAL 48 HOUR", "INTERVAL 6 HOUR"))
    changed = load_catalog(root).task("mimic-kdigo-48h")
    assert stale_reason(changed, source, original.path) == "reference_sql_sha256 changed"
    rebuilt = build_ground_truth(home, source, changed)
    assert rebuilt.action == "rebuilt"
    assert rebuilt.manifest.inputs.reference_sql_sha256 != (
        original.manifest.inputs.reference_sql_sha256
    )
    assert rebuilt.manifest.output_sha256 != original.manifest.output_sha256


def test_a_reference_returning_a_key_twice_writes_no_truth(
    provisioned: Provisioned, tmp_path: Path
) -> None:
    home, source, root = copied_family(provisioned, tmp_path, "meld")
    reference = root / "meld" / "reference.sql"
    con = source.connect(read_only=True)
    first_stay = con.execute("SELECT min(stay_id) FROM mimiciv_icu.icustays").fetchone()
    con.close()
    assert first_stay is not None
    fan_out = (
        "\nUNION ALL\nSELECT subject_id, hadm_id, stay_id, 3.0 FROM mimiciv_icu.icustays "
        f"WHERE stay_id = {first_stay[0]}\n"
    )
    reference.write_text(reference.read_text().rstrip().rstrip(";") + fan_out)
    task = load_catalog(root, extra_roots=()).task("mimic-meld-24h")
    with pytest.raises(M4BenchError, match="returns 2 rows for stay_id=") as caught:
        build_ground_truth(home, source, task)
    assert str(reference) in caught.value.message
    assert f"stay_id={first_stay[0]};" in caught.value.message
    truth = ground_truth_path(home, SOURCE, task)
    assert not truth.exists() and not manifest_path_for(truth).exists()


def test_a_truth_of_an_older_file_format_is_rebuilt(
    provisioned: Provisioned, catalog: Catalog, tmp_path: Path
) -> None:
    home = private_home(provisioned, tmp_path)
    source = load_source(home, SOURCE)
    task = catalog.task("mimic-meld-24h")
    built = build_ground_truth(home, source, task)
    manifest = manifest_path_for(built.path)
    write_model(manifest, built.manifest.model_copy(update={"format_version": 1}))
    expected = f"file format 1, now {GROUND_TRUTH_FORMAT_VERSION}"
    assert stale_reason(task, source, built.path) == expected
    rebuilt = build_ground_truth(home, source, task)
    assert rebuilt.action == "rebuilt"
    assert stale_reason(task, source, rebuilt.path) is None


def test_tampered_output_is_detected(
    provisioned: Provisioned, catalog: Catalog, tmp_path: Path
) -> None:
    home = private_home(provisioned, tmp_path)
    source = load_source(home, SOURCE)
    tasks = [catalog.task("mimic-meld-24h"), catalog.task("mimic-meld-24h-raw")]
    result = build_ground_truth(home, source, tasks[0])
    assert all(check.ok for check in check_ground_truths(home, source, tasks))
    data = bytearray(result.path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    result.path.write_bytes(bytes(data))
    assert stale_reason(tasks[0], source, result.path) == "output file differs from its manifest"
    checks = check_ground_truths(home, source, tasks)
    assert len(checks) == 1 and not checks[0].ok
    assert build_ground_truth(home, source, tasks[1]).action == "rebuilt"
    assert sha(result.path) == result.manifest.output_sha256
