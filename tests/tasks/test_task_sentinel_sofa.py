"""mimic-sofa-24h(-raw): one case per rule of the raw task's operational spec.

Most cases insert rows into the derived tables the reference reads; the window cases for
laboratory values and urine output build those first-day tables from source rows.
"""

from __future__ import annotations

import pytest
from task_rows import at, build, insert, result, stay

PLATELETS, URINE = 51265, 226559


def _gas(subject: int, hours: float, ratio: float, specimen: str = "ART.") -> dict[str, object]:
    return {
        "subject_id": subject,
        "charttime": at(hours),
        "specimen": specimen,
        "pao2fio2ratio": ratio,
        "po2": ratio,
    }


def _vent(stay_id: int, start: float, end: float) -> dict[str, object]:
    return {
        "stay_id": stay_id,
        "starttime": at(start),
        "endtime": at(end),
        "ventilation_status": "InvasiveVent",
    }


def _drip(stay_id: int, hours: float, rate: float) -> dict[str, object]:
    return {"stay_id": stay_id, "starttime": at(hours), "endtime": at(hours + 2), "vaso_rate": rate}


@pytest.fixture
def sofa(task_db):
    task, con = task_db("mimic-sofa-24h-raw")
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in range(1, 19)])
    insert(
        con,
        "bg",
        [
            _gas(1, 10, 250.0),
            _gas(1, 12, 350.0),
            _gas(2, 5, 150.0),
            _gas(2, 6, 50.0, specimen="VEN."),
            _gas(3, -6, 90.0),
            _gas(4, 24.01, 50.0),
            _gas(4, -6.01, 50.0),
            _gas(5, 3, 299.0),
        ],
    )
    insert(con, "ventilation", [_vent(1, 0, 10), _vent(2, 4, 8), _vent(3, -7, 2)])
    insert(con, "norepinephrine", [_drip(6, -7, 0.5), _drip(6, 1, 0.05), _drip(10, 3, 0.1)])
    insert(con, "epinephrine", [_drip(8, 2, 0.0), _drip(11, 2, 0.11)])
    insert(con, "dopamine", [_drip(7, 2, 5.0), _drip(9, 2, 15.1)])
    insert(con, "dobutamine", [_drip(12, 24, 2.0)])
    insert(con, "first_day_vitalsign", [{"subject_id": 8, "stay_id": 8, "mbp_min": 65.0}])
    labs = {
        13: (19.0, 1.2, 1.19),
        14: (150.0, 11.99, 3.5),
        15: (None, None, 1.0),
        16: (None, None, 2.0),
        17: (None, None, 1.2),
    }
    insert(
        con,
        "first_day_lab",
        [
            {
                "subject_id": s,
                "stay_id": s,
                "platelets_min": p,
                "bilirubin_total_max": b,
                "creatinine_max": c,
            }
            for s, (p, b, c) in labs.items()
        ],
    )
    gcs = {13: 14.0, 14: 6.0, 17: 15.0, 18: 5.0}
    insert(
        con,
        "first_day_gcs",
        [{"subject_id": s, "stay_id": s, "gcs_min": g} for s, g in gcs.items()],
    )
    urine = {15: 199.0, 16: 499.0, 17: 500.0, 18: None}
    insert(
        con,
        "first_day_urine_output",
        [{"subject_id": s, "stay_id": s, "urineoutput": u} for s, u in urine.items()],
    )
    return result(task, con)


def test_respiration_ventilated_and_unventilated_ladders(sofa) -> None:
    got = {s: sofa[s]["respiration"] for s in (1, 2, 3, 4, 5)}
    # 1: ventilated 250 scores 0, unventilated 350 scores 1; 2: venous gas ignored;
    # 3: gas at I - 6 h inside an episode; 4: gases just outside the window
    assert got == {1: 1, 2: 3, 3: 4, 4: 0, 5: 2}


def test_cardiovascular_uses_infusions_started_in_the_window(sofa) -> None:
    got = {s: sofa[s]["cardiovascular"] for s in range(6, 13)}
    assert got == {6: 3, 7: 2, 8: 1, 9: 4, 10: 3, 11: 4, 12: 2}


def test_coagulation_liver_cns_ladders(sofa) -> None:
    assert (sofa[13]["coagulation"], sofa[13]["liver"], sofa[13]["cns"]) == (4, 1, 1)
    assert (sofa[14]["coagulation"], sofa[14]["liver"], sofa[14]["cns"]) == (0, 3, 3)
    assert (sofa[17]["cns"], sofa[18]["cns"]) == (0, 4)


def test_renal_rule_order_and_unknown_urine(sofa) -> None:
    got = {s: sofa[s]["renal"] for s in (13, 14, 15, 16, 17, 18)}
    assert got == {13: 0, 14: 3, 15: 4, 16: 3, 17: 1, 18: 0}


def test_missing_components_score_zero_and_total_is_the_sum(sofa) -> None:
    parts = ("respiration", "coagulation", "liver", "cardiovascular", "cns", "renal")
    for row in sofa.values():
        assert row["sofa"] == sum(row[p] for p in parts)
    assert sofa[13]["sofa"] == 4 + 1 + 1
    assert {p: sofa[5][p] for p in parts if p != "respiration"} == dict.fromkeys(parts[1:], 0)


def test_windows_for_labs_and_urine_from_source_rows(task_db, library) -> None:
    task, con = task_db("mimic-sofa-24h-raw")
    insert(con, "mimiciv_icu.icustays", [stay(1), stay(2)])
    insert(
        con,
        "mimiciv_hosp.labevents",
        [
            {
                "labevent_id": 1,
                "subject_id": 1,
                "hadm_id": 10,
                "specimen_id": 1,
                "itemid": PLATELETS,
                "charttime": at(-6),
                "valuenum": 40.0,
            },
            {
                "labevent_id": 2,
                "subject_id": 2,
                "hadm_id": 20,
                "specimen_id": 2,
                "itemid": PLATELETS,
                "charttime": at(-6.01),
                "valuenum": 10.0,
            },
        ],
    )
    insert(
        con,
        "mimiciv_icu.outputevents",
        [
            {"subject_id": 1, "stay_id": 1, "itemid": URINE, "charttime": at(-1), "value": 1000.0},
            {"subject_id": 1, "stay_id": 1, "itemid": URINE, "charttime": at(2), "value": 150.0},
            {"subject_id": 2, "stay_id": 2, "itemid": URINE, "charttime": at(24), "value": 450.0},
        ],
    )
    build(con, library, "first_day_lab", "first_day_urine_output")
    rows = result(task, con)
    assert rows[1]["coagulation"] == 3  # platelets at I - 6 h count
    assert rows[2]["coagulation"] == 0  # 36 s earlier they do not
    assert rows[1]["renal"] == 4  # urine before admission is outside [I, I + 24 h]
    assert rows[2]["renal"] == 3  # urine at I + 24 h is inside
