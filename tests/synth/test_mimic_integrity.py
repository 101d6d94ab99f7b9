"""Referential integrity and consistent times in the synthetic MIMIC-IV."""

from __future__ import annotations

import duckdb
from synth_helpers import one


def test_every_stay_in_an_admission_of_its_patient(con: duckdb.DuckDBPyConnection) -> None:
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_icu.icustays i
        LEFT JOIN mimiciv_hosp.admissions a ON a.hadm_id = i.hadm_id AND a.subject_id = i.subject_id
        WHERE a.hadm_id IS NULL""",
        )
        == 0
    )
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_hosp.admissions a
        LEFT JOIN mimiciv_hosp.patients p USING (subject_id) WHERE p.subject_id IS NULL""",
        )
        == 0
    )
    assert one(con, "SELECT COUNT(*) - COUNT(DISTINCT stay_id) FROM mimiciv_icu.icustays") == 0
    assert one(con, "SELECT COUNT(*) - COUNT(DISTINCT hadm_id) FROM mimiciv_hosp.admissions") == 0


def test_event_tables_reference_known_stays(con: duckdb.DuckDBPyConnection) -> None:
    for table in (
        "chartevents",
        "inputevents",
        "outputevents",
        "procedureevents",
        "datetimeevents",
    ):
        assert (
            one(
                con,
                f"""SELECT COUNT(*) FROM mimiciv_icu.{table} e
            LEFT JOIN mimiciv_icu.icustays i ON i.stay_id = e.stay_id AND i.hadm_id = e.hadm_id
                AND i.subject_id = e.subject_id
            WHERE i.stay_id IS NULL""",
            )
            == 0
        ), table


def test_event_times_inside_plausible_windows(con: duckdb.DuckDBPyConnection) -> None:
    outside = one(
        con,
        """SELECT COUNT(*) FROM mimiciv_icu.chartevents c JOIN mimiciv_icu.icustays i USING
            (stay_id)
        WHERE c.charttime < i.intime - INTERVAL 3 HOUR OR c.charttime > i.outtime + INTERVAL
            3 HOUR""",
    )
    assert outside == 0
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_hosp.labevents l JOIN mimiciv_icu.icustays i
                USING (subject_id)
        WHERE l.hadm_id = i.hadm_id AND l.charttime > i.outtime + INTERVAL 400 DAY""",
        )
        == 0
    )
    assert one(con, "SELECT COUNT(*) FROM mimiciv_hosp.labevents WHERE storetime < charttime") == 0
    assert one(con, "SELECT COUNT(*) FROM mimiciv_icu.chartevents WHERE storetime < charttime") == 0
    assert one(con, "SELECT COUNT(*) FROM mimiciv_icu.inputevents WHERE endtime <= starttime") == 0


def test_every_stay_has_heart_rate_around_it(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute("""SELECT i.stay_id, MIN(c.charttime) < i.intime, MAX(c.charttime) >
        i.outtime
        FROM mimiciv_icu.icustays i LEFT JOIN mimiciv_icu.chartevents c
            ON c.stay_id = i.stay_id AND c.itemid = 220045
        GROUP BY i.stay_id, i.intime, i.outtime""").fetchall()
    assert len(rows) == 200
    assert all(before is not None for _, before, _ in rows)
    assert sum(bool(before) for _, before, _ in rows) > 150
    assert sum(bool(after) for _, _, after in rows) > 50


def test_stays_inside_admissions_mostly(con: duckdb.DuckDBPyConnection) -> None:
    early = one(
        con,
        """SELECT AVG(CASE WHEN i.intime < a.admittime THEN 1 ELSE 0 END)
        FROM mimiciv_icu.icustays i JOIN mimiciv_hosp.admissions a USING (hadm_id)""",
    )
    assert 0 < float(early) < 0.15  # type: ignore[arg-type]
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_icu.icustays i JOIN mimiciv_hosp.admissions a
                USING (hadm_id)
        WHERE i.outtime > a.dischtime + INTERVAL 30 MINUTE""",
        )
        == 0
    )
    assert one(con, "SELECT COUNT(*) FROM mimiciv_icu.icustays WHERE outtime <= intime") == 0


def test_deaths_are_consistent(con: duckdb.DuckDBPyConnection) -> None:
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_hosp.admissions WHERE
        (hospital_expire_flag = 1) <> (deathtime IS NOT NULL)
        OR (hospital_expire_flag = 1) <> (COALESCE(discharge_location, '') = 'DIED')""",
        )
        == 0
    )
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_hosp.admissions a JOIN mimiciv_hosp.patients p
                USING (subject_id)
        WHERE a.deathtime IS NOT NULL AND (p.dod IS NULL OR p.dod <> CAST(a.deathtime AS DATE)
            AND p.dod <> CAST(a.dischtime AS DATE))""",
        )
        == 0
    )
    # nobody is admitted after their death, except organ-donor admissions (LOS <= 0)
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_hosp.admissions a JOIN mimiciv_hosp.patients p
                USING (subject_id)
        WHERE CAST(a.admittime AS DATE) > p.dod AND a.dischtime > a.admittime""",
        )
        == 0
    )
    # dod is censored a year after the last discharge
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_hosp.patients p JOIN (SELECT subject_id,
                MAX(dischtime) last_disch
        FROM mimiciv_hosp.admissions GROUP BY 1) l USING (subject_id)
        WHERE p.dod > CAST(l.last_disch AS DATE) + INTERVAL 366 DAY""",
        )
        == 0
    )
    mortality = float(
        one(
            con,
            """SELECT AVG(hospital_expire_flag) FROM mimiciv_hosp.admissions
        WHERE hadm_id IN (SELECT hadm_id FROM mimiciv_icu.icustays)""",
        )
    )  # type: ignore[arg-type]
    assert 0.05 < mortality < 0.25


def test_ages_follow_anchor_rules(con: duckdb.DuckDBPyConnection) -> None:
    assert (
        one(
            con,
            "SELECT COUNT(*) FROM mimiciv_hosp.patients WHERE anchor_age < 18 OR anchor_age > 91",
        )
        == 0
    )
    assert (
        one(con, "SELECT COUNT(*) FROM mimiciv_hosp.patients WHERE anchor_age BETWEEN 90 AND 90")
        == 0
    )
    assert one(con, "SELECT COUNT(*) FROM mimiciv_hosp.patients WHERE anchor_age = 91") > 0
    years = one(
        con,
        """SELECT MAX(YEAR(a.admittime) - p.anchor_year) FROM mimiciv_hosp.admissions a
        JOIN mimiciv_hosp.patients p USING (subject_id)""",
    )
    assert 0 < int(years) <= 8  # type: ignore[call-overload]
    assert one(con, "SELECT COUNT(DISTINCT MONTH(admittime)) FROM mimiciv_hosp.admissions") == 12


def test_transfers_carry_the_stay_id(con: duckdb.DuckDBPyConnection) -> None:
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM mimiciv_icu.icustays i LEFT JOIN mimiciv_hosp.transfers t
        ON t.transfer_id = i.stay_id AND t.careunit = i.first_careunit AND t.intime = i.intime
        WHERE t.transfer_id IS NULL""",
        )
        == 0
    )
    assert (
        one(con, "SELECT COUNT(*) - COUNT(DISTINCT transfer_id) FROM mimiciv_hosp.transfers") == 0
    )
    ed_mismatch = """SELECT COUNT(*) FROM mimiciv_hosp.transfers t
        JOIN mimiciv_hosp.admissions a USING (hadm_id)
        WHERE t.eventtype = 'ED' AND (t.intime <> a.edregtime OR t.outtime <> a.edouttime)"""
    assert one(con, ed_mismatch) == 0
    assert one(con, "SELECT COUNT(*) FROM mimiciv_hosp.transfers WHERE eventtype = 'ED'") > 0  # type: ignore[operator]


def test_ids_and_specimens(con: duckdb.DuckDBPyConnection) -> None:
    assert (
        one(con, "SELECT COUNT(*) - COUNT(DISTINCT labevent_id) FROM mimiciv_hosp.labevents") == 0
    )
    assert (
        one(
            con,
            "SELECT COUNT(*) - COUNT(DISTINCT microevent_id) FROM mimiciv_hosp.microbiologyevents",
        )
        == 0
    )
    # all rows of one specimen share subject and charttime
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM (SELECT specimen_id FROM mimiciv_hosp.labevents
        GROUP BY 1 HAVING COUNT(DISTINCT charttime) > 1 OR COUNT(DISTINCT subject_id) > 1)""",
        )
        == 0
    )
    assert one(
        con,
        "SELECT MIN(subject_id) >= 10000000 AND MAX(subject_id) < 20000000 FROM "
        "mimiciv_hosp.patients",
    )
    assert one(
        con, "SELECT MIN(stay_id) >= 30000000 AND MAX(stay_id) < 40000000 FROM mimiciv_icu.icustays"
    )


def test_culture_specimens_are_distinct(con: duckdb.DuckDBPyConnection) -> None:
    assert (
        one(
            con,
            """SELECT COUNT(*) FROM (SELECT micro_specimen_id FROM mimiciv_hosp.microbiologyevents
            GROUP BY 1 HAVING COUNT(DISTINCT subject_id) > 1 OR COUNT(DISTINCT chartdate) > 1)""",
        )
        == 0
    )


def test_clinical_coherence(con: duckdb.DuckDBPyConnection) -> None:
    """Sicker stays (ventilated, on vasopressors) die more and have lower blood pressure."""
    row = con.execute("""WITH p AS (SELECT DISTINCT stay_id FROM mimiciv_icu.inputevents
        WHERE itemid = 221906),
        m AS (SELECT stay_id, AVG(valuenum) mbp FROM mimiciv_icu.chartevents WHERE itemid IN
            (220052, 220181) GROUP BY 1)
        SELECT AVG(CASE WHEN p.stay_id IS NOT NULL THEN m.mbp END), AVG(CASE WHEN p.stay_id IS
            NULL THEN m.mbp END),
               AVG(CASE WHEN p.stay_id IS NOT NULL THEN a.hospital_expire_flag END),
               AVG(CASE WHEN p.stay_id IS NULL THEN a.hospital_expire_flag END)
        FROM mimiciv_icu.icustays i JOIN m USING (stay_id) JOIN mimiciv_hosp.admissions a
            USING (hadm_id)
        LEFT JOIN p USING (stay_id)""").fetchone()
    assert row is not None
    map_pressor, map_other, died_pressor, died_other = (float(x) for x in row)
    assert map_pressor < map_other
    assert died_pressor > died_other


def test_cohort_has_the_real_cardinality_ratios(con: duckdb.DuckDBPyConnection) -> None:
    patients = int(one(con, "SELECT COUNT(*) FROM mimiciv_hosp.patients"))  # type: ignore[call-overload]
    admissions = int(one(con, "SELECT COUNT(*) FROM mimiciv_hosp.admissions"))  # type: ignore[call-overload]
    assert abs(patients - 200 * 364_627 / 94_458) <= 2
    assert 200 * 546_028 / 94_458 - 2 <= admissions <= 200 * 546_028 / 94_458 + 20  # + donors
    no_icu = float(
        one(
            con,
            """SELECT AVG(CASE WHEN i.hadm_id IS NULL THEN 1 ELSE 0 END)
        FROM mimiciv_hosp.admissions a
        LEFT JOIN (SELECT DISTINCT hadm_id FROM mimiciv_icu.icustays) i USING (hadm_id)""",
        )
    )  # type: ignore[arg-type]
    assert 0.78 < no_icu < 0.88


def test_pharmacy_orders_match_prescriptions(con: duckdb.DuckDBPyConnection) -> None:
    unmatched = """SELECT COUNT(*) FROM mimiciv_hosp.pharmacy ph
        FULL JOIN mimiciv_hosp.prescriptions rx USING (pharmacy_id)
        WHERE ph.pharmacy_id IS NULL OR rx.pharmacy_id IS NULL OR ph.medication <> rx.drug"""
    assert one(con, unmatched) == 0
    assert one(con, "SELECT COUNT(*) - COUNT(DISTINCT pharmacy_id) FROM mimiciv_hosp.pharmacy") == 0
