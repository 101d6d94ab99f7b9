"""mimic-apsiii-24h(-raw): hand-built stays for the trickiest APS III rules: worst from
normal and its tie rule, acute renal failure, the ventilated respiratory-rate override, the
two oxygenation paths and the gas window, acid-base, GCS and missing data."""

from __future__ import annotations

from typing import Any

import pytest
from task_rows import at, empty_database, insert, result, stay

STAYS = range(1, 15)


def _vitals(stay_id: int, **values: float) -> dict[str, Any]:
    return {"subject_id": stay_id, "stay_id": stay_id, **values}


def _gas(stay_id: int, hours: float, **values: Any) -> dict[str, Any]:
    return {
        "subject_id": stay_id,
        "hadm_id": stay_id * 10,
        "charttime": at(hours),
        "specimen": "ART.",
        **values,
    }


def _vent(stay_id: int, start: float, end: float) -> dict[str, Any]:
    return {
        "stay_id": stay_id,
        "starttime": at(start),
        "endtime": at(end),
        "ventilation_status": "InvasiveVent",
    }


@pytest.fixture(scope="module")
def aps(catalog, library) -> dict[Any, dict[str, Any]]:
    task = catalog.task("mimic-apsiii-24h")
    con = empty_database(task, library)
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in STAYS])
    insert(
        con,
        "mimiciv_hosp.admissions",
        [{"subject_id": s, "hadm_id": s * 10, "admittime": at(-2)} for s in STAYS],
    )
    insert(con, "mimiciv_hosp.patients", [{"subject_id": s, "anchor_age": 60} for s in STAYS])
    insert(
        con,
        "first_day_vitalsign",
        [
            # 1: max further from 75 than min; 2: min further; 3: mean BP tie at 20 from 90
            _vitals(1, heart_rate_min=60.0, heart_rate_max=100.0),
            _vitals(2, heart_rate_min=38.0, heart_rate_max=110.0),
            _vitals(3, mbp_min=70.0, mbp_max=110.0, heart_rate_min=50.0, heart_rate_max=100.0),
            # 6, 7: same respiratory rates, 6 ventilated in the first day
            _vitals(6, resp_rate_min=4.0, resp_rate_max=12.0),
            _vitals(7, resp_rate_min=4.0, resp_rate_max=12.0),
            # 8: charted glucose 420 beats the laboratory maximum
            _vitals(8, glucose_min=90.0, glucose_max=420.0),
        ],
    )
    insert(
        con,
        "first_day_lab",
        [
            {"subject_id": 3, "stay_id": 3, "bun_min": 10.0, "bun_max": 25.0},
            {"subject_id": 4, "stay_id": 4, "creatinine_min": 1.0, "creatinine_max": 1.6},
            {"subject_id": 5, "stay_id": 5, "creatinine_min": 1.0, "creatinine_max": 1.6},
            {"subject_id": 9, "stay_id": 9, "creatinine_min": 1.0, "creatinine_max": 1.6},
            {"subject_id": 8, "stay_id": 8, "glucose_min": 100.0, "glucose_max": 150.0},
        ],
    )
    insert(
        con,
        "first_day_urine_output",
        [
            {"subject_id": s, "stay_id": s, "urineoutput": u}
            for s, u in ((4, 300.0), (5, 300.0), (9, 300.0), (10, 4000.0))
        ],
    )
    insert(
        con,
        "mimiciv_hosp.diagnoses_icd",
        [
            {"subject_id": 4, "hadm_id": 40, "seq_num": 1, "icd_code": "I10", "icd_version": 10},
            {"subject_id": 5, "hadm_id": 50, "seq_num": 1, "icd_code": "N185", "icd_version": 10},
        ],
    )
    insert(con, "ventilation", [_vent(6, -10, 0), _vent(12, 0, 30), _vent(13, 0, 30)])
    insert(
        con,
        "bg",
        [
            # 11: unventilated gas, FiO2 unknown (counts as 21): PaO2 path
            _gas(11, 2, po2=65.0, aado2=600.0, ph=7.25, pco2=45.0),
            _gas(11, 24, po2=40.0, ph=7.10, pco2=60.0),  # at I + 24 h: outside
            # 12: ventilated gas with FiO2 60: A-aDO2 path
            _gas(12, 3, po2=90.0, aado2=300.0, fio2=60.0, ph=7.62, pco2=20.0),
            # 13: ventilated gas with FiO2 40: neither path
            _gas(13, 3, po2=55.0, aado2=300.0, fio2=40.0),
        ],
    )
    insert(
        con,
        "first_day_gcs",
        [
            {"subject_id": 10, "stay_id": 10, "gcs_eyes": 1, "gcs_verbal": 1, "gcs_motor": 1},
            {
                "subject_id": 14,
                "stay_id": 14,
                "gcs_eyes": 1,
                "gcs_verbal": 0,
                "gcs_motor": 1,
                "gcs_unable": 1,
            },
        ],
    )
    rows = result(task, con)
    con.close()
    return rows


def test_worst_from_normal_takes_the_side_further_from_the_reference(aps) -> None:
    assert aps[1]["hr_score"] == 1  # 100 is 25 from 75, 60 only 15: score(100) = 1
    assert aps[2]["hr_score"] == 8  # 38 is 37 away, 110 is 35: score(38) = 8


def test_equal_distance_takes_the_higher_score(aps) -> None:
    assert aps[3]["mbp_score"] == 6  # 70 and 110 both 20 from 90: max(6, 4)
    assert aps[3]["hr_score"] == 1  # 50 and 100 both 25 from 75: max(0, 1)


def test_bun_and_bilirubin_use_the_maximum(aps) -> None:
    assert aps[3]["bun_score"] == 7  # max 25 (< 40), although 10 would score 0


def test_acute_renal_failure_needs_diagnoses_without_ckd(aps) -> None:
    assert aps[4]["creatinine_score"] == 10  # 1.6, urine 300, diagnoses without CKD
    assert aps[5]["creatinine_score"] == 4  # CKD stage 5: no ARF, worst from 1 = 1.6
    assert aps[9]["creatinine_score"] == 4  # no diagnosis rows at all: no ARF


def test_ventilated_low_respiratory_rate_scores_zero(aps) -> None:
    assert aps[6]["resp_rate_score"] == 0  # episode ends exactly at admission: overlaps
    assert aps[7]["resp_rate_score"] == 17  # same rates unventilated: 4 < 6


def test_glucose_combines_laboratory_and_charted_values(aps) -> None:
    assert aps[8]["glucose_score"] == 5  # 420 (charted) is further from 130 than 90


def test_oxygenation_paths_and_the_gas_window(aps) -> None:
    assert aps[11]["pao2_aado2_score"] == 5  # PaO2 65; the gas at I + 24 h is excluded
    assert aps[11]["acidbase_score"] == 3  # pH 7.25 with PaCO2 45
    assert aps[12]["pao2_aado2_score"] == 9  # A-aDO2 300
    assert aps[12]["acidbase_score"] == 0  # pH 7.62 with PaCO2 20
    assert aps[13]["pao2_aado2_score"] == 0  # ventilated with FiO2 below 50: no path


def test_urine_gcs_and_missing_components(aps) -> None:
    assert aps[4]["uo_score"] == 15 and aps[10]["uo_score"] == 1
    assert aps[1]["uo_score"] == 0  # no urine charted
    assert aps[10]["gcs_score"] == 48 and aps[14]["gcs_score"] == 0
    parts = [c for c in aps[1] if c.endswith("_score")]
    assert len(parts) == 16
    for row in aps.values():
        assert row["apsiii"] == sum(row[p] for p in parts)
    assert aps[1]["apsiii"] == 1
