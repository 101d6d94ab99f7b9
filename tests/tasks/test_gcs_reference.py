"""eicu-gcs: hand-built nurse charting for the eICU GCS rules: the offset window, numeric
parsing, invalid totals, components summed with normal defaults, the earliest-offset tie and
stays without charting."""

from __future__ import annotations

from typing import Any

import pytest
from task_rows import empty_database, insert, result

GCS, SCORE = "Glasgow coma score", "Score (Glasgow Coma Scale)"


def _chart(
    stay_id: int, offset: int, label: str, name: str, value: str, category: str = "Scores"
) -> dict[str, Any]:
    return {
        "patientunitstayid": stay_id,
        "nursingchartoffset": offset,
        "nursingchartcelltypecat": category,
        "nursingchartcelltypevallabel": label,
        "nursingchartcelltypevalname": name,
        "nursingchartvalue": value,
    }


@pytest.fixture(scope="module")
def gcs(catalog, library) -> dict[Any, dict[str, Any]]:
    task = catalog.task("eicu-gcs")
    con = empty_database(task, library)
    insert(
        con,
        "eicu_crd.patient",
        [
            {"patientunitstayid": s, "patienthealthsystemstayid": s * 10, "uniquepid": f"002-{s}"}
            for s in range(1, 8)
        ],
    )
    insert(
        con,
        "eicu_crd.nursecharting",
        [
            # 1: window ends are included; values outside are ignored
            _chart(1, -360, GCS, "GCS Total", "9"),
            _chart(1, -361, GCS, "GCS Total", "3"),
            _chart(1, 1441, SCORE, "Value", "4"),
            # 2: a total of 17 is invalid: the components count (motor 2, verbal 1, eyes 4)
            _chart(2, 30, GCS, "GCS Total", "17"),
            _chart(2, 30, GCS, "Motor", "2"),
            _chart(2, 30, GCS, "Verbal", "1"),
            # 3: a tie on the total goes to the earliest offset; text is ignored
            _chart(3, 200, SCORE, "Value", "10", "Other Vital Signs and Infusions"),
            _chart(3, 100, GCS, "GCS Total", "10"),
            _chart(3, 100, GCS, "Eyes", "2"),
            _chart(3, 50, GCS, "GCS Total", "unable"),
            # 4: only a charted total: components reported as normal
            _chart(4, 10, GCS, "GCS Total", " 12 "),
            # 5: rows of another category do not count
            _chart(5, 10, GCS, "GCS Total", "5", "Vital Signs"),
            # 6: the lowest value charted at one offset; components unchecked (verbal 7)
            _chart(6, 10, GCS, "Verbal", "7"),
            _chart(6, 10, GCS, "Motor", "6"),
            _chart(6, 10, GCS, "Motor", "3"),
        ],
    )
    rows = result(task, con, key="patientunitstayid")
    con.close()
    return rows


def _scores(row: dict[str, Any]) -> tuple[float, ...]:
    return (row["gcs_min"], row["gcs_motor"], row["gcs_verbal"], row["gcs_eyes"])


def test_window_includes_both_ends(gcs) -> None:
    assert _scores(gcs[1]) == (9, 6, 5, 4)


def test_invalid_total_falls_back_to_components(gcs) -> None:
    assert _scores(gcs[2]) == (7, 2, 1, 4)


def test_tie_goes_to_the_earliest_offset(gcs) -> None:
    assert _scores(gcs[3]) == (10, 6, 5, 2)


def test_total_without_components_and_categories(gcs) -> None:
    assert _scores(gcs[4]) == (12, 6, 5, 4)
    assert _scores(gcs[5]) == (15, 6, 5, 4)
    assert _scores(gcs[7]) == (15, 6, 5, 4)  # nothing charted


def test_lowest_value_per_offset_and_unchecked_components(gcs) -> None:
    assert _scores(gcs[6]) == (14, 3, 7, 4)
    assert gcs[6]["uniquepid"] == "002-6" and gcs[6]["patienthealthsystemstayid"] == 60
