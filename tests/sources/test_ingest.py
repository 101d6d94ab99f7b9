"""Ingest of small MIMIC-IV and eICU CSV trees written by the tests."""

from __future__ import annotations

import datetime as dt
import gzip
import shutil
import zlib
from pathlib import Path

import duckdb
import pytest
from csv_trees import EICU_ROWS, MIMIC_ROWS, csv_bytes, write_tree

from m4bench.errors import M4BenchError
from m4bench.fileio import read_model
from m4bench.home import DataHome
from m4bench.sources.ingest import ingest_dataset
from m4bench.sources.layout import SourceManifest, load_source
from m4bench.sources.schema import EICU, MIMIC_IV

CORE = ["patients", "admissions", "labevents", "icustays", "chartevents"]


def _replace_gz(path: Path, data: bytes) -> None:
    path.write_bytes(gzip.compress(data, mtime=0))


def test_mimic_catalog_has_official_names_types_and_null_tokens(
    home: DataHome, mimic_tree: Path
) -> None:
    report = ingest_dataset(home, "mimic-iv", mimic_tree, name="demo")
    assert {t.status for t in report.tables} == {"ingested"}
    assert len(report.tables) == len(MIMIC_IV.tables)
    con = load_source(home, "demo").connect()
    for table in MIMIC_IV.tables:
        described = con.execute(f"DESCRIBE {table.qualified}").fetchall()
        assert [(row[0], row[1]) for row in described] == list(table.duckdb_columns().items()), (
            table.qualified
        )
    assert con.execute(
        "SELECT COUNT(*) FROM mimiciv_icu.chartevents WHERE valuenum = 36.6"
    ).fetchone() == (1,)
    labs = con.execute(
        "SELECT hadm_id, storetime, valuenum, comments FROM mimiciv_hosp.labevents "
        "ORDER BY labevent_id"
    ).fetchall()
    assert labs == [
        (None, dt.datetime(2180, 3, 23, 15, 56), 0.7, None),  # '___' and '' are NULL
        (22595853, None, None, 'HEMOLYZED, "repeat"\nsee note'),  # quoted, multi-line
    ]
    times = con.execute(
        "SELECT admittime, dischtime, edouttime FROM mimiciv_hosp.admissions ORDER BY hadm_id"
    ).fetchall()
    assert times == [
        (dt.datetime(2180, 5, 6, 22, 23), dt.datetime(2180, 5, 7, 17, 15), None),
        (
            dt.datetime(2160, 11, 21, 1, 56),
            dt.datetime(2160, 11, 25, 14, 52),
            dt.datetime(2160, 11, 21, 3, 20),
        ),
    ]
    device = con.execute(
        "SELECT value FROM mimiciv_icu.chartevents WHERE itemid = 226732"
    ).fetchone()
    assert device == ("Bipap mask ",)  # trailing space kept
    dod = con.execute("SELECT dod FROM mimiciv_hosp.patients WHERE subject_id = 10000032")
    assert dod.fetchone() == (dt.date(2180, 9, 9),)
    manifest = load_source(home, "demo").manifest
    assert manifest.kind == "ingested" and manifest.dataset_version == "3.1"
    assert manifest.tables["mimiciv_hosp.patients"].rows == 3
    assert manifest.tables["mimiciv_hosp.patients"].input_sha256


def test_eicu_plain_csv_types(home: DataHome, eicu_tree: Path) -> None:
    report = ingest_dataset(home, "eicu", eicu_tree, name="eicu-demo", public=True)
    assert len(report.tables) == len(EICU.tables)
    source = load_source(home, "eicu-demo")
    assert source.manifest.public
    con = source.connect()
    patients = con.execute(
        "SELECT age, admissionheight, hospitaladmittime24, hospitaladmitoffset "
        "FROM eicu_crd.patient ORDER BY patientunitstayid"
    ).fetchall()
    assert patients == [
        ("70", 152.4, "15:54:00", 0),
        ("> 89", None, None, -14),
        (None, None, None, None),
    ]
    assert con.execute(
        "SELECT hospitalid, teachingstatus FROM eicu_crd.hospital ORDER BY 1"
    ).fetchall() == [(59, False), (60, True)]
    assert con.execute(
        "SELECT SUM(labresult), COUNT(labresultrevisedoffset) FROM eicu_crd.lab"
    ).fetchone() == (pytest.approx(179.31), 1)
    chart = con.execute("SELECT nursingchartid, nursingchartvalue FROM eicu_crd.nursecharting")
    assert chart.fetchall() == [(4000000001, "Unable to score due to medication")]


def test_a_copied_home_reads_its_own_files_and_a_moved_one_still_works(
    home: DataHome, eicu_tree: Path, tmp_path: Path
) -> None:
    ingest_dataset(home, "eicu", eicu_tree, name="eicu-demo")
    copy = DataHome(tmp_path / "copy")
    shutil.copytree(home.root, copy.root)
    patient = ("eicu_crd", "patient")
    copied_file = load_source(copy, "eicu-demo").layout.table_path(*patient)
    with duckdb.connect() as con:  # the copy's own patient table, now one row
        con.execute(
            f"COPY (SELECT * FROM read_parquet('{copied_file}') LIMIT 1) "
            f"TO '{tmp_path / 'one.parquet'}' (FORMAT parquet)"
        )
    (tmp_path / "one.parquet").replace(copied_file)
    count = "SELECT count(*) FROM eicu_crd.patient"
    assert load_source(copy, "eicu-demo").connect().execute(count).fetchone() == (1,)
    assert load_source(home, "eicu-demo").connect().execute(count).fetchone() == (3,)
    moved = DataHome(tmp_path / "moved")
    home.root.rename(moved.root)
    assert load_source(moved, "eicu-demo").connect().execute(count).fetchone() == (3,)


def test_reingest_is_a_no_op_and_a_changed_file_is_redone(home: DataHome, mimic_tree: Path) -> None:
    ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=CORE)
    layout = load_source(home, "demo").layout
    before = layout.manifest_path.read_bytes()
    stamps = {p: p.stat().st_mtime_ns for p in layout.parquet_dir.rglob("*.parquet")}
    again = ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=CORE)
    assert {t.status for t in again.tables} == {"skipped"}
    assert layout.manifest_path.read_bytes() == before
    assert {p: p.stat().st_mtime_ns for p in layout.parquet_dir.rglob("*.parquet")} == stamps

    rows = [*MIMIC_ROWS["mimiciv_hosp.patients"], {**MIMIC_ROWS["mimiciv_hosp.patients"][0],
            "subject_id": "10000999"}]  # fmt: skip
    _replace_gz(mimic_tree / "hosp/patients.csv.gz",
                csv_bytes(MIMIC_IV.table("mimiciv_hosp.patients"), rows))  # fmt: skip
    third = ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=CORE)
    redone = {t.qualified for t in third.tables if t.status == "ingested"}
    assert redone == {"mimiciv_hosp.patients"}
    con = load_source(home, "demo").connect()
    assert con.execute("SELECT COUNT(*) FROM mimiciv_hosp.patients").fetchone() == (4,)


def test_bad_value_names_file_and_line_and_keeps_finished_tables(
    home: DataHome, mimic_tree: Path
) -> None:
    table = MIMIC_IV.table("mimiciv_icu.chartevents")
    bad = [*MIMIC_ROWS[table.qualified], {**MIMIC_ROWS[table.qualified][0], "valuenum": "abc"}]
    _replace_gz(mimic_tree / "icu/chartevents.csv.gz", csv_bytes(table, bad))
    with pytest.raises(M4BenchError) as caught:
        ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=CORE)
    message = caught.value.message
    assert "chartevents.csv.gz line 5" in message
    assert "abc" in message
    layout = load_source(home, "demo").layout
    manifest = read_model(layout.manifest_path, SourceManifest)
    assert "mimiciv_icu.chartevents" not in manifest.tables
    assert "mimiciv_hosp.patients" in manifest.tables
    assert not layout.table_path("mimiciv_icu", "chartevents").exists()
    assert not list(layout.parquet_dir.rglob("*.tmp"))
    # Fixing the file resumes: only the failed table (and those after it) are read.
    good = csv_bytes(table, MIMIC_ROWS[table.qualified])
    _replace_gz(mimic_tree / "icu/chartevents.csv.gz", good)
    resumed = ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=CORE)
    statuses = {t.qualified: t.status for t in resumed.tables}
    assert statuses["mimiciv_hosp.patients"] == "skipped"
    assert statuses["mimiciv_icu.chartevents"] == "ingested"


def _truncated_at_block_boundary(data: bytes, keep_lines: int) -> bytes:
    """A gzip stream cut cleanly after ``keep_lines`` lines: DuckDB alone would not notice."""
    lines = data.splitlines(keepends=True)
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    head = packer.compress(b"".join(lines[:keep_lines])) + packer.flush(zlib.Z_FULL_FLUSH)
    return head


def test_truncated_gzip_is_rejected_and_table_absent(home: DataHome, mimic_tree: Path) -> None:
    table = MIMIC_IV.table("mimiciv_hosp.admissions")
    data = csv_bytes(table, MIMIC_ROWS[table.qualified])
    (mimic_tree / "hosp/admissions.csv.gz").write_bytes(_truncated_at_block_boundary(data, 2))
    with pytest.raises(M4BenchError, match=r"admissions\.csv\.gz: .*truncated"):
        ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=CORE)
    manifest = load_source(home, "demo").manifest
    assert "mimiciv_hosp.admissions" not in manifest.tables
    assert "mimiciv_hosp.patients" in manifest.tables  # ingested before (smaller file)
    layout = load_source(home, "demo").layout
    assert not layout.table_path("mimiciv_hosp", "admissions").exists()


def test_gzip_cut_mid_line_is_rejected(home: DataHome, mimic_tree: Path) -> None:
    path = mimic_tree / "icu/chartevents.csv.gz"
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) - 12])
    with pytest.raises(M4BenchError, match=r"chartevents\.csv\.gz"):
        ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=["chartevents"])


def test_missing_table_fails_before_anything_is_written(home: DataHome, mimic_tree: Path) -> None:
    (mimic_tree / "icu/d_items.csv.gz").unlink()
    with pytest.raises(M4BenchError, match=r"icu/d_items\.csv\.gz") as caught:
        ingest_dataset(home, "mimic-iv", mimic_tree, name="demo")
    assert "--table" in (caught.value.hint or "")
    assert not home.source_dir("demo").exists()


@pytest.mark.parametrize(
    ("header_change", "expected"),
    [
        (lambda cols: cols[:-1], "missing column(s) dod"),
        (lambda cols: [*cols, "extra_col"], "unexpected column(s) extra_col"),
    ],
)
def test_header_mismatch_names_file_and_column(
    home: DataHome, mimic_tree: Path, header_change: object, expected: str
) -> None:
    table = MIMIC_IV.table("mimiciv_hosp.patients")
    header = header_change(list(table.column_names))  # type: ignore[operator]
    _replace_gz(mimic_tree / "hosp/patients.csv.gz", csv_bytes(table, [], header=header))
    with pytest.raises(M4BenchError) as caught:
        ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=CORE)
    assert "hosp/patients.csv.gz" in caught.value.message
    assert expected in caught.value.message
    assert not home.source_dir("demo").exists()


def test_header_in_another_order_is_read_by_name(home: DataHome, mimic_tree: Path) -> None:
    table = MIMIC_IV.table("mimiciv_hosp.patients")
    header = list(reversed(table.column_names))
    data = csv_bytes(table, MIMIC_ROWS[table.qualified], header=header)
    _replace_gz(mimic_tree / "hosp/patients.csv.gz", data)
    ingest_dataset(home, "mimic-iv", mimic_tree, name="demo", tables=["patients"])
    con = load_source(home, "demo").connect()
    described = [row[0] for row in con.execute("DESCRIBE mimiciv_hosp.patients").fetchall()]
    assert tuple(described) == table.column_names
    assert con.execute(
        "SELECT anchor_age FROM mimiciv_hosp.patients WHERE subject_id = 10000108"
    ).fetchone() == (91,)


def test_not_a_dataset_tree(home: DataHome, tmp_path: Path, eicu_tree: Path) -> None:
    with pytest.raises(M4BenchError, match="no table file of the mimic-iv release found here"):
        ingest_dataset(home, "mimic-iv", eicu_tree)
    with pytest.raises(M4BenchError, match="not a directory"):
        ingest_dataset(home, "eicu", tmp_path / "nowhere")
    with pytest.raises(M4BenchError, match="unknown dataset"):
        ingest_dataset(home, "mimic-iii", eicu_tree)


def test_name_rules_and_kind_clash(home: DataHome, mimic_tree: Path, eicu_tree: Path) -> None:
    with pytest.raises(M4BenchError, match="invalid source name"):
        ingest_dataset(home, "eicu", eicu_tree, name="Bad Name")
    report = ingest_dataset(home, "eicu", eicu_tree, tables=["patient"])
    assert report.source.name == "eicu-demo"  # from the directory name
    with pytest.raises(M4BenchError, match="already exists as a ingested eicu source"):
        ingest_dataset(home, "mimic-iv", mimic_tree, name="eicu-demo", tables=["patients"])


def test_unknown_table_and_ambiguous_files(home: DataHome, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "e", EICU, EICU_ROWS, gz=False)
    with pytest.raises(M4BenchError, match="no table"):
        ingest_dataset(home, "eicu", root, tables=["chartevents"])
    (root / "patient.csv.gz").write_bytes(gzip.compress((root / "patient.csv").read_bytes()))
    with pytest.raises(M4BenchError, match="both"):
        ingest_dataset(home, "eicu", root, tables=["patient"])


def test_eicu_camel_case_file_names_and_headers(home: DataHome, eicu_tree: Path) -> None:
    table = EICU.table("eicu_crd.nursecharting")
    camel = ["nursingChartID", "patientUnitStayID", "nursingChartOffset",
             "nursingChartEntryOffset", "nursingChartCellTypeCat",
             "nursingChartCellTypeValLabel", "nursingChartCellTypeValName",
             "nursingChartValue"]  # fmt: skip
    rows = [{c: row[c.lower()] for c in camel} for row in EICU_ROWS[table.qualified]]
    (eicu_tree / "nursecharting.csv").unlink()
    (eicu_tree / "nurseCharting.csv").write_bytes(csv_bytes(table, rows, header=camel))
    (eicu_tree / "patient.csv").rename(eicu_tree / "Patient.csv")
    ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["nursecharting", "patient"])
    con = load_source(home, "e").connect()
    assert con.execute(
        "SELECT patientunitstayid, nursingchartoffset FROM eicu_crd.nursecharting"
    ).fetchall() == [(141168, 5)]
    assert con.execute("SELECT COUNT(*) FROM eicu_crd.patient").fetchone() == (3,)


def test_a_second_writer_is_refused(home: DataHome, eicu_tree: Path) -> None:
    from m4bench.sources.layout import SourceLayout
    from m4bench.sources.lock import source_lock

    with (
        source_lock(SourceLayout(home.source_dir("busy"))),
        pytest.raises(M4BenchError, match="being written by another"),
    ):
        ingest_dataset(home, "eicu", eicu_tree, name="busy", tables=["patient"])
    report = ingest_dataset(home, "eicu", eicu_tree, name="busy", tables=["patient"])
    assert report.tables[0].status == "ingested"


def test_public_flag_change_is_saved_without_reingest(home: DataHome, eicu_tree: Path) -> None:
    ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["patient"])
    assert not load_source(home, "e").manifest.public
    again = ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["patient"], public=True)
    assert again.tables[0].status == "skipped"
    assert load_source(home, "e").manifest.public


def test_progress_reports_every_table_to_completion(home: DataHome, eicu_tree: Path) -> None:
    seen: dict[str, list[float]] = {}
    ingest_dataset(
        home, "eicu", eicu_tree, name="e", tables=["patient", "lab"],
        progress=lambda table, done: seen.setdefault(table, []).append(done),
    )  # fmt: skip
    assert set(seen) == {"eicu_crd.patient", "eicu_crd.lab"}
    for fractions in seen.values():
        assert fractions[-1] == 1.0
        assert all(0.0 <= f <= 1.0 for f in fractions)
    again: dict[str, list[float]] = {}
    ingest_dataset(
        home, "eicu", eicu_tree, name="e", tables=["patient"],
        progress=lambda table, done: again.setdefault(table, []).append(done),
    )  # fmt: skip
    assert again == {"eicu_crd.patient": [1.0]}  # skipped tables show as done


def test_default_names_follow_the_release_directory(tmp_path: Path) -> None:
    from m4bench.sources.ingest import default_source_name

    files = tmp_path / "physionet.org" / "files"
    assert default_source_name("mimic-iv", files / "mimiciv" / "3.1") == "mimiciv-3.1"
    assert default_source_name("mimic-iv", files / "mimic-iv-demo" / "2.2") == "mimic-iv-demo-2.2"
    assert default_source_name("eicu", files / "eicu-crd-demo" / "2.0.1") == "eicu-crd-demo-2.0.1"
    assert default_source_name("mimic-iv", tmp_path / "MIMIC-IV Demo") == "mimic-iv-demo"
    assert default_source_name("eicu", tmp_path / "release") == "eicu-release"


def test_a_lost_table_file_is_rebuilt(home: DataHome, eicu_tree: Path) -> None:
    ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["patient", "lab"])
    layout = load_source(home, "e").layout
    layout.table_path("eicu_crd", "lab").unlink()
    again = ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["patient", "lab"])
    assert {t.qualified: t.status for t in again.tables} == {
        "eicu_crd.patient": "skipped",
        "eicu_crd.lab": "ingested",
    }
    assert load_source(home, "e").connect().execute(
        "SELECT COUNT(*) FROM eicu_crd.lab"
    ).fetchone() == (2,)


def test_error_explanations_tell_input_from_output_problems() -> None:
    import duckdb

    from m4bench.sources.csv_sql import explain_csv_error

    path = Path("/data/icu/chartevents.csv.gz")
    con = duckdb.connect()
    with pytest.raises(duckdb.Error) as parse:
        con.execute("SELECT CAST('x' AS INTEGER)")
    parsed = explain_csv_error(path, parse.value)
    assert parsed.message.startswith(str(path)) and "download it again" in (parsed.hint or "")
    with pytest.raises(duckdb.IOException) as io_error:
        con.execute("COPY (SELECT 1) TO '/nonexistent-dir/x.parquet' (FORMAT PARQUET)")
    written = explain_csv_error(path, io_error.value)
    assert "writing its table failed" in written.message
    assert "free space" in (written.hint or "")
