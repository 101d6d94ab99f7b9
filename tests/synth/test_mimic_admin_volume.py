"""transfers, diagnoses_icd, procedures_icd and omr at the real rows per admission.

Also: the filler diagnoses fall in no code set any concept or task reads (checked by
running the diagnosis parts of the concept and task SQL itself), every code is in its
dictionary, seq_num runs 1..n, transfers are contiguous and agree with icustays, and the
outpatient measurements are plausible and stable per patient.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import duckdb
import pytest
import sqlglot
from sqlglot import exp
from synth_helpers import one, rows_per

import m4bench
from m4bench.sources.synth.mimic_code_filler import (
    AIRWAY,
    FILLER_GROUP,
    VENTILATION_CODES,
    filler_diagnosis_codes,
)
from m4bench.sources.synth.mimic_vocab import CAREUNITS, icd_codes

H = "mimiciv_hosp"
PACKAGE = Path(m4bench.__file__).parent
KEY_COLUMNS = {"subject_id", "hadm_id", "seq_num", "icd_version"}


@pytest.mark.parametrize(
    ("table", "low", "high"),
    [
        ("diagnoses_icd", 10.5, 13.0),  # real 11.66
        ("procedures_icd", 1.3, 1.85),  # real 1.57
        ("transfers", 4.0, 4.85),  # real 4.42
        ("omr", 12.0, 16.5),  # real 14.2
    ],
)
def test_rows_per_admission_near_the_real_rates(
    con: duckdb.DuckDBPyConnection, table: str, low: float, high: float
) -> None:
    assert low <= rows_per(con, f"{H}.{table}", f"{H}.admissions") <= high


def test_icu_admissions_carry_more_codes(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        f"""SELECT a.hadm_id IN (SELECT hadm_id FROM mimiciv_icu.icustays) AS icu,
            COUNT(d.hadm_id) / COUNT(DISTINCT a.hadm_id)
        FROM {H}.admissions a LEFT JOIN {H}.diagnoses_icd d USING (hadm_id) GROUP BY 1"""
    ).fetchall()
    per = dict(rows)
    assert per[True] > per[False] + 4
    assert one(con, f"SELECT MAX(seq_num) FROM {H}.diagnoses_icd") <= 39  # type: ignore[operator]


# --- the filler codes against every code set the concepts and tasks read ------------------


def _diagnosis_sql_files() -> list[Path]:
    files = sorted((PACKAGE / "concepts" / "sql").rglob("*.sql"))
    files += sorted((PACKAGE / "tasks" / "catalog").glob("*/reference.sql"))
    return [f for f in files if "diagnoses_icd" in f.read_text("utf-8")]


def _diagnosis_ctes(path: Path) -> list[tuple[str, str]]:
    """(name, query) of each CTE computed from diagnoses_icd alone, with what it needs."""
    tree = sqlglot.parse_one(path.read_text("utf-8"), read="duckdb")
    ctes = list(tree.find_all(exp.CTE))
    local: dict[str, exp.CTE] = {}
    usable: list[tuple[str, str]] = []
    for cte in ctes:
        tables = {t.name if not t.db else f"{t.db}.{t.name}" for t in cte.this.find_all(exp.Table)}
        if tables and tables <= {f"{H}.diagnoses_icd", *local}:
            local[cte.alias] = cte
            needed = [c for c in local.values()]
            with_sql = ", ".join(f"{c.alias} AS ({c.this.sql('duckdb')})" for c in needed)
            usable.append((cte.alias, f"WITH {with_sql} SELECT * FROM {cte.alias}"))
    return usable


def _flags_raised(codes: list[tuple[int, str]]) -> dict[str, set[tuple[int, str]]]:
    """For every diagnosis CTE of every concept/task file: the codes that set one of its flags."""
    con = duckdb.connect()
    con.execute(f"CREATE SCHEMA {H}")
    con.execute(
        f"""CREATE TABLE {H}.diagnoses_icd (subject_id BIGINT, hadm_id BIGINT, seq_num BIGINT,
        icd_code VARCHAR, icd_version BIGINT)"""
    )
    con.executemany(
        f"INSERT INTO {H}.diagnoses_icd VALUES (?, ?, 1, ?, ?)",
        [(i, i, code, version) for i, (version, code) in enumerate(codes)],
    )
    raised: dict[str, set[tuple[int, str]]] = {}
    for path in _diagnosis_sql_files():
        for name, query in _diagnosis_ctes(path):
            result = con.execute(query)
            columns = [d[0] for d in result.description]
            for row in result.fetchall():
                record = dict(zip(columns, row, strict=True))
                hits = [
                    k
                    for k, v in record.items()
                    if k not in KEY_COLUMNS and isinstance(v, int) and v != 0
                ]
                for flag in hits:
                    raised.setdefault(f"{path.parent.name}/{path.name}:{name}.{flag}", set()).add(
                        codes[record["hadm_id"]]
                    )
    return raised


def test_the_harness_reads_every_diagnosis_rule() -> None:
    """The condition codes of the generator set flags in every file that reads diagnoses."""
    condition_codes = [
        (version, code)
        for group, version, code, _ in icd_codes()["diagnoses"]
        if group != FILLER_GROUP
    ]
    raised = _flags_raised(condition_codes)
    files = {key.split(":")[0] for key in raised}
    expected = {f"{p.parent.name}/{p.name}" for p in _diagnosis_sql_files()}
    assert len(expected) >= 6 and files == expected
    charlson_flags = {k for k in raised if k.startswith("comorbidity/charlson.sql:")}
    assert len(charlson_flags) == 17  # every Charlson category is exercised


def test_no_filler_code_falls_in_a_concept_code_set() -> None:
    filler = [(v, code) for v, codes in filler_diagnosis_codes().items() for code in sorted(codes)]
    assert len(filler) >= 80
    assert _flags_raised(filler) == {}


# --- dictionaries, seq_num --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "dictionary"),
    [("diagnoses_icd", "d_icd_diagnoses"), ("procedures_icd", "d_icd_procedures")],
)
def test_every_code_is_in_its_dictionary(
    con: duckdb.DuckDBPyConnection, table: str, dictionary: str
) -> None:
    missing = one(
        con,
        f"""SELECT COUNT(*) FROM {H}.{table} t LEFT JOIN {H}.{dictionary} d
        USING (icd_code, icd_version) WHERE d.long_title IS NULL""",
    )
    assert missing == 0
    assert one(con, f"SELECT COUNT(DISTINCT icd_code) FROM {H}.{table}") > 30  # type: ignore[operator]


@pytest.mark.parametrize("table", ["diagnoses_icd", "procedures_icd"])
def test_seq_num_runs_from_one_without_gaps(con: duckdb.DuckDBPyConnection, table: str) -> None:
    broken = one(
        con,
        f"""SELECT COUNT(*) FROM (SELECT hadm_id, MIN(seq_num) lo, MAX(seq_num) hi,
        COUNT(*) n, COUNT(DISTINCT seq_num) d FROM {H}.{table} GROUP BY hadm_id)
        WHERE lo <> 1 OR hi <> n OR d <> n""",
    )
    assert broken == 0


def test_an_admission_lists_a_diagnosis_once(con: duckdb.DuckDBPyConnection) -> None:
    repeats = one(
        con,
        f"""SELECT COUNT(*) - COUNT(DISTINCT (hadm_id, icd_version, icd_code))
        FROM {H}.diagnoses_icd""",
    )
    assert repeats == 0


def test_procedures_fall_inside_their_admission(con: duckdb.DuckDBPyConnection) -> None:
    outside = one(
        con,
        f"""SELECT COUNT(*) FROM {H}.procedures_icd p JOIN {H}.admissions a USING (hadm_id)
        WHERE a.dischtime > a.admittime AND (p.chartdate < CAST(a.admittime AS DATE)
            OR p.chartdate > CAST(a.dischtime AS DATE))""",
    )
    assert outside == 0


def test_ventilation_is_coded_for_ventilated_admissions(con: duckdb.DuckDBPyConnection) -> None:
    """Airway plus duration codes exactly where procedureevents shows invasive ventilation."""
    vent = ", ".join(f"'{c}'" for c in sorted(VENTILATION_CODES))
    coded = {
        r[0]
        for r in con.execute(
            f"SELECT DISTINCT hadm_id FROM {H}.procedures_icd WHERE icd_code IN ({vent})"
        ).fetchall()
    }
    ventilated = {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT hadm_id FROM mimiciv_icu.procedureevents WHERE itemid = 225792"
        ).fetchall()
    }
    assert coded and coded == ventilated
    airways = one(
        con,
        f"""SELECT COUNT(*) FROM {H}.procedures_icd
        WHERE icd_code IN ('{AIRWAY[9]}', '{AIRWAY[10]}')""",
    )
    assert airways == len(coded)


# --- transfers --------------------------------------------------------------------------------

_ORDERED = f"""
    SELECT t.*, a.admittime, a.dischtime, a.deathtime,
        LEAD(t.intime) OVER w AS next_in, LEAD(t.eventtype) OVER w AS next_event,
        ROW_NUMBER() OVER w AS k
    FROM {H}.transfers t JOIN {H}.admissions a USING (hadm_id)
    WHERE a.dischtime > a.admittime  -- not the organ-donor admissions (LOS <= 0)
    WINDOW w AS (PARTITION BY t.hadm_id ORDER BY
        CASE t.eventtype WHEN 'ED' THEN 0 WHEN 'discharge' THEN 2 ELSE 1 END, t.intime)
"""


def test_transfers_are_contiguous(con: duckdb.DuckDBPyConnection) -> None:
    """Each row ends when the next begins, except an ICU stay starting before admittime (ED
    boarding) and a death in the ICU (discharged minutes before the ICU outtime)."""
    gaps = one(
        con,
        f"""SELECT COUNT(*) FROM ({_ORDERED}) WHERE next_in IS NOT NULL AND outtime <> next_in
        AND NOT (next_event = 'discharge' AND deathtime IS NOT NULL AND outtime > next_in)
        AND NOT (eventtype = 'ED' AND next_in < admittime)  -- ED boarding: ICU before admission""",
    )
    assert gaps == 0
    events = con.execute(
        f"""SELECT COUNT(*) FILTER (WHERE eventtype = 'admit'),
            COUNT(*) FILTER (WHERE eventtype = 'discharge'), COUNT(DISTINCT hadm_id)
        FROM {H}.transfers"""
    ).fetchone()
    assert events is not None and events[0] == events[1] == events[2]


def test_transfers_stay_inside_the_admission(con: duckdb.DuckDBPyConnection) -> None:
    """Inpatient rows start at admittime at the earliest (or at an ICU intime before it, ED
    boarding) and end at dischtime (or the ICU outtime of a death in the ICU)."""
    outside = one(
        con,
        f"""SELECT COUNT(*) FROM ({_ORDERED}) o
        WHERE eventtype IN ('admit', 'transfer')
          AND (intime < admittime AND NOT EXISTS (SELECT 1 FROM mimiciv_icu.icustays i
                  WHERE i.stay_id = o.transfer_id AND i.intime = o.intime)
            OR outtime > dischtime AND deathtime IS NULL)""",
    )
    assert outside == 0
    wrong_ends = one(
        con,
        f"""SELECT COUNT(*) FROM ({_ORDERED}) WHERE
        (eventtype = 'discharge' AND (intime <> dischtime OR outtime IS NOT NULL
            OR careunit IS NOT NULL))
        OR (eventtype = 'ED' AND outtime <> admittime)""",
    )
    assert wrong_ends == 0


def test_ward_moves_change_the_unit(con: duckdb.DuckDBPyConnection) -> None:
    icu_units = [name for name, _, _ in CAREUNITS]
    same = one(
        con,
        f"""SELECT COUNT(*) FROM (SELECT careunit, LEAD(careunit) OVER w AS next_unit,
            LEAD(eventtype) OVER w AS next_event FROM {H}.transfers
            WINDOW w AS (PARTITION BY hadm_id ORDER BY intime, eventtype = 'discharge'))
        WHERE next_event = 'transfer' AND careunit = next_unit
          AND careunit NOT IN ({", ".join(f"'{u}'" for u in icu_units)})
          AND careunit <> 'UNKNOWN'""",
    )
    assert same == 0
    wards = one(
        con, f"SELECT COUNT(DISTINCT careunit) FROM {H}.transfers WHERE careunit NOT LIKE '%(%'"
    )
    assert wards >= 8  # type: ignore[operator]


def test_icu_transfers_match_the_stays(con: duckdb.DuckDBPyConnection) -> None:
    """The stay's first row is its first unit from intime; its last row, its last unit to
    outtime; a stay that changed unit has exactly two rows."""
    mismatches = one(
        con,
        f"""WITH rows AS (
            SELECT i.stay_id, i.first_careunit, i.last_careunit, i.intime AS s_in,
                i.outtime AS s_out, t.careunit, t.intime, t.outtime, t.transfer_id,
                ROW_NUMBER() OVER (PARTITION BY i.stay_id ORDER BY t.intime) AS k,
                COUNT(*) OVER (PARTITION BY i.stay_id) AS n
            FROM mimiciv_icu.icustays i JOIN {H}.transfers t
              ON t.hadm_id = i.hadm_id AND t.intime >= i.intime AND t.intime < i.outtime
             AND t.eventtype IN ('admit', 'transfer'))
        SELECT COUNT(*) FROM rows WHERE
            (k = 1 AND (transfer_id <> stay_id OR careunit <> first_careunit OR intime <> s_in))
            OR (k = n AND (careunit <> last_careunit OR outtime <> s_out))
            OR n <> CASE WHEN first_careunit = last_careunit THEN 1 ELSE 2 END""",
    )
    assert mismatches == 0
    moved = one(
        con, "SELECT COUNT(*) FROM mimiciv_icu.icustays WHERE first_careunit <> last_careunit"
    )
    assert moved > 0  # type: ignore[operator]


# --- omr --------------------------------------------------------------------------------------


def _omr(con: duckdb.DuckDBPyConnection, name: str) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for subject, value in con.execute(
        f"SELECT subject_id, result_value FROM {H}.omr WHERE result_name = ? ORDER BY ALL", [name]
    ).fetchall():
        out.setdefault(subject, []).append(value)
    return out


def test_omr_values_are_plausible(con: duckdb.DuckDBPyConnection) -> None:
    names = {r[0] for r in con.execute(f"SELECT DISTINCT result_name FROM {H}.omr").fetchall()}
    assert names == {"Blood Pressure", "Weight (Lbs)", "BMI (kg/m2)", "Height (Inches)", "eGFR"}
    pressures = [v for vs in _omr(con, "Blood Pressure").values() for v in vs]
    pairs = [tuple(int(x) for x in v.split("/")) for v in pressures]
    assert all(60 <= s <= 230 and 30 <= d <= 130 and s > d for s, d in pairs)
    bands = {
        "Weight (Lbs)": (60, 500),
        "BMI (kg/m2)": (12, 70),
        "Height (Inches)": (50, 85),
        "eGFR": (3, 160),
    }
    for name, (low, high) in bands.items():
        values = [float(v) for vs in _omr(con, name).values() for v in vs]
        assert values and low <= min(values) and max(values) <= high, name


def test_omr_is_stable_per_patient(con: duckdb.DuckDBPyConnection) -> None:
    heights = [[float(v) for v in vs] for vs in _omr(con, "Height (Inches)").values()]
    assert all(max(h) - min(h) <= 2.0 for h in heights)
    bmis = [[float(v) for v in vs] for vs in _omr(con, "BMI (kg/m2)").values() if len(vs) >= 3]
    within = statistics.median(statistics.pstdev(b) for b in bmis)
    between = statistics.pstdev(statistics.mean(b) for b in bmis)
    assert within < between / 4


def test_omr_egfr_follows_kidney_disease(con: duckdb.DuckDBPyConnection) -> None:
    ckd = {
        r[0]
        for r in con.execute(
            f"""SELECT DISTINCT subject_id FROM {H}.diagnoses_icd
            WHERE (icd_version = 9 AND icd_code LIKE '585%')
               OR (icd_version = 10 AND icd_code LIKE 'N18%')"""
        ).fetchall()
    }
    egfr = {s: statistics.median(float(v) for v in vs) for s, vs in _omr(con, "eGFR").items()}
    with_ckd = [v for s, v in egfr.items() if s in ckd]
    without = [v for s, v in egfr.items() if s not in ckd]
    assert with_ckd and without
    assert statistics.median(with_ckd) < 60 <= statistics.median(without)


def test_omr_seq_num_numbers_repeats_of_one_date(con: duckdb.DuckDBPyConnection) -> None:
    broken = one(
        con,
        f"""SELECT COUNT(*) FROM (SELECT subject_id, chartdate, result_name, MAX(seq_num) hi,
        COUNT(*) n, COUNT(DISTINCT seq_num) d FROM {H}.omr GROUP BY ALL) WHERE hi <> n OR d <> n""",
    )
    assert broken == 0
    assert one(con, f"SELECT COUNT(*) FROM {H}.omr WHERE seq_num = 2") > 0  # type: ignore[operator]
