"""First-day aggregates on hand-inserted upstream rows.

Each test builds the concept once on empty inputs (which creates the upstream tables),
inserts upstream rows by hand, then rebuilds only the first-day table, so the windows,
joins and aggregates are checked in isolation from the upstream concepts.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from concept_rows import at, stay

EDGE = timedelta(seconds=1)


@pytest.fixture
def stays(insert):
    """Stay 100 of subject 1 (intime T0) and stay 200 of subject 2 with no data."""
    insert("mimiciv_icu.icustays", [stay(1, 10, 100), stay(2, 20, 200)])


def first_day(build, rows, name, fill):
    build(name)
    fill()
    build(name, with_dependencies=False)
    return {r["stay_id"]: r for r in rows(name)}


def test_first_day_vitalsign_window_is_closed_on_both_ends(stays, insert, build, rows):
    def fill():
        insert(
            "mimiciv_derived.vitalsign",
            [
                {"subject_id": 1, "stay_id": 100, "charttime": at(-6), "heart_rate": 100},
                {"subject_id": 1, "stay_id": 100, "charttime": at(24), "heart_rate": 60},
                {"subject_id": 1, "stay_id": 100, "charttime": at(-6) - EDGE, "heart_rate": 200},
                {"subject_id": 1, "stay_id": 100, "charttime": at(24) + EDGE, "heart_rate": 10},
                {"subject_id": 1, "stay_id": 100, "charttime": at(1), "temperature": 37.5},
                {"subject_id": 1, "stay_id": 999, "charttime": at(1), "heart_rate": 5},
            ],
        )

    got = first_day(build, rows, "first_day_vitalsign", fill)
    first = got[100]
    assert (first["heart_rate_min"], first["heart_rate_max"], first["heart_rate_mean"]) == (
        60,
        100,
        80,
    )
    assert first["temperature_min"] == first["temperature_max"] == Decimal("37.5")
    assert first["sbp_min"] is None
    assert all(v is None for k, v in got[200].items() if k not in {"subject_id", "stay_id"})


def test_first_day_lab_joins_panels_on_subject(stays, insert, build, rows):
    def fill():
        chem = "mimiciv_derived.chemistry"
        insert(
            chem,
            [
                {
                    "subject_id": 1,
                    "hadm_id": 10,
                    "specimen_id": 1,
                    "charttime": at(-3),
                    "creatinine": 1.0,
                },
                {
                    "subject_id": 1,
                    "hadm_id": 10,
                    "specimen_id": 2,
                    "charttime": at(10),
                    "creatinine": 2.0,
                    "sodium": 140,
                },
                # another admission of the same subject, inside the window: counted
                {
                    "subject_id": 1,
                    "hadm_id": 9,
                    "specimen_id": 3,
                    "charttime": at(-5),
                    "creatinine": 0.8,
                },
                {
                    "subject_id": 1,
                    "hadm_id": 10,
                    "specimen_id": 4,
                    "charttime": at(30),
                    "creatinine": 5.0,
                },
            ],
        )
        insert(
            "mimiciv_derived.complete_blood_count",
            [{"subject_id": 1, "specimen_id": 5, "charttime": at(2), "platelet": 150, "wbc": 12}],
        )
        insert(
            "mimiciv_derived.blood_differential",
            [
                {
                    "subject_id": 1,
                    "specimen_id": 6,
                    "charttime": at(2),
                    "bands": 4,
                    "neutrophils_abs": 8.1,
                }
            ],
        )
        insert(
            "mimiciv_derived.coagulation",
            [{"subject_id": 1, "specimen_id": 7, "charttime": at(2), "inr": 1.3, "pt": 14}],
        )
        insert(
            "mimiciv_derived.enzyme",
            [{"subject_id": 1, "specimen_id": 8, "charttime": at(2), "bilirubin_total": 2.2}],
        )

    got = first_day(build, rows, "first_day_lab", fill)
    first = got[100]
    assert (first["creatinine_min"], first["creatinine_max"]) == (0.8, 2.0)
    assert (first["sodium_min"], first["sodium_max"]) == (140, 140)
    assert (first["platelets_min"], first["wbc_max"]) == (150, 12)
    assert (first["bands_max"], first["abs_neutrophils_min"]) == (4, Decimal("8.1"))
    assert (first["inr_max"], first["pt_min"], first["bilirubin_total_max"]) == (1.3, 14, 2.2)
    assert all(v is None for k, v in got[200].items() if k not in {"subject_id", "stay_id"})


def gas(hours: float, specimen: str | None, po2: float, ratio: float) -> dict[str, object]:
    return {
        "subject_id": 1,
        "charttime": at(hours),
        "specimen": specimen,
        "po2": po2,
        "pao2fio2ratio": ratio,
    }


def test_first_day_bg_any_specimen_and_arterial_only(stays, insert, build, rows):
    def fill():
        insert(
            "mimiciv_derived.bg",
            [
                gas(1, "ART.", 90, 200),
                gas(2, "VEN.", 40, 100),
                gas(3, None, 60, 150),  # no specimen type: not arterial
                gas(-7, "ART.", 300, 500),  # before the window
            ],
        )

    every = first_day(build, rows, "first_day_bg", fill)
    assert (every[100]["po2_min"], every[100]["po2_max"]) == (40, 90)
    assert (every[100]["pao2fio2ratio_min"], every[100]["pao2fio2ratio_max"]) == (100, 200)
    assert every[200]["po2_min"] is None
    build("first_day_bg_art", with_dependencies=False)
    art = {r["stay_id"]: r for r in rows("first_day_bg_art")}
    assert (art[100]["po2_min"], art[100]["po2_max"], art[100]["pao2fio2ratio_min"]) == (
        90,
        90,
        200,
    )
    assert art[200]["po2_max"] is None


def test_first_day_gcs_takes_the_lowest_row_earliest_on_ties(stays, insert, build, rows):
    def score(hours, total, motor, verbal, eyes, unable=0):
        return {
            "subject_id": 1,
            "stay_id": 100,
            "charttime": at(hours),
            "gcs": total,
            "gcs_motor": motor,
            "gcs_verbal": verbal,
            "gcs_eyes": eyes,
            "gcs_unable": unable,
        }

    def fill():
        insert(
            "mimiciv_derived.gcs",
            [
                score(-1, 14, 6, 4, 4),
                score(5, 9, 4, 2, 3),
                score(10, 9, 5, 1, 3, unable=1),
                score(25, 3, 1, 1, 1),  # after the window
            ],
        )

    got = first_day(build, rows, "first_day_gcs", fill)
    first = got[100]
    assert (first["gcs_min"], first["gcs_motor"], first["gcs_verbal"], first["gcs_eyes"]) == (
        9,
        4,
        2,
        3,
    )
    assert first["gcs_unable"] == 0
    assert got[200]["gcs_min"] is None


def test_first_day_urine_output_starts_at_intime(stays, insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(3, 30, 300)])

    def fill():
        insert(
            "mimiciv_derived.urine_output",
            [
                {"stay_id": 100, "charttime": at(-1), "urineoutput": 500},  # before intime
                {"stay_id": 100, "charttime": at(0), "urineoutput": 100},
                {"stay_id": 100, "charttime": at(24), "urineoutput": 200},
                {"stay_id": 100, "charttime": at(24) + EDGE, "urineoutput": 999},
                {"stay_id": 300, "charttime": at(2), "urineoutput": 0},
            ],
        )

    got = first_day(build, rows, "first_day_urine_output", fill)
    assert got[100]["urineoutput"] == 300
    assert got[200]["urineoutput"] is None
    assert got[300]["urineoutput"] == 0


def test_first_day_rrt_flags_and_distinct_types(stays, insert, build, rows):
    def point(hours, present, active, kind):
        return {
            "stay_id": 100,
            "charttime": at(hours),
            "dialysis_present": present,
            "dialysis_active": active,
            "dialysis_type": kind,
        }

    def fill():
        insert(
            "mimiciv_derived.rrt",
            [
                point(-6, 1, 0, None),
                point(2, 1, 1, "CVVHD"),
                point(3, 1, 1, "CRRT"),
                point(4, 1, 1, "CRRT"),
                point(30, 1, 1, "IHD"),  # after the window
            ],
        )

    got = first_day(build, rows, "first_day_rrt", fill)
    first = got[100]
    assert (first["dialysis_present"], first["dialysis_active"]) == (1, 1)
    assert first["dialysis_type"] == "CRRT, CVVHD"
    assert got[200]["dialysis_present"] is None and got[200]["dialysis_type"] is None


def test_first_day_height_averages_and_rounds_twice(stays, insert, build, rows):
    def fill():
        insert(
            "mimiciv_derived.height",
            [
                {"subject_id": 1, "stay_id": 100, "charttime": at(1), "height": 170.00},
                {"subject_id": 1, "stay_id": 100, "charttime": at(2), "height": 171.01},
                {"subject_id": None, "stay_id": None, "charttime": None, "height": 150.00},
                {"subject_id": 1, "stay_id": 100, "charttime": at(25), "height": 190.00},
            ],
        )

    got = first_day(build, rows, "first_day_height", fill)
    assert got[100]["height"] == Decimal("170.51")  # mean 170.505, half away from zero
    assert got[200]["height"] is None


def test_first_day_weight_counts_each_interval_started_by_day_end(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(1, 10, 1), stay(2, 20, 2), stay(3, 30, 3)])

    def interval(stay_id, start, end, weight, kind):
        return {
            "stay_id": stay_id,
            "starttime": at(start),
            "endtime": at(end),
            "weight": weight,
            "weight_type": kind,
        }

    def fill():
        insert(
            "mimiciv_derived.weight_durations",
            [
                interval(1, -2, 24, 80, "admit"),
                interval(1, 24, 48, 78, "daily"),  # starts exactly at intime + 24 h: counted
                interval(1, 48, 74, 76, "daily"),
                # stay 2: the back-filled first interval counts the first weight twice
                interval(2, -2, 3, 70, "daily"),
                interval(2, 3, 20, 70, "daily"),
                interval(2, 20, 74, 73, "daily"),
            ],
        )

    got = first_day(build, rows, "first_day_weight", fill)
    one = got[1]
    assert (one["weight_admit"], one["weight"], one["weight_min"], one["weight_max"]) == (
        80,
        79,
        78,
        80,
    )
    two = got[2]
    assert two["weight_admit"] is None
    assert two["weight"] == pytest.approx((70 + 70 + 73) / 3)
    assert (two["weight_min"], two["weight_max"]) == (70, 73)
    assert got[3]["weight"] is None
