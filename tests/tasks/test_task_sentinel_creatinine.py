"""mimic-creatinine-baseline-raw: one case per rule of its operational spec.

Admissions are built from source rows (patients, admissions, labevents, diagnoses) and the
concepts the reference reads are materialized from them, so spec and reference meet.
"""

from __future__ import annotations

import math
from datetime import datetime

import pytest
from task_rows import build, insert, result

CREATININE = 50912


def _mdrd(age: float, female: bool) -> float:
    base = 75 / 186 / age**-0.203
    return (base / 0.742 if female else base) ** (-1 / 1.154)


@pytest.fixture
def baseline(task_db, library):
    task, con = task_db("mimic-creatinine-baseline-raw")
    patients = [  # subject, gender, anchor_age, admission time
        (1, "F", 18, datetime(2150, 1, 1)),
        (2, "M", 17, datetime(2150, 6, 1)),
        (3, "M", 60, datetime(2150, 1, 1)),
        (4, "F", 70, datetime(2150, 1, 1)),
        (5, None, 40, datetime(2150, 1, 1)),
        (6, "M", 50, datetime(2150, 1, 1)),
    ]
    insert(
        con,
        "mimiciv_hosp.patients",
        [
            {"subject_id": s, "gender": g, "anchor_age": a, "anchor_year": 2150}
            for s, g, a, _ in patients
        ],
    )
    insert(
        con,
        "mimiciv_hosp.admissions",
        [{"subject_id": s, "hadm_id": s * 100, "admittime": t} for s, _, _, t in patients],
    )
    labs = [  # subject, hadm, specimen, value
        (1, 100, 1, 1.0),
        (1, 100, 1, 1.4),
        (1, 100, 2, 0.0),
        (1, 100, 3, 151.0),
        (2, 200, 4, 0.8),
        (3, 300, 5, 1.1),
        (4, 400, 6, 1.5),
        (4, None, 7, 0.5),
    ]
    insert(
        con,
        "mimiciv_hosp.labevents",
        [
            {
                "labevent_id": n,
                "subject_id": s,
                "hadm_id": h,
                "specimen_id": sp,
                "itemid": CREATININE,
                "charttime": datetime(2150, 1, 2),
                "valuenum": v,
            }
            for n, (s, h, sp, v) in enumerate(labs)
        ],
    )
    dx = [(100, "5853", 9), (300, "585", 10), (600, "N189", 10)]
    insert(
        con,
        "mimiciv_hosp.diagnoses_icd",
        [
            {"subject_id": h // 100, "hadm_id": h, "seq_num": 1, "icd_code": c, "icd_version": v}
            for h, c, v in dx
        ],
    )
    build(con, library, "age", "chemistry")
    return result(task, con, key="hadm_id")


def test_rule1_adults_only_with_fractional_age(baseline) -> None:
    assert sorted(baseline) == [100, 300, 400, 500, 600]  # 17.4 years left out, 18.0 kept
    assert baseline[100]["age"] == 18.0


def test_rule2_positive_bounded_per_specimen_max_and_admission_only(baseline) -> None:
    assert baseline[100]["scr_min"] == 1.4  # specimen 1 counts 1.4; 0 and 151 are dropped
    assert baseline[400]["scr_min"] == 1.5  # the 0.5 without admission id does not count


def test_rule3_no_creatinine_is_empty(baseline) -> None:
    assert baseline[500]["scr_min"] is None and baseline[600]["scr_min"] is None


def test_rule4_ckd_by_code_and_version(baseline) -> None:
    ckd = {h: r["ckd"] for h, r in baseline.items()}
    assert ckd == {100: 1, 300: 0, 400: 0, 500: 0, 600: 1}


def test_rule5_mdrd_female_factor_only_for_f(baseline) -> None:
    assert math.isclose(baseline[400]["mdrd_est"], _mdrd(70.0, female=True), rel_tol=1e-12)
    assert math.isclose(baseline[300]["mdrd_est"], _mdrd(60.0, female=False), rel_tol=1e-12)
    assert math.isclose(baseline[500]["mdrd_est"], _mdrd(40.0, female=False), rel_tol=1e-12)


def test_rule6_baseline_ladder(baseline) -> None:
    assert baseline[300]["scr_baseline"] == 1.1  # at most 1.1: measured
    assert baseline[100]["scr_baseline"] == 1.4  # CKD: measured
    assert baseline[400]["scr_baseline"] == baseline[400]["mdrd_est"]  # high, no CKD: estimate
    assert baseline[500]["scr_baseline"] == baseline[500]["mdrd_est"]  # none, no CKD: estimate
    assert baseline[600]["scr_baseline"] is None  # none, CKD: empty


def test_rounding_none(baseline) -> None:
    assert baseline[400]["mdrd_est"] != round(baseline[400]["mdrd_est"], 6)
