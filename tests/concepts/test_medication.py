"""Medication concepts on hand-built infusions and prescriptions.

Expected rows are worked out from the clinical rules, not from the SQL.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest
from concept_rows import at, stay


def _infusion(
    stay_id: int,
    itemid: int,
    start: float,
    end: float,
    rate: float | None,
    rateuom: str = "mcg/kg/min",
    weight: float = 80.0,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "subject_id": 1,
        "hadm_id": 10,
        "stay_id": stay_id,
        "itemid": itemid,
        "starttime": at(start),
        "endtime": at(end),
        "rate": rate,
        "rateuom": rateuom,
        "patientweight": weight,
        "amount": 1.0,
        "linkorderid": 7,
        "orderid": 7,
        **extra,
    }


@pytest.mark.parametrize(
    ("concept", "itemid", "rate", "rateuom", "weight", "expected"),
    [
        ("norepinephrine", 221906, 0.08, "mcg/kg/min", 80.0, 0.08),
        ("norepinephrine", 221906, 0.0001, "mg/kg/min", 80.0, 0.1),
        ("norepinephrine", 221906, 0.0001, "mg/kg/min", 1.0, 0.0001),  # weight 1: kept
        ("epinephrine", 221289, 0.05, "mcg/kg/min", 80.0, 0.05),
        ("dopamine", 221662, 7.5, "mcg/kg/min", 80.0, 7.5),
        ("dobutamine", 221653, 5.0, "mcg/kg/min", 80.0, 5.0),
        ("milrinone", 221986, 0.375, "mcg/kg/min", 80.0, 0.375),
        ("phenylephrine", 221749, 1.5, "mcg/kg/min", 80.0, 1.5),
        ("phenylephrine", 221749, 100.0, "mcg/min", 80.0, 1.25),
        ("vasopressin", 222315, 2.4, "units/hour", 80.0, 2.4),
        ("vasopressin", 222315, 0.04, "units/min", 80.0, 2.4),
    ],
)
def test_agent_tables_convert_rates(
    insert, build, rows, concept, itemid, rate, rateuom, weight, expected
):
    insert(
        "mimiciv_icu.inputevents",
        [
            _infusion(100, itemid, 0, 1, rate, rateuom, weight, statusdescription="Rewritten"),
            _infusion(100, 225158, 0, 1, 50.0, "mL/hour"),  # another item: not this agent
        ],
    )
    build(concept)
    got = rows(concept)
    assert len(got) == 1  # a Rewritten row is kept
    assert got[0]["vaso_rate"] == pytest.approx(expected)
    assert (got[0]["stay_id"], got[0]["linkorderid"], got[0]["vaso_amount"]) == (100, 7, 1.0)
    assert (got[0]["starttime"], got[0]["endtime"]) == (at(0), at(1))


def _staggered_infusions(insert) -> None:
    insert(
        "mimiciv_icu.inputevents",
        [
            _infusion(100, 221906, 0, 2, 0.1),  # norepinephrine A
            _infusion(100, 221906, 1, 3, 0.2),  # norepinephrine B overlaps A
            _infusion(100, 222315, 1.5, 2.5, 2.4, "units/hour"),  # vasopressin
            _infusion(100, 221653, 4, 5, 5.0),  # dobutamine after a gap
        ],
    )


def test_vasoactive_agent_splits_at_every_start_and_end(insert, build, rows):
    _staggered_infusions(insert)
    build("vasoactive_agent")
    got = [
        (r["starttime"], r["endtime"], r["norepinephrine"], r["vasopressin"], r["dobutamine"])
        for r in rows("vasoactive_agent", order_by="starttime, norepinephrine")
    ]
    assert got == [
        (at(0), at(1), 0.1, None, None),
        (at(1), at(1.5), 0.1, None, None),  # two norepinephrine rows: one output row each
        (at(1), at(1.5), 0.2, None, None),
        (at(1.5), at(2), 0.1, 2.4, None),
        (at(1.5), at(2), 0.2, 2.4, None),
        (at(2), at(2.5), 0.2, 2.4, None),
        (at(2.5), at(3), 0.2, None, None),
        (at(3), at(4), None, None, None),  # gap: kept, all NULL
        (at(4), at(5), None, None, 5.0),
    ]
    assert all(r["stay_id"] == 100 for r in rows("vasoactive_agent"))


def test_norepinephrine_equivalent_dose_per_interval_row(insert, build, rows):
    _staggered_infusions(insert)
    insert(
        "mimiciv_icu.inputevents",
        [
            _infusion(200, 221289, 0, 1, 0.0015),  # epinephrine: 0.0015 -> 0.002 (3 dp, half away)
            _infusion(200, 221749, 1, 2, 2.0),  # phenylephrine / 10
            _infusion(200, 221662, 1, 2, 5.0),  # dopamine / 100
            _infusion(200, 221986, 2, 3, 0.5),  # milrinone only: no row
        ],
    )
    build("norepinephrine_equivalent_dose")
    got = [
        (r["stay_id"], r["starttime"], r["endtime"], r["norepinephrine_equivalent_dose"])
        for r in rows("norepinephrine_equivalent_dose")
    ]
    assert got == [
        (100, at(0), at(1), Decimal("0.100")),
        (100, at(1), at(1.5), Decimal("0.100")),
        (100, at(1), at(1.5), Decimal("0.200")),
        (100, at(1.5), at(2), Decimal("0.200")),  # 0.1 + 2.4 * 2.5 / 60
        (100, at(1.5), at(2), Decimal("0.300")),
        (100, at(2), at(2.5), Decimal("0.300")),
        (100, at(2.5), at(3), Decimal("0.200")),
        (200, at(0), at(1), Decimal("0.002")),
        (200, at(1), at(2), Decimal("0.250")),
    ]


def _rx(
    drug: str | None, route: str | None, start: float, *, drug_type: str = "MAIN", hadm_id: int = 10
) -> dict[str, Any]:
    return {
        "subject_id": 1,
        "hadm_id": hadm_id,
        "pharmacy_id": 1,
        "drug_type": drug_type,
        "drug": drug,
        "route": route,
        "starttime": at(start),
        "stoptime": at(start + 24),
    }


def test_antibiotic_pairs_exclusions_and_stay_attachment(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(intime=at(0), los_hours=72)])
    insert(
        "mimiciv_hosp.prescriptions",
        [
            _rx("CefTRIAXone", "IV", 1),
            _rx("CefTRIAXone", "IV", 2, drug_type="BASE"),  # BASE row of an antibiotic pair: kept
            _rx("Vancomycin", "IV DRIP", 3, drug_type="BASE"),  # pair only seen as BASE: dropped
            _rx("Erythromycin 0.5% Ophth Oint", "BOTH EYES", 4),
            _rx("Gentamicin", "OU", 5),
            _rx("Ciprofloxacin Otic", "LEFT EAR", 5),
            _rx("Mupirocin Cream 2%", "NU", 6),
            _rx("Fluconazole", "IV", 7),  # not in the list
            _rx("Levofloxacin", None, 8),  # NULL route never matches
            _rx("Levofloxacin", "PO", -1),  # before intime: no stay
            _rx("Levofloxacin", "PO", 0),  # at intime: in the stay
            _rx("Levofloxacin", "PO", 72),  # at outtime: no stay
            _rx("Sulfameth/Trimethoprim DS", "PO", 9),
            _rx("Sulfameth/Trimethoprim DS", "PO", 9, hadm_id=11),  # other admission: no stay
        ],
    )
    build("antibiotic")
    got = [
        (r["antibiotic"], r["route"], r["starttime"], r["stay_id"], r["hadm_id"])
        for r in rows("antibiotic", order_by="starttime, hadm_id")
    ]
    assert got == [
        ("Levofloxacin", "PO", at(-1), None, 10),
        ("Levofloxacin", "PO", at(0), 100, 10),
        ("CefTRIAXone", "IV", at(1), 100, 10),
        ("CefTRIAXone", "IV", at(2), 100, 10),
        ("Sulfameth/Trimethoprim DS", "PO", at(9), 100, 10),
        ("Sulfameth/Trimethoprim DS", "PO", at(9), None, 11),
        ("Levofloxacin", "PO", at(72), None, 10),
    ]
    assert rows("antibiotic")[0]["stoptime"] is not None


def test_acei_and_nsaid_match_generic_names(insert, build, rows):
    insert(
        "mimiciv_hosp.prescriptions",
        [
            _rx("Lisinopril", "PO", 0),
            _rx("Enalaprilat", "IV", 1),
            _rx("Losartan Potassium", "PO", 2),  # an ARB, not an ACE inhibitor
            _rx("Ketorolac", "IV", 3),
            _rx("Ibuprofen Suspension", "PO", 4),
            _rx("Aspirin", "PO", 5),  # not counted
        ],
    )
    build("acei", "nsaid")
    assert [r["acei"] for r in rows("acei", order_by="starttime")] == ["Lisinopril", "Enalaprilat"]
    assert [r["nsaid"] for r in rows("nsaid", order_by="starttime")] == [
        "Ketorolac",
        "Ibuprofen Suspension",
    ]


def test_neuroblock_keeps_rows_with_a_rate(insert, build, rows):
    insert(
        "mimiciv_icu.inputevents",
        [
            _infusion(100, 222062, 0, 1, 1.0, "mg/kg/hour"),
            _infusion(100, 221555, 1, 2, 0.15, "mg/kg/hour"),
            _infusion(100, 221555, 2, 3, None),  # bolus without a rate
            _infusion(100, 221906, 0, 1, 0.1),
        ],
    )
    build("neuroblock")
    got = [(r["itemid"], r["drug_rate"], r["starttime"]) for r in rows("neuroblock")]
    assert got == [(221555, 0.15, at(1)), (222062, 1.0, at(0))]


def test_antibiotic_ignores_rows_without_drug(insert, build, rows):
    insert("mimiciv_hosp.prescriptions", [_rx(None, "IV", 0), _rx("Cefepime", "IV", 1)])
    build("antibiotic")
    assert [r["antibiotic"] for r in rows("antibiotic")] == ["Cefepime"]
    assert rows("antibiotic")[0]["starttime"] == datetime(2150, 1, 1, 9)
