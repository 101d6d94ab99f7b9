"""mimic-sapsii-24h(-raw): hand-built stays for SAPS-II's comorbidity and admission-type
points, the (intime, intime + 24 h] window, ventilated and CPAP P/F ratios and GCS."""

from __future__ import annotations

from typing import Any

import pytest
from task_rows import at, empty_database, insert, result, stay

STAYS = range(1, 14)
ADMISSION_TYPE = {1: "ELECTIVE", 2: "EW EMER.", 3: "ELECTIVE", 4: "URGENT", 5: "ELECTIVE"}
SERVICES = {  # stay: [(hours after admission or None, service)]
    1: [(-5.0, "SURG")],
    2: [(-5.0, "CSURG")],
    3: [(-5.0, "ORTHO")],
    4: [(-5.0, "MED"), (1.0, "SURG")],
    5: [(None, "MED"), (-5.0, "NSURG")],
}
DIAGNOSES = {  # stay: [(version, code)]
    6: [(10, "B20"), (10, "C81")],
    7: [(9, "20410"), (9, "1970")],
    8: [(10, "C786")],
    9: [(9, "20239")],
    10: [(9, "1958"), (10, "C800")],
}


def _code(stay_id: int, version: int, code: str) -> dict[str, Any]:
    return {
        "subject_id": stay_id,
        "hadm_id": stay_id * 10,
        "seq_num": 1,
        "icd_code": code,
        "icd_version": version,
    }


@pytest.fixture(scope="module")
def saps(catalog, library) -> dict[Any, dict[str, Any]]:
    task = catalog.task("mimic-sapsii-24h")
    con = empty_database(task, library)
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in STAYS])
    insert(
        con,
        "mimiciv_hosp.admissions",
        [
            {"subject_id": s, "hadm_id": s * 10, "admission_type": ADMISSION_TYPE.get(s, "URGENT")}
            for s in STAYS
        ],
    )
    insert(
        con,
        "mimiciv_hosp.services",
        [
            {
                "subject_id": s,
                "hadm_id": s * 10,
                "transfertime": None if hours is None else at(hours),
                "curr_service": service,
            }
            for s, rows in SERVICES.items()
            for hours, service in rows
        ],
    )
    insert(
        con,
        "mimiciv_hosp.diagnoses_icd",
        [_code(s, v, c) for s, codes in DIAGNOSES.items() for v, c in codes],
    )
    insert(
        con,
        "vitalsign",
        [
            {"subject_id": 11, "stay_id": 11, "charttime": at(0), "heart_rate": 30.0},
            {"subject_id": 11, "stay_id": 11, "charttime": at(24), "heart_rate": 125.0},
        ],
    )
    insert(
        con,
        "ventilation",
        [
            {
                "stay_id": 12,
                "starttime": at(2),
                "endtime": at(6),
                "ventilation_status": "InvasiveVent",
            }
        ],
    )
    insert(
        con,
        "bg",
        [
            {"subject_id": 12, "charttime": at(2), "specimen": "ART.", "pao2fio2ratio": 80.0},
            {"subject_id": 12, "charttime": at(6), "specimen": "ART.", "pao2fio2ratio": 150.0},
            {"subject_id": 12, "charttime": at(9), "specimen": "ART.", "pao2fio2ratio": 60.0},
            {"subject_id": 13, "charttime": at(11), "specimen": "ART.", "pao2fio2ratio": 90.0},
            {"subject_id": 13, "charttime": at(20), "specimen": "ART.", "pao2fio2ratio": 50.0},
        ],
    )
    insert(
        con,
        "mimiciv_icu.chartevents",
        [
            {
                "subject_id": 13,
                "stay_id": 13,
                "charttime": at(h),
                "itemid": 226732,
                "value": "Bipap mask ",
            }
            for h in (8.0, 10.0)
        ],
    )
    insert(
        con,
        "gcs",
        [
            {"subject_id": 11, "stay_id": 11, "charttime": at(3), "gcs": 8.0},
            {"subject_id": 11, "stay_id": 11, "charttime": at(0), "gcs": 3.0},
            {"subject_id": 12, "stay_id": 12, "charttime": at(3), "gcs": 2.0},
        ],
    )
    rows = result(task, con)
    con.close()
    return rows


def test_admission_type_from_the_first_service(saps) -> None:
    got = {s: saps[s]["admissiontype_score"] for s in range(1, 6)}
    # 1 elective + SURG: scheduled; 2 emergency + CSURG: unscheduled; 3 ORTHO is not
    # surgical; 4 first service MED; 5 the undated MED row comes first
    assert got == {1: 0, 2: 8, 3: 6, 4: 6, 5: 6}
    assert saps[6]["admissiontype_score"] == 6  # no services row: medical


def test_comorbidity_points_take_the_worst_group(saps) -> None:
    got = {s: saps[s]["comorbidity_score"] for s in range(6, 11)}
    # 6 AIDS beats lymphoma; 7 ICD-9 leukemia beats metastases; 8 ICD-10 metastasis;
    # 9 20239 lies in no haematologic range; 10 '1958' sorts before '1960', C800 counts
    assert got == {6: 17, 7: 10, 8: 9, 9: 0, 10: 9}


def test_window_excludes_admission_and_includes_the_end(saps) -> None:
    assert saps[11]["hr_score"] == 4  # 30 bpm at admission ignored, 125 at +24 h counts
    assert saps[11]["gcs_score"] == 13  # GCS 3 at admission ignored, 8 counts


def test_pf_ratio_needs_ventilation_or_cpap(saps) -> None:
    # 12: the gas at the episode start is outside (start excluded), the one at its end in;
    # the gas after the episode is not supported
    assert saps[12]["pao2fio2_score"] == 9
    assert saps[12]["gcs_score"] == 0  # a GCS below 3 scores nothing
    # 13: BiPAP at +8 h and +10 h: window (7 h, 14 h] holds the 90 gas, not the 50 one
    assert saps[13]["pao2fio2_score"] == 11
    assert saps[1]["pao2fio2_score"] == 0


def test_total_is_the_sum_of_the_components(saps) -> None:
    parts = [c for c in saps[1] if c.endswith("_score")]
    assert len(parts) == 15
    for row in saps.values():
        assert row["sapsii"] == sum(row[p] for p in parts)
    assert saps[1]["sapsii"] == 0 and saps[8]["sapsii"] == 9 + 6
