"""Sepsis concepts (suspicion_of_infection, sofa, sepsis3, first_day_sofa) on hand-built stays.

Expected rows are worked out from the clinical rules, not from the SQL.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from concept_rows import at, stay
from derived_inputs import by_key, prepare_inputs


def _culture(
    spec: int,
    subject_id: int,
    chartdate: datetime,
    charttime: datetime | None,
    specimen: str,
    org: str | None = None,
    org_itemid: int | None = None,
) -> dict:
    return {
        "microevent_id": spec * 10 + (org is not None),
        "subject_id": subject_id,
        "micro_specimen_id": spec,
        "chartdate": chartdate,
        "charttime": charttime,
        "spec_itemid": 70012,
        "spec_type_desc": specimen,
        "test_seq": 1,
        "org_name": org,
        "org_itemid": org_itemid,
    }


def _antibiotic(subject_id: int, start: datetime | None, drug: str, stay_id: int | None = 100):
    return {
        "subject_id": subject_id,
        "hadm_id": 10,
        "stay_id": stay_id,
        "antibiotic": drug,
        "route": "IV",
        "starttime": start,
        "stoptime": None,
    }


def test_suspicion_of_infection_culture_matching(insert, build, rows):
    prepare_inputs(build, "antibiotic")
    day = datetime
    insert(
        "mimiciv_derived.antibiotic",
        [
            _antibiotic(1, None, "Cefazolin"),  # NULL start: ab_id 1
            _antibiotic(1, at(10), "Cefepime"),
            _antibiotic(1, at(100), "Vancomycin"),
            _antibiotic(1, at(200), "Meropenem"),
            _antibiotic(1, day(2150, 1, 13, 20), "Linezolid"),
            _antibiotic(1, day(2150, 1, 20, 9), "Zosyn", stay_id=None),
            _antibiotic(1, day(2150, 1, 25, 9), "Levofloxacin"),
            _antibiotic(
                2, at(10), "Cefepime"
            ),  # another subject: cultures of subject 1 never match
        ],
    )
    insert(
        "mimiciv_hosp.microbiologyevents",
        [
            # culture 50 h before Cefepime (within 72 h): positive through its second row
            _culture(1, 1, day(2149, 12, 30), at(-50), "BLOOD CULTURE"),
            _culture(
                1, 1, day(2149, 12, 30), at(-50), "BLOOD CULTURE", "STAPH AUREUS COAG +", 80023
            ),
            _culture(2, 1, day(2149, 12, 29), at(-63), "BLOOD CULTURE"),  # 73 h before: too early
            # after Vancomycin: 10 h and 20 h later, the earlier wins
            _culture(3, 1, day(2150, 1, 6), at(110), "URINE"),
            _culture(4, 1, day(2150, 1, 6), at(120), "SPUTUM", "YEAST", 80026),
            # charted exactly at the Meropenem start: neither before nor after
            _culture(5, 1, day(2150, 1, 9), at(200), "SPUTUM"),
            # Linezolid day: a date-only and a timed culture of the same date before it
            _culture(6, 1, day(2150, 1, 13), None, "MRSA SCREEN", "NEGATIVE", 90856),
            _culture(7, 1, day(2150, 1, 13), day(2150, 1, 13, 10), "BLOOD CULTURE", "", 80023),
            # date-only cultures 3 and 4 days before Zosyn
            _culture(8, 1, day(2150, 1, 17), None, "SWAB", "E. COLI", 80002),
            _culture(9, 1, day(2150, 1, 16), None, "SWAB"),
            # date-only culture the day after Levofloxacin: culture after the antibiotic
            _culture(10, 1, day(2150, 1, 26), None, "URINE"),
        ],
    )
    build("suspicion_of_infection", with_dependencies=False)
    got = [
        (
            r["subject_id"],
            r["ab_id"],
            r["antibiotic"],
            r["suspected_infection"],
            r["suspected_infection_time"],
            r["culture_time"],
            r["specimen"],
            r["positive_culture"],
        )
        for r in rows("suspicion_of_infection", order_by="subject_id, ab_id")
    ]
    assert got == [
        (1, 1, "Cefazolin", 0, None, None, None, None),
        (1, 2, "Cefepime", 1, at(-50), at(-50), "BLOOD CULTURE", 1),
        (1, 3, "Vancomycin", 1, at(100), at(110), "URINE", 0),
        (1, 4, "Meropenem", 0, None, None, None, None),
        # the timed culture wins over the date-only one of the same date
        (1, 5, "Linezolid", 1, day(2150, 1, 13, 10), day(2150, 1, 13, 10), "BLOOD CULTURE", 0),
        (1, 6, "Zosyn", 1, day(2150, 1, 17), day(2150, 1, 17), "SWAB", 1),
        (1, 7, "Levofloxacin", 1, day(2150, 1, 25, 9), day(2150, 1, 26), "URINE", 0),
        (2, 1, "Cefepime", 0, None, None, None, None),
    ]
    zosyn = rows("suspicion_of_infection", order_by="subject_id, ab_id")[5]
    assert (zosyn["stay_id"], zosyn["hadm_id"], zosyn["antibiotic_time"]) == (
        None,
        10,
        day(2150, 1, 20, 9),
    )


SOFA_INPUTS = (
    "icustay_hourly",
    "bg",
    "ventilation",
    "vitalsign",
    "gcs",
    "enzyme",
    "chemistry",
    "complete_blood_count",
    "urine_output_rate",
    "norepinephrine",
    "epinephrine",
    "dopamine",
    "dobutamine",
)


def _hourly_grid(insert, stay_id: int, hours: range) -> None:
    insert(
        "mimiciv_derived.icustay_hourly",
        [{"stay_id": stay_id, "hr": h, "endtime": at(h)} for h in hours],
    )


def _infusion(stay_id: int, start: float, end: float, rate: float) -> dict[str, Any]:
    return {"stay_id": stay_id, "starttime": at(start), "endtime": at(end), "vaso_rate": rate}


def test_sofa_hourly_inputs_windows_and_rolling_worst(insert, build, rows):
    prepare_inputs(build, *SOFA_INPUTS)
    insert("mimiciv_icu.icustays", [stay(1, 10, 100, at(0), 30)])
    _hourly_grid(insert, 100, range(-2, 31))
    insert(
        "mimiciv_derived.vitalsign",
        [
            {"subject_id": 1, "stay_id": 100, "charttime": at(0), "mbp": 80.0},  # hour 0
            {"subject_id": 1, "stay_id": 100, "charttime": at(0.5), "mbp": 65.0},  # hour 1
        ],
    )
    insert(
        "mimiciv_derived.gcs",
        [
            {"subject_id": 1, "stay_id": 100, "charttime": at(-1), "gcs": 3.0},  # pre-ICU hour -1
            {"subject_id": 1, "stay_id": 100, "charttime": at(2), "gcs": 12.0},  # end of hour 2
        ],
    )
    insert(
        "mimiciv_derived.ventilation",
        [
            {
                "stay_id": 100,
                "starttime": at(3),
                "endtime": at(5),
                "ventilation_status": "InvasiveVent",
            },
        ],
    )
    insert(
        "mimiciv_derived.bg",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "charttime": at(2.5),
                "specimen": "ART.",
                "pao2fio2ratio": 350.0,
            },
            {
                "subject_id": 1,
                "hadm_id": 10,
                "charttime": at(2.6),
                "specimen": "VEN.",
                "pao2fio2ratio": 50.0,
            },  # not arterial
            {
                "subject_id": 1,
                "hadm_id": 10,
                "charttime": at(3.2),
                "specimen": "ART.",
                "pao2fio2ratio": 250.0,
            },  # ventilated
            {
                "subject_id": 1,
                "hadm_id": 10,
                "charttime": at(5),
                "specimen": "ART.",
                "pao2fio2ratio": 90.0,
            },  # at the episode end: ventilated
        ],
    )
    insert(
        "mimiciv_derived.enzyme",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "specimen_id": 1,
                "charttime": at(5.5),
                "bilirubin_total": 2.0,
            }
        ],
    )
    insert(
        "mimiciv_derived.chemistry",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "specimen_id": 2,
                "charttime": at(5.5),
                "creatinine": 3.5,
            }
        ],
    )
    insert(
        "mimiciv_derived.complete_blood_count",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "specimen_id": 3,
                "charttime": at(5.5),
                "platelet": 49.0,
            },
            {
                "subject_id": 1,
                "hadm_id": None,
                "specimen_id": 4,
                "charttime": at(5.5),
                "platelet": 10.0,
            },  # no hadm_id: never joined
        ],
    )
    insert(
        "mimiciv_derived.urine_output_rate",
        [
            {"stay_id": 100, "charttime": at(7.5), "urineoutput_24hr": 180.0, "uo_tm_24hr": 24.0},
            {"stay_id": 100, "charttime": at(7.6), "urineoutput_24hr": 10.0, "uo_tm_24hr": 21.99},
            {"stay_id": 100, "charttime": at(7.7), "urineoutput_24hr": 10.0, "uo_tm_24hr": 30.01},
        ],
    )
    insert("mimiciv_derived.norepinephrine", [_infusion(100, 9.5, 11, 0.05)])
    insert("mimiciv_derived.epinephrine", [_infusion(100, 12, 13, 0.0)])
    insert("mimiciv_derived.dopamine", [_infusion(100, 14.5, 15, 16.0)])
    insert("mimiciv_derived.dobutamine", [_infusion(100, 16, 17.5, 5.0)])
    build("sofa", with_dependencies=False)
    got = by_key(rows("sofa"), "hr")
    assert sorted(got) == list(range(31))
    assert (got[0]["meanbp_min"], got[0]["cardiovascular"], got[0]["respiration"]) == (
        80.0,
        0,
        None,
    )
    assert (got[1]["meanbp_min"], got[1]["cardiovascular"]) == (65.0, 1)
    assert (got[1]["starttime"], got[1]["endtime"]) == (at(0), at(1))
    assert (got[2]["gcs_min"], got[2]["cns"]) == (12.0, 2)
    assert (got[3]["pao2fio2ratio_novent"], got[3]["pao2fio2ratio_vent"]) == (350.0, None)
    assert got[3]["respiration"] == 1
    assert (got[4]["pao2fio2ratio_vent"], got[4]["respiration"]) == (250.0, 2)
    assert (got[5]["pao2fio2ratio_vent"], got[5]["respiration"]) == (90.0, 4)
    six = got[6]
    assert (six["bilirubin_max"], six["creatinine_max"], six["platelet_min"]) == (2.0, 3.5, 49.0)
    assert (six["liver"], six["renal"], six["coagulation"]) == (2, 3, 3)
    # worst of hours -17..6: respiration 4, coagulation 3, liver 2, cardiovascular 1,
    # cns 4 (pre-ICU hour -1), renal 3
    assert six["sofa_24hours"] == 4 + 3 + 2 + 1 + 4 + 3
    assert (got[8]["uo_24hr"], got[8]["renal"]) == (pytest.approx(180.0), 4)
    assert got[9]["rate_norepinephrine"] is None
    assert [got[h]["rate_norepinephrine"] for h in (10, 11)] == [0.05, 0.05]
    assert [got[h]["cardiovascular"] for h in (10, 11, 12)] == [3, 3, None]
    assert (got[13]["rate_epinephrine"], got[13]["cardiovascular"]) == (0.0, 3)
    assert got[12]["rate_epinephrine"] is None  # starts exactly at the end of hour 12
    assert (got[15]["rate_dopamine"], got[15]["cardiovascular"]) == (16.0, 4)
    assert (got[17]["rate_dobutamine"], got[17]["cardiovascular"]) == (5.0, 2)
    assert got[18]["rate_dobutamine"] is None
    assert (got[22]["cns_24hours"], got[23]["cns_24hours"]) == (4, 2)
    assert (got[30]["respiration_24hours"], got[30]["cardiovascular_24hours"]) == (0, 4)
    assert got[29]["liver_24hours"] == 2 and got[30]["liver_24hours"] == 0


HOURLY_BINS: list[tuple[str, str, dict[str, Any], int]] = [
    # (component, input table, values, expected hourly score)
    *[
        ("coagulation", "complete_blood_count", {"platelet": v}, s)
        for v, s in [
            (19.0, 4),
            (20.0, 3),
            (49.0, 3),
            (50.0, 2),
            (99.0, 2),
            (100.0, 1),
            (149.0, 1),
            (150.0, 0),
        ]
    ],
    *[
        ("liver", "enzyme", {"bilirubin_total": v}, s)
        for v, s in [
            (1.1, 0),
            (1.2, 1),
            (1.9, 1),
            (2.0, 2),
            (5.9, 2),
            (6.0, 3),
            (11.9, 3),
            (12.0, 4),
        ]
    ],
    *[
        ("cns", "gcs", {"gcs": v}, s)
        for v, s in [
            (15.0, 0),
            (14.0, 1),
            (13.0, 1),
            (12.0, 2),
            (10.0, 2),
            (9.0, 3),
            (6.0, 3),
            (5.0, 4),
            (3.0, 4),
        ]
    ],
    *[
        ("renal", "chemistry", {"creatinine": v}, s)
        for v, s in [(1.1, 0), (1.2, 1), (1.9, 1), (2.0, 2), (3.4, 2), (3.5, 3), (4.9, 3), (5.0, 4)]
    ],
    *[
        ("renal", "urine_output_rate", {"urineoutput_24hr": v, "uo_tm_24hr": 24.0}, s)
        for v, s in [(500.0, 0), (499.0, 3), (200.0, 3), (199.0, 4)]
    ],
    *[
        ("respiration", "bg", {"pao2fio2ratio": v, "specimen": "ART."}, s)
        for v, s in [(400.0, 0), (399.0, 1), (300.0, 1), (299.0, 2), (200.0, 2), (199.0, 2)]
    ],
    *[
        ("respiration", "bg+vent", {"pao2fio2ratio": v, "specimen": "ART."}, s)
        for v, s in [
            (400.0, 0),
            (399.0, 1),
            (299.0, 2),
            (200.0, 2),
            (199.0, 3),
            (100.0, 3),
            (99.0, 4),
        ]
    ],
    *[("cardiovascular", "vitalsign", {"mbp": v}, s) for v, s in [(70.0, 0), (69.9, 1)]],
    *[
        ("cardiovascular", agent, {"vaso_rate": v}, s)
        for agent, v, s in [
            ("norepinephrine", 0.1, 3),
            ("norepinephrine", 0.11, 4),
            ("epinephrine", 0.1, 3),
            ("epinephrine", 0.11, 4),
            ("dopamine", 5.0, 2),
            ("dopamine", 5.1, 3),
            ("dopamine", 15.0, 3),
            ("dopamine", 15.1, 4),
            ("dobutamine", 0.0, 0),
            ("dobutamine", 2.5, 2),
        ]
    ],
]


def test_sofa_hourly_component_bins(insert, build, rows):
    prepare_inputs(build, *SOFA_INPUTS)
    insert("mimiciv_icu.icustays", [stay(2, 20, 200, at(0), len(HOURLY_BINS) + 1)])
    _hourly_grid(insert, 200, range(0, len(HOURLY_BINS) + 2))
    for hour, (_component, table, values, _score) in enumerate(HOURLY_BINS, start=1):
        t = at(hour - 0.5)
        ids = {"subject_id": 2, "hadm_id": 20, "stay_id": 200, "specimen_id": hour}
        if table in ("norepinephrine", "epinephrine", "dopamine", "dobutamine"):
            insert(
                f"mimiciv_derived.{table}",
                [{"stay_id": 200, "starttime": t, "endtime": at(hour), **values}],
            )
            continue
        if table == "bg+vent":
            table = "bg"
            insert(
                "mimiciv_derived.ventilation",
                [
                    {
                        "stay_id": 200,
                        "starttime": at(hour - 0.6),
                        "endtime": at(hour - 0.4),
                        "ventilation_status": "InvasiveVent",
                    }
                ],
            )
        columns = {
            "complete_blood_count": ("subject_id", "hadm_id", "specimen_id"),
            "enzyme": ("subject_id", "hadm_id", "specimen_id"),
            "chemistry": ("subject_id", "hadm_id", "specimen_id"),
            "gcs": ("subject_id", "stay_id"),
            "vitalsign": ("subject_id", "stay_id"),
            "urine_output_rate": ("stay_id",),
            "bg": ("subject_id", "hadm_id"),
        }[table]
        insert(
            f"mimiciv_derived.{table}", [{**{c: ids[c] for c in columns}, "charttime": t, **values}]
        )
    build("sofa", with_dependencies=False)
    got = by_key(rows("sofa"), "hr")
    for hour, (component, table, values, score) in enumerate(HOURLY_BINS, start=1):
        assert got[hour][component] == score, (component, table, values)
        others = {"coagulation", "liver", "cns", "renal", "respiration", "cardiovascular"}
        assert all(got[hour][c] is None for c in others - {component}), (component, values)


def _sofa_row(stay_id: int, hour: float, score: int) -> dict[str, Any]:
    return {
        "stay_id": stay_id,
        "hr": int(hour),
        "endtime": at(hour),
        "sofa_24hours": score,
        "respiration_24hours": score,
        "coagulation_24hours": 0,
        "liver_24hours": 0,
        "cardiovascular_24hours": 0,
        "cns_24hours": 0,
        "renal_24hours": 0,
    }


def _si(
    stay_id: int | None,
    ab_id: int,
    si_time: float | None,
    ab_time: float,
    culture_time: float | None,
) -> dict[str, Any]:
    return {
        "subject_id": 1,
        "stay_id": stay_id,
        "hadm_id": 10,
        "ab_id": ab_id,
        "antibiotic_time": at(ab_time),
        "suspected_infection": int(si_time is not None),
        "suspected_infection_time": None if si_time is None else at(si_time),
        "culture_time": None if culture_time is None else at(culture_time),
    }


def test_sepsis3_first_match_per_stay(insert, build, rows):
    prepare_inputs(build, "sofa", "suspicion_of_infection")
    insert(
        "mimiciv_derived.suspicion_of_infection",
        [
            _si(100, 1, 10, 10, 12),
            _si(100, 2, 5, 8, 5),  # earlier suspicion: chosen
            _si(100, 3, None, 1, None),  # not suspected
            _si(None, 4, 1, 1, 1),  # outside any stay
            _si(200, 5, 100, 100, 101),
            _si(300, 6, 10, 10, 10),
            _si(400, 7, None, 10, None),
        ],
    )
    insert(
        "mimiciv_derived.sofa",
        [
            _sofa_row(100, 1, 1),  # below 2
            _sofa_row(100, 2, 2),
            _sofa_row(100, 3, 4),
            _sofa_row(200, 52, 3),  # exactly 48 h before the suspicion: matches
            _sofa_row(200, 125, 5),  # 25 h after: no
            _sofa_row(300, 35, 6),  # 25 h after: no
            _sofa_row(400, 10, 9),
        ],
    )
    build("sepsis3", with_dependencies=False)
    got = [
        (
            r["stay_id"],
            r["antibiotic_time"],
            r["culture_time"],
            r["suspected_infection_time"],
            r["sofa_time"],
            r["sofa_score"],
            r["respiration"],
            r["sepsis3"],
        )
        for r in rows("sepsis3", order_by="stay_id")
    ]
    assert got == [
        (100, at(8), at(5), at(5), at(2), 2, 2, True),
        (200, at(100), at(101), at(100), at(52), 3, 3, True),
    ]


def _first_day_case(insert, i: int, tables: dict[str, dict[str, Any]]) -> None:
    insert("mimiciv_icu.icustays", [stay(i + 1, 10 + i, 100 + i)])
    for table, values in tables.items():
        ids = {"subject_id": i + 1, "stay_id": 100 + i}
        insert(f"mimiciv_derived.{table}", [{**ids, **values}])


FIRST_DAY_BINS: list[tuple[str, dict[str, dict[str, Any]], int | None]] = [
    ("coagulation", {}, None),
    *[
        ("coagulation", {"first_day_lab": {"platelets_min": v}}, s)
        for v, s in [(19.0, 4), (49.0, 3), (99.0, 2), (149.0, 1), (150.0, 0)]
    ],
    *[
        ("liver", {"first_day_lab": {"bilirubin_total_max": v}}, s)
        for v, s in [(12.0, 4), (6.0, 3), (2.0, 2), (1.2, 1), (1.19, 0)]
    ],
    *[
        ("cns", {"first_day_gcs": {"gcs_min": v}}, s)
        for v, s in [(None, None), (15.0, 0), (13.0, 1), (10.0, 2), (6.0, 3), (5.0, 4)]
    ],
    *[
        (
            "renal",
            {"first_day_lab": {"creatinine_max": c}, "first_day_urine_output": {"urineoutput": u}},
            s,
        )
        for c, u, s in [
            (None, None, None),
            (5.0, None, 4),
            (1.0, 199.0, 4),
            (3.5, None, 3),
            (1.0, 499.0, 3),
            (2.0, None, 2),
            (1.2, 2000.0, 1),
            (1.19, 500.0, 0),
        ]
    ],
    *[
        ("cardiovascular", {"first_day_vitalsign": {"mbp_min": v}}, s)
        for v, s in [(None, None), (69.0, 1), (70.0, 0)]
    ],
]


def test_first_day_sofa_component_bins(insert, build, rows):
    prepare_inputs(
        build,
        "bg",
        "ventilation",
        "first_day_vitalsign",
        "first_day_lab",
        "first_day_urine_output",
        "first_day_gcs",
        "norepinephrine",
        "epinephrine",
        "dopamine",
        "dobutamine",
    )
    for i, (_component, tables, _score) in enumerate(FIRST_DAY_BINS):
        _first_day_case(insert, i, tables)
    build("first_day_sofa", with_dependencies=False)
    got = by_key(rows("first_day_sofa"))
    for i, (component, tables, score) in enumerate(FIRST_DAY_BINS):
        assert got[100 + i][component] == score, (component, tables)
        assert got[100 + i]["sofa"] == (score or 0)


def test_first_day_sofa_gases_and_vasopressors(insert, build, rows):
    prepare_inputs(
        build,
        "bg",
        "ventilation",
        "first_day_vitalsign",
        "first_day_lab",
        "first_day_urine_output",
        "first_day_gcs",
        "norepinephrine",
        "epinephrine",
        "dopamine",
        "dobutamine",
    )
    for i in range(13):
        _first_day_case(insert, i, {})
    insert(
        "mimiciv_derived.ventilation",
        [
            {
                "stay_id": s,
                "starttime": at(0),
                "endtime": at(10),
                "ventilation_status": "InvasiveVent",
            }
            for s in (100, 101, 106)
        ],
    )
    insert(
        "mimiciv_derived.bg",
        [
            # ventilated P/F 250 scores 0 in the first-day rules
            {"subject_id": 1, "charttime": at(5), "specimen": "ART.", "pao2fio2ratio": 250.0},
            # ventilated 150 (any specimen) -> 3; the novent 350 after the episode: only 1
            {"subject_id": 2, "charttime": at(5), "specimen": "VEN.", "pao2fio2ratio": 150.0},
            {"subject_id": 2, "charttime": at(12), "specimen": "ART.", "pao2fio2ratio": 350.0},
            # not ventilated: 299 -> 2; a gas 7 h before intime is outside the window
            {"subject_id": 3, "charttime": at(-6), "specimen": None, "pao2fio2ratio": 299.0},
            {"subject_id": 3, "charttime": at(-7), "specimen": "ART.", "pao2fio2ratio": 50.0},
            {"subject_id": 7, "charttime": at(5), "specimen": "ART.", "pao2fio2ratio": 99.0},
            {"subject_id": 8, "charttime": at(5), "specimen": "ART.", "pao2fio2ratio": 399.0},
            {"subject_id": 9, "charttime": at(5), "specimen": "ART.", "pao2fio2ratio": 400.0},
        ],
    )
    insert(
        "mimiciv_derived.epinephrine",
        [
            {"stay_id": 103, "starttime": at(1), "endtime": at(2), "vaso_rate": 0.0},  # 0 -> 3
        ],
    )
    insert(
        "mimiciv_derived.norepinephrine",
        [
            {"stay_id": 104, "starttime": at(-7), "endtime": at(5), "vaso_rate": 0.5},  # too early
            {"stay_id": 104, "starttime": at(24), "endtime": at(25), "vaso_rate": 0.05},  # edge: in
        ],
    )
    insert(
        "mimiciv_derived.dopamine",
        [
            {"stay_id": 105, "starttime": at(2), "endtime": at(3), "vaso_rate": 15.1},
            {"stay_id": 109, "starttime": at(2), "endtime": at(3), "vaso_rate": 5.1},
            {"stay_id": 110, "starttime": at(2), "endtime": at(3), "vaso_rate": 5.0},
        ],
    )
    insert(
        "mimiciv_derived.dobutamine",
        [{"stay_id": 111, "starttime": at(2), "endtime": at(3), "vaso_rate": 1.0}],
    )
    insert(
        "mimiciv_derived.norepinephrine",
        [{"stay_id": 112, "starttime": at(2), "endtime": at(3), "vaso_rate": 0.11}],
    )
    build("first_day_sofa", with_dependencies=False)
    got = by_key(rows("first_day_sofa"))
    assert [got[s]["respiration"] for s in (100, 101, 102, 106, 107, 108)] == [0, 3, 2, 4, 1, 0]
    assert [got[s]["cardiovascular"] for s in range(103, 113) if s not in (106, 107, 108)] == [
        3,
        3,
        4,
        3,
        2,
        2,
        4,
    ]


def test_sepsis3_from_source_tables(insert, build, rows):
    """Heart rate, a norepinephrine drip, an antibiotic and a culture through the whole chain."""
    insert("mimiciv_icu.icustays", [stay(1, 10, 100, at(0), 48)])
    # heart rate from 08:30 to 07:30 two days later: the hour grid ends at 09:00 + hr
    insert(
        "mimiciv_icu.chartevents",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "stay_id": 100,
                "charttime": at(h + 0.5),
                "itemid": 220045,
                "value": "90",
                "valuenum": 90.0,
            }
            for h in range(48)
        ],
    )
    insert(
        "mimiciv_icu.inputevents",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "stay_id": 100,
                "itemid": 221906,
                "orderid": 1,
                "starttime": at(10),
                "endtime": at(14),
                "rate": 0.2,
                "rateuom": "mcg/kg/min",
                "patientweight": 70.0,
            },
        ],
    )
    insert(
        "mimiciv_hosp.prescriptions",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "pharmacy_id": 1,
                "drug_type": "MAIN",
                "drug": "Vancomycin",
                "route": "IV",
                "starttime": at(20),
                "stoptime": at(44),
            },
        ],
    )
    insert(
        "mimiciv_hosp.microbiologyevents",
        [
            _culture(1, 1, datetime(2150, 1, 2), at(18), "BLOOD CULTURE"),
        ],
    )
    build("sepsis3")
    assert rows("sepsis3") == [
        {
            "subject_id": 1,
            "stay_id": 100,
            "antibiotic_time": at(20),
            "culture_time": at(18),
            "suspected_infection_time": at(18),
            # the drip runs at the hour ends 11:00 (hr 10) to 14:00: cardiovascular 4 from hr 10
            "sofa_time": at(11),
            "sofa_score": 4,
            "respiration": 0,
            "coagulation": 0,
            "liver": 0,
            "cardiovascular": 4,
            "cns": 0,
            "renal": 0,
            "sepsis3": True,
        }
    ]
    hourly = by_key(rows("sofa"), "hr")
    assert hourly[0]["endtime"] == at(1)
    assert [hourly[h]["cardiovascular_24hours"] for h in (9, 10, 36, 37)] == [0, 4, 4, 0]
