"""Treatment concepts (ventilation, crrt, rrt, invasive_line) on hand-built stays.

Expected rows are worked out from the clinical rules, not from the SQL.
"""

from __future__ import annotations

from typing import Any

from concept_rows import at
from derived_inputs import prepare_inputs


def _device(stay_id: int, hour: float, device: str) -> dict[str, Any]:
    return {
        "subject_id": stay_id,
        "stay_id": stay_id,
        "charttime": at(hour),
        "o2_delivery_device_1": device,
    }


def _mode(
    stay_id: int, hour: float, mode: str | None = None, hamilton: str | None = None
) -> dict[str, Any]:
    return {
        "subject_id": stay_id,
        "stay_id": stay_id,
        "charttime": at(hour),
        "ventilator_mode": mode,
        "ventilator_mode_hamilton": hamilton,
    }


def test_ventilation_episodes(insert, build, rows):
    prepare_inputs(build, "ventilator_setting", "oxygen_delivery")
    insert(
        "mimiciv_derived.oxygen_delivery",
        [
            _device(100, 0, "Nasal cannula"),
            _device(100, 2, "Nasal cannula"),
            _device(100, 6, "Endotracheal tube"),
            _device(100, 8, "T-piece"),  # no status: ignored
            _device(100, 50, "Bipap mask "),  # single observation: dropped
            _device(100, 52, "High flow nasal cannula"),
            _device(100, 53, "High flow nasal cannula"),
            _device(100, 54, "Trach mask "),  # single observation (next same status 26 h later)
            _device(100, 80, "Trach mask "),  # single observation although it ends at 81
            _device(100, 81, "None"),
            _device(100, 82, "None"),
            _device(200, 0, "Face tent"),
            _device(200, 1, "Face tent"),
            _device(200, 15, "Face tent"),  # exactly 14 h after the previous one: new episode
            _device(200, 16, "Face tent"),
            _device(300, 0, "Venti mask "),
            _device(300, 13.9, "Venti mask "),  # under 14 h: same episode
            _device(400, 0, "Bipap mask"),  # without the trailing space: no status
            _device(400, 1, "Bipap mask"),
        ],
    )
    insert(
        "mimiciv_derived.ventilator_setting",
        [
            _mode(100, 4, "CMV/ASSIST"),
            _mode(100, 6, "SIMV/PSV"),
            _mode(100, 30, "CMV"),  # 24 h after the last invasive row: new episode
            _mode(100, 31, hamilton="P-CMV"),
            _mode(400, 2, hamilton="NIV"),
            _mode(400, 3, "Standby", hamilton="NIV-ST"),
        ],
    )
    build("ventilation", with_dependencies=False)
    got = [
        (r["stay_id"], r["starttime"], r["endtime"], r["ventilation_status"])
        for r in rows("ventilation", order_by="stay_id, starttime")
    ]
    assert got == [
        (100, at(0), at(4), "SupplementalOxygen"),  # ends at the next row of the stay
        (100, at(4), at(6), "InvasiveVent"),  # next row 24 h later: ends at its own last row
        (100, at(30), at(31), "InvasiveVent"),
        (100, at(52), at(54), "HFNC"),
        (100, at(81), at(82), "None"),
        (200, at(0), at(1), "SupplementalOxygen"),
        (200, at(15), at(16), "SupplementalOxygen"),
        (300, at(0), at(13.9), "SupplementalOxygen"),
        (400, at(2), at(3), "NonInvasiveVent"),
    ]


def _chart(
    itemid: int, hour: float, value: str | None, valuenum: float | None = None, stay_id: int = 100
) -> dict[str, Any]:
    return {
        "subject_id": 1,
        "hadm_id": 10,
        "stay_id": stay_id,
        "charttime": at(hour),
        "itemid": itemid,
        "value": value,
        "valuenum": valuenum,
    }


def test_crrt_pivots_settings_and_filter_flags(insert, build, rows):
    insert(
        "mimiciv_icu.chartevents",
        [
            _chart(227290, 1, "CVVHDF"),
            _chart(224146, 1, "Active"),
            _chart(224144, 1, "150", 150.0),
            _chart(225977, 1, "Prismasate K4"),
            _chart(224146, 2, "Clots Increasing"),
            _chart(224149, 2, None, -80.0),  # NULL value: ignored
            _chart(224146, 3, "No Clot Present"),
            _chart(224146, 4, "Discontinued"),
            _chart(224146, 5, "Clotted"),
            _chart(220045, 6, "80", 80.0),  # not a CRRT item
        ],
    )
    build("crrt")
    got = {r["charttime"]: r for r in rows("crrt")}
    assert sorted(got) == [at(1), at(2), at(3), at(4), at(5)]
    first = got[at(1)]
    assert (first["crrt_mode"], first["system_active"], first["blood_flow"]) == ("CVVHDF", 1, 150.0)
    assert first["dialysate_fluid"] == "Prismasate K4"
    assert (first["clots"], first["clots_increasing"], first["clotted"]) == (None, None, None)
    assert got[at(2)]["clots_increasing"] == 1 and got[at(2)]["access_pressure"] is None
    assert got[at(3)]["clots"] == 0
    assert got[at(4)]["system_active"] == 0
    assert got[at(5)]["clotted"] == 1 and got[at(5)]["crrt_mode"] is None


def _procedure(itemid: int, start: float, end: float, value: float | None = 60.0) -> dict[str, Any]:
    return {
        "subject_id": 1,
        "hadm_id": 10,
        "stay_id": 100,
        "itemid": itemid,
        "starttime": at(start),
        "endtime": at(end),
        "storetime": at(end),
        "value": value,
    }


def test_rrt_points_ranges_and_types(insert, build, rows):
    insert(
        "mimiciv_icu.chartevents",
        [
            _chart(225965, 1, "In use"),  # peritoneal, active
            _chart(225965, 2, "Not in use"),  # peritoneal, present only
            _chart(224149, 3, "-80", -80.0),  # present-only item
            _chart(227290, 3, "CVVH"),  # mode text is the type
            _chart(224144, 3, "150", 150.0),  # active item ...
            _chart(224144, 3, "150", 150.0),  # ... charted twice: one point
            _chart(224149, 5, "-70", -70.0),  # inside the CRRT procedure range
            _chart(227290, 8, "CVVHD"),  # inside the catheter range (no type)
            _chart(226118, 12, None),  # NULL value: ignored
        ],
    )
    insert(
        "mimiciv_icu.procedureevents",
        [
            _procedure(225802, 4, 6),  # CRRT, active
            _procedure(224270, 7, 9),  # dialysis catheter: present, not active, no type
            _procedure(225441, 20, 21, value=None),  # NULL value: ignored
        ],
    )
    insert(
        "mimiciv_icu.inputevents",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "stay_id": 100,
                "itemid": 227525,
                "orderid": 1,
                "starttime": at(10),
                "endtime": at(11),
                "amount": 5.0,
            },
            {
                "subject_id": 1,
                "hadm_id": 10,
                "stay_id": 100,
                "itemid": 227536,
                "orderid": 2,
                "starttime": at(13),
                "endtime": at(14),
                "amount": 0.0,
            },  # amount 0: ignored
        ],
    )
    build("rrt")
    got = [
        (r["charttime"], r["dialysis_present"], r["dialysis_active"], r["dialysis_type"])
        for r in rows("rrt", order_by="charttime, dialysis_active, dialysis_type NULLS FIRST")
    ]
    assert got == [
        (at(1), 1, 1, "Peritoneal"),
        (at(2), 1, 0, "Peritoneal"),
        (at(3), 1, 0, None),
        (at(3), 1, 0, "CVVH"),
        (at(3), 1, 1, None),
        (at(4), 1, 1, "CRRT"),  # the range's own start point
        (at(5), 1, 1, "CRRT"),  # the range's flags and type win
        (at(7), 1, 0, None),
        (at(8), 1, 0, "CVVHD"),  # a range without type keeps the point's type
        (at(10), 1, 1, "CRRT"),
    ]


def test_invasive_line_labels_line_items(insert, build, rows):
    insert(
        "mimiciv_icu.d_items",
        [
            {
                "itemid": 225752,
                "label": "Arterial Line",
                "abbreviation": "Arterial Line",
                "linksto": "procedureevents",
                "category": "Access Lines - Invasive",
                "param_type": "Process",
            },
        ],
    )
    insert(
        "mimiciv_icu.procedureevents",
        [
            {**_procedure(225752, 0, 48), "location": "Left Radial"},
            _procedure(225792, 0, 10),  # invasive ventilation: not a line
        ],
    )
    build("invasive_line")
    got = [(r["line_type"], r["line_site"], r["starttime"]) for r in rows("invasive_line")]
    assert got == [("Arterial Line", "Left Radial", at(0))]
