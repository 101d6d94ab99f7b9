"""Every task's reference on the default synthetic MIMIC-IV and eICU sources: contracted
columns and types, one row per key, the cohort the source implies, and scored columns that
vary."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pyarrow as pa
import pytest
from synthetic_sources import SyntheticSources

from m4bench.tasks.catalog import Catalog, load_catalog
from m4bench.tasks.reference import run_reference

pytestmark = pytest.mark.slow

_SHIPPED = load_catalog(extra_roots=())
TASKS = [task.name for task in _SHIPPED.tasks if task.card.dataset == "mimic-iv"]
EICU_TASKS = [task.name for task in _SHIPPED.tasks if task.card.dataset == "eicu"]

# Output types promised by the families' contracts (docs/tasks.md, the instructions).
TYPES: dict[str, pa.DataType] = {
    "subject_id": pa.int32(),
    "hadm_id": pa.int32(),
    "stay_id": pa.int32(),
    "gcs_min": pa.float64(),
    "gcs_motor": pa.float64(),
    "gcs_verbal": pa.float64(),
    "gcs_eyes": pa.float64(),
    "meld": pa.float64(),
    "gender": pa.string(),
    "age": pa.float64(),
    "scr_min": pa.float64(),
    "mdrd_est": pa.float64(),
    "scr_baseline": pa.float64(),
    "charttime": pa.timestamp("us"),
    "starttime": pa.timestamp("us"),
    "endtime": pa.timestamp("us"),
    "weight": pa.float64(),
    "uo": pa.float64(),
    "urineoutput_6hr": pa.float64(),
    "urineoutput_12hr": pa.float64(),
    "urineoutput_24hr": pa.float64(),
    "uo_mlkghr_6hr": pa.decimal128(18, 3),
    "uo_mlkghr_12hr": pa.decimal128(18, 3),
    "uo_mlkghr_24hr": pa.decimal128(18, 3),
    "uo_tm_6hr": pa.decimal128(18, 2),
    "uo_tm_12hr": pa.decimal128(18, 2),
    "uo_tm_24hr": pa.decimal128(18, 2),
    "norepinephrine_equivalent_dose": pa.decimal128(18, 3),
    "antibiotic": pa.string(),
    "specimen": pa.string(),
    "antibiotic_time": pa.timestamp("us"),
    "suspected_infection_time": pa.timestamp("us"),
    "culture_time": pa.timestamp("us"),
    "sofa_time": pa.timestamp("us"),
    "ventilation_status": pa.string(),
    "uniquepid": pa.string(),
}
DEFAULT_TYPE = pa.int32()  # every score, flag and stage

# Point-scoring components: non-zero in >= 5 % of rows and not all at their maximum.
COMPONENTS: dict[str, tuple[list[str], int]] = {
    "sofa": (["respiration", "coagulation", "liver", "cardiovascular", "cns", "renal"], 4),
    "sirs": (["temp_score", "heart_rate_score", "resp_score", "wbc_score"], 1),
    "kdigo": (["aki_stage_creat", "aki_stage_uo", "aki_stage_crrt"], 3),
    "charlson": (["age_score"], 4),
    "oasis": (["preiculos_score", "age_score", "gcs_score", "mechvent_score"], 10),
    "sapsii": (["age_score", "admissiontype_score", "gcs_score"], 26),
}

# Scored columns allowed a single value on the small default sources, and why.
SINGLE_VALUED: dict[str, dict[str, str]] = {
    "sepsis3": {"sepsis3": "1 on every row by contract (stays without a match are absent)"},
    "apsiii": {"hematocrit_score": "every synthetic stay has a hematocrit far below 45.5 (3)"},
    "sapsii": {"temp_score": "a temperature of 39 C or more is rare in 200 synthetic stays"},
}

COHORT_SQL = {
    "stay": "SELECT COUNT(*) FROM mimiciv_icu.icustays",
    "admission": "SELECT COUNT(*) FROM mimiciv_hosp.admissions",
    "adult-admission": "SELECT COUNT(*) FROM mimiciv_derived.age WHERE age >= 18",
    "urine": """
        SELECT COUNT(*) FROM mimiciv_derived.urine_output AS u
        WHERE EXISTS (
            SELECT 1 FROM mimiciv_icu.chartevents AS ce
            JOIN mimiciv_icu.icustays AS ie ON ie.stay_id = ce.stay_id
            WHERE ce.stay_id = u.stay_id AND ce.itemid = 220045
              AND ce.charttime > ie.intime - INTERVAL 1 MONTH
              AND ce.charttime < ie.outtime + INTERVAL 1 MONTH)""",
    "antibiotic": "SELECT COUNT(*) FROM mimiciv_derived.antibiotic",
    "episode": "SELECT COUNT(*) FROM mimiciv_derived.ventilation",
    "sepsis": "SELECT COUNT(*) FROM mimiciv_derived.sepsis3",
    "interval": """
        SELECT COUNT(*) FROM (
            SELECT DISTINCT stay_id, starttime FROM mimiciv_derived.vasoactive_agent
            WHERE COALESCE(norepinephrine, epinephrine, phenylephrine, dopamine, vasopressin)
                  IS NOT NULL)""",
}
COHORT = {
    "charlson": "admission",
    "creatinine-baseline": "adult-admission",
    "urine-output-rate": "urine",
    "vasopressor-equivalents": "interval",
    "suspicion-infection": "antibiotic",
    "ventilation": "episode",
    "sepsis3": "sepsis",
}


@pytest.fixture(scope="module")
def synthetic(
    synthetic_sources: SyntheticSources, catalog: Catalog
) -> Iterator[tuple[Catalog, duckdb.DuckDBPyConnection]]:
    """The shared 200-stay MIMIC-IV source (seed 7) with every concept built."""
    source = synthetic_sources.source("mimic-iv", 200, 7, concepts=True)
    con = source.connect(read_only=True)
    yield catalog, con
    con.close()


@pytest.fixture(scope="module")
def synthetic_eicu(
    synthetic_sources: SyntheticSources, catalog: Catalog
) -> Iterator[tuple[Catalog, duckdb.DuckDBPyConnection]]:
    source = synthetic_sources.source("eicu", 300, 7)
    con = source.connect(read_only=True)
    yield catalog, con
    con.close()


@pytest.mark.parametrize("name", TASKS)
def test_reference_on_the_synthetic_source(synthetic, name: str) -> None:
    family = synthetic[0].task(name).family
    check_reference(*synthetic, name, COHORT_SQL[COHORT.get(family, "stay")])


@pytest.mark.parametrize("name", EICU_TASKS)
def test_eicu_reference_on_the_synthetic_source(synthetic_eicu, name: str) -> None:
    check_reference(*synthetic_eicu, name, "SELECT COUNT(*) FROM eicu_crd.patient")


def check_reference(
    catalog: Catalog, con: duckdb.DuckDBPyConnection, name: str, cohort_sql: str
) -> None:
    task = catalog.task(name)
    spec = task.card.evaluation
    table = run_reference(task, con)

    assert table.column_names == spec.required_columns
    for field in table.schema:
        assert field.type == TYPES.get(field.name, DEFAULT_TYPE), field.name

    keys = list(zip(*(table.column(k).to_pylist() for k in spec.key_columns), strict=True))
    assert len(set(keys)) == len(keys), "duplicate keys"
    assert all(None not in key for key in keys)
    expected = con.execute(cohort_sql).fetchone()
    assert expected is not None and table.num_rows == expected[0] > 0

    single = SINGLE_VALUED.get(task.family, {})
    for column in spec.scored_columns:
        distinct = set(table.column(column).to_pylist()) - {None}
        assert len(distinct) >= (1 if column in single else 2), f"{column} is degenerate"

    components, maximum = COMPONENTS.get(task.family, ([], 0))
    for column in components:
        values = table.column(column).to_pylist()
        assert sum(1 for v in values if v) >= 0.05 * len(values), f"{column} rarely scores"
        assert not all(v == maximum for v in values), f"{column} always at {maximum}"


def test_gcs_minimum_agrees_with_the_first_day_concept(synthetic) -> None:
    """Two routes to the lowest first-day GCS: the task's tie-broken pick and the concept."""
    catalog, con = synthetic
    table = run_reference(catalog.task("mimic-gcs-24h-raw"), con)
    ours = dict(
        zip(table.column("stay_id").to_pylist(), table.column("gcs_min").to_pylist(), strict=True)
    )
    rows = con.execute(
        "SELECT stay_id, COALESCE(gcs_min, 15) FROM mimiciv_derived.first_day_gcs"
    ).fetchall()
    assert ours == {stay_id: float(value) for stay_id, value in rows}
    assert len(set(ours.values())) > 2


CROSS_CHECKS = {  # task: (key, concept table, columns compared)
    "mimic-meld-24h": ("stay_id", "meld", ["meld"]),
    "mimic-creatinine-baseline": (
        "hadm_id",
        "creatinine_baseline",
        ["scr_min", "ckd", "mdrd_est", "scr_baseline"],
    ),
    "mimic-charlson-raw": ("hadm_id", "charlson", ["age_score", "charlson_comorbidity_index"]),
    "mimic-sirs-24h-raw": ("stay_id", "sirs", ["sirs", "temp_score", "wbc_score"]),
    "mimic-oasis-24h": (
        "stay_id",
        "oasis",
        [
            "oasis",
            "preiculos_score",
            "age_score",
            "gcs_score",
            "heart_rate_score",
            "mbp_score",
            "resp_rate_score",
            "temp_score",
            "urineoutput_score",
            "mechvent_score",
            "electivesurgery_score",
        ],
    ),
    "mimic-sapsii-24h": (
        "stay_id",
        "sapsii",
        [
            "sapsii",
            "age_score",
            "hr_score",
            "sysbp_score",
            "temp_score",
            "pao2fio2_score",
            "uo_score",
            "bun_score",
            "wbc_score",
            "potassium_score",
            "sodium_score",
            "bicarbonate_score",
            "bilirubin_score",
            "gcs_score",
            "comorbidity_score",
            "admissiontype_score",
        ],
    ),
    # the concept reads gases over the whole stay, the task over the first day only
    "mimic-apsiii-24h": (
        "stay_id",
        "apsiii",
        [
            "hr_score",
            "mbp_score",
            "temp_score",
            "resp_rate_score",
            "hematocrit_score",
            "wbc_score",
            "creatinine_score",
            "uo_score",
            "bun_score",
            "sodium_score",
            "albumin_score",
            "bilirubin_score",
            "glucose_score",
            "gcs_score",
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(CROSS_CHECKS))
def test_reference_agrees_with_the_library_concept(synthetic, name: str) -> None:
    """The concept library builds the same score independently; missing counts as 0."""
    catalog, con = synthetic
    key, concept, columns = CROSS_CHECKS[name]
    table = run_reference(catalog.task(name), con)
    ours = {row[key]: tuple(row[c] for c in columns) for row in table.to_pylist()}
    nullable = {"scr_min", "scr_baseline"}  # empty by contract when no creatinine exists
    picked = ", ".join(c if c in nullable else f"COALESCE({c}, 0)" for c in columns)
    rows = con.execute(f"SELECT {key}, {picked} FROM mimiciv_derived.{concept}").fetchall()
    theirs = {row[0]: tuple(row[1:]) for row in rows}
    assert set(ours) == set(theirs)
    differ = [
        k
        for k in ours
        if any(
            (a is None) != (b is None) or (a is not None and abs(float(a) - float(b)) > 1e-9)
            for a, b in zip(ours[k], theirs[k], strict=True)
        )
    ]
    assert differ == [], [(k, ours[k], theirs[k]) for k in differ[:5]]


@pytest.mark.parametrize(
    ("name", "concept", "columns"),
    [
        ("mimic-ventilation", "ventilation", "stay_id, starttime, endtime, ventilation_status"),
        (
            "mimic-sepsis3-raw",
            "sepsis3",
            "stay_id, antibiotic_time, culture_time, suspected_infection_time, sofa_time, "
            "sofa_score, respiration, coagulation, liver, cardiovascular, cns, renal",
        ),
    ],
)
def test_episode_and_onset_rows_agree_with_the_library(
    synthetic, name: str, concept: str, columns: str
) -> None:
    """The task references rebuild the library's episodes and Sepsis-3 onsets row for row."""
    catalog, con = synthetic
    table = run_reference(catalog.task(name), con)
    assert table.num_rows > 5
    con.register("task_rows", table)
    ours = set(con.execute(f"SELECT {columns} FROM task_rows").fetchall())
    theirs = set(con.execute(f"SELECT {columns} FROM mimiciv_derived.{concept}").fetchall())
    assert ours == theirs


def test_date_only_cultures_are_the_only_disagreement_with_the_concept(synthetic) -> None:
    """The task picks a date-only culture before a timed one of the same date; the concept
    Sepsis-3 reads does the opposite. Every other antibiotic row agrees."""
    catalog, con = synthetic
    table = run_reference(catalog.task("mimic-suspicion-infection"), con)
    con.register("task_rows", table)
    rows = con.execute(
        """
        SELECT
            t.culture_time = DATE_TRUNC('DAY', t.culture_time),
            t.culture_time IS NOT DISTINCT FROM c.culture_time
        FROM task_rows AS t
        JOIN mimiciv_derived.suspicion_of_infection AS c USING (subject_id, ab_id)
        """
    ).fetchall()
    assert len(rows) == table.num_rows
    differing = [midnight for midnight, same in rows if not same]
    assert all(differing) and len(differing) < len(rows) // 2
