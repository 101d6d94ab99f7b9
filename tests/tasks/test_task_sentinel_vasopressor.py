"""mimic-vasopressor-equivalents-raw: one case per rule of its operational spec.

Infusions are inserted as source rows; the interval concept is materialized from them.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from task_rows import at, build, insert

from m4bench.tasks.reference import run_reference

NOREPI, EPI, DOPA, DOBU, PHENYL, VASO = 221906, 221289, 221662, 221653, 221749, 222315


def _row(
    stay: int,
    item: int,
    start: float,
    end: float,
    rate: float,
    uom: str,
    weight: float = 80.0,
    status: str = "FinishedRunning",
) -> dict[str, object]:
    return {
        "subject_id": stay,
        "hadm_id": stay * 10,
        "stay_id": stay,
        "itemid": item,
        "starttime": at(start),
        "endtime": at(end),
        "rate": rate,
        "rateuom": uom,
        "patientweight": weight,
        "statusdescription": status,
        "amount": rate,
    }


@pytest.fixture
def doses(task_db, library):
    task, con = task_db("mimic-vasopressor-equivalents-raw")
    insert(
        con,
        "mimiciv_icu.inputevents",
        [
            _row(1, NOREPI, 0, 4, 0.1, "mcg/kg/min"),
            _row(1, EPI, 2, 6, 0.05, "mcg/kg/min"),
            _row(1, DOBU, 6, 8, 5.0, "mcg/kg/min"),
            _row(2, NOREPI, 0, 1, 0.0002, "mg/kg/min", weight=70.0),
            _row(3, NOREPI, 0, 1, 0.5, "mg/kg/min", weight=1.0),
            _row(4, PHENYL, 0, 1, 100.0, "mcg/min", weight=50.0),
            _row(5, VASO, 0, 1, 0.04, "units/min"),
            _row(6, DOPA, 0, 1, 5.0, "mcg/kg/min", status="Paused"),
            _row(7, NOREPI, 0, 2, 0.1, "mcg/kg/min"),
            _row(7, NOREPI, 0, 2, 0.3, "mcg/kg/min"),
            _row(8, EPI, 0, 1, 0.12345, "mcg/kg/min"),
            _row(8, EPI, 1, 2, 0.0005, "mcg/kg/min"),
            _row(9, NOREPI, 0, 4, 0.2, "mcg/kg/min"),
            _row(9, VASO, 1, 2, 2.4, "units/hour"),
        ],
    )
    build(con, library, "vasoactive_agent")
    return by_interval(run_reference(task, con).to_pylist())


def by_interval(rows):
    """``{(stay_id, starttime): (endtime, dose)}``; keys must be unique."""
    out = {}
    for row in rows:
        key = (row["stay_id"], row["starttime"])
        assert key not in out
        out[key] = (row["endtime"], row["norepinephrine_equivalent_dose"])
    return out


def _ned(doses, stay):
    return [(start, end, dose) for (s, start), (end, dose) in sorted(doses.items()) if s == stay]


def test_rule1_every_status_counts(doses) -> None:
    assert _ned(doses, 6) == [(at(0), at(1), Decimal("0.050"))]


def test_rule2_unit_conversions_use_the_row_weight(doses) -> None:
    assert _ned(doses, 2)[0][2] == Decimal("0.200")  # mg/kg/min x 1000
    assert _ned(doses, 3)[0][2] == Decimal("0.500")  # weight 1: kept as charted
    assert _ned(doses, 4)[0][2] == Decimal("0.200")  # 100 mcg/min / 50 kg / 10
    assert _ned(doses, 5)[0][2] == Decimal("0.100")  # 0.04 units/min x 60 x 2.5 / 60


def test_rules3_to_6_intervals_from_all_drugs_kept_when_dose_bearing(doses) -> None:
    assert _ned(doses, 1) == [
        (at(0), at(2), Decimal("0.100")),
        (at(2), at(4), Decimal("0.150")),
        (at(4), at(6), Decimal("0.050")),
    ]  # [6, 8] carries dobutamine only and is left out


def test_rule5_containment_splits_a_long_infusion(doses) -> None:
    assert _ned(doses, 9) == [
        (at(0), at(1), Decimal("0.200")),
        (at(1), at(2), Decimal("0.300")),
        (at(2), at(4), Decimal("0.200")),
    ]


def test_rule8_overlapping_rows_keep_the_largest(doses) -> None:
    assert _ned(doses, 7) == [(at(0), at(2), Decimal("0.300"))]


def test_rule9_three_decimals_half_away_from_zero(doses) -> None:
    assert [d for _, _, d in _ned(doses, 8)] == [Decimal("0.123"), Decimal("0.001")]
