"""mimic-urine-output-rate-raw: one case per rule of its operational spec.

Stays are built from source rows (ICU stays, heart rate and weight charting, urine output);
the urine and weight concepts are materialized from them.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from task_rows import T0, at, build, insert, stay

from m4bench.tasks.reference import run_reference

HEART_RATE, ADMIT_WEIGHT, DAILY_WEIGHT = 220045, 226512, 224639
URINE, IRRIGANT_IN = 226559, 227488


def _chart(stay_id, item, when, value):
    return {
        "subject_id": stay_id,
        "stay_id": stay_id,
        "itemid": item,
        "charttime": when,
        "valuenum": value,
        "value": str(value),
    }


def _urine(stay_id, hours, volume, item=URINE):
    return {
        "subject_id": stay_id,
        "stay_id": stay_id,
        "itemid": item,
        "charttime": at(hours),
        "value": volume,
    }


@pytest.fixture
def rates(task_db, library):
    task, con = task_db("mimic-urine-output-rate-raw")
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in (1, 2, 3, 4, 5)])
    month_before = T0.replace(month=12, year=2149)
    insert(
        con,
        "mimiciv_icu.chartevents",
        [
            _chart(1, HEART_RATE, month_before - timedelta(hours=1), 80),  # outside the month
            _chart(1, HEART_RATE, at(-1), 80),
            _chart(1, ADMIT_WEIGHT, at(1), 80.0),
            _chart(1, DAILY_WEIGHT, at(10), 100.0),
            _chart(3, HEART_RATE, month_before, 80),  # exactly one month before: not strictly after
            _chart(4, HEART_RATE, at(2), 80),
            _chart(4, DAILY_WEIGHT, at(5), 70.0),
            _chart(5, HEART_RATE, at(0), 80),
        ],
    )
    insert(
        con,
        "mimiciv_icu.outputevents",
        [
            _urine(1, 1, 100.0),
            _urine(1, 2, 50.0),
            _urine(1, 2, 20.0, item=IRRIGANT_IN),
            _urine(1, 7.5, 200.0),
            _urine(1, 8, 60.0),
            _urine(1, 10, 40.0),
            _urine(1, 13, 120.0),
            _urine(1, 13.045, 10.0),
            _urine(2, 1, 100.0),
            _urine(3, 1, 100.0),
            _urine(4, 1, 30.0),
            _urine(5, 1, 0.0),
        ],
    )
    build(con, library, "urine_output", "weight_durations")
    out = {}
    for row in run_reference(task, con).to_pylist():
        key = (row["stay_id"], row["charttime"])
        assert key not in out
        out[key] = row
    return out


def test_rule1_irrigant_is_subtracted_and_zero_kept(rates) -> None:
    assert rates[(1, at(2))]["uo"] == 30.0
    assert rates[(5, at(1))]["uo"] == 0.0


def test_rule2_stays_need_a_heart_rate_strictly_within_a_month(rates) -> None:
    assert {s for s, _ in rates} == {1, 4, 5}


def test_rule3_elapsed_time_from_previous_urine_or_the_anchor(rates) -> None:
    assert rates[(1, at(1))]["uo_tm_6hr"] == Decimal("2.00")  # anchor at I - 1 h
    assert rates[(4, at(1))]["uo_tm_6hr"] == Decimal("-1.00")  # urine before the first HR


def test_rule4_windows_use_fractional_hours(rates) -> None:
    row = rates[(1, at(7.5))]  # the charting 5.5 h back is outside the 6 h window
    assert (row["urineoutput_6hr"], row["uo_tm_6hr"]) == (200.0, Decimal("5.50"))
    row = rates[(1, at(13))]  # exactly 5 h and 11 h back are inside; 12 h back is not
    assert row["urineoutput_6hr"] == 120.0 + 40.0 + 60.0
    assert row["urineoutput_12hr"] == 120.0 + 40.0 + 60.0 + 200.0 + 30.0
    assert row["urineoutput_24hr"] == 550.0


def test_rule5_sums_of_volume_and_elapsed_time(rates) -> None:
    row = rates[(1, at(8))]
    assert (row["urineoutput_6hr"], row["uo_tm_6hr"]) == (260.0, Decimal("6.00"))
    assert (row["urineoutput_12hr"], row["uo_tm_12hr"]) == (390.0, Decimal("9.00"))


def test_rules6_7_weight_intervals(rates) -> None:
    assert rates[(1, at(1))]["weight"] == 80.0  # admission weight from I - 2 h
    assert rates[(1, at(10))]["weight"] == 80.0  # start < T: the new weight starts after
    assert rates[(1, at(13))]["weight"] == 100.0
    assert rates[(4, at(1))]["weight"] == 70.0  # back-filled from I - 2 h
    assert rates[(5, at(1))]["weight"] is None  # no weight charted


def test_rule8_rates_only_with_enough_time_and_a_weight(rates) -> None:
    assert rates[(1, at(8))]["uo_mlkghr_6hr"] == Decimal("0.542")  # 260 / 80 / 6
    assert rates[(1, at(8))]["uo_mlkghr_12hr"] is None  # 9 h < 12 h
    assert rates[(1, at(7.5))]["uo_mlkghr_6hr"] is None  # 5.5 h < 6 h
    assert rates[(1, at(13))]["uo_mlkghr_12hr"] == Decimal("0.375")  # 450 / 100 / 12
    assert rates[(5, at(1))]["uo_mlkghr_6hr"] is None


def test_rule9_elapsed_hours_round_twice(rates) -> None:
    # 302.7 minutes = 5.045 h: 3 decimals give 5.045, then 2 decimals half away give 5.05
    assert rates[(1, at(13.045))]["uo_tm_6hr"] == Decimal("5.05")
