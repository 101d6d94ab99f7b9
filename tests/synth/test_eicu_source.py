"""The synthetic eICU-CRD source: determinism, schema, integrity, vocabulary, bad input."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.fileio import sha256_file
from m4bench.home import DataHome
from m4bench.sources.layout import Source, load_source
from m4bench.sources.schema import EICU
from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu import synthesize_eicu

STAYS = 200


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Source:
    home = DataHome(tmp_path_factory.mktemp("eicu-home"))
    return synthesize_eicu(home, stays=STAYS, seed=5, progress=False)


@pytest.fixture(scope="module")
def con(source: Source) -> duckdb.DuckDBPyConnection:
    return source.connect()


def _hashes(source: Source) -> dict[str, str]:
    return {q: sha256_file(source.table_file(q)) for q in sorted(source.manifest.tables)}


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> object:
    row = con.execute(sql).fetchone()
    assert row is not None
    return row[0]


def test_same_seed_and_size_give_identical_files(source: Source, tmp_path: Path) -> None:
    again = synthesize_eicu(DataHome(tmp_path / "a"), stays=STAYS, seed=5, progress=False)
    assert _hashes(again) == _hashes(source)
    assert again.manifest.fingerprint() == source.manifest.fingerprint()


def test_another_seed_gives_other_data(source: Source, tmp_path: Path) -> None:
    other = synthesize_eicu(DataHome(tmp_path / "b"), stays=STAYS, seed=6, progress=False)
    theirs, ours = _hashes(other), _hashes(source)
    changed = [q for q in ours if theirs[q] != ours[q]]
    assert "eicu_crd.nursecharting" in changed
    assert "eicu_crd.patient" in changed
    assert theirs["eicu_crd.hospital"] != ours["eicu_crd.hospital"] or len(changed) > 20


def test_every_table_and_column_of_the_official_schema(con: duckdb.DuckDBPyConnection) -> None:
    for table in EICU.tables:
        described = con.execute(f"DESCRIBE {table.qualified}").fetchall()
        assert [(name, type_) for name, type_, *_ in described] == [
            (c.name, c.type) for c in table.columns
        ], table.qualified


def test_not_null_columns_hold_no_nulls(con: duckdb.DuckDBPyConnection) -> None:
    for table in EICU.tables:
        for column in table.columns:
            if not column.nullable:
                nulls = _one(
                    con, f'SELECT COUNT(*) FROM {table.qualified} WHERE "{column.name}" IS NULL'
                )
                assert nulls == 0, f"{table.qualified}.{column.name}"


def test_manifest_describes_a_public_synthetic_source(source: Source) -> None:
    manifest = source.manifest
    assert (manifest.dataset, manifest.dataset_version, manifest.kind) == (
        "eicu",
        "2.0",
        "synthetic",
    )
    assert manifest.public is True
    assert manifest.parameters["stays"] == STAYS
    assert manifest.parameters["seed"] == 5
    assert set(manifest.tables) == {t.qualified for t in EICU.tables}


def test_one_patient_row_per_stay_and_every_stay_known(con: duckdb.DuckDBPyConnection) -> None:
    assert _one(con, "SELECT COUNT(*) FROM eicu_crd.patient") == STAYS
    assert _one(con, "SELECT COUNT(DISTINCT patientunitstayid) FROM eicu_crd.patient") == STAYS
    for table in EICU.tables:
        if "patientunitstayid" in table.column_names and table.name != "patient":
            orphans = _one(
                con,
                f"SELECT COUNT(*) FROM {table.qualified} t ANTI JOIN eicu_crd.patient p "
                "USING (patientunitstayid)",
            )
            assert orphans == 0, table.qualified


def test_identifiers_have_the_real_formats(con: duckdb.DuckDBPyConnection) -> None:
    pids = [r[0] for r in con.execute("SELECT uniquepid FROM eicu_crd.patient").fetchall()]
    assert all(re.fullmatch(r"\d{3}-\d{5}", p) for p in pids)
    # a hospital stay belongs to one patient; some patients have several unit stays
    assert (
        _one(
            con,
            "SELECT MAX(n) FROM (SELECT COUNT(DISTINCT uniquepid) AS n "
            "FROM eicu_crd.patient GROUP BY patienthealthsystemstayid)",
        )
        == 1
    )
    assert (
        _one(
            con,
            "SELECT COUNT(*) FROM (SELECT uniquepid FROM eicu_crd.patient "
            "GROUP BY 1 HAVING COUNT(*) > 1)",
        )
        > 0
    )
    assert _one(con, "SELECT COUNT(*) FROM eicu_crd.hospital") == 208
    assert (
        _one(
            con,
            "SELECT COUNT(*) FROM eicu_crd.patient ANTI JOIN eicu_crd.hospital USING (hospitalid)",
        )
        == 0
    )


def test_offsets_are_plausible(con: duckdb.DuckDBPyConnection) -> None:
    p = "eicu_crd.patient"
    assert _one(con, f"SELECT MAX(hospitaladmitoffset) FROM {p}") <= 0
    assert _one(con, f"SELECT MIN(unitdischargeoffset) FROM {p}") > 0
    assert (
        _one(con, f"SELECT COUNT(*) FROM {p} WHERE hospitaldischargeoffset < unitdischargeoffset")
        == 0
    )
    for table, column in (
        ("nursecharting", "nursingchartoffset"),
        ("intakeoutput", "intakeoutputoffset"),
        ("physicalexam", "physicalexamoffset"),
        ("lab", "labresultoffset"),
        ("vitalperiodic", "observationoffset"),
    ):
        outside = _one(
            con,
            f"SELECT COUNT(*) FROM eicu_crd.{table} t JOIN {p} p USING (patientunitstayid) "
            f"WHERE t.{column} < -3 * 1440 OR t.{column} > p.unitdischargeoffset + 60",
        )
        assert outside == 0, table
    # charting before unit admission exists (negative offsets)
    assert _one(con, "SELECT MIN(nursingchartoffset) FROM eicu_crd.nursecharting") < 0


def test_deaths_match_discharge(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "SELECT hospitaldischargestatus, hospitaldischargelocation = 'Death', COUNT(*) "
        "FROM eicu_crd.patient GROUP BY ALL"
    ).fetchall()
    for status, death_location, _ in rows:
        if status is not None:
            assert (status == "Expired") == death_location
    assert (
        _one(
            con,
            "SELECT COUNT(*) FROM eicu_crd.patient WHERE unitdischargestatus = "
            "'Expired' AND hospitaldischargestatus = 'Alive'",
        )
        == 0
    )
    assert (
        _one(con, "SELECT COUNT(*) FROM eicu_crd.patient WHERE hospitaldischargestatus = 'Expired'")
        > 0
    )


def test_unit_stays_of_one_hospital_stay_agree(con: duckdb.DuckDBPyConnection) -> None:
    disagreeing = _one(
        con,
        "SELECT COUNT(*) FROM (SELECT patienthealthsystemstayid FROM eicu_crd.patient "
        "GROUP BY 1 HAVING COUNT(DISTINCT hospitaldischargeoffset - hospitaladmitoffset) > 1 "
        "OR COUNT(DISTINCT hospitaladmittime24) > 1 OR COUNT(DISTINCT hospitaldischargeyear) > 1 "
        "OR COUNT(DISTINCT COALESCE(hospitaldischargestatus, '?')) > 1)",
    )
    assert disagreeing == 0
    # later unit stays start later in the hospital stay
    assert (
        _one(
            con,
            "SELECT COUNT(*) FROM (SELECT hospitaladmitoffset - LAG(hospitaladmitoffset) OVER "
            "(PARTITION BY patienthealthsystemstayid ORDER BY unitvisitnumber) AS d FROM "
            "eicu_crd.patient) WHERE d >= 0",
        )
        == 0
    )


def test_apache_tables_have_their_cardinalities(con: duckdb.DuckDBPyConnection) -> None:
    for table in ("apacheapsvar", "apachepredvar"):
        assert (
            _one(
                con,
                f"SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM eicu_crd.{table} "
                "GROUP BY patientunitstayid)",
            )
            == 1
        )
    versions = con.execute(
        "SELECT LIST(apacheversion ORDER BY apacheversion) FROM eicu_crd.apachepatientresult "
        "GROUP BY patientunitstayid"
    ).fetchall()
    assert versions and all(row[0] == ["IV", "IVa"] for row in versions)


def test_every_label_the_eicu_tasks_read_is_charted(con: duckdb.DuckDBPyConnection) -> None:
    charted = set(
        con.execute(
            "SELECT DISTINCT nursingchartcelltypecat, nursingchartcelltypevallabel, "
            "nursingchartcelltypevalname FROM eicu_crd.nursecharting"
        ).fetchall()
    )
    pairs = {(label, name) for _, label, name in charted}
    wanted = [
        (v.GCS_LABEL, v.GCS_TOTAL),
        (v.GCS_LABEL, v.GCS_MOTOR),
        (v.GCS_LABEL, v.GCS_VERBAL),
        (v.GCS_LABEL, v.GCS_EYES),
        (v.GCS_SCORE_LABEL, v.VALUE),
        v.HR,
        v.RR,
        v.TEMP_C,
        v.TEMP_F,
        v.TEMP_LOCATION,
        v.IBP_MEAN,
        v.IBP_SYS,
        v.IBP_DIA,
        v.MAP_VALUE,
        v.ART_MAP_VALUE,
        v.NIBP_MEAN,
        v.NIBP_SYS,
        v.NIBP_DIA,
        v.SPO2,
    ]
    assert [pair for pair in wanted if pair not in pairs] == []
    gcs_categories = {cat for cat, label, _ in charted if label == v.GCS_LABEL}
    assert gcs_categories == {v.CAT_SCORES, v.CAT_OTHER_VITALS}
    values = {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT nursingchartvalue FROM eicu_crd.nursecharting"
        ).fetchall()
    }
    assert "Unable to score due to medication" in values


def test_every_urine_spelling_and_decoy_path_is_present(con: duckdb.DuckDBPyConnection) -> None:
    paths = {
        r[0] for r in con.execute("SELECT DISTINCT cellpath FROM eicu_crd.intakeoutput").fetchall()
    }
    tails = {p.removeprefix(v.IO_OUTPUT) for p in paths if p.startswith(v.IO_OUTPUT)}
    assert len(v.urine_tails()) == 125
    missing = [t for t in v.urine_tails() if t not in tails]
    assert missing == []
    for group in (
        v.URINE_FOLEY_TAILS,
        v.URINE_PATTERN_TAILS,
        v.URINE_EXCLUDED_FOLEY_TAILS,
        v.OUTPUT_OTHER_TAILS,
    ):
        assert set(group) & tails, group
    assert any(p.startswith(v.IO_INTAKE) for p in paths)
    # totals are cumulative: never decrease within a stay
    assert (
        _one(
            con,
            "SELECT COUNT(*) FROM (SELECT outputtotal - LAG(outputtotal) OVER (PARTITION "
            "BY patientunitstayid ORDER BY intakeoutputoffset, intakeoutputid) AS d FROM "
            "eicu_crd.intakeoutput) WHERE d < 0",
        )
        == 0
    )


def test_physical_exam_gcs_paths(con: duckdb.DuckDBPyConnection) -> None:
    paths = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT physicalexampath FROM eicu_crd.physicalexam"
        ).fetchall()
    ]
    totals = [
        p for p in paths if p.startswith(v.PE_GCS + "/") and "/" not in p[len(v.PE_GCS) + 1 :]
    ]
    lengths = {len(p) - len(v.PE_GCS) - 1 for p in totals}
    assert 1 in lengths and 2 in lengths
    for component, _ in v.PE_GCS_COMPONENTS:
        assert any(p.startswith(component + "/") for p in paths)


def test_labs_drugs_and_diagnoses_cover_their_vocabularies(con: duckdb.DuckDBPyConnection) -> None:
    labs = {r[0] for r in con.execute("SELECT DISTINCT labname FROM eicu_crd.lab").fetchall()}
    assert {spec[0] for spec in v.LABS + v.BLOOD_GAS_LABS} <= labs
    drugs = {
        r[0] for r in con.execute("SELECT DISTINCT drugname FROM eicu_crd.infusiondrug").fetchall()
    }
    assert {spec[0] for spec in v.VASOACTIVE_DRUGS} <= drugs
    dx = {
        r[0]
        for r in con.execute("SELECT DISTINCT apacheadmissiondx FROM eicu_crd.patient").fetchall()
    }
    assert set(v.APACHE_DX_SURGICAL + v.APACHE_DX_MEDICAL) <= dx
    airways = {
        r[0]
        for r in con.execute("SELECT DISTINCT airwaytype FROM eicu_crd.respiratorycare").fetchall()
    }
    assert set(v.AIRWAY_TYPES) <= airways
    ages = {r[0] for r in con.execute("SELECT DISTINCT age FROM eicu_crd.patient").fetchall()}
    assert "> 89" in ages


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"stays": 0}, "--stays must be a positive number"),
        ({"stays": -3}, "--stays must be a positive number"),
        ({"scale": 0.0}, "--scale must be a positive number"),
        ({"scale": -0.5}, "--scale must be a positive number"),
        ({"stays": 10, "scale": 0.1}, "give only one of"),
        ({"seed": -1}, "seed must be a non-negative integer"),
        ({"seed": 1.5}, "seed must be a non-negative integer"),
        ({"seed": True}, "seed must be a non-negative integer"),
        ({"name": "../escape"}, "invalid source name"),
    ],
)
def test_bad_input_is_a_clear_error(
    tmp_path: Path, kwargs: dict[str, object], message: str
) -> None:
    home = DataHome(tmp_path)
    with pytest.raises(M4BenchError, match=re.escape(message)):
        synthesize_eicu(home, progress=False, **kwargs)  # type: ignore[arg-type]
    assert not (tmp_path / "sources" / "synthetic-eicu").exists()


def test_existing_source_is_kept_without_force(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    first = synthesize_eicu(home, "kept", stays=20, seed=1, progress=False)
    before = _hashes(first)
    with pytest.raises(M4BenchError, match="already exists"):
        synthesize_eicu(home, "kept", stays=30, seed=2, progress=False)
    assert _hashes(load_source(home, "kept")) == before
    replaced = synthesize_eicu(home, "kept", stays=30, seed=2, force=True, progress=False)
    assert replaced.manifest.parameters["stays"] == 30
    assert _one(replaced.connect(), "SELECT COUNT(*) FROM eicu_crd.patient") == 30
    assert not list((tmp_path / "sources").glob(".kept*"))


def test_scale_maps_to_real_cardinalities(tmp_path: Path) -> None:
    source = synthesize_eicu(DataHome(tmp_path), scale=0.0002, progress=False)
    assert source.manifest.parameters["stays"] == round(200_859 * 0.0002)


def test_parallel_chunks_write_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("m4bench.sources.synth.eicu.CHUNK_STAYS", 60)
    serial = synthesize_eicu(DataHome(tmp_path / "one"), stays=150, workers=1, progress=False)
    parallel = synthesize_eicu(DataHome(tmp_path / "two"), stays=150, workers=2, progress=False)
    assert _hashes(parallel) == _hashes(serial)
    con = serial.connect()
    assert _one(con, "SELECT COUNT(DISTINCT nursingchartid) = COUNT(*) FROM eicu_crd.nursecharting")
    assert _one(con, "SELECT MIN(nursingchartid) FROM eicu_crd.nursecharting") == 1
    with pytest.raises(M4BenchError, match="--workers must be a positive integer"):
        synthesize_eicu(DataHome(tmp_path / "bad"), stays=10, workers=0, progress=False)


def test_cli_builds_and_refuses_to_overwrite(tmp_path: Path) -> None:
    args = ["data", "synth", "eicu", "--stays", "25", "--seed", "4", "--quiet"]
    home = ["--home", str(tmp_path)]
    runner = CliRunner()
    first = runner.invoke(app, [*args, "--name", "cli-eicu", *home])
    assert first.exit_code == 0, first.output
    source = load_source(DataHome(tmp_path), "cli-eicu")
    assert source.manifest.parameters["stays"] == 25
    again = runner.invoke(app, [*args, "--name", "cli-eicu", *home])
    assert isinstance(again.exception, M4BenchError)
    assert "already exists" in str(again.exception)
    not_a_seed = runner.invoke(app, ["data", "synth", "eicu", "--seed", "1.5", *home])
    assert not_a_seed.exit_code == 2
