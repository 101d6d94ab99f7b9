"""Attaching a DuckDB database of views over Parquet, as the M4 toolkit builds it."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources.attach import attach_m4
from m4bench.sources.layout import list_source_names, load_source
from m4bench.sources.schema import MIMIC_IV, create_empty_tables


def _parquet(con: duckdb.DuckDBPyConnection, query: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    con.execute(f"COPY ({query}) TO '{path}' (FORMAT PARQUET)")


def _m4_tree(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An M4-style data dir: Parquet per table, and a database of views over them."""
    parquet = root / "m4_data" / "parquet" / "mimic-iv"
    con = duckdb.connect()
    create_empty_tables(con, MIMIC_IV, ["patients", "admissions", "labevents"])
    con.execute(
        "INSERT INTO mimiciv_hosp.patients VALUES "
        "(1, 'F', 50, 2150, '2014 - 2016', NULL), (2, 'M', 91, 2160, '2017 - 2019', NULL)"
    )
    con.execute(
        "INSERT INTO mimiciv_hosp.admissions (subject_id, hadm_id, admittime, admission_type) "
        "VALUES (1, 20, '2150-01-01 10:00', 'URGENT')"
    )
    _parquet(con, "SELECT * FROM mimiciv_hosp.patients", parquet / "hosp/patients.parquet")
    _parquet(con, "SELECT * FROM mimiciv_hosp.admissions", parquet / "hosp/admissions.parquet")
    for part in (1, 2):
        con.execute(
            "INSERT INTO mimiciv_hosp.labevents (labevent_id, subject_id, specimen_id, itemid)"
            f" VALUES ({part}, 1, {part}, 50912)"
        )
        _parquet(
            con,
            f"SELECT * FROM mimiciv_hosp.labevents WHERE labevent_id = {part}",
            parquet / f"hosp/labevents/part-{part}.parquet",
        )
    con.close()
    database = root / "m4_data" / "databases" / "mimic_iv.duckdb"
    database.parent.mkdir(parents=True)
    db = duckdb.connect(str(database))
    for schema in ("mimiciv_hosp", "mimiciv_derived"):
        db.execute(f"CREATE SCHEMA {schema}")
    # DuckDB's replacement scan: FROM 'file.parquet' without read_parquet.
    db.execute(
        f"CREATE VIEW mimiciv_hosp.patients AS SELECT * FROM '{parquet / 'hosp/patients.parquet'}'"
    )
    # A path relative to the M4 project directory (its working directory when built).
    monkeypatch.chdir(root)
    db.execute(
        "CREATE VIEW mimiciv_hosp.admissions AS SELECT * FROM "
        "read_parquet('m4_data/parquet/mimic-iv/hosp/admissions.parquet')"
    )
    db.execute(
        "CREATE VIEW mimiciv_hosp.labevents AS SELECT * FROM "
        f"read_parquet('{parquet / 'hosp/labevents/*.parquet'}')"
    )
    db.execute("CREATE TABLE mimiciv_derived.sofa AS SELECT 1 AS stay_id")
    db.close()
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return database


def test_attach_registers_views_without_copying(
    home: DataHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = _m4_tree(tmp_path, monkeypatch)
    report = attach_m4(home, database)
    source = load_source(home, "mimic-iv-m4")
    assert source.manifest.kind == "attached-m4"
    assert set(source.manifest.tables) == {
        "mimiciv_hosp.patients", "mimiciv_hosp.admissions", "mimiciv_hosp.labevents",
    }  # fmt: skip
    assert "mimiciv_icu.chartevents" in report.missing_tables
    assert not source.layout.parquet_dir.exists()
    for entry in source.manifest.tables.values():
        assert Path(entry.file.path).is_absolute()
        assert entry.file.bytes > 0 and len(entry.file.sha256) == 64
    assert source.manifest.tables["mimiciv_hosp.labevents"].rows == 2
    con = source.connect()
    assert con.execute("SELECT COUNT(*) FROM mimiciv_hosp.patients").fetchone() == (2,)
    assert con.execute("SELECT hadm_id FROM mimiciv_hosp.admissions").fetchone() == (20,)
    assert con.execute("SELECT SUM(labevent_id) FROM mimiciv_hosp.labevents").fetchone() == (3,)
    con.close()
    before = source.layout.manifest_path.read_bytes()
    attach_m4(home, database)
    assert source.layout.manifest_path.read_bytes() == before


def test_attach_rejects_what_is_not_an_m4_database(home: DataHome, tmp_path: Path) -> None:
    with pytest.raises(M4BenchError, match="no such file"):
        attach_m4(home, tmp_path / "absent.duckdb")
    text = tmp_path / "notes.duckdb"
    text.write_text("not a database")
    with pytest.raises(M4BenchError, match="not a readable DuckDB database"):
        attach_m4(home, text)
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).execute("CREATE VIEW v AS SELECT 1 AS x").close()
    with pytest.raises(M4BenchError, match="no views named like"):
        attach_m4(home, other)


def test_attach_rejects_views_it_cannot_follow(home: DataHome, tmp_path: Path) -> None:
    database = tmp_path / "m4.duckdb"
    db = duckdb.connect(str(database))
    db.execute("CREATE SCHEMA mimiciv_hosp")
    db.execute("CREATE VIEW mimiciv_hosp.patients AS SELECT 1 AS subject_id")
    db.close()
    with pytest.raises(M4BenchError, match="does not read a Parquet file"):
        attach_m4(home, database)
    gone = tmp_path / "gone.parquet"
    db = duckdb.connect(str(database))
    db.execute(f"COPY (SELECT 1 AS subject_id) TO '{gone}' (FORMAT PARQUET)")
    db.execute(
        f"CREATE OR REPLACE VIEW mimiciv_hosp.patients AS SELECT * FROM read_parquet('{gone}')"
    )
    db.close()
    with pytest.raises(M4BenchError, match="missing gender"):
        attach_m4(home, database)
    gone.unlink()
    with pytest.raises(M4BenchError, match="does not exist"):
        attach_m4(home, database)
    assert list_source_names(home) == []  # nothing registered


def test_attach_command(home: DataHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from m4bench.cli.data import app

    database = _m4_tree(tmp_path, monkeypatch)
    result = CliRunner().invoke(
        app, ["attach-m4", str(database), "--name", "m4", "--public", "--home", str(home.root)],
        terminal_width=200,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "3 table(s), 5 rows" in result.output
    assert "not in the database" in result.output
    assert load_source(home, "m4").manifest.public
