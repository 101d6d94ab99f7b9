"""The synthetic eICU tables at real volume: rows per stay, vocabularies, offsets, and
documentation rows that leave the eICU task answers unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from m4bench.home import DataHome
from m4bench.sources.synth import eicu
from m4bench.sources.synth import eicu_bedside_volume as bedside
from m4bench.sources.synth import eicu_nurse_volume as nurse
from m4bench.sources.synth import eicu_records as records
from m4bench.sources.synth import eicu_records_vocab as r
from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.core import stream_rng
from m4bench.sources.synth.eicu_cohort import EicuCohort, draw_cohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates

STAYS = 400
CATALOG = Path(__file__).resolve().parents[2] / "src/m4bench/tasks/catalog"

# eICU-CRD v2.0 rows over its 200,859 unit stays.
REAL_PER_STAY = {
    "nursecharting": 755.0,
    "vitalaperiodic": 125.0,
    "respiratorycharting": 100.0,
    "nurseassessment": 78.0,
    "nursecare": 41.0,
    "physicalexam": 46.0,
    "medication": 36.0,
    "infusiondrug": 24.0,
    "treatment": 18.0,
    "diagnosis": 13.5,
    "careplangeneral": 15.5,
    "note": 11.0,
    "pasthistory": 5.7,
    "admissiondrug": 4.4,
    "careplangoal": 2.5,
    "careplancareprovider": 2.5,
}

# The nursecharting (label, name) pairs the eICU GCS and OASIS tasks select.
TASK_PAIRS = {
    (v.GCS_LABEL, v.GCS_TOTAL),
    (v.GCS_LABEL, v.GCS_MOTOR),
    (v.GCS_LABEL, v.GCS_VERBAL),
    (v.GCS_LABEL, v.GCS_EYES),
    (v.GCS_SCORE_LABEL, v.VALUE),
    ("Heart Rate", "Heart Rate"),
    ("Respiratory Rate", "Respiratory Rate"),
    ("Temperature", "Temperature (C)"),
    ("Invasive BP", "Invasive BP Mean"),
    ("MAP (mmHg)", "Value"),
    ("Arterial Line MAP (mmHg)", "Value"),
    ("Non-Invasive BP", "Non-Invasive BP Mean"),
}
EXAM_GCS = re.compile(re.escape(v.PE_GCS) + "/.{1,2}$")
PRESSOR_WORDS = (
    "norepinephrine", "levophed", "dopamine", "epinephrine", "phenylephrine",
    "neo-synephrine", "vasopressin", "milrinone", "dobutamine",
)  # fmt: skip


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    home = DataHome(tmp_path_factory.mktemp("eicu-volume"))
    return eicu.synthesize_eicu(home, stays=STAYS, seed=3, progress=False).connect()


@pytest.fixture(scope="module")
def cohort() -> EicuCohort:
    return draw_cohort(9, 0, 0, 600, EicuQuirkRates())


def _rng(k: int) -> np.random.Generator:
    return stream_rng(9, 1000 + k, 0)


def _strings(column: object) -> list[str]:
    assert isinstance(column, pa.Array)
    return [s for s in column.to_pylist() if s is not None]


@pytest.mark.parametrize("table", sorted(REAL_PER_STAY))
def test_rows_per_stay_are_near_the_real_ones(con: duckdb.DuckDBPyConnection, table: str) -> None:
    row = con.execute(f"SELECT COUNT(*) FROM eicu_crd.{table}").fetchone()
    assert row is not None
    per_stay = row[0] / STAYS
    assert 0.8 * REAL_PER_STAY[table] <= per_stay <= 1.25 * REAL_PER_STAY[table], per_stay


def test_documentation_rows_carry_no_task_label(cohort: EicuCohort) -> None:
    rows = nurse.nursecharting_volume(cohort, _rng(1))
    pairs = set(
        zip(
            _strings(rows["nursingchartcelltypevallabel"]),
            _strings(rows["nursingchartcelltypevalname"]),
            strict=True,
        )
    )
    assert pairs == set(nurse.EXTRA_PAIRS)
    assert not pairs & TASK_PAIRS
    labels = {label for label, _ in pairs}
    assert v.GCS_LABEL not in labels and v.GCS_SCORE_LABEL not in labels


VOLUME_OFFSETS = (
    (nurse.nursecharting_volume, "nursingchartoffset"),
    (bedside.vitalaperiodic_volume, "observationoffset"),
    (bedside.respiratorycharting_volume, "respchartoffset"),
    (bedside.physicalexam_volume, "physicalexamoffset"),
    (bedside.infusiondrug_volume, "infusionoffset"),
)


@pytest.mark.parametrize(("build", "column"), VOLUME_OFFSETS)
def test_documentation_rows_lie_between_first_charting_and_discharge(
    cohort: EicuCohort, build: eicu.VolumeBuilder, column: str
) -> None:
    rows = build(cohort, _rng(2))
    stay = np.searchsorted(cohort.stay_id, rows["patientunitstayid"])
    offset = np.asarray(rows[column])
    assert offset.size > 10 * cohort.n
    assert (offset >= np.minimum(cohort.chart_start, 0)[stay]).all()
    assert (offset <= cohort.los_minutes[stay]).all()
    if column == "nursingchartoffset":  # a stay's first charting time decides pre-unit charting
        assert (offset >= cohort.chart_start[stay]).all()


def test_exam_and_infusion_rows_match_no_task_pattern(cohort: EicuCohort) -> None:
    exam = bedside.physicalexam_volume(cohort, _rng(3))
    paths = set(_strings(exam["physicalexampath"]))
    assert paths and not any(EXAM_GCS.fullmatch(p) for p in paths)
    assert not any(p.startswith(v.PE_GCS + "/") for p in paths)
    drugs = set(_strings(bedside.infusiondrug_volume(cohort, _rng(4))["drugname"]))
    assert drugs == {d[0] for d in bedside.INFUSION_VOLUME_DRUGS}
    assert not any(word in d.lower() for d in drugs for word in PRESSOR_WORDS)


def _stays_with(columns: dict[str, object], column: str, values: tuple[str, ...]) -> set[int]:
    stays = np.asarray(columns["patientunitstayid"])
    text = columns[column]
    assert isinstance(text, pa.Array)
    hit = np.isin(np.asarray(text.to_pylist(), dtype=object), values)
    return set(stays[hit].tolist())


def test_interventions_only_for_stays_that_have_them(cohort: EicuCohort) -> None:
    ventilated = set(cohort.stay_id[cohort.ventilated].tolist())
    pressed = set(cohort.stay_id[cohort.vasopressor].tolist())
    treatments = records.treatment(cohort, _rng(5))
    vent_stays = _stays_with(treatments, "treatmentstring", r.TREATMENTS_VENTILATED)
    assert vent_stays and vent_stays <= ventilated
    pressor_stays = _stays_with(treatments, "treatmentstring", r.TREATMENTS_VASOPRESSOR)
    assert pressor_stays and pressor_stays <= pressed
    diagnoses = records.diagnosis(cohort, _rng(6))
    shock = tuple(s for s, _ in r.DIAGNOSES_SHOCK)
    assert _stays_with(diagnoses, "diagnosisstring", shock) <= pressed
    plans = records.careplangeneral(cohort, _rng(7))
    intubated = _stays_with(plans, "cplitemvalue", (r.CAREPLAN_AIRWAY_VENTILATED[1],))
    assert intubated and intubated <= ventilated


def _distinct(con: duckdb.DuckDBPyConnection, table: str, column: str) -> set[str]:
    rows = con.execute(f"SELECT DISTINCT {column} FROM eicu_crd.{table}").fetchall()
    return {row[0] for row in rows if row[0] is not None}


def test_strings_come_from_their_vocabularies(con: duckdb.DuckDBPyConnection) -> None:
    treatments = set(r.TREATMENTS_GENERAL + r.TREATMENTS_VENTILATED + r.TREATMENTS_VASOPRESSOR)
    assert _distinct(con, "treatment", "treatmentstring") == treatments
    diagnoses = r.DIAGNOSES_GENERAL + r.DIAGNOSES_VENTILATED + r.DIAGNOSES_SHOCK
    assert _distinct(con, "diagnosis", "diagnosisstring") == {s for s, _ in diagnoses}
    assert _distinct(con, "diagnosis", "icd9code") == {c for _, c in diagnoses if c}
    formulary = {d[0] for d in r.FORMULARY + r.ANTIBIOTICS}
    assert _distinct(con, "medication", "drugname") == formulary
    hicl = con.execute(
        "SELECT DISTINCT drugname, drughiclseqno FROM eicu_crd.medication "
        "WHERE drughiclseqno IS NOT NULL"
    ).fetchall()
    assert {(d[0], d[1]) for d in r.FORMULARY + r.ANTIBIOTICS if d[1]} == set(hicl)
    assert _distinct(con, "nurseassessment", "cellattribute") == {c[2] for c in r.NURSE_ASSESSMENT}
    assert _distinct(con, "nursecare", "celllabel") == {c[1] for c in r.NURSE_CARE}
    paths = _distinct(con, "pasthistory", "pasthistorypath")
    assert all(p.startswith("notes/Progress Notes/Past History/") for p in paths)
    labels = _distinct(con, "respiratorycharting", "respchartvaluelabel")
    assert {label for _, label, *_ in bedside.VENT_ROUND} | {"O2 Device", "LPM O2"} <= labels


def test_assessment_values_belong_to_their_cell(con: duckdb.DuckDBPyConnection) -> None:
    allowed = {(c[2], value) for c in r.NURSE_ASSESSMENT for value in c[3]}
    pairs = con.execute(
        "SELECT DISTINCT cellattribute, cellattributevalue FROM eicu_crd.nurseassessment"
    ).fetchall()
    assert set(pairs) <= allowed


OFFSETS = {
    "medication": "drugorderoffset",
    "treatment": "treatmentoffset",
    "diagnosis": "diagnosisoffset",
    "note": "noteoffset",
    "nurseassessment": "nurseassessoffset",
    "nursecare": "nursecareoffset",
    "careplangeneral": "cplitemoffset",
    "careplangoal": "cplgoaloffset",
    "careplancareprovider": "careprovidersaveoffset",
    "admissiondrug": "drugenteredoffset",
    "pasthistory": "pasthistoryoffset",
}


@pytest.mark.parametrize("table", sorted(OFFSETS))
def test_offsets_lie_inside_the_stay(con: duckdb.DuckDBPyConnection, table: str) -> None:
    column = OFFSETS[table]
    outside = con.execute(
        f"SELECT COUNT(*) FROM eicu_crd.{table} t JOIN eicu_crd.patient p "
        f"USING (patientunitstayid) WHERE t.{column} > p.unitdischargeoffset "
        f"OR t.{column} < -720"
    ).fetchone()
    assert outside == (0,)


def _answers(con: duckdb.DuckDBPyConnection, family: str) -> list[tuple[object, ...]]:
    sql = (CATALOG / family / "reference-eicu.sql").read_text()
    return con.execute(f"SELECT * FROM ({sql}) ORDER BY 1").fetchall()


def test_task_answers_are_the_same_without_the_documentation_rows(
    con: duckdb.DuckDBPyConnection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eicu, "VOLUME", {})
    bare = eicu.synthesize_eicu(DataHome(tmp_path), stays=STAYS, seed=3, progress=False)
    bare_con = bare.connect()
    rows = bare_con.execute("SELECT COUNT(*) FROM eicu_crd.nursecharting").fetchone()
    full = con.execute("SELECT COUNT(*) FROM eicu_crd.nursecharting").fetchone()
    assert rows is not None and full is not None and rows[0] < full[0]
    for family in ("gcs", "oasis"):
        assert _answers(bare_con, family) == _answers(con, family)
