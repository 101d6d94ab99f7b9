"""``m4bench data profile``: counts equal direct SQL, detectors measure what is there."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from m4bench.cli.data import app
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources.layout import (
    Source,
    SourceLayout,
    SourceManifest,
    load_source,
    record_table,
    write_catalog,
    write_parquet,
)
from m4bench.sources.profile import SourceProfile, configured_rates, profile_source
from m4bench.sources.schema import MIMIC_IV, create_empty_tables
from m4bench.sources.synth.eicu import synthesize_eicu
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.validity import audit

runner = CliRunner()


@pytest.fixture(scope="module")
def eicu(tmp_path_factory: pytest.TempPathFactory) -> Source:
    home = DataHome(tmp_path_factory.mktemp("profile-eicu"))
    quirks = EicuQuirkRates(age_over_89=0.2, gcs_score_family=0.5)
    return synthesize_eicu(home, "small-eicu", stays=150, seed=3, quirks=quirks, progress=False)


@pytest.fixture(scope="module")
def eicu_profile(eicu: Source) -> SourceProfile:
    return profile_source(eicu)


def _fetch(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[object, ...]]:
    return con.execute(sql).fetchall()


def test_table_rows_equal_direct_counts(eicu: Source, eicu_profile: SourceProfile) -> None:
    con = eicu.connect()
    assert len(eicu_profile.tables) == 31
    for count in eicu_profile.tables:
        assert count.rows == _fetch(con, f"SELECT COUNT(*) FROM {count.table}")[0][0]
        assert count.rows == eicu.manifest.tables[count.table].rows


def test_nursecharting_items_equal_direct_sql(eicu: Source, eicu_profile: SourceProfile) -> None:
    con = eicu.connect()
    group = next(g for g in eicu_profile.items if g.table == "eicu_crd.nursecharting")
    heart = next(i for i in group.items if i.key == "Vital Signs | Heart Rate | Heart Rate")
    values = [
        r[0]
        for r in _fetch(
            con,
            "SELECT nursingchartvalue FROM eicu_crd.nursecharting WHERE "
            "nursingchartcelltypevallabel = 'Heart Rate'",
        )
    ]
    numbers = []
    for text in values:
        try:
            numbers.append(float(str(text)))
        except ValueError:
            continue
    assert heart.rows == len(values)
    assert heart.numeric_rows == len(numbers) < len(values)
    assert (heart.min, heart.max) == (min(numbers), max(numbers))
    assert sum(i.rows for i in group.items) == eicu_profile_rows(eicu_profile, "nursecharting")


def eicu_profile_rows(profile: SourceProfile, table: str) -> int:
    return next(t.rows for t in profile.tables if t.table == f"eicu_crd.{table}")


def test_lab_items_equal_direct_sql(eicu: Source, eicu_profile: SourceProfile) -> None:
    con = eicu.connect()
    group = next(g for g in eicu_profile.items if g.table == "eicu_crd.lab")
    creatinine = next(i for i in group.items if i.key == "creatinine")
    rows = [
        r[0] for r in _fetch(con, "SELECT labresult FROM eicu_crd.lab WHERE labname = 'creatinine'")
    ]
    present = [float(x) for x in rows if x is not None]  # type: ignore[arg-type]
    assert (creatinine.rows, creatinine.numeric_rows) == (len(rows), len(present))
    assert (creatinine.min, creatinine.max) == (min(present), max(present))


def test_quirk_counts_equal_counts_made_in_python(
    eicu: Source, eicu_profile: SourceProfile
) -> None:
    con = eicu.connect()
    ages = [r[0] for r in _fetch(con, "SELECT age FROM eicu_crd.patient")]
    over = eicu_profile.quirk("age_over_89")
    assert (over.numerator, over.denominator) == (ages.count("> 89"), len(ages))
    assert over.configured == pytest.approx(0.2)
    rows = _fetch(
        con,
        "SELECT patientunitstayid, nursingchartcelltypevallabel, nursingchartcelltypevalname "
        "FROM eicu_crd.nursecharting",
    )
    gcs_names = {"GCS Total", "Motor", "Verbal", "Eyes"}
    with_gcs: set[object] = set()
    with_score: set[object] = set()
    for stay, label, name in rows:
        if label == "Glasgow coma score" and name in gcs_names:
            with_gcs.add(stay)
        if label == "Score (Glasgow Coma Scale)" and name == "Value":
            with_gcs.add(stay)
            with_score.add(stay)
    family = eicu_profile.quirk("gcs_score_family")
    assert (family.numerator, family.denominator) == (len(with_score), len(with_gcs))
    assert family.rate == pytest.approx(len(with_score) / len(with_gcs))


def test_configured_rates_are_read_from_either_form() -> None:
    assert configured_rates({"quirks": json.dumps({"a": 0.1, "b": "x"})}) == {"a": 0.1}
    assert configured_rates({"quirk.c": 0.5, "seed": 3}) == {"c": 0.5}
    assert configured_rates({"quirks": "not json"}) == {}


# --- MIMIC-IV detectors on hand-made rows -------------------------------------------------

T0 = "2150-01-01 10:00:00"
MIMIC_ROWS: dict[str, list[Mapping[str, object]]] = {
    "mimiciv_icu.chartevents": [
        # temperature: one °F row holding Celsius, one normal; one °C row holding Fahrenheit
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223761, "valuenum": 37.1},
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223761, "valuenum": 98.2},
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223762, "valuenum": 99.0},
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223762, "valuenum": 36.9},
        # FiO2: percent, fraction, flow typo
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223835, "valuenum": 40.0},
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223835, "valuenum": 0.5},
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223835, "valuenum": 4.0},
        # GCS: one complete charttime, one partial
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 220739, "valuenum": 4.0},
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223900, "valuenum": 5.0},
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223901, "valuenum": 6.0},
        {
            "subject_id": 1,
            "stay_id": 30,
            "charttime": "2150-01-01 11:07:00",
            "itemid": 223901,
            "valuenum": 5.0,
        },
        # devices: one with an O2 flow at the same time, one without
        {
            "subject_id": 1,
            "stay_id": 30,
            "charttime": T0,
            "itemid": 226732,
            "value": "Nasal cannula",
        },
        {"subject_id": 1, "stay_id": 30, "charttime": T0, "itemid": 223834, "valuenum": 2.0},
        {
            "subject_id": 1,
            "stay_id": 30,
            "charttime": "2150-01-01 12:00:00",
            "itemid": 226732,
            "value": "Face tent",
        },
    ],
    "mimiciv_hosp.admissions": [
        {
            "subject_id": 1,
            "hadm_id": 20,
            "admittime": "2150-01-01 12:00:00",
            "dischtime": "2150-01-05 12:00:00",
            "deathtime": "2150-01-05 08:00:00",
            "admission_type": "EW EMER.",
        },
        {
            "subject_id": 2,
            "hadm_id": 21,
            "admittime": "2150-01-01 08:00:00",
            "dischtime": "2150-01-03 08:00:00",
            "deathtime": "2150-01-03 08:00:00",
            "admission_type": "ELECTIVE",
        },
        {  # the organ-donor admission opened after subject 2 died
            "subject_id": 2,
            "hadm_id": 22,
            "admittime": "2150-01-03 10:00:00",
            "dischtime": "2150-01-03 08:00:00",
            "deathtime": "2150-01-03 08:00:00",
            "admission_type": "SURGICAL SAME DAY ADMISSION",
        },
    ],
    "mimiciv_icu.icustays": [
        {"subject_id": 1, "hadm_id": 20, "stay_id": 30, "intime": T0},
        {"subject_id": 2, "hadm_id": 21, "stay_id": 31, "intime": "2150-01-01 09:00:00"},
    ],
    "mimiciv_icu.inputevents": [
        # norepinephrine: a second order starts while the first runs; epinephrine alone
        {
            "subject_id": 1,
            "hadm_id": 20,
            "stay_id": 30,
            "itemid": 221906,
            "linkorderid": 1,
            "orderid": 1,
            "starttime": T0,
            "endtime": "2150-01-01 14:00:00",
            "rate": 0.1,
            "rateuom": "mcg/kg/min",
        },
        {
            "subject_id": 1,
            "hadm_id": 20,
            "stay_id": 30,
            "itemid": 221906,
            "linkorderid": 2,
            "orderid": 2,
            "starttime": "2150-01-01 11:00:00",
            "endtime": "2150-01-01 12:00:00",
            "rate": 0.05,
            "rateuom": "mcg/kg/min",
        },
        {
            "subject_id": 1,
            "hadm_id": 20,
            "stay_id": 30,
            "itemid": 221289,
            "linkorderid": 3,
            "orderid": 3,
            "starttime": T0,
            "endtime": "2150-01-01 11:00:00",
            "rate": 0.02,
            "rateuom": "mg/kg/min",
        },
    ],
    "mimiciv_hosp.prescriptions": [
        {"subject_id": 1, "hadm_id": 20, "pharmacy_id": 1, "drug": "Vancomycin", "route": None},
        {"subject_id": 1, "hadm_id": 20, "pharmacy_id": 2, "drug": "CefTRIAXone", "route": "IV"},
        {"subject_id": 1, "hadm_id": 20, "pharmacy_id": 3, "drug": "Acetaminophen", "route": None},
    ],
    "mimiciv_hosp.microbiologyevents": [
        {
            "microevent_id": 1,
            "subject_id": 1,
            "micro_specimen_id": 7,
            "chartdate": "2150-01-02",
            "charttime": None,
            "spec_type_desc": "BLOOD CULTURE",
        },
        {
            "microevent_id": 2,
            "subject_id": 1,
            "micro_specimen_id": 8,
            "chartdate": "2150-01-02",
            "charttime": "2150-01-02 10:00:00",
            "spec_type_desc": "URINE",
        },
        {
            "microevent_id": 3,
            "subject_id": 1,
            "micro_specimen_id": 8,
            "chartdate": "2150-01-02",
            "charttime": "2150-01-02 10:00:00",
            "spec_type_desc": "URINE",
        },
    ],
}


def _hand_made_source(
    home: DataHome, tables: Mapping[str, Sequence[Mapping[str, object]]]
) -> Source:
    layout = SourceLayout(home.source_dir("hand"))
    manifest = SourceManifest(
        name="hand", dataset="mimic-iv", dataset_version="3.1", kind="ingested", public=True
    )
    con = duckdb.connect()
    create_empty_tables(con, MIMIC_IV, tables)
    for qualified, rows in tables.items():
        for row in rows:
            names = ", ".join(f'"{k}"' for k in row)
            marks = ", ".join("?" for _ in row)
            con.execute(f"INSERT INTO {qualified} ({names}) VALUES ({marks})", list(row.values()))
        schema_name, table = qualified.split(".")
        count = write_parquet(
            con, f"SELECT * FROM {qualified}", layout.table_path(schema_name, table)
        )
        record_table(layout, manifest, qualified, count)
    write_catalog(layout, manifest)
    return load_source(home, "hand")


def test_mimic_detectors_measure_hand_made_quirks(tmp_path: Path) -> None:
    profile = profile_source(_hand_made_source(DataHome(tmp_path), MIMIC_ROWS))
    expected = {
        "temperature_unit_swap": (2, 4),
        "gcs_partial": (1, 2),
        "device_without_flow": (1, 2),
        "icu_before_admission": (1, 2),
        "deathtime_typo": (1, 3),
        "organ_donor_admission": (1, 2),
        "micro_date_only": (1, 2),
        "off_hour_time": (1, 14),
        "chart_duplicate": (4, 10),
        "vasopressor_overlap": (1, 3),
        "null_route_antibiotic": (1, 2),
        "vasopressor_unit_variant": (1, 3),
    }
    for name, counts in expected.items():
        stat = profile.quirk(name)
        assert (stat.numerator, stat.denominator) == counts, name
    # FiO2 reads lab 50816 too, which this source lacks
    assert profile.quirk("fio2_fraction").skipped == "needs mimiciv_hosp.labevents"
    chart = next(g for g in profile.items if g.table == "mimiciv_icu.chartevents")
    fio2 = next(i for i in chart.items if i.key == "223835")
    assert (fio2.rows, fio2.min, fio2.max) == (3, 0.5, 40.0)
    assert fio2.label is None  # no d_items table in this source


def test_foreign_types_are_reported_not_fatal(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    layout = SourceLayout(home.source_dir("odd"))
    manifest = SourceManifest(
        name="odd", dataset="mimic-iv", dataset_version="3.1", kind="attached-m4", public=False
    )
    con = duckdb.connect()
    # deathtime holds text that is no timestamp; valuenum holds text too
    con.execute("CREATE TABLE a AS SELECT TIMESTAMP '2150-01-01' AS dischtime, 'x' AS deathtime")
    con.execute("CREATE TABLE c AS SELECT 220045 AS itemid, 'fast' AS valuenum, 1 AS stay_id")
    for qualified, source_table in (
        ("mimiciv_hosp.admissions", "a"),
        ("mimiciv_icu.chartevents", "c"),
    ):
        schema_name, table = qualified.split(".")
        path = layout.table_path(schema_name, table)
        count = write_parquet(con, f"SELECT * FROM {source_table}", path)
        record_table(layout, manifest, qualified, count)
    write_catalog(layout, manifest)
    profile = profile_source(load_source(home, "odd"))
    death = profile.quirk("deathtime_typo")
    assert death.rate is None and (death.skipped or "").startswith("query failed")
    assert profile.quirk("temperature_unit_swap").skipped is not None
    assert [t.rows for t in profile.tables] == [1, 1]
    chart = next(g for g in profile.items if g.table == "mimiciv_icu.chartevents")
    assert [(i.key, i.rows, i.numeric_rows, i.min) for i in chart.items] == [("220045", 1, 0, None)]


def test_cli_prints_and_writes_json(
    eicu: Source, eicu_profile: SourceProfile, tmp_path: Path
) -> None:
    target = tmp_path / "out" / "profile.json"
    home = str(eicu.layout.root.parent.parent)
    result = runner.invoke(
        app,
        ["profile", "small-eicu", "--json", str(target), "--no-bins", "--home", home],
        terminal_width=200,
    )
    assert result.exit_code == 0, result.output
    assert "age_over_89" in result.output and "eicu_crd.nursecharting" in result.output
    written = SourceProfile.model_validate_json(target.read_text())
    assert written == eicu_profile and written.bins == []


def test_cli_counts_the_stays_reaching_each_scoring_bin(eicu: Source, tmp_path: Path) -> None:
    """Every bin of the dataset, with the rows the audit counts and, on a synthetic source,
    the engineered states placed for it."""
    target = tmp_path / "profile.json"
    home = eicu.layout.root.parent.parent
    result = runner.invoke(
        app, ["profile", "small-eicu", "--json", str(target), "--home", str(home)],
        terminal_width=250,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    bins = SourceProfile.model_validate_json(target.read_text()).bins
    report = audit(eicu, home=DataHome(home))
    assert [(b.family, b.name, b.rows) for b in bins] == [
        (b.family, b.name, b.rows) for b in report.coverage
    ]
    served = {f"oasis/{b.name}": b.engineered for b in bins if b.engineered}
    assert served["oasis/eicu-urineoutput-8"] == ["eicu-massive-diuresis"]
    assert all(b.rows for b in bins if b.engineered)
    reached = sum(1 for b in bins if b.rows)
    assert f"scoring bins: {reached} of {len(bins)} reached" in result.output
    assert "eicu-massive-diuresis" in result.output


def test_cli_unknown_source_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["profile", "nope", "--home", str(tmp_path)])
    assert isinstance(result.exception, M4BenchError)
    assert "no source named 'nope'" in str(result.exception)


def test_info_shows_each_configured_quirk_rate_on_its_own_line(eicu: Source) -> None:
    home = str(eicu.layout.root.parent.parent)
    result = runner.invoke(app, ["info", "small-eicu", "--home", home], terminal_width=200)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  quirks:" in lines and "    age_over_89 = 0.2" in lines
    assert "    gcs_score_family = 0.5" in lines and not any("{" in line for line in lines)
    patient = next(line for line in lines if "eicu_crd.patient " in line)
    assert " kB " in patient  # a small table's size is not rounded to 0.0 MB
