"""Kidney and organ-failure concepts on hand-built stays.

Expected rows are worked out from the clinical rules, not from the SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import pytest
from concept_rows import at, stay
from derived_inputs import by_key, prepare_inputs

D = Decimal


def _creatinine(subject_id: int, hour: float, value: float | None, itemid: int = 50912) -> dict:
    return {
        "labevent_id": 1,
        "subject_id": subject_id,
        "specimen_id": 1,
        "itemid": itemid,
        "charttime": at(hour),
        "valuenum": value,
    }


def test_kdigo_creatinine_window_average_and_lookbacks(insert, build, rows):
    insert(
        "mimiciv_icu.icustays",
        [
            stay(1, 10, 100, at(0), 72),
            stay(2, 20, 200, at(0), 72),  # no creatinine at all
            stay(3, 30, 300, at(0), 120),
        ],
    )
    insert(
        "mimiciv_hosp.labevents",
        [
            _creatinine(1, -24 * 8, 0.5),  # before intime - 7 days
            _creatinine(1, -24 * 7, 1.0),  # exactly intime - 7 days: kept
            _creatinine(1, -10, 1.2),
            _creatinine(1, -10, 1.4),  # same time: averaged to 1.3
            _creatinine(1, 5, 0.0),  # zero is kept
            _creatinine(1, 30, 151.0),  # above 150: dropped
            _creatinine(1, 30, 2.0),
            _creatinine(1, 72, 2.5),  # exactly outtime: kept
            _creatinine(1, 73, 3.0),  # after outtime
            _creatinine(1, 40, None),
            _creatinine(1, 41, 9.0, itemid=50911),
            _creatinine(3, 0, 1.0),
            _creatinine(3, 48, 1.5),  # 48 h after the first: inside [t - 48 h, t)
            _creatinine(3, 96.5, 2.0),
        ],
    )
    build("kdigo_creatinine")
    got = [
        (
            r["stay_id"],
            r["charttime"],
            r["creat"],
            r["creat_low_past_48hr"],
            r["creat_low_past_7day"],
        )
        for r in rows("kdigo_creatinine", order_by="stay_id, charttime")
    ]
    assert got == [
        (100, at(-168), 1.0, None, None),
        (100, at(-10), pytest.approx(1.3), None, 1.0),
        (100, at(5), 0.0, pytest.approx(1.3), pytest.approx(1.3)),  # -168 h is 173 h back
        (100, at(30), 2.0, 0.0, 0.0),
        (100, at(72), 2.5, 2.0, 0.0),
        (200, None, None, None, None),
        (300, at(0), 1.0, None, None),
        (300, at(48), 1.5, 1.0, 1.0),
        (300, at(96.5), 2.0, None, 1.0),
    ]
    assert {r["hadm_id"] for r in rows("kdigo_creatinine") if r["stay_id"] == 300} == {30}


def test_kdigo_uo_windows_include_their_start(insert, build, rows):
    prepare_inputs(build, "urine_output", "weight_durations")
    insert("mimiciv_icu.icustays", [stay(1, 10, 100, at(0), 100), stay(2, 20, 200, at(0), 100)])
    insert(
        "mimiciv_derived.urine_output",
        [{"stay_id": 100, "charttime": at(h), "urineoutput": 10.0 * h} for h in range(1, 27)]
        + [{"stay_id": 200, "charttime": at(h), "urineoutput": 60.0} for h in (1, 7, 13)],
    )
    insert(
        "mimiciv_derived.weight_durations",
        [
            {"stay_id": 100, "starttime": at(-2), "endtime": at(20), "weight": 100.0},
            {"stay_id": 100, "starttime": at(20), "endtime": at(102), "weight": 50.0},
            {"stay_id": 200, "starttime": at(-2), "endtime": at(102), "weight": 60.0},
        ],
    )
    build("kdigo_uo", with_dependencies=False)
    got = {(r["stay_id"], r["charttime"]): r for r in rows("kdigo_uo")}
    assert len(got) == 29

    def check(key: tuple[int, Any], **expected: Any) -> None:
        row = got[key]
        for name, value in expected.items():
            assert row[name] == (pytest.approx(value) if isinstance(value, float) else value), name

    # hour 5: 5 rows of 1 h each; under 6 h elapsed: no 6 h rate
    check((100, at(5)), urineoutput_6hr=150.0, uo_tm_6hr=5.0, uo_rt_6hr=None, weight=100.0)
    check((100, at(6)), urineoutput_6hr=210.0, uo_tm_6hr=6.0, uo_rt_6hr=D("0.350"))
    # hour 7: rows 1..7 (the row exactly 6 h back is inside): 7 rows over 7 h
    check((100, at(7)), urineoutput_6hr=280.0, uo_tm_6hr=7.0, uo_rt_6hr=D("0.400"))
    check((100, at(11)), uo_tm_12hr=11.0, uo_rt_12hr=None)
    check((100, at(12)), urineoutput_12hr=780.0, uo_tm_12hr=12.0, uo_rt_12hr=D("0.650"))
    check(
        (100, at(13)),
        urineoutput_6hr=700.0,
        uo_rt_6hr=D("1.000"),
        urineoutput_12hr=910.0,
        uo_tm_12hr=13.0,
        uo_rt_12hr=D("0.700"),
    )
    # hour 20: the new weight interval starts here (start inclusive)
    check(
        (100, at(20)),
        weight=50.0,
        urineoutput_6hr=1190.0,
        uo_rt_6hr=D("3.400"),
        uo_tm_24hr=20.0,
        uo_rt_24hr=None,
    )
    check((100, at(24)), urineoutput_24hr=3000.0, uo_tm_24hr=24.0, uo_rt_24hr=D("2.500"))
    check(
        (100, at(26)),
        urineoutput_24hr=3500.0,
        uo_tm_24hr=25.0,
        uo_rt_24hr=D("2.800"),
        uo_rt_6hr=D("4.600"),
    )
    # sparse stay: the first row counts 1 h, later rows the hours since the previous row
    check((200, at(7)), uo_tm_6hr=7.0, urineoutput_6hr=120.0, uo_rt_6hr=D("0.286"))
    check(
        (200, at(13)),
        uo_tm_6hr=12.0,
        uo_rt_6hr=None,  # 12 h or more: no 6 h rate
        uo_tm_12hr=13.0,
        urineoutput_12hr=180.0,
        uo_rt_12hr=D("0.231"),
    )


CREAT_CASES = [
    # (creat, low_48hr, low_7day, stage)
    (3.0, None, 1.0, 3),  # 3 x the 7-day low
    (4.0, 3.7, 3.0, 3),  # >= 4 with a 48 h low <= 3.7
    (6.0, 4.0, 4.5, 1),  # >= 4 but neither 48 h low <= 3.7 nor 1.5 x 7-day low; +0.3 rise
    (6.0, 4.0, 4.0, 3),  # >= 4 and >= 1.5 x 7-day low
    (2.0, None, 1.0, 2),
    (1.3, 1.0, None, 1),  # rise of exactly 0.3 within 48 h
    (1.29, 1.0, None, 0),
    (1.5, None, 1.0, 1),  # exactly 1.5 x the 7-day low
    (1.49, None, 1.0, 0),
    (0.5, None, 0.0, 3),  # a zero in the past 7 days
    (1.0, None, None, 0),  # first value
]

URINE_CASES = [
    # (hour, rt6, rt12, rt24, tm6, tm12, tm24, stage)
    (5, "0.100", None, None, 6, 6, 6, 0),  # up to intime + 6 h scores 0
    (6, "0.100", None, None, 6, 6, 6, 0),
    (7, "0.100", None, None, 7, 7, 7, 1),
    (8, None, "0.100", "0.100", 7, 12, 24, None),  # no 6 h rate: NULL
    (30, "0.400", "0.400", "0.299", 7, 13, 25, 3),
    (31, "0.400", "0.400", "0.300", 7, 13, 25, 2),  # 0.300 is not < 0.3
    (32, "0.600", "0.000", "0.600", 7, 13, 25, 3),  # anuria over 12 h
    (33, "0.600", "0.500", "0.600", 7, 13, 25, 0),
    (34, "0.499", "0.600", None, 7, 13, 20, 1),
]


def test_kdigo_stages_rules_for_creatinine_urine_and_crrt(insert, build, rows):
    prepare_inputs(build, "kdigo_creatinine", "kdigo_uo", "crrt")
    insert("mimiciv_icu.icustays", [stay(1, 10, 100, at(0), 200), stay(2, 20, 200, at(0), 48)])
    insert(
        "mimiciv_derived.kdigo_creatinine",
        [
            {
                "hadm_id": 10,
                "stay_id": 100,
                "charttime": at(100 + i),
                "creat": creat,
                "creat_low_past_48hr": low48,
                "creat_low_past_7day": low7,
            }
            for i, (creat, low48, low7, _stage) in enumerate(CREAT_CASES)
        ]
        + [
            {
                "hadm_id": 10,
                "stay_id": 100,
                "charttime": at(7),
                "creat": 1.3,
                "creat_low_past_48hr": 1.0,
                "creat_low_past_7day": None,
            },
            {"hadm_id": 20, "stay_id": 200, "charttime": None, "creat": None},
        ],
    )
    insert(
        "mimiciv_derived.kdigo_uo",
        [
            {
                "stay_id": 100,
                "charttime": at(h),
                "weight": 80.0,
                "uo_rt_6hr": r6 and D(r6),
                "uo_rt_12hr": r12 and D(r12),
                "uo_rt_24hr": r24 and D(r24),
                "uo_tm_6hr": tm6,
                "uo_tm_12hr": tm12,
                "uo_tm_24hr": tm24,
            }
            for h, r6, r12, r24, tm6, tm12, tm24, _stage in URINE_CASES
        ],
    )
    insert(
        "mimiciv_derived.crrt",
        [
            {"stay_id": 100, "charttime": at(33), "crrt_mode": "CVVHDF"},
            {"stay_id": 100, "charttime": at(40), "crrt_mode": None},  # no mode: ignored
        ],
    )
    build("kdigo_stages", with_dependencies=False)
    got = {(r["stay_id"], r["charttime"]): r for r in rows("kdigo_stages")}
    for i, (creat, low48, low7, stage) in enumerate(CREAT_CASES):
        row = got[(100, at(100 + i))]
        assert row["aki_stage_creat"] == stage, (creat, low48, low7)
        assert row["aki_stage"] == stage
        assert (row["aki_stage_uo"], row["aki_stage_crrt"]) == (None, None)
    for h, *_rates, stage in URINE_CASES:
        assert got[(100, at(h))]["aki_stage_uo"] == stage, h
    # hour 7: creatinine stage 1 and urine stage 1 on the same row
    assert (got[(100, at(7))]["aki_stage_creat"], got[(100, at(7))]["aki_stage_uo"]) == (1, 1)
    # hour 33: urine 0, CRRT 3
    assert (got[(100, at(33))]["aki_stage_crrt"], got[(100, at(33))]["aki_stage"]) == (3, 3)
    assert got[(100, at(8))]["aki_stage"] == 0
    assert (100, at(40)) not in got
    assert got[(100, at(34))]["aki_stage_smoothed"] == 3  # stage 3 at hour 32/33 within 6 h
    assert got[(100, at(5))]["aki_stage_smoothed"] == 0
    placeholder = got[(200, None)]
    assert (placeholder["aki_stage"], placeholder["creat"], placeholder["subject_id"]) == (
        0,
        None,
        2,
    )
    # hour 7 (creatinine and urine) and hour 33 (urine and CRRT) are one row each; + placeholder
    assert len(got) == len(CREAT_CASES) + len(URINE_CASES) + 1


MELD_CASES = [
    # (creatinine, bilirubin, inr, sodium, rrt, meld_initial, meld)
    (None, None, None, None, None, 6.0, 6.0),
    (2.0, 3.0, 2.0, 130.0, None, 25.0, 25 + 1.32 * 7 - 0.033 * 25 * 7),
    (0.5, 0.5, 0.9, 140.0, 1, 20.0, 20.0),  # dialysis: creatinine scored as 4
    (5.0, 20.0, 3.0, 131.0, None, 40.0, 40.0),  # capped at 40
    (1.8849, None, None, 120.0, None, 13.0, 13 + 1.32 * 12 - 0.033 * 13 * 12),  # 1.2496 -> 1.3
    (1.0, 1.0, 1.0, 137.0, None, 6.0, 6.0),
    (1.0, 0.9, 1.5, 125.0, None, 11.0, 11.0),  # sodium only counts above 11
]


def test_meld_formula_and_rounding(insert, build, rows):
    prepare_inputs(build, "first_day_lab", "first_day_rrt")
    for i, (creat, bili, inr, sodium, rrt, _initial, _meld) in enumerate(MELD_CASES):
        insert("mimiciv_icu.icustays", [stay(i + 1, 10 + i, 100 + i)])
        insert(
            "mimiciv_derived.first_day_lab",
            [
                {
                    "subject_id": i + 1,
                    "stay_id": 100 + i,
                    "creatinine_max": creat,
                    "bilirubin_total_max": bili,
                    "inr_max": inr,
                    "sodium_min": sodium,
                }
            ],
        )
        if rrt is not None:
            insert(
                "mimiciv_derived.first_day_rrt",
                [{"subject_id": i + 1, "stay_id": 100 + i, "dialysis_present": rrt}],
            )
    build("meld", with_dependencies=False)
    got = by_key(rows("meld"))
    for i, (*_inputs, initial, meld) in enumerate(MELD_CASES):
        assert got[100 + i]["meld_initial"] == pytest.approx(initial), i
        assert got[100 + i]["meld"] == pytest.approx(meld), i
    # 1.2496 -> 1.25 (3 dp) -> 1.3 (1 dp): a direct 1-dp rounding would give 12.0
    assert got[104]["meld_initial"] == pytest.approx(13.0)
    assert (got[102]["rrt"], got[102]["creatinine_max"], got[100]["rrt"]) == (1, 0.5, None)


def _lods_stays(insert, build, cases: Sequence[dict[str, dict[str, Any]]]) -> None:
    prepare_inputs(
        build,
        "first_day_gcs",
        "first_day_vitalsign",
        "first_day_lab",
        "first_day_urine_output",
        "bg",
        "ventilation",
    )
    for i, tables in enumerate(cases):
        ids = {"subject_id": i + 1, "stay_id": 100 + i}
        insert("mimiciv_icu.icustays", [stay(i + 1, 10 + i, 100 + i)])
        insert("mimiciv_hosp.admissions", [{"subject_id": i + 1, "hadm_id": 10 + i}])
        insert("mimiciv_hosp.patients", [{"subject_id": i + 1}])
        for table, values in tables.items():
            insert(f"mimiciv_derived.{table}", [{**ids, **values}])
    build("lods", with_dependencies=False)


def _check_component(
    insert,
    build,
    rows,
    column: str,
    table: str,
    cases: Sequence[tuple[dict[str, Any], int | None]],
    extra: Callable[[int], dict[str, dict[str, Any]]] | None = None,
) -> None:
    _lods_stays(
        insert,
        build,
        [
            {table: values, **(extra(i) if extra else {})}
            for i, (values, _score) in enumerate(cases)
        ],
    )
    got = by_key(rows("lods"))
    for i, (values, score) in enumerate(cases):
        assert got[100 + i][column] == score, values


def test_lods_neurologic(insert, build, rows):
    cases = [
        ({"gcs_min": g}, s)
        for g, s in [
            (None, None),
            (2, None),
            (3, 5),
            (5, 5),
            (6, 3),
            (8, 3),
            (9, 1),
            (13, 1),
            (14, 0),
        ]
    ]
    _check_component(insert, build, rows, "neurologic", "first_day_gcs", cases)


def test_lods_cardiovascular(insert, build, rows):
    names = ("heart_rate_min", "heart_rate_max", "sbp_min", "sbp_max")
    cases = [
        (dict(zip(names, v, strict=True)), s)
        for v, s in [
            ((None, None, None, None), None),
            ((29, 80, 100, 120), 5),
            ((60, 80, 39, 120), 5),
            ((60, 80, 69, 120), 3),
            ((60, 80, 100, 270), 3),
            ((60, 140, 100, 120), 1),
            ((60, 80, 100, 240), 1),
            ((60, 80, 89, 120), 1),
            ((30, 139, 90, 239), 0),
            ((None, None, 100, 120), 0),
        ]
    ]
    _check_component(insert, build, rows, "cardiovascular", "first_day_vitalsign", cases)


def test_lods_renal_needs_all_three_inputs(insert, build, rows):
    cases = [
        ((bun, uo, creat), s)
        for bun, uo, creat, s in [
            (None, 1000.0, 1.0, None),
            (10.0, None, 1.0, None),
            (10.0, 499.0, 1.0, 5),
            (56.0, 1000.0, 1.0, 5),
            (10.0, 1000.0, 1.6, 3),
            (10.0, 749.0, 1.0, 3),
            (28.0, 1000.0, 1.0, 3),
            (10.0, 10000.0, 1.0, 3),
            (10.0, 1000.0, 1.2, 1),
            (17.0, 1000.0, 1.0, 1),
            (7.5, 1000.0, 1.0, 1),
            (7.4, 9999.0, 1.19, 0),
        ]
    ]
    _lods_stays(
        insert,
        build,
        [
            {
                "first_day_lab": {"bun_max": bun, "creatinine_max": creat},
                "first_day_urine_output": {"urineoutput": uo},
            }
            for (bun, uo, creat), _s in cases
        ],
    )
    got = by_key(rows("lods"))
    for i, (values, score) in enumerate(cases):
        assert got[100 + i]["renal"] == score, values


def test_lods_hematologic_and_hepatic(insert, build, rows):
    hema = [
        ((None, None, None), None),
        ((0.9, 5.0, 200.0), 3),
        ((2.4, 5.0, 200.0), 1),
        ((5.0, 10.0, 49.0), 1),
        ((5.0, 50.0, 200.0), 1),
        ((2.5, 49.9, 50.0), 0),
        ((None, None, 200.0), 0),
    ]
    hepa = [
        ((None, None, None), None),
        ((12.0, 14.0, 2.0), 1),
        ((12.0, 15.1, 1.0), 1),
        ((2.9, 14.0, 1.0), 1),
        ((12.0, 15.0, 1.9), 0),
        ((None, None, 1.0), 0),
        ((12.0, 15.0, None), 0),
    ]
    stays = [
        {"first_day_lab": {"wbc_min": a, "wbc_max": b, "platelets_min": c}}
        for (a, b, c), _s in hema
    ]
    stays += [
        {"first_day_lab": {"pt_min": a, "pt_max": b, "bilirubin_total_max": c}}
        for (a, b, c), _s in hepa
    ]
    _lods_stays(insert, build, stays)
    got = by_key(rows("lods"))
    for i, (values, score) in enumerate(hema):
        assert got[100 + i]["hematologic"] == score, values
    for i, (values, score) in enumerate(hepa):
        assert got[100 + len(hema) + i]["hepatic"] == score, values


def test_lods_pulmonary_counts_ventilated_or_cpap_gases_and_sums(insert, build, rows):
    # stays 100..104, intime at(0); gases of each stay's admission
    _lods_stays(
        insert,
        build,
        [
            {},
            {},
            {},
            {},
            {"first_day_gcs": {"gcs_min": 7}, "first_day_lab": {"wbc_min": 0.5, "wbc_max": 0.5}},
        ],
    )
    insert(
        "mimiciv_derived.ventilation",
        [
            {"stay_id": s, "starttime": at(1), "endtime": at(5), "ventilation_status": status}
            for s, status in [
                (101, "InvasiveVent"),
                (102, "InvasiveVent"),
                (103, "HFNC"),
                (104, "InvasiveVent"),
            ]
        ],
    )
    insert(
        "mimiciv_derived.bg",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "charttime": at(5),
                "pao2fio2ratio": 149.0,
            },  # no support
            {
                "subject_id": 2,
                "hadm_id": 11,
                "charttime": at(5),
                "pao2fio2ratio": 149.0,
            },  # vent end
            {"subject_id": 2, "hadm_id": 11, "charttime": at(6), "pao2fio2ratio": 90.0},  # after it
            {"subject_id": 3, "hadm_id": 12, "charttime": at(2), "pao2fio2ratio": 150.0},
            {"subject_id": 4, "hadm_id": 13, "charttime": at(2), "pao2fio2ratio": 100.0},  # HFNC
            {
                "subject_id": 4,
                "hadm_id": 13,
                "charttime": at(8),
                "pao2fio2ratio": 120.0,
            },  # CPAP end
            {"subject_id": 4, "hadm_id": 13, "charttime": at(8.5), "pao2fio2ratio": 90.0},
            {"subject_id": 5, "hadm_id": 14, "charttime": at(3), "pao2fio2ratio": 140.0},
        ],
    )
    insert(
        "mimiciv_icu.chartevents",
        [
            {
                "subject_id": 4,
                "hadm_id": 13,
                "stay_id": 103,
                "charttime": at(4),
                "itemid": 226732,
                "value": "CPAP mask ",
            },  # window [3 h, 8 h]
        ],
    )
    build("lods", with_dependencies=False)
    got = by_key(rows("lods"))
    assert [got[s]["pulmonary"] for s in (100, 101, 102, 103)] == [0, 3, 1, 3]
    assert got[104]["lods"] == 3 + 3 + 3  # neurologic 3, hematologic 3, pulmonary 3
    assert (got[104]["renal"], got[104]["hepatic"], got[104]["cardiovascular"]) == (None,) * 3


def test_kdigo_stages_from_source_tables(insert, build, rows):
    """The whole chain from labs, urine, weight and CRRT charting to the stage per time."""
    insert("mimiciv_icu.icustays", [stay(1, 10, 100, at(0), 72)])
    insert(
        "mimiciv_hosp.labevents",
        [
            _creatinine(1, -24, 1.0),
            _creatinine(1, 20, 1.35),  # +0.35 within 48 h: stage 1
            _creatinine(1, 40, 2.1),  # 2.1 x the 7-day low: stage 2
        ],
    )
    insert(
        "mimiciv_icu.chartevents",
        [
            _chart_row(226512, 1, "100", 100.0),  # admission weight 100 kg
            _chart_row(227290, 30, "CVVHDF", None),  # CRRT running: stage 3
        ],
    )
    insert(
        "mimiciv_icu.outputevents",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "stay_id": 100,
                "charttime": at(h),
                "storetime": at(h),
                "itemid": 226559,
                "value": 20.0,
            }
            for h in range(1, 13)
        ],
    )
    build("kdigo_stages")
    got = {
        r["charttime"]: (
            r["aki_stage_creat"],
            r["aki_stage_uo"],
            r["aki_stage_crrt"],
            r["aki_stage"],
        )
        for r in rows("kdigo_stages")
    }
    assert got[at(-24)] == (0, None, None, 0)
    assert got[at(20)] == (1, None, None, 1)
    assert got[at(40)] == (2, None, None, 2)
    assert got[at(5)] == (None, None, None, 0)  # under 6 h of urine: no 6 h rate
    assert got[at(6)] == (None, 0, None, 0)  # 0.2 mL/kg/h but not after intime + 6 h
    assert got[at(7)] == (None, 1, None, 1)  # 140 mL / 100 kg / 7 h
    assert got[at(12)] == (None, 2, None, 2)  # 240 mL / 100 kg / 12 h
    assert got[at(30)] == (None, None, 3, 3)
    assert len(got) == 3 + 12 + 1


def _chart_row(itemid: int, hour: float, value: str, valuenum: float | None) -> dict[str, Any]:
    return {
        "subject_id": 1,
        "hadm_id": 10,
        "stay_id": 100,
        "charttime": at(hour),
        "itemid": itemid,
        "value": value,
        "valuenum": valuenum,
    }
