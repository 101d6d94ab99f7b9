"""Severity scores (sirs, oasis, sapsii, apsiii) on hand-built stays, bin by bin.

Each case is one ICU stay whose inputs put one component into one bin; expected points are
read from the clinical rules, not from the SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from concept_rows import at
from derived_inputs import Case, by_key, insert_cases, prepare_inputs

FIRST_DAY = (
    "first_day_vitalsign",
    "first_day_lab",
    "first_day_gcs",
    "first_day_urine_output",
    "first_day_bg_art",
    "age",
    "ventilation",
    "bg",
)


def _run(
    mimic_con,
    build,
    rows,
    concept: str,
    cases: Sequence[Case],
    *,
    admittime: Any = None,
    inputs: Sequence[str] = FIRST_DAY,
) -> dict[int, dict[str, Any]]:
    prepare_inputs(build, *inputs)
    insert_cases(mimic_con, cases, intime=at(0), admittime=admittime or at(-10))
    build(concept, with_dependencies=False)
    got = by_key(rows(concept))
    assert len(got) == len(cases)
    return got


def _one(table: str, **values: Any) -> Case:
    return {f"mimiciv_derived.{table}": values}


# ---------------------------------------------------------------- SIRS


def test_sirs_criteria(mimic_con, build, rows):
    vit, lab, art = "first_day_vitalsign", "first_day_lab", "first_day_bg_art"
    groups = {
        "temp_score": [
            (_one(vit, temperature_min=35.9, temperature_max=37.0), 1),
            (_one(vit, temperature_min=36.0, temperature_max=38.0), 0),
            (_one(vit, temperature_min=36.5, temperature_max=38.1), 1),
            ({}, None),
        ],
        "heart_rate_score": [
            (_one(vit, heart_rate_max=90.0), 0),
            (_one(vit, heart_rate_max=90.1), 1),
            ({}, None),
        ],
        "resp_score": [
            (_one(vit, resp_rate_max=20.0), 0),
            (_one(vit, resp_rate_max=21.0), 1),
            (_one(art, pco2_min=31.9), 1),
            ({**_one(vit, resp_rate_max=18.0), **_one(art, pco2_min=32.0)}, 0),
            ({}, None),
        ],
        "wbc_score": [
            (_one(lab, wbc_min=3.9, wbc_max=5.0), 1),
            (_one(lab, wbc_min=4.0, wbc_max=12.0), 0),
            (_one(lab, wbc_min=4.0, wbc_max=12.1), 1),
            (_one(lab, wbc_min=5.0, wbc_max=6.0, bands_max=11.0), 1),
            (_one(lab, wbc_min=5.0, wbc_max=6.0, bands_max=10.0), 0),
            (_one(lab, bands_max=11.0), 1),
            ({}, None),
        ],
    }
    cases = [case for group in groups.values() for case, _ in group]
    got = _run(mimic_con, build, rows, "sirs", cases)
    offset = 0
    for column, group in groups.items():
        for i, (case, score) in enumerate(group):
            assert got[100 + offset + i][column] == score, (column, case)
        offset += len(group)
    for row in got.values():
        parts = [row[c] for c in ("temp_score", "heart_rate_score", "resp_score", "wbc_score")]
        assert row["sirs"] == sum(p or 0 for p in parts)
    assert sum(row["sirs"] for row in got.values()) == sum(
        s or 0 for group in groups.values() for _, s in group
    )


# ---------------------------------------------------------------- OASIS


def _grouped(
    groups: dict[str, list[tuple[Case, Any]]],
) -> tuple[list[Case], list[tuple[str, int, Any]]]:
    cases: list[Case] = []
    expected: list[tuple[str, int, Any]] = []
    for column, group in groups.items():
        for case, score in group:
            expected.append((column, len(cases), score))
            cases.append(case)
    return cases, expected


def _assert_grouped(
    got: dict[int, dict[str, Any]], cases: Sequence[Case], expected: Sequence[tuple[str, int, Any]]
) -> None:
    for column, index, score in expected:
        assert got[100 + index][column] == score, (column, cases[index])


def _admit_minutes_before(minutes: float) -> Case:
    from datetime import timedelta

    return {"mimiciv_hosp.admissions": {"admittime": at(0) - timedelta(minutes=minutes)}}


def _vent(start: float, end: float, status: str = "InvasiveVent") -> Case:
    return {
        "mimiciv_derived.ventilation": {
            "starttime": at(start),
            "endtime": at(end),
            "ventilation_status": status,
        }
    }


def _service(admission_type: str, *services: tuple[str, float]) -> Case:
    return {
        "mimiciv_hosp.admissions": {"admission_type": admission_type},
        "mimiciv_hosp.services": [{"transfertime": at(t), "curr_service": s} for s, t in services],
    }


def test_oasis_component_bins(mimic_con, build, rows):
    vit, gcs, uo = "first_day_vitalsign", "first_day_gcs", "first_day_urine_output"
    groups: dict[str, list[tuple[Case, Any]]] = {
        "preiculos_score": [
            (_admit_minutes_before(m), s)
            for m, s in [
                (-5, 5),
                (10.1, 5),
                (10.2, 3),
                (296.9, 3),
                (297, 0),
                (1439, 0),
                (1440, 2),
                (18707, 2),
                (18708, 1),
            ]
        ],
        "age_score": [
            (_one("age", age=a), s)
            for a, s in [
                (23.9, 0),
                (24.0, 3),
                (53.0, 3),
                (53.5, 6),
                (77.0, 6),
                (89.0, 9),
                (89.5, 0),
                (90.0, 7),
            ]
        ]
        + [({}, None)],
        "gcs_score": [
            (_one(gcs, gcs_min=g), s)
            for g, s in [(7.0, 10), (8.0, 4), (13.0, 4), (14.0, 3), (15.0, 0)]
        ]
        + [({}, None)],
        "heart_rate_score": [
            (_one(vit, heart_rate_min=a, heart_rate_max=b), s)
            for a, b, s in [
                (60.0, 126.0, 6),
                (32.0, 80.0, 4),
                (60.0, 107.0, 3),
                (60.0, 125.0, 3),
                (60.0, 89.0, 1),
                (60.0, 106.0, 1),
                (60.0, 106.5, 0),
                (60.0, 88.0, 0),
            ]
        ],
        "mbp_score": [
            (_one(vit, mbp_min=a, mbp_max=b), s)
            for a, b, s in [
                (20.64, 80.0, 4),
                (50.9, 80.0, 3),
                (70.0, 143.45, 3),
                (51.0, 80.0, 2),
                (61.32, 80.0, 2),
                (61.33, 143.44, 0),
            ]
        ],
        "resp_rate_score": [
            (_one(vit, resp_rate_min=a, resp_rate_max=b), s)
            for a, b, s in [
                (5.0, 20.0, 10),
                (12.0, 45.0, 9),
                (12.0, 31.0, 6),
                (14.0, 23.0, 1),
                (12.0, 22.0, 1),
                (13.0, 22.0, 0),
            ]
        ],
        "temp_score": [
            (_one(vit, temperature_min=a, temperature_max=b), s)
            for a, b, s in [
                (37.0, 39.89, 6),
                (35.93, 37.0, 4),
                (33.22, 37.0, 4),
                (33.21, 35.0, 4),
                (33.21, 37.0, 3),
                (36.39, 36.5, 2),
                (36.5, 36.89, 2),
                (36.5, 39.88, 2),
                (36.4, 36.88, 0),
            ]
        ],
        "urineoutput_score": [
            (_one(uo, urineoutput=u), s)
            for u, s in [
                (671.08, 10),
                (671.09, 5),
                (1426.99, 5),
                (1426.995, 0),
                (1427.0, 1),
                (2544.14, 1),
                (2544.15, 0),
                (6896.8, 0),
                (6896.81, 8),
            ]
        ]
        + [({}, None)],
        "mechvent_score": [
            (_vent(24, 30), 9),
            (_vent(-10, 0), 9),
            (_vent(24.1, 30), 0),
            (_vent(0, 10, "NonInvasiveVent"), 0),
            ({}, 0),
        ],
        "electivesurgery_score": [
            (_service("ELECTIVE", ("SURG", 23)), 0),
            (_service("ELECTIVE", ("MED", -50), ("ORTHO", 1)), 0),
            (_service("ELECTIVE", ("SURG", 24)), 6),  # not before intime + 24 h
            (_service("ELECTIVE", ("MED", 0)), 6),
            (_service("SURGICAL SAME DAY ADMISSION", ("SURG", 0)), 6),
            (_service("EW EMER.", ("CSURG", 0)), 6),
            ({}, 6),
        ],
    }
    cases, expected = _grouped(groups)
    got = _run(
        mimic_con,
        build,
        rows,
        "oasis",
        cases,
        inputs=(
            "age",
            "first_day_gcs",
            "first_day_vitalsign",
            "first_day_urine_output",
            "ventilation",
        ),
    )
    _assert_grouped(got, cases, expected)
    columns = [c for c in groups if c != "preiculos_score"] + ["preiculos_score"]
    for row in got.values():
        assert row["oasis"] == sum(row[c] or 0 for c in columns)
        assert row["oasis_prob"] == pytest.approx(
            1 / (1 + 2.718281828459045 ** (-(-6.1746 + 0.1275 * row["oasis"])))
        )


def test_oasis_raw_values_and_expire_flag(mimic_con, build, rows):
    cases: list[Case] = [
        {
            **_one(
                "first_day_vitalsign",
                heart_rate_min=60.0,
                heart_rate_max=130.0,
                mbp_min=70.0,
                mbp_max=90.0,
                resp_rate_min=14.0,
                resp_rate_max=18.0,
                temperature_min=36.5,
                temperature_max=36.8,
            ),
            "mimiciv_hosp.admissions": {"deathtime": at(30), "hospital_expire_flag": 1},
        },
        {
            "mimiciv_hosp.admissions": {
                "deathtime": at(100),
                "dischtime": at(100),
                "discharge_location": "DIED",
            }
        },
    ]
    got = _run(
        mimic_con,
        build,
        rows,
        "oasis",
        cases,
        inputs=(
            "age",
            "first_day_gcs",
            "first_day_vitalsign",
            "first_day_urine_output",
            "ventilation",
        ),
    )
    first = got[100]
    assert (first["heartrate"], first["meanbp"], first["resprate"]) == (130.0, 80.0, 16.0)
    assert first["temp"] == pytest.approx(36.65)  # no temperature points: the mean
    assert (first["icustay_expire_flag"], first["hospital_expire_flag"]) == (1, 1)
    assert first["preiculos"] == pytest.approx(600.0)
    assert got[101]["icustay_expire_flag"] == 0  # died after the ICU; 'DIED' is not tested


# ---------------------------------------------------------------- SAPS-II


def _rows(table: str, *values: dict[str, Any]) -> Case:
    return {f"mimiciv_derived.{table}": list(values)}


def _vitals(column: str, *values: float) -> Case:
    return _rows("vitalsign", *[{"charttime": at(1 + i), column: v} for i, v in enumerate(values)])


def _chem(column: str, *values: float, table: str = "chemistry") -> Case:
    return _rows(
        table,
        *[{"charttime": at(1 + i), "specimen_id": i, column: v} for i, v in enumerate(values)],
    )


def _dx(version: int, code: str) -> Case:
    return {
        "mimiciv_hosp.diagnoses_icd": [{"seq_num": 1, "icd_version": version, "icd_code": code}]
    }


def _gas(hour: float, ratio: float, specimen: str = "ART.") -> dict[str, Any]:
    return {"charttime": at(hour), "specimen": specimen, "pao2fio2ratio": ratio}


SAPS_INPUTS = (
    "age",
    "bg",
    "chemistry",
    "complete_blood_count",
    "enzyme",
    "gcs",
    "vitalsign",
    "urine_output",
    "ventilation",
)


def test_sapsii_component_bins(mimic_con, build, rows):
    groups: dict[str, list[tuple[Case, Any]]] = {
        "age_score": [
            (_one("age", age=a), s)
            for a, s in [
                (39.9, 0),
                (40.0, 7),
                (59.9, 7),
                (60.0, 12),
                (70.0, 15),
                (75.0, 16),
                (80.0, 18),
            ]
        ],
        "hr_score": [
            (_vitals("heart_rate", a, b), s)
            for a, b, s in [
                (39.0, 80.0, 11),
                (70.0, 160.0, 7),
                (70.0, 120.0, 4),
                (69.0, 119.0, 2),
                (70.0, 119.0, 0),
            ]
        ]
        + [({}, None)],
        "sysbp_score": [
            (_vitals("sbp", a, b), s)
            for a, b, s in [
                (69.0, 120.0, 13),
                (99.0, 120.0, 5),
                (100.0, 200.0, 2),
                (100.0, 199.0, 0),
            ]
        ],
        "temp_score": [(_vitals("temperature", 36.0, t), s) for t, s in [(39.0, 3), (38.9, 0)]],
        "uo_score": [
            (
                _rows(
                    "urine_output",
                    *[{"charttime": at(1 + i), "urineoutput": v} for i, v in enumerate(us)],
                ),
                s,
            )
            for us, s in [
                ((499.0,), 11),
                ((500.0,), 4),
                ((999.0,), 4),
                ((1000.0,), 0),
                ((300.0, 300.0), 4),
            ]
        ],
        "bun_score": [(_chem("bun", 10.0, b), s) for b, s in [(27.9, 0), (28.0, 6), (84.0, 10)]],
        "wbc_score": [
            (_chem("wbc", a, b, table="complete_blood_count"), s)
            for a, b, s in [(0.9, 5.0, 12), (5.0, 20.0, 3), (1.0, 19.9, 0)]
        ],
        "potassium_score": [
            (_chem("potassium", a, b), s)
            for a, b, s in [(2.9, 4.0, 3), (4.0, 5.0, 3), (3.0, 4.9, 0)]
        ],
        "sodium_score": [
            (_chem("sodium", a, b), s)
            for a, b, s in [(124.0, 130.0, 5), (130.0, 145.0, 1), (125.0, 144.0, 0)]
        ],
        "bicarbonate_score": [
            (_chem("bicarbonate", a, 30.0), s)
            for a, s in [(14.9, 6), (15.0, 3), (19.9, 3), (20.0, 0)]
        ],
        "bilirubin_score": [
            (_chem("bilirubin_total", 0.5, b, table="enzyme"), s)
            for b, s in [(3.9, 0), (4.0, 4), (6.0, 9)]
        ],
        "gcs_score": [
            (_rows("gcs", {"charttime": at(2), "gcs": g}, {"charttime": at(3), "gcs": 15.0}), s)
            for g, s in [
                (2.0, None),
                (3.0, 26),
                (5.0, 26),
                (6.0, 13),
                (8.0, 13),
                (9.0, 7),
                (10.0, 7),
                (11.0, 5),
                (13.0, 5),
                (14.0, 0),
                (15.0, 0),
            ]
        ],
        "comorbidity_score": [
            (_dx(10, "B21"), 17),
            (
                {
                    "mimiciv_hosp.diagnoses_icd": [
                        {"seq_num": 1, "icd_version": 10, "icd_code": "B20"},
                        {"seq_num": 2, "icd_version": 10, "icd_code": "C951"},
                    ]
                },
                17,
            ),
            (_dx(9, "20300"), 10),
            (_dx(9, "20239"), 0),  # between 20238 and 20240
            (_dx(10, "C951"), 10),
            (_dx(9, "1970"), 9),
            (_dx(9, "78951"), 9),
            (_dx(10, "C800"), 9),
            (_dx(10, "C80"), 0),
            ({}, 0),
        ],
        "admissiontype_score": [
            (_service("ELECTIVE", ("SURG", -5)), 0),
            (_service("EW EMER.", ("CSURG", -5)), 8),
            (_service("ELECTIVE", ("MED", -5)), 6),
            (_service("ELECTIVE", ("MED", -5), ("SURG", 1)), 6),  # only the first service
            (_service("ELECTIVE", ("ORTHO", -5)), 6),
            (_service("SURGICAL SAME DAY ADMISSION", ("SURG", -5)), 8),
            ({}, 6),
        ],
    }
    cases, expected = _grouped(groups)
    got = _run(mimic_con, build, rows, "sapsii", cases, inputs=SAPS_INPUTS)
    _assert_grouped(got, cases, expected)
    for row in got.values():
        parts = [v for k, v in row.items() if k.endswith("_score")]
        assert row["sapsii"] == sum(p or 0 for p in parts)
        assert (row["starttime"], row["endtime"]) == (at(0), at(24))


def test_sapsii_window_and_supported_gases(mimic_con, build, rows):
    cases: list[Case] = [
        # window (intime, intime + 24 h]: a heart rate at intime is outside, one at +24 h inside
        _rows(
            "vitalsign",
            {"charttime": at(0), "heart_rate": 30.0},
            {"charttime": at(24), "heart_rate": 165.0},
        ),
        # ventilation (1 h, 10 h]: the gas at its start is not counted
        {**_vent(1, 10), **_rows("bg", _gas(1, 80.0), _gas(2, 150.0), _gas(3, 50.0, "VEN."))},
        # CPAP at +3 h: window [2 h, 7 h]; gas at 2 h excluded, at 7 h included
        {
            **_rows("bg", _gas(2, 50.0), _gas(7, 250.0), _gas(7.5, 40.0)),
            "mimiciv_icu.chartevents": {
                "charttime": at(3),
                "itemid": 226732,
                "value": "CPAP mask ",
            },
        },
        # Bipap at +0.5 h: window clipped to [intime, 4.5 h]
        {
            **_rows("bg", _gas(0.2, 99.0)),
            "mimiciv_icu.chartevents": {
                "charttime": at(0.5),
                "itemid": 226732,
                "value": "Bipap mask ",
            },
        },
        # unsupported gas only
        _rows("bg", _gas(5, 50.0)),
    ]
    got = _run(mimic_con, build, rows, "sapsii", cases, inputs=SAPS_INPUTS)
    assert got[100]["hr_score"] == 7
    assert [got[100 + i]["pao2fio2_score"] for i in range(1, 5)] == [9, 6, 11, None]


# ---------------------------------------------------------------- APS III


def _same(column: str, value: float | None, table: str = "first_day_vitalsign") -> Case:
    return _one(table, **{f"{column}_min": value, f"{column}_max": value})


def _lab(column: str, value: float) -> Case:
    return _same(column, value, "first_day_lab")


APS_INPUTS = (
    "bg",
    "ventilation",
    "first_day_vitalsign",
    "first_day_lab",
    "first_day_gcs",
    "first_day_urine_output",
)


def _art(hour: float, **values: Any) -> dict[str, Any]:
    return {"charttime": at(hour), "specimen": "ART.", **values}


def _aps_physiology_groups() -> dict[str, list[tuple[Case, Any]]]:
    return {
        "hr_score": [
            (_same("heart_rate", v), s)
            for v, s in [
                (39.0, 8),
                (40.0, 5),
                (49.0, 5),
                (50.0, 0),
                (99.0, 0),
                (100.0, 1),
                (110.0, 5),
                (120.0, 7),
                (140.0, 13),
                (155.0, 17),
            ]
        ]
        + [({}, None)],
        "mbp_score": [
            (_same("mbp", v), s)
            for v, s in [
                (39.0, 23),
                (40.0, 15),
                (60.0, 7),
                (70.0, 6),
                (80.0, 0),
                (100.0, 4),
                (120.0, 7),
                (130.0, 9),
                (140.0, 10),
            ]
        ],
        "temp_score": [
            (_same("temperature", v), s)
            for v, s in [
                (32.9, 20),
                (33.0, 16),
                (33.5, 13),
                (34.0, 8),
                (35.0, 2),
                (36.0, 0),
                (40.0, 4),
            ]
        ],
        "resp_rate_score": [
            (_same("resp_rate", v), s)
            for v, s in [
                (5.0, 17),
                (6.0, 8),
                (12.0, 7),
                (14.0, 0),
                (25.0, 6),
                (35.0, 9),
                (40.0, 11),
                (50.0, 18),
            ]
        ]
        + [
            ({**_same("resp_rate", v), **_vent(2, 10)}, s)
            for v, s in [(5.0, 0), (13.0, 0), (25.0, 6)]
        ],
        "hematocrit_score": [
            (_lab("hematocrit", v), s) for v, s in [(40.9, 3), (41.0, 0), (50.0, 3)]
        ],
        "wbc_score": [
            (_lab("wbc", v), s) for v, s in [(0.9, 19), (1.0, 5), (3.0, 0), (20.0, 1), (25.0, 5)]
        ],
        "bun_score": [
            (_one("first_day_lab", bun_min=1.0, bun_max=v), s)
            for v, s in [(16.9, 0), (17.0, 2), (20.0, 7), (40.0, 11), (80.0, 12)]
        ],
        "sodium_score": [
            (_lab("sodium", v), s) for v, s in [(119.0, 3), (120.0, 2), (135.0, 0), (155.0, 4)]
        ],
        "albumin_score": [
            (_lab("albumin", v), s) for v, s in [(1.9, 11), (2.0, 6), (2.5, 0), (4.5, 4)]
        ],
        "bilirubin_score": [
            (_one("first_day_lab", bilirubin_total_min=0.1, bilirubin_total_max=v), s)
            for v, s in [(1.9, 0), (2.0, 5), (3.0, 6), (5.0, 8), (8.0, 16)]
        ],
        "glucose_score": [
            (_lab("glucose", v), s)
            for v, s in [(39.0, 8), (40.0, 9), (60.0, 0), (200.0, 3), (350.0, 5)]
        ]
        + [
            (
                {
                    **_lab("glucose", 100.0),
                    **_one("first_day_vitalsign", glucose_min=39.0, glucose_max=150.0),
                },
                8,
            )
        ],
        "uo_score": [
            (_one("first_day_urine_output", urineoutput=v), s)
            for v, s in [
                (399.0, 15),
                (400.0, 8),
                (600.0, 7),
                (900.0, 5),
                (1500.0, 4),
                (2000.0, 0),
                (4000.0, 1),
            ]
        ]
        + [({}, None)],
    }


def test_apsiii_physiology_bins(mimic_con, build, rows):
    cases, expected = _grouped(_aps_physiology_groups())
    got = _run(mimic_con, build, rows, "apsiii", cases, inputs=APS_INPUTS)
    _assert_grouped(got, cases, expected)


def test_apsiii_worst_from_normal_and_renal_failure(mimic_con, build, rows):
    dx = {"mimiciv_hosp.diagnoses_icd": [{"seq_num": 1, "icd_version": 10, "icd_code": "I10"}]}
    ckd = {"mimiciv_hosp.diagnoses_icd": [{"seq_num": 1, "icd_version": 10, "icd_code": "N185"}]}
    low_uo = _one("first_day_urine_output", urineoutput=409.0)
    creat_15 = _lab("creatinine", 1.5)
    groups: dict[str, list[tuple[Case, Any]]] = {
        "hr_score": [
            (_one("first_day_vitalsign", heart_rate_min=45.0, heart_rate_max=100.0), 5),
            (_one("first_day_vitalsign", heart_rate_min=50.0, heart_rate_max=100.0), 1),  # tie
            (_one("first_day_vitalsign", heart_rate_min=35.0, heart_rate_max=115.0), 8),  # tie
            (_one("first_day_vitalsign", heart_rate_min=70.0, heart_rate_max=130.0), 7),
        ],
        "creatinine_score": [
            (_lab("creatinine", 0.4), 3),
            (_lab("creatinine", 0.5), 0),
            (_lab("creatinine", 1.5), 4),
            (_lab("creatinine", 1.95), 7),
            (_one("first_day_lab", creatinine_min=0.25, creatinine_max=1.75), 4),  # tie
            ({**creat_15, **low_uo, **dx}, 10),  # acute renal failure
            (
                {**_one("first_day_lab", creatinine_min=0.3, creatinine_max=1.5), **low_uo, **dx},
                10,
            ),  # ARF: the maximum counts
            ({**creat_15, **low_uo}, 4),  # no diagnosis row: no ARF
            ({**creat_15, **low_uo, **ckd}, 4),  # CKD: no ARF
            ({**creat_15, **_one("first_day_urine_output", urineoutput=410.0), **dx}, 4),
            ({**_lab("creatinine", 1.4), **low_uo, **dx}, 0),
        ],
    }
    cases, expected = _grouped(groups)
    got = _run(mimic_con, build, rows, "apsiii", cases, inputs=APS_INPUTS)
    _assert_grouped(got, cases, expected)


def test_apsiii_oxygenation_and_acid_base(mimic_con, build, rows):
    def gas(**values: Any) -> Case:
        return _rows("bg", _art(2, **values))

    def vent_gas(**values: Any) -> Case:
        return {**_vent(1, 10), **gas(**values)}

    groups: dict[str, list[tuple[Case, Any]]] = {
        "pao2_aado2_score": [
            (gas(po2=49.0), 15),
            (gas(po2=50.0), 5),
            (gas(po2=70.0), 2),
            (gas(po2=80.0), 0),
            (gas(po2=49.0, fio2=50.0), None),  # not ventilated but FiO2 >= 50: neither path
            (vent_gas(po2=60.0, fio2=50.0, aado2=99.0), 0),
            (vent_gas(po2=60.0, fio2_chartevents=60.0, aado2=100.0), 7),
            (vent_gas(po2=60.0, fio2=50.0, aado2=250.0), 9),
            (vent_gas(po2=60.0, fio2=50.0, aado2=350.0), 11),
            (vent_gas(po2=60.0, fio2=50.0, aado2=500.0), 14),
            (vent_gas(po2=60.0, aado2=500.0), None),  # ventilated, FiO2 unknown
            (vent_gas(po2=60.0, fio2=40.0, aado2=500.0), None),  # ventilated, FiO2 < 50
            (
                {
                    **_vent(1, 10),
                    **_rows("bg", _art(2, po2=60.0, fio2=80.0, aado2=500.0), _art(30, po2=45.0)),
                },
                15,
            ),  # PaO2 path first; whole stay
            ({}, None),
        ],
        "acidbase_score": [
            (gas(po2=90.0, ph=ph, pco2=pco2), s)
            for ph, pco2, s in [
                (7.19, 49.0, 12),
                (7.19, 50.0, 4),
                (7.20, 29.0, 9),
                (7.25, 39.0, 6),
                (7.29, 49.0, 3),
                (7.29, 50.0, 2),
                (7.30, 29.0, 9),
                (7.34, 44.0, 0),
                (7.34, 45.0, 1),
                (7.35, 29.0, 5),
                (7.44, 44.0, 0),
                (7.44, 45.0, 1),
                (7.45, 29.0, 5),
                (7.45, 34.0, 0),
                (7.49, 44.0, 2),
                (7.49, 45.0, 12),
                (7.50, 39.0, 3),
                (7.59, 40.0, 12),
                (7.60, 24.0, 0),
                (7.60, 39.0, 3),
                (7.60, 40.0, 12),
            ]
        ]
        + [
            (
                _rows(
                    "bg",
                    _art(2, po2=90.0, ph=7.40, pco2=40.0),
                    _art(3, po2=90.0, ph=7.32, pco2=25.0),
                ),
                9,
            ),  # the worst gas
            (_rows("bg", _art(2, po2=90.0, ph=7.40)), None),  # no PaCO2
            (_rows("bg", {**_art(2, po2=90.0, ph=7.1, pco2=30.0), "specimen": "VEN."}), None),
        ],
    }
    cases, expected = _grouped(groups)
    got = _run(mimic_con, build, rows, "apsiii", cases, inputs=APS_INPUTS)
    _assert_grouped(got, cases, expected)


GCS_CASES = [
    # (eyes, verbal, motor, unable, points)
    (1, 1, 1, 0, 48),
    (1, 1, 4, 0, 33),
    (1, 1, 6, 0, 16),
    (1, 3, 2, 0, 29),
    (1, 2, 3, 0, 24),
    (1, 3, 5, 0, None),
    (1, 4, 6, 0, None),
    (2, 1, 2, 0, 29),
    (3, 1, 4, 0, 24),
    (4, 1, 5, 0, 15),
    (4, 2, 1, 0, 29),
    (4, 3, 4, 0, 24),
    (4, 3, 5, 0, 13),
    (4, 2, 6, 0, 10),
    (4, 4, 3, 0, 13),
    (4, 4, 5, 0, 8),
    (4, 4, 6, 0, 3),
    (4, 5, 5, 0, 3),
    (4, 5, 6, 0, 0),
    (4, 0, 6, 1, 0),
    (4, 0, 6, 0, None),
    (None, 5, 6, 0, None),
]


def test_apsiii_gcs_combinations_and_total(mimic_con, build, rows):
    cases: list[Case] = [
        _one("first_day_gcs", gcs_eyes=e, gcs_verbal=v, gcs_motor=m, gcs_unable=u)
        for e, v, m, u, _ in GCS_CASES
    ]
    got = _run(mimic_con, build, rows, "apsiii", cases, inputs=APS_INPUTS)
    for i, (*combo, points) in enumerate(GCS_CASES):
        assert got[100 + i]["gcs_score"] == points, combo
    for row in got.values():
        parts = [v for k, v in row.items() if k.endswith("_score")]
        assert len(parts) == 16
        assert row["apsiii"] == sum(p or 0 for p in parts)
        assert row["apsiii_prob"] == pytest.approx(
            1 / (1 + 2.718281828459045 ** (-(-4.4360 + 0.04726 * row["apsiii"])))
        )
