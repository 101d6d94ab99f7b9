"""labevents, prescriptions, pharmacy and microbiologyevents at the real rows per admission."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
from synth_helpers import one, rows_per

from m4bench.sources.synth.mimic_formulary import ROUTINE_DRUGS

H = "mimiciv_hosp"
MEDICATION_SQL = Path(__file__).parents[2] / "src/m4bench/concepts/sql/mimic_iv/medication"


def _values(con: duckdb.DuckDBPyConnection, sql: str) -> set[object]:
    return {row[0] for row in con.execute(sql).fetchall()}


@pytest.mark.parametrize(
    ("table", "low", "high"),
    [
        ("labevents", 230, 350),  # real: 290, outpatient rows included
        ("microbiologyevents", 5.5, 9.5),  # real: 7.3
        ("prescriptions", 30, 44),  # real: 37.2
        ("pharmacy", 28, 44),  # real: 32.7
    ],
)
def test_rows_per_admission_near_the_real_volume(
    con: duckdb.DuckDBPyConnection, table: str, low: float, high: float
) -> None:
    assert low <= rows_per(con, f"{H}.{table}", f"{H}.admissions") <= high


def test_icu_admissions_get_more_drug_lines_and_labs(con: duckdb.DuckDBPyConnection) -> None:
    def per(table: str, icu: bool) -> float:
        sql = f"""SELECT COUNT(t.hadm_id) / COUNT(DISTINCT a.hadm_id) FROM {H}.admissions a
            LEFT JOIN {H}.{table} t USING (hadm_id)
            WHERE a.hadm_id {"" if icu else "NOT"} IN (SELECT hadm_id FROM mimiciv_icu.icustays)"""
        return float(one(con, sql))  # type: ignore[arg-type]

    for table in ("prescriptions", "labevents"):
        assert per(table, True) > 2 * per(table, False) > 0, table


def _doses_meant(frequency: str) -> float:
    """Administrations per day that a pharmacy frequency text stands for."""
    named = {"ONCE": 1, "DAILY": 1, "QHS": 1, "CONTINUOUS": 1, "BID": 2, "TID": 3, "QID": 4}
    base = frequency.split(":")[0]
    if base in named:
        return float(named[base])
    hours = re.fullmatch(r"Q(\d+)H", base)
    assert hours, f"unknown frequency {frequency!r}"
    return 24.0 / int(hours.group(1))


def test_pharmacy_frequency_matches_doses_per_day(con: duckdb.DuckDBPyConnection) -> None:
    pairs = con.execute(f"SELECT DISTINCT frequency, doses_per_24_hrs FROM {H}.pharmacy").fetchall()
    assert len({f for f, _ in pairs}) >= 8
    wrong = [(f, d) for f, d in pairs if _doses_meant(f) != d]
    assert wrong == []


def test_prescription_pharmacy_and_order_rows_agree(con: duckdb.DuckDBPyConnection) -> None:
    mismatched = f"""SELECT COUNT(*) FROM {H}.prescriptions r
        FULL JOIN {H}.pharmacy p USING (pharmacy_id)
        WHERE p.poe_id IS DISTINCT FROM r.poe_id OR p.subject_id IS DISTINCT FROM r.subject_id
        OR p.hadm_id IS DISTINCT FROM r.hadm_id OR p.route IS DISTINCT FROM r.route
        OR p.doses_per_24_hrs IS DISTINCT FROM r.doses_per_24_hrs
        OR p.starttime IS DISTINCT FROM r.starttime"""
    assert one(con, mismatched) == 0
    no_order = f"""SELECT COUNT(*) FROM {H}.prescriptions r LEFT JOIN {H}.poe o
        ON o.poe_id = r.poe_id AND o.poe_seq = r.poe_seq AND o.hadm_id = r.hadm_id
        AND o.subject_id = r.subject_id WHERE o.poe_id IS NULL"""
    assert one(con, no_order) == 0
    outside = f"""SELECT COUNT(*) FROM {H}.prescriptions r JOIN {H}.admissions a USING (hadm_id)
        WHERE r.subject_id <> a.subject_id OR (r.starttime > a.dischtime
            AND r.hadm_id NOT IN (SELECT hadm_id FROM mimiciv_icu.icustays))"""
    assert one(con, outside) == 0
    ward_share = f"""SELECT AVG(CASE WHEN a.hadm_id IN (SELECT hadm_id FROM {H}.prescriptions)
        THEN 1 ELSE 0 END) FROM {H}.admissions a
        WHERE a.hadm_id NOT IN (SELECT hadm_id FROM mimiciv_icu.icustays)"""
    assert float(one(con, ward_share)) > 0.9  # type: ignore[arg-type]


def test_lines_carry_their_product_and_dose(con: duckdb.DuckDBPyConnection) -> None:
    missing = f"""SELECT COUNT(*) FROM {H}.prescriptions WHERE formulary_drug_cd IS NULL
        OR gsn IS NULL OR ndc IS NULL OR prod_strength IS NULL OR dose_val_rx IS NULL
        OR dose_unit_rx IS NULL OR form_val_disp IS NULL OR form_unit_disp IS NULL"""
    assert one(con, missing) == 0
    types = {
        r[0] for r in con.execute(f"SELECT DISTINCT drug_type FROM {H}.prescriptions").fetchall()
    }
    assert types == {"MAIN", "BASE", "ADDITIVE"}
    # one product per drug and route
    products = f"""SELECT COUNT(*) FROM (SELECT drug, route FROM {H}.prescriptions
        WHERE route IS NOT NULL GROUP BY 1, 2 HAVING COUNT(DISTINCT formulary_drug_cd) > 1)"""
    assert one(con, products) == 0


def _antibiotic_fragments() -> list[str]:
    sql = (MEDICATION_SQL / "antibiotic.sql").read_text()
    listing = sql[sql.index("UNNEST([") : sql.index("]) AS fragment")]
    return re.findall(r"'([^']+)'", listing)


def _drug_pattern(concept: str) -> re.Pattern[str]:
    sql = (MEDICATION_SQL / f"{concept}.sql").read_text()
    parts = re.findall(r"'([^']+)'", sql[sql.index("LOWER(drug)") :])
    return re.compile("".join(parts))


def test_routine_drugs_match_no_concept_drug_pattern() -> None:
    fragments = _antibiotic_fragments()
    assert len(fragments) > 100
    nsaid, acei = _drug_pattern("nsaid"), _drug_pattern("acei")
    assert nsaid.search("ketorolac") and acei.search("lisinopril")
    for drug in {str(row[0]).lower() for row in ROUTINE_DRUGS}:
        assert not any(f in drug for f in fragments), drug
        assert not nsaid.search(drug) and not acei.search(drug), drug


def test_concept_drugs_only_where_intended(con: duckdb.DuckDBPyConnection) -> None:
    """Antibiotic names only in ICU admissions (the infection plan); NSAID/ACE-i only as decoys."""
    drugs = con.execute(
        f"""SELECT DISTINCT lower(drug), hadm_id IN (SELECT hadm_id FROM mimiciv_icu.icustays)
        FROM {H}.prescriptions"""
    ).fetchall()
    fragments = _antibiotic_fragments()
    ward_antibiotics = [d for d, icu in drugs if not icu and any(f in d for f in fragments)]
    assert ward_antibiotics == []
    nsaid, acei = _drug_pattern("nsaid"), _drug_pattern("acei")
    assert {d for d, _ in drugs if nsaid.search(d)} == {"ibuprofen"}
    assert {d for d, _ in drugs if acei.search(d)} == {"lisinopril"}


def test_routine_cultures_do_not_pair_with_antibiotics(con: duckdb.DuckDBPyConnection) -> None:
    """Cultures of admissions without antibiotics stay outside every suspicion window.

    A subject's other admission may still start an antibiotic near one (the concept joins
    on subject_id), but only rarely.
    """
    con.execute(
        "CREATE OR REPLACE TEMP TABLE frag AS SELECT UNNEST(?) AS f", [_antibiotic_fragments()]
    )
    paired = one(
        con,
        f"""WITH ab AS (SELECT DISTINCT subject_id, hadm_id, starttime FROM {H}.prescriptions
            JOIN frag ON contains(lower(drug), f)),
        free AS (SELECT m.* FROM {H}.microbiologyevents m JOIN {H}.admissions a
            ON a.subject_id = m.subject_id AND m.chartdate BETWEEN a.admittime - INTERVAL 1 DAY
            AND a.dischtime WHERE a.hadm_id NOT IN (SELECT hadm_id FROM ab))
        SELECT COUNT(DISTINCT free.micro_specimen_id) FROM free JOIN ab USING (subject_id)
        WHERE ab.starttime BETWEEN COALESCE(free.charttime, free.chartdate) - INTERVAL 25 HOUR
            AND COALESCE(free.charttime, free.chartdate) + INTERVAL 96 HOUR""",
    )
    cultures = one(con, f"SELECT COUNT(DISTINCT micro_specimen_id) FROM {H}.microbiologyevents")
    assert int(cultures) > 3_000  # type: ignore[call-overload]
    assert int(paired) < 0.01 * int(cultures)  # type: ignore[call-overload]


def test_cultures_mostly_negative_positives_with_susceptibilities(
    con: duckdb.DuckDBPyConnection,
) -> None:
    growth = one(
        con,
        f"""SELECT AVG(grew) FROM (SELECT micro_specimen_id, MAX(CASE WHEN org_name IS NOT NULL
            AND org_itemid <> 90856 THEN 1 ELSE 0 END) AS grew FROM {H}.microbiologyevents
            GROUP BY 1)""",
    )
    assert 0.05 < float(growth) < 0.3  # type: ignore[arg-type]
    tested = con.execute(
        f"""SELECT interpretation, COUNT(*) FROM {H}.microbiologyevents
        WHERE ab_name IS NOT NULL GROUP BY 1"""
    ).fetchall()
    assert {i for i, _ in tested} == {"S", "R", "I"}
    loose = f"""SELECT COUNT(*) FROM {H}.microbiologyevents WHERE (ab_name IS NOT NULL)
        AND (org_name IS NULL OR dilution_text IS NULL OR dilution_value IS NULL)"""
    assert one(con, loose) == 0
    several = f"""SELECT COUNT(*) FROM (SELECT micro_specimen_id FROM {H}.microbiologyevents
        WHERE org_name IS NULL OR org_itemid = 90856 GROUP BY 1 HAVING COUNT(*) > 1)"""
    assert one(con, several) == 0
    kinds = {
        r[0]
        for r in con.execute(
            f"SELECT DISTINCT spec_type_desc FROM {H}.microbiologyevents"
        ).fetchall()
    }
    assert {"BLOOD CULTURE", "URINE", "MRSA SCREEN", "STOOL", "SPUTUM"} <= kinds


def test_outpatient_labs_fall_outside_every_admission(con: duckdb.DuckDBPyConnection) -> None:
    rows, inside, null_inside, outside = con.execute(
        f"""SELECT COUNT(*), COUNT(*) FILTER (WHERE a.hadm_id IS NOT NULL),
            COUNT(*) FILTER (WHERE a.hadm_id IS NOT NULL AND l.hadm_id IS NULL),
            COUNT(*) FILTER (WHERE a.hadm_id IS NULL AND l.hadm_id IS NULL)
        FROM {H}.labevents l LEFT JOIN {H}.admissions a ON a.subject_id = l.subject_id
            AND l.charttime BETWEEN a.admittime AND a.dischtime"""
    ).fetchone()  # type: ignore[misc]
    assert outside > 0.2 * rows  # outpatient draws
    assert 0.015 < null_inside / inside < 0.05  # the lab_null_hadm quirk (3 %) stays put
