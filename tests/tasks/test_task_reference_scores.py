"""References of GCS, SIRS, MELD, KDIGO and Charlson on hand-built patients.

Rows are inserted into the derived tables each reference reads; expected values are
worked out by hand from the family's clinical definition.
"""

from __future__ import annotations

import math

from task_rows import at, insert, result, stay


def test_gcs_window_tie_breaks_and_defaults(task_db) -> None:
    task, con = task_db("mimic-gcs-24h-raw")
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in (1, 2, 3, 4, 5)])
    gcs = [
        # stay 1: the window is [I - 6 h, I + 24 h]; the two 13s tie, the earlier wins
        (1, at(-6), 13, 6, 3, 4, 0),
        (1, at(-6.02), 3, 1, 1, 1, 0),
        (1, at(24), 13, 5, 4, 4, 0),
        (1, at(24.02), 3, 1, 1, 1, 0),
        # stay 2: same total at the same time: the lower motor wins
        (2, at(2), 10, 5, 2, 3, 0),
        (2, at(2), 10, 4, 3, 3, 0),
        # stay 3: missing components are reported as normal
        (3, at(1), 11, 4, None, None, 0),
        # stay 5: intubated 15 (verbal 0) is the earliest 15
        (5, at(1), 15, 6, 0, 4, 1),
        (5, at(3), 15, 6, 5, 4, 0),
    ]
    insert(
        con,
        "gcs",
        [
            {
                "subject_id": s,
                "stay_id": s,
                "charttime": t,
                "gcs": g,
                "gcs_motor": m,
                "gcs_verbal": v,
                "gcs_eyes": e,
                "gcs_unable": u,
            }
            for s, t, g, m, v, e, u in gcs
        ],
    )
    rows = result(task, con)
    picked = {
        s: (r["gcs_min"], r["gcs_motor"], r["gcs_verbal"], r["gcs_eyes"]) for s, r in rows.items()
    }
    assert picked == {
        1: (13.0, 6.0, 3.0, 4.0),
        2: (10.0, 4.0, 3.0, 3.0),
        3: (11.0, 4.0, 5.0, 4.0),
        4: (15.0, 6.0, 5.0, 4.0),
        5: (15.0, 6.0, 0.0, 4.0),
    }
    assert all(isinstance(value, float) for value in picked[4])


def test_sirs_thresholds_are_strict_and_missing_scores_zero(task_db) -> None:
    task, con = task_db("mimic-sirs-24h-raw")
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in (1, 2, 3, 4)])
    insert(
        con,
        "first_day_vitalsign",
        [
            {
                "subject_id": 1,
                "stay_id": 1,
                "temperature_min": 35.9,
                "temperature_max": 37.0,
                "heart_rate_max": 90.0,
                "resp_rate_max": 20.0,
            },
            {
                "subject_id": 2,
                "stay_id": 2,
                "temperature_min": 36.5,
                "temperature_max": 38.1,
                "heart_rate_max": 90.1,
                "resp_rate_max": 20.1,
            },
            {
                "subject_id": 4,
                "stay_id": 4,
                "temperature_min": 36.0,
                "temperature_max": 38.0,
                "heart_rate_max": 80.0,
                "resp_rate_max": 12.0,
            },
        ],
    )
    insert(con, "first_day_bg_art", [{"subject_id": 1, "stay_id": 1, "pco2_min": 31.9}])
    insert(
        con,
        "first_day_lab",
        [
            {"subject_id": 1, "stay_id": 1, "wbc_min": 4.0, "wbc_max": 12.0, "bands_max": 10.0},
            {"subject_id": 2, "stay_id": 2, "wbc_min": 5.0, "wbc_max": 9.0, "bands_max": 10.5},
            {"subject_id": 4, "stay_id": 4, "wbc_min": 3.9, "wbc_max": 8.0},
        ],
    )
    rows = result(task, con)
    scores = {
        s: (r["sirs"], r["temp_score"], r["heart_rate_score"], r["resp_score"], r["wbc_score"])
        for s, r in rows.items()
    }
    assert scores == {
        1: (2, 1, 0, 1, 0),
        2: (4, 1, 1, 1, 1),
        3: (0, 0, 0, 0, 0),
        4: (1, 0, 0, 0, 1),
    }


def _meld(
    creat: float | None, bili: float | None, inr: float | None, na: float | None, rrt: bool = False
) -> float:
    """MELD-Na worked by hand from its published formula (independent of the SQL)."""
    c = (
        0.957 * math.log(4.0)
        if rrt or (creat or 0) > 4
        else (0.0 if creat is None or creat < 1 else 0.957 * math.log(creat))
    )
    b = 0.0 if bili is None or bili < 1 else 0.378 * math.log(bili)
    i = 0.643 if inr is None or inr < 1 else 1.120 * math.log(inr) + 0.643
    s = c + b + i
    initial = 40.0 if s > 4 else round(round(s + 1e-12, 3) + 1e-12, 1) * 10
    sodium = 0.0 if na is None or na > 137 else (12.0 if na < 125 else 137 - na)
    return initial + 1.32 * sodium - 0.033 * initial * sodium if initial > 11 else initial


def test_meld_formula_caps_floors_and_double_rounding(task_db) -> None:
    task, con = task_db("mimic-meld-24h")
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in range(1, 7)])
    inr_12496 = math.exp((1.2496 - 0.643) / 1.12)  # s = 1.2496: 1.250 then 1.3, not 1.2
    inr_11 = math.exp((1.1 - 0.643) / 1.12)
    labs = {
        2: (2.0, 3.0, 1.5, 130.0),
        3: (1.0, None, 0.9, 140.0),
        4: (10.0, 30.0, 5.0, 120.0),
        5: (None, None, inr_12496, None),
        6: (None, None, inr_11, 130.0),
    }
    insert(
        con,
        "first_day_lab",
        [
            {
                "subject_id": s,
                "stay_id": s,
                "creatinine_max": c,
                "bilirubin_total_max": b,
                "inr_max": i,
                "sodium_min": n,
            }
            for s, (c, b, i, n) in labs.items()
        ],
    )
    insert(con, "first_day_rrt", [{"subject_id": 3, "stay_id": 3, "dialysis_present": 1}])
    rows = result(task, con)
    assert rows[1]["meld"] == 6.0
    assert math.isclose(rows[2]["meld"], 22.0 + 1.32 * 7 - 0.033 * 22.0 * 7)
    assert math.isclose(rows[2]["meld"], _meld(2.0, 3.0, 1.5, 130.0))
    assert math.isclose(rows[3]["meld"], 20.0)  # dialysis: creatinine counts as 4.0
    assert math.isclose(rows[4]["meld"], 40.0)  # capped initial, sodium 120 counts as 125
    assert math.isclose(rows[5]["meld"], 13.0)
    assert math.isclose(rows[6]["meld"], 11.0)  # initial 11 is not above 11: no sodium term


def test_kdigo_48h_window_and_crrt(task_db) -> None:
    task, con = task_db("mimic-kdigo-48h")
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in (1, 2, 3)])
    stages = [
        (1, at(0), 1, None, None, 1),
        (1, at(48), 0, 2, None, 2),
        (1, at(48.01), 3, None, None, 3),
        (1, at(-1), None, None, 3, 3),
        (2, at(10), None, None, 3, 3),
        (2, at(11), 0, None, None, 0),
        (3, None, None, None, None, 0),
    ]
    insert(
        con,
        "kdigo_stages",
        [
            {
                "subject_id": s,
                "hadm_id": s * 10,
                "stay_id": s,
                "charttime": t,
                "aki_stage_creat": c,
                "aki_stage_uo": u,
                "aki_stage_crrt": r,
                "aki_stage": a,
            }
            for s, t, c, u, r, a in stages
        ],
    )
    rows = result(task, con)
    got = {
        s: (r["aki_stage"], r["aki_stage_creat"], r["aki_stage_uo"], r["aki_stage_crrt"])
        for s, r in rows.items()
    }
    assert got == {1: (2, 1, 2, 0), 2: (3, 0, 0, 3), 3: (0, 0, 0, 0)}


def test_charlson_flags_hierarchy_versions_and_text_ranges(task_db) -> None:
    task, con = task_db("mimic-charlson-raw")
    ages = {1: 50.0, 2: 50.01, 3: 85.0, 4: 60.0, 5: 70.0}
    insert(
        con,
        "mimiciv_hosp.admissions",
        [{"subject_id": h, "hadm_id": h, "admittime": at(0)} for h in ages],
    )
    insert(con, "age", [{"subject_id": h, "hadm_id": h, "age": a} for h, a in ages.items()])
    dx = [
        (1, "41071", 9),
        (1, "5715", 9),
        (1, "5723", 9),
        (2, "E1122", 10),
        (2, "E119", 10),
        (2, "C787", 10),
        (2, "C509", 10),
        (4, "410", 10),
        (4, "I21", 9),
        (4, "C4A1", 10),
        (5, "1950", 9),
        (5, "N183", 10),
        (5, "042", 9),
    ]
    insert(
        con,
        "mimiciv_hosp.diagnoses_icd",
        [
            {"subject_id": h, "hadm_id": h, "seq_num": n, "icd_code": c, "icd_version": v}
            for n, (h, c, v) in enumerate(dx)
        ],
    )
    rows = result(task, con, key="hadm_id")
    flags = {
        h: {k: v for k, v in r.items() if v == 1 and k not in ("subject_id", "hadm_id")}
        for h, r in rows.items()
    }
    assert flags[1] == {"myocardial_infarct": 1, "mild_liver_disease": 1, "severe_liver_disease": 1}
    assert rows[1]["age_score"] == 0 and rows[1]["charlson_comorbidity_index"] == 4
    assert set(flags[2]) == {
        "age_score",
        "diabetes_with_cc",
        "diabetes_without_cc",
        "malignant_cancer",
        "metastatic_solid_tumor",
    }
    assert rows[2]["charlson_comorbidity_index"] == 1 + 2 + 6
    assert flags[3] == {} and rows[3]["age_score"] == 4
    assert rows[3]["charlson_comorbidity_index"] == 4
    assert set(flags[4]) == {"age_score", "malignant_cancer"}  # wrong-version codes ignored
    assert rows[4]["charlson_comorbidity_index"] == 1 + 2
    assert set(flags[5]) == {"malignant_cancer", "renal_disease", "aids"}
    assert rows[5]["age_score"] == 2 and rows[5]["charlson_comorbidity_index"] == 2 + 2 + 2 + 6
