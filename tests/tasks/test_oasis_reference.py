"""mimic-oasis-24h(-raw) and eicu-oasis: hand-built stays, one case per rule of the MIMIC-IV
operational spec (windows, inputs, each component ladder, missing data, range gaps), plus
the eICU conventions (offset window, -1 as missing, invasive MAP first, fallbacks)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from task_rows import T0, at, build, empty_database, insert, result, stay

HEART_RATE, GCS_MOTOR, URINE = 220045, 223901, 226559
EXAM_GCS = "notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS"


def _admission(stay_id: int, hours_before: float, kind: str = "URGENT") -> dict[str, Any]:
    return {
        "subject_id": stay_id,
        "hadm_id": stay_id * 10,
        "admittime": T0 - timedelta(hours=hours_before),
        "admission_type": kind,
    }


def _vitals(stay_id: int, **values: float) -> dict[str, Any]:
    return {"subject_id": stay_id, "stay_id": stay_id, **values}


# stay: (minutes from hospital to ICU admission, age)
PREICU_AGE = {
    1: (10.1, 23.9),
    2: (10.2, 24.0),
    3: (296.9, 53.0),
    4: (297.0, 77.0),
    5: (1439.0, 89.0),
    6: (1440.0, 89.5),
    7: (18707.0, 90.0),
    8: (18708.0, 60.0),
    9: (-30.0, 60.0),
}


# stay: (heart rate min, max, mean pressure min, max)
HEART_AND_PRESSURE = {
    1: (20.0, 126.0, 20.0, 150.0),
    2: (20.0, 100.0, 50.9, 150.0),
    3: (60.0, 107.0, 70.0, 143.5),
    4: (60.0, 106.5, 61.0, 90.0),
    5: (60.0, 89.0, 61.33, 90.0),
}
# stay: (respiratory rate min, max, temperature min, max)
BREATHING_AND_TEMPERATURE = {
    6: (5.0, 50.0, 30.0, 40.0),
    7: (12.0, 45.0, 34.0, 37.0),
    8: (12.0, 31.0, 30.0, 35.0),
    9: (12.0, 23.0, 30.0, 37.0),
    10: (12.0, 22.0, 36.0, 36.5),
    11: (13.0, 22.0, 36.5, 36.88),
    12: (13.0, 22.0, 36.4, 36.89),
}


@pytest.fixture(scope="module")
def oasis(catalog, library) -> dict[Any, dict[str, Any]]:
    task = catalog.task("mimic-oasis-24h")
    con = empty_database(task, library)
    stays = range(1, 21)
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in stays])
    kinds = {11: "ELECTIVE", 12: "ELECTIVE", 13: "ELECTIVE", 14: "URGENT"}
    insert(
        con,
        "mimiciv_hosp.admissions",
        [
            _admission(s, PREICU_AGE.get(s, (600.0, 0))[0] / 60, kinds.get(s, "URGENT"))
            for s in stays
        ],
    )
    insert(con, "mimiciv_hosp.patients", [{"subject_id": s} for s in stays])
    insert(
        con,
        "age",
        [
            {"subject_id": s, "hadm_id": s * 10, "age": PREICU_AGE.get(s, (0, 30.0))[1]}
            for s in stays
            if s != 20
        ],
    )
    services = [(11, 23.9, "surg"), (12, 24.0, "SURG"), (13, -100.0, "ORTHO"), (14, 1.0, "SURG")]
    insert(
        con,
        "mimiciv_hosp.services",
        [
            {"subject_id": s, "hadm_id": s * 10, "transfertime": at(h), "curr_service": v}
            for s, h, v in services
        ],
    )
    insert(
        con,
        "first_day_gcs",
        [
            {"subject_id": s, "stay_id": s, "gcs_min": g}
            for s, g in ((1, 7.0), (2, 8.0), (3, 13.0), (4, 14.0))
        ],
    )
    insert(
        con,
        "first_day_vitalsign",
        [
            _vitals(s, heart_rate_min=a, heart_rate_max=b, mbp_min=c, mbp_max=d)
            for s, (a, b, c, d) in HEART_AND_PRESSURE.items()
        ]
        + [
            _vitals(s, resp_rate_min=a, resp_rate_max=b, temperature_min=c, temperature_max=d)
            for s, (a, b, c, d) in BREATHING_AND_TEMPERATURE.items()
        ],
    )
    urine = {
        1: 671.08,
        2: 671.09,
        3: 1426.99,
        4: 1426.995,
        5: 1427.0,
        6: 2544.14,
        7: 2544.15,
        8: 6896.81,
    }
    insert(
        con,
        "first_day_urine_output",
        [{"subject_id": s, "stay_id": s, "urineoutput": u} for s, u in urine.items()],
    )
    episodes = [
        (15, -10.0, 0.0, "InvasiveVent"),
        (16, 24.0, 30.0, "InvasiveVent"),
        (17, -10.0, -0.1, "InvasiveVent"),
        (18, 1.0, 5.0, "NonInvasiveVent"),
    ]
    insert(
        con,
        "ventilation",
        [
            {"stay_id": s, "starttime": at(a), "endtime": at(b), "ventilation_status": v}
            for s, a, b, v in episodes
        ],
    )
    rows = result(task, con)
    con.close()
    return rows


def test_preicu_length_of_stay_in_minutes(oasis) -> None:
    got = {s: oasis[s]["preiculos_score"] for s in range(1, 10)}
    # below 10.2 -> 5; below 297 -> 3; below 1440 -> 0; below 18,708 -> 2; else 1;
    # 9: ICU admission 30 min before the hospital admission (negative) -> 5
    assert got == {1: 5, 2: 3, 3: 3, 4: 0, 5: 0, 6: 2, 7: 2, 8: 1, 9: 5}


def test_age_bins_and_the_gap_between_89_and_90(oasis) -> None:
    got = {s: oasis[s]["age_score"] for s in range(1, 8)}
    assert got == {1: 0, 2: 3, 3: 3, 4: 6, 5: 9, 6: 0, 7: 7}
    assert oasis[20]["age_score"] == 0  # no age


def test_gcs_ladder(oasis) -> None:
    assert [oasis[s]["gcs_score"] for s in (1, 2, 3, 4, 5)] == [10, 4, 4, 3, 0]


def test_heart_rate_and_mean_pressure_ladders_with_their_gaps(oasis) -> None:
    # 1: max > 125 wins over min < 33; 2: min < 33; 3: max 107; 4: max in the 106-107 gap
    assert [oasis[s]["heart_rate_score"] for s in (1, 2, 3, 4, 5)] == [6, 4, 3, 0, 1]
    # 1: min < 20.65; 2: min < 51; 3: max > 143.44; 4: 51 <= min < 61.33; 5: 61.33 -> 0
    assert [oasis[s]["mbp_score"] for s in (1, 2, 3, 4, 5)] == [4, 3, 3, 2, 0]


def test_respiratory_rate_and_temperature_ladders(oasis) -> None:
    got = {s: oasis[s]["resp_rate_score"] for s in range(6, 13)}
    assert got == {6: 10, 7: 9, 8: 6, 9: 1, 10: 1, 11: 0, 12: 0}
    got = {s: oasis[s]["temp_score"] for s in range(6, 13)}
    # 6: max > 39.88; 7: min 33.22-35.93; 8: max 33.22-35.93 (min 30); 9: min < 33.22;
    # 10: min above 35.93 up to 36.39; 11: no rule -> 0; 12: max 36.89-39.88
    assert got == {6: 6, 7: 4, 8: 4, 9: 3, 10: 2, 11: 0, 12: 2}


def test_urine_output_ladder_and_its_gap(oasis) -> None:
    got = {s: oasis[s]["urineoutput_score"] for s in range(1, 10)}
    assert got == {1: 10, 2: 5, 3: 5, 4: 0, 5: 1, 6: 1, 7: 0, 8: 8, 9: 0}


def test_ventilation_overlap_with_the_first_day(oasis) -> None:
    got = {s: oasis[s]["mechvent_score"] for s in (15, 16, 17, 18)}
    assert got == {15: 9, 16: 9, 17: 0, 18: 0}  # closed overlap; invasive only


def test_elective_surgery_needs_an_elective_surgical_admission(oasis) -> None:
    got = {s: oasis[s]["electivesurgery_score"] for s in (11, 12, 13, 14, 15)}
    # 12: the service at exactly +24 h is outside; 13: ORTHO counts with no lower bound;
    # 14: urgent admission; 15: no services row
    assert got == {11: 0, 12: 6, 13: 0, 14: 6, 15: 6}


def test_missing_components_score_zero_and_total_is_the_sum(oasis) -> None:
    parts = [c for c in oasis[1] if c.endswith("_score")]
    assert len(parts) == 10
    for row in oasis.values():
        assert row["oasis"] == sum(row[p] for p in parts)
    # stay 19: nothing charted; pre-ICU 600 min -> 0, age 30 -> 3, not elective -> 6
    assert oasis[19]["oasis"] == 9


def test_first_day_windows_from_source_rows(task_db, library) -> None:
    task, con = task_db("mimic-oasis-24h-raw")
    insert(con, "mimiciv_icu.icustays", [stay(1), stay(2)])
    insert(con, "mimiciv_hosp.admissions", [_admission(1, 5.0), _admission(2, 5.0)])
    insert(con, "mimiciv_hosp.patients", [{"subject_id": 1}, {"subject_id": 2}])

    def chart(s: int, item: int, hours: float, value: float) -> dict[str, Any]:
        return {
            "subject_id": s,
            "stay_id": s,
            "itemid": item,
            "charttime": at(hours),
            "valuenum": value,
        }

    insert(
        con,
        "mimiciv_icu.chartevents",
        [
            chart(1, HEART_RATE, -6.0, 130.0),  # W1 starts at I - 6 h: counts
            chart(2, HEART_RATE, -6.01, 130.0),  # just before: ignored
            chart(2, HEART_RATE, 24.0, 100.0),  # W1 ends at I + 24 h: counts
            chart(1, GCS_MOTOR, 24.0, 1.0),  # motor 1 at the window end: GCS 10
        ],
    )
    insert(
        con,
        "mimiciv_icu.outputevents",
        [
            {
                "subject_id": 1,
                "stay_id": 1,
                "itemid": URINE,
                "charttime": at(-0.5),
                "value": 3000.0,
            },
            {"subject_id": 1, "stay_id": 1, "itemid": URINE, "charttime": at(24), "value": 1000.0},
        ],
    )
    build(con, library, "first_day_vitalsign", "first_day_gcs", "first_day_urine_output")
    rows = result(task, con)
    assert rows[1]["heart_rate_score"] == 6 and rows[2]["heart_rate_score"] == 1
    assert rows[1]["gcs_score"] == 4
    assert rows[1]["urineoutput_score"] == 5  # W2: only the 1000 mL at I + 24 h
    assert rows[2]["urineoutput_score"] == 0  # no urine charting: unknown, not 0 mL


# ---------------------------------------------------------------------------- eICU


def _chart(stay_id: int, offset: int, label: str, name: str, value: str) -> dict[str, Any]:
    category = "Scores" if "GCS" in name or "Glasgow" in label else "Vital Signs"
    return {
        "patientunitstayid": stay_id,
        "nursingchartoffset": offset,
        "nursingchartcelltypecat": category,
        "nursingchartcelltypevallabel": label,
        "nursingchartcelltypevalname": name,
        "nursingchartvalue": value,
    }


def _urine(stay_id: int, offset: int, tail: str, value: float) -> dict[str, Any]:
    return {
        "patientunitstayid": stay_id,
        "intakeoutputoffset": offset,
        "cellpath": f"flowsheet|Flowsheet Cell Labels|I&O|Output (ml)|{tail}",
        "cellvaluenumeric": value,
    }


@pytest.fixture(scope="module")
def eicu(catalog, library) -> dict[Any, dict[str, Any]]:
    task = catalog.task("eicu-oasis")
    con = empty_database(task, library)
    ages = {1: "> 89", 2: "89", 3: "", 4: "53"}
    offsets = {1: -10, 2: -11, 3: -296, 4: -297, 5: -1440, 6: -1441, 7: -18708, 8: -18709}
    insert(
        con,
        "eicu_crd.patient",
        [
            {
                "patientunitstayid": s,
                "patienthealthsystemstayid": s * 10,
                "uniquepid": f"000-{s}",
                "age": ages.get(s, "60"),
                "hospitaladmitoffset": offsets.get(s, -600),
                "unitadmitsource": "Emergency Department" if s == 12 else "Floor",
            }
            for s in range(1, 15)
        ],
    )
    hr = "Heart Rate"
    insert(
        con,
        "eicu_crd.nursecharting",
        [
            _chart(1, 0, hr, hr, "20"),  # offset 0 is outside the window
            _chart(1, 10, hr, hr, "30"),  # min 30 < 33 wins over max 130
            _chart(1, 20, hr, hr, "130"),
            _chart(2, 10, "Invasive BP", "Invasive BP Mean", "70"),  # normal invasive min
            _chart(2, 20, "Non-Invasive BP", "Non-Invasive BP Mean", "30"),
            _chart(3, 10, "Non-Invasive BP", "Non-Invasive BP Mean", "30"),  # no invasive
            _chart(4, 10, "Glasgow coma score", "GCS Total", "17"),  # invalid total
            _chart(5, 10, "Glasgow coma score", "GCS Total", "9"),
            _chart(5, 1441, "Glasgow coma score", "GCS Total", "3"),  # after the window
            _chart(6, 10, "Temperature", "Temperature (F)", "95"),  # the F label is ignored
            _chart(7, 10, "Respiratory Rate", "Respiratory Rate", "15"),
            _chart(7, 20, "Respiratory Rate", "Respiratory Rate", "50"),  # normal min stops
        ],
    )
    insert(
        con,
        "eicu_crd.physicalexam",
        [
            {
                "patientunitstayid": 4,
                "physicalexamoffset": 30,
                "physicalexampath": f"{EXAM_GCS}/7",
                "physicalexamvalue": "7",
            }
        ],
    )
    insert(
        con,
        "eicu_crd.intakeoutput",
        [
            _urine(8, 60, "Urine", 700.0),
            _urine(8, 120, "Foley PACU", 5000.0),  # 'pacu': not urine
            _urine(9, 60, "Output x Urinary Catheter y", 2000.0),
            _urine(10, 60, "Stool", 100.0),  # not urine: APACHE urine is used
        ],
    )
    insert(
        con,
        "eicu_crd.apacheapsvar",
        [
            {"patientunitstayid": 10, "urine": 7000.0, "intubated": 0},
            {"patientunitstayid": 11, "urine": -1.0, "intubated": 1},
        ],
    )
    insert(
        con,
        "eicu_crd.apachepredvar",
        [
            {"patientunitstayid": 11, "electivesurgery": -1, "oobintubday1": -1},
            {"patientunitstayid": 12, "electivesurgery": 1},
            {"patientunitstayid": 13, "electivesurgery": 1},
            {"patientunitstayid": 14, "electivesurgery": 0},
        ],
    )
    insert(
        con,
        "eicu_crd.respiratorycare",
        [
            {"patientunitstayid": 13, "respcarestatusoffset": 100, "airwaytype": "Oral ETT"},
            {"patientunitstayid": 14, "respcarestatusoffset": 1500, "airwaytype": "Oral ETT"},
        ],
    )
    rows = result(task, con, key="patientunitstayid")
    con.close()
    return rows


def test_eicu_preicu_offsets_and_age_text(eicu) -> None:
    got = {s: eicu[s]["preiculos_score"] for s in range(1, 9)}
    assert got == {1: 5, 2: 3, 3: 3, 4: 0, 5: 0, 6: 2, 7: 2, 8: 1}
    assert [eicu[s]["age_score"] for s in (1, 2, 3, 4)] == [7, 9, 0, 3]


def test_eicu_vitals_window_and_ladders(eicu) -> None:
    assert eicu[1]["heart_rate_score"] == 4
    assert eicu[2]["mbp_score"] == 0  # a normal invasive minimum ends the ladder
    assert eicu[3]["mbp_score"] == 3  # no invasive MAP: the non-invasive minimum
    assert eicu[6]["temp_score"] == 0
    assert eicu[7]["resp_rate_score"] == 0


def test_eicu_gcs_validation_and_exam_fallback(eicu) -> None:
    assert eicu[4]["gcs_score"] == 10  # charted 17 is invalid: physical exam GCS 7
    assert eicu[5]["gcs_score"] == 4  # GCS 3 after offset 1440 is outside


def test_eicu_urine_rows_and_apache_fallback(eicu) -> None:
    assert eicu[8]["urineoutput_score"] == 5  # 700 mL; the PACU Foley row is excluded
    assert eicu[9]["urineoutput_score"] == 1  # catheter pattern, 2000 mL
    assert eicu[10]["urineoutput_score"] == 8  # no urine row: APACHE urine 7000
    assert eicu[11]["urineoutput_score"] == 0  # APACHE urine -1 is missing


def test_eicu_minus_one_and_elective_surgery(eicu) -> None:
    assert eicu[11]["mechvent_score"] == 9  # APACHE intubated
    assert eicu[13]["mechvent_score"] == 9  # airway documented in the window
    assert eicu[14]["mechvent_score"] == 0  # airway documented after offset 1440
    # -1 is not 0 and not missing: counts as elective (0 points) for stay 11
    got = {s: eicu[s]["electivesurgery_score"] for s in (1, 11, 12, 13, 14)}
    assert got == {1: 6, 11: 0, 12: 6, 13: 0, 14: 6}
    parts = [c for c in eicu[1] if c.endswith("_score")]
    for row in eicu.values():
        assert row["oasis"] == sum(row[p] for p in parts)
