"""Demographic and time-scaffolding concepts on hand-built patients.

Expected rows are worked out from the clinical rules, not from the SQL.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest
from concept_rows import at, chart, stay

YEAR_US = 31_556_908_800_000  # 365.242 days in microseconds
DAY_US = 86_400_000_000


def test_age_is_fractional_from_the_first_of_january_of_the_anchor_year(insert, build, rows):
    insert("mimiciv_hosp.patients", [{"subject_id": 1, "anchor_age": 60, "anchor_year": 2150}])
    insert(
        "mimiciv_hosp.admissions",
        [
            # 2150 is not a leap year: 1 Jan -> 2 Jul 12:00 is 182.5 days.
            {"subject_id": 1, "hadm_id": 10, "admittime": datetime(2150, 7, 2, 12)},
            # half a day before 1 Jan of the anchor year: below anchor_age.
            {"subject_id": 1, "hadm_id": 11, "admittime": datetime(2149, 12, 31, 12)},
            # no patient row: dropped by the inner join.
            {"subject_id": 2, "hadm_id": 12, "admittime": datetime(2150, 1, 1)},
        ],
    )
    build("age")
    got = rows("age", order_by="hadm_id")
    assert [r["hadm_id"] for r in got] == [10, 11]
    assert got[0]["age"] == pytest.approx(60 + 182.5 * DAY_US / YEAR_US, abs=1e-12)
    assert got[1]["age"] == pytest.approx(60 - 0.5 * DAY_US / YEAR_US, abs=1e-12)
    assert got[1]["age"] < 60
    assert (got[0]["anchor_age"], got[0]["anchor_year"]) == (60, 2150)
    assert got[0]["admittime"] == datetime(2150, 7, 2, 12)


def test_icustay_detail_sequences_and_lengths(insert, build, rows):
    insert(
        "mimiciv_hosp.patients",
        [{"subject_id": 1, "gender": "F", "anchor_age": 50, "anchor_year": 2150}],
    )
    insert(
        "mimiciv_hosp.admissions",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "admittime": datetime(2150, 1, 1),
                "dischtime": datetime(2150, 1, 4, 12),
                "race": "WHITE",
                "hospital_expire_flag": 0,
            },
            # an admission between the two with no ICU stay: not counted in hospstay_seq
            {
                "subject_id": 1,
                "hadm_id": 12,
                "admittime": datetime(2150, 2, 1),
                "dischtime": datetime(2150, 2, 2),
                "hospital_expire_flag": 0,
            },
            {
                "subject_id": 1,
                "hadm_id": 11,
                "admittime": datetime(2150, 3, 1),
                "dischtime": datetime(2150, 3, 11),
                "race": "WHITE",
                "hospital_expire_flag": 1,
            },
        ],
    )
    insert(
        "mimiciv_icu.icustays",
        [
            # 29.4 h = 1.225 days: cast to 3 decimals gives 1.225, then rounds half up to 1.23
            stay(1, 10, 100, datetime(2150, 1, 1, 8), los_hours=29.4),
            stay(1, 11, 102, datetime(2150, 3, 5), los_hours=24),
            stay(1, 11, 101, datetime(2150, 3, 2), los_hours=12),
        ],
    )
    build("icustay_detail")
    got = {r["stay_id"]: r for r in rows("icustay_detail")}
    assert got[100]["los_icu"] == Decimal("1.23")
    assert got[100]["los_hospital"] == pytest.approx(3.5)
    assert got[100]["admission_age"] == pytest.approx(50.0)
    assert (got[100]["hospstay_seq"], got[100]["first_hosp_stay"]) == (1, True)
    assert (got[101]["hospstay_seq"], got[101]["first_hosp_stay"]) == (2, False)
    assert (got[101]["icustay_seq"], got[101]["first_icu_stay"]) == (1, True)
    assert (got[102]["icustay_seq"], got[102]["first_icu_stay"]) == (2, False)
    assert got[102]["los_icu"] == Decimal("1.00")
    assert got[102]["hospital_expire_flag"] == 1
    assert got[100]["gender"] == "F" and got[100]["race"] == "WHITE"
    assert got[100]["icu_intime"] == datetime(2150, 1, 1, 8)


def test_icustay_times_take_first_and_last_heart_rate_of_any_value(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(1, 10, 100), stay(2, 20, 200)])
    insert(
        "mimiciv_icu.chartevents",
        [
            {"subject_id": 1, "stay_id": 100, "itemid": 220045, "charttime": at(-1), "valuenum": 0},
            chart(100, 220045, 5, 80, subject_id=1),
            {"subject_id": 1, "stay_id": 100, "itemid": 220045, "charttime": at(80)},
            # another item, later: ignored
            chart(100, 220210, 90, 9, subject_id=1),
            # stay 200 has a respiratory rate only
            {"subject_id": 2, "stay_id": 200, "itemid": 220210, "charttime": at(1), "valuenum": 9},
        ],
    )
    build("icustay_times")
    assert rows("icustay_times", order_by="stay_id") == [
        {"subject_id": 1, "hadm_id": 10, "stay_id": 100, "intime_hr": at(-1), "outtime_hr": at(80)},
        {"subject_id": 2, "hadm_id": 20, "stay_id": 200, "intime_hr": None, "outtime_hr": None},
    ]


def test_icustay_hourly_grid_starts_at_the_next_whole_hour(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(1, 10, 100), stay(2, 20, 200), stay(3, 30, 300)])
    hr = 220045
    insert(
        "mimiciv_icu.chartevents",
        [
            # stay 100: first HR 10:30, last 12:45 -> base 11:00, hours -24 .. ceil(2.25) = 3
            {
                "subject_id": 1,
                "stay_id": 100,
                "itemid": hr,
                "charttime": datetime(2150, 1, 1, 10, 30),
            },
            {
                "subject_id": 1,
                "stay_id": 100,
                "itemid": hr,
                "charttime": datetime(2150, 1, 1, 12, 45),
            },
            # stay 200: first HR on the hour 08:00, last 10:00 -> base 08:00, hours -24 .. 2
            chart(200, hr, datetime(2150, 1, 1, 8)),
            chart(200, hr, datetime(2150, 1, 1, 10)),
        ],
    )
    build("icustay_hourly")
    got = rows("icustay_hourly", order_by="stay_id, hr")
    first = [r for r in got if r["stay_id"] == 100]
    assert [r["hr"] for r in first] == list(range(-24, 4))
    assert first[24]["endtime"] == datetime(2150, 1, 1, 11)  # hr 0
    assert first[-1]["endtime"] == datetime(2150, 1, 1, 14)  # hr 3
    assert first[0]["endtime"] == datetime(2149, 12, 31, 11)  # hr -24
    second = [r for r in got if r["stay_id"] == 200]
    assert [r["hr"] for r in second] == list(range(-24, 3))
    assert second[24]["endtime"] == datetime(2150, 1, 1, 8)
    assert not [r for r in got if r["stay_id"] == 300]  # no heart rate, no grid


def weight(stay_id: int, itemid: int, hours: float, value: float | None) -> dict[str, object]:
    return {
        "subject_id": stay_id,
        "stay_id": stay_id,
        "itemid": itemid,
        "charttime": at(hours),
        "valuenum": value,
    }


ADMIT, DAILY, LBS = 226512, 224639, 226531


def test_weight_durations_intervals_backfill_and_filters(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(1, 10, 1), stay(2, 20, 2), stay(3, 30, 3)])
    insert(
        "mimiciv_icu.chartevents",
        [
            # stay 1: admit weight moved to intime - 2 h, then two daily weights
            weight(1, ADMIT, 1, 80),
            weight(1, DAILY, 24, 78),
            weight(1, DAILY, 48, 1600),
            weight(1, DAILY, 30, 0),
            weight(1, DAILY, 31, None),
            weight(1, LBS, 32, 170),
            # stay 2: daily weights only, the first after intime -> back-filled interval
            weight(2, DAILY, 3, 70),
            weight(2, DAILY, 20, 72),
            # stay 3: a daily weight before intime -> no back-fill
            weight(3, DAILY, -1, 90),
            # a stay that is not in icustays: dropped
            weight(9, ADMIT, 1, 60),
        ],
    )
    build("weight_durations")
    got = [
        (r["stay_id"], r["starttime"], r["endtime"], r["weight"], r["weight_type"])
        for r in rows("weight_durations", order_by="stay_id, starttime, endtime")
    ]
    assert got == [
        (1, at(-2), at(24), 80, "admit"),
        (1, at(24), at(48), 78, "daily"),
        (1, at(48), at(74), 1600, "daily"),  # no upper bound; last ends at outtime + 2 h
        (2, at(-2), at(3), 70, "daily"),  # back-fill carries the earliest weight
        (2, at(3), at(20), 70, "daily"),
        (2, at(20), at(74), 72, "daily"),
        (3, at(-1), at(74), 90, "daily"),
    ]


def test_weight_durations_same_start_gives_one_zero_length_interval(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(1, 10, 1)])
    insert("mimiciv_icu.chartevents", [weight(1, DAILY, 5, 81), weight(1, ADMIT, 5, 80)])
    build("weight_durations")
    got = [
        (r["starttime"], r["endtime"], r["weight"])
        for r in rows("weight_durations", order_by="starttime, endtime")
    ]
    # the admit row moves to -2 h; the daily row runs from 5 h to the end
    assert got == [(at(-2), at(5), 80), (at(5), at(74), 81)]


def test_height_converts_inches_and_keeps_ids_of_inch_only_rows(insert, build, rows):
    insert(
        "mimiciv_icu.chartevents",
        [
            {
                "subject_id": 1,
                "stay_id": 100,
                "itemid": 226730,
                "charttime": at(1),
                "valuenum": 170,
            },
            # inch-only: 70 in = 177.8 cm, with its own ids (a recorded deviation)
            chart(100, 226707, 2, 70, subject_id=1),
            # both at one time: the cm value wins
            {
                "subject_id": 1,
                "stay_id": 100,
                "itemid": 226730,
                "charttime": at(3),
                "valuenum": 180,
            },
            chart(100, 226707, 3, 60, subject_id=1),
            # out of range (not strictly between 120 and 230): dropped
            {
                "subject_id": 1,
                "stay_id": 100,
                "itemid": 226730,
                "charttime": at(4),
                "valuenum": 230,
            },
            chart(100, 226707, 5, 40, subject_id=1),
            # rounding: 65.3333 in * 2.54 = 165.946582 -> 165.947 -> 165.95
            {
                "subject_id": 1,
                "stay_id": 100,
                "itemid": 226707,
                "charttime": at(6),
                "valuenum": 65.3333,
            },
        ],
    )
    build("height")
    got = [
        (r["subject_id"], r["stay_id"], r["charttime"], r["height"])
        for r in rows("height", order_by="height")
    ]
    assert got == [
        (1, 100, at(6), Decimal("165.95")),
        (1, 100, at(1), Decimal("170.00")),
        (1, 100, at(2), Decimal("177.80")),
        (1, 100, at(3), Decimal("180.00")),
    ]
