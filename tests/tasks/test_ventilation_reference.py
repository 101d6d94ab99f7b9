"""mimic-ventilation(-raw): hand-built charting, one case per rule of the operational spec:
the status hierarchy, ignored times, the 14 h gap rule for starts and ends, single-time
episodes, the text None and the ventilation_seq ordering."""

from __future__ import annotations

from typing import Any

import pytest
from task_rows import at, build, empty_database, insert, run_reference


def _device(stay_id: int, hours: float, device: str) -> dict[str, Any]:
    return {
        "subject_id": stay_id,
        "stay_id": stay_id,
        "charttime": at(hours),
        "o2_delivery_device_1": device,
    }


def _mode(
    stay_id: int, hours: float, mode: str | None = None, hamilton: str | None = None
) -> dict[str, Any]:
    return {
        "subject_id": stay_id,
        "stay_id": stay_id,
        "charttime": at(hours),
        "ventilator_mode": mode,
        "ventilator_mode_hamilton": hamilton,
    }


@pytest.fixture(scope="module")
def episodes(catalog, library) -> dict[int, list[tuple[int, float, float, str]]]:
    task = catalog.task("mimic-ventilation")
    con = empty_database(task, library)
    insert(
        con,
        "oxygen_delivery",
        [
            # 1: tracheostomy wins over a controlled mode charted at the same time
            _device(1, 0, "Tracheostomy tube"),
            _device(1, 1, "Trach mask "),
            # 2: endotracheal tube, then a nasal cannula: two episodes sharing a boundary
            _device(2, 0, "Endotracheal tube"),
            _device(2, 4, "Endotracheal tube"),
            _device(2, 6, "Nasal cannula"),
            _device(2, 8, "Nasal cannula"),
            # 3: same status with a 14 h gap, then a 13.99 h gap
            _device(3, 0, "Nasal cannula"),
            _device(3, 2, "Nasal cannula"),
            _device(3, 16, "Nasal cannula"),
            _device(3, 29.99, "Nasal cannula"),
            # 4: single invasive time dropped; BiPAP needs its trailing space
            _device(4, 0, "Endotracheal tube"),
            _device(4, 2, "Bipap mask "),
            _device(4, 3, "Bipap mask"),
            _device(4, 4, "Bipap mask "),
            # 5: HFNC, then None written as text; a T-piece time is ignored
            _device(5, 0, "High flow nasal cannula"),
            _device(5, 1, "T-piece"),
            _device(5, 2, "High flow nasal cannula"),
            _device(5, 20, "None"),
            _device(5, 21, "None"),
        ],
    )
    insert(
        con,
        "ventilator_setting",
        [
            _mode(1, 0, mode="CMV"),
            # 6: CPAP/PSV is invasive; Hamilton NIV is non-invasive
            _mode(6, 0, mode="CPAP/PSV"),
            _mode(6, 5, mode="CPAP/PSV"),
            _mode(6, 7, hamilton="NIV"),
            _mode(6, 9, hamilton="NIV"),
            _mode(6, 10, mode="Standby"),
        ],
    )
    found: dict[int, list[tuple[int, float, float, str]]] = {}
    for row in run_reference(task, con).to_pylist():
        start = (row["starttime"] - at(0)).total_seconds() / 3600
        end = (row["endtime"] - at(0)).total_seconds() / 3600
        found.setdefault(row["stay_id"], []).append(
            (row["ventilation_seq"], start, end, row["ventilation_status"])
        )
    con.close()
    return found


def test_status_hierarchy_tracheostomy_first(episodes) -> None:
    assert episodes[1] == [(1, 0, 1, "Tracheostomy")]


def test_status_change_starts_an_episode_that_ends_at_the_next_time(episodes) -> None:
    assert episodes[2] == [(1, 0, 6, "InvasiveVent"), (2, 6, 8, "SupplementalOxygen")]


def test_fourteen_hour_gap_splits_and_ends_episodes(episodes) -> None:
    # 2 -> 16 is exactly 14 h: a new episode, the first ends at its own last time;
    # 16 -> 29.99 is 13.99 h: the same episode
    assert episodes[3] == [(1, 0, 2, "SupplementalOxygen"), (2, 16, 29.99, "SupplementalOxygen")]


def test_single_time_episodes_are_dropped_and_seq_renumbered(episodes) -> None:
    # the lone invasive time at 0 is dropped; "Bipap mask" without its space is ignored
    assert episodes[4] == [(1, 2, 4, "NonInvasiveVent")]


def test_ignored_times_and_the_text_none(episodes) -> None:
    # the T-piece time is no timeline point; 2 -> 20 is 18 h: HFNC ends at 2
    assert episodes[5] == [(1, 0, 2, "HFNC"), (2, 20, 21, "None")]


def test_ventilator_modes_invasive_and_non_invasive(episodes) -> None:
    # Standby at 10 has no status: the NIV episode ends at its own last time
    assert episodes[6] == [(1, 0, 7, "InvasiveVent"), (2, 7, 9, "NonInvasiveVent")]


def test_timeline_and_device_ranking_from_source_rows(task_db, library) -> None:
    """Raw charting: devices at one time rank alphabetically, a device needs an O2 flow
    charted at the same time, and a ventilator mode alone makes a charting time."""
    task, con = task_db("mimic-ventilation-raw")

    def chart(hours: float, item: int, value: str) -> dict[str, Any]:
        numeric = float(value) if value[0].isdigit() else None
        return {
            "subject_id": 1,
            "stay_id": 1,
            "charttime": at(hours),
            "itemid": item,
            "value": value,
            "valuenum": numeric,
        }

    flow, device, mode = 223834, 226732, 223849
    insert(
        con,
        "mimiciv_icu.chartevents",
        [
            chart(0, flow, "2"),
            chart(0, device, "Nasal cannula"),
            chart(0, device, "Endotracheal tube"),  # ranks first: invasive
            chart(3, mode, "SIMV"),  # no flow needed for a ventilator setting
            chart(5, device, "Nasal cannula"),  # no flow at 5 h: dropped
            chart(8, flow, "2"),
            chart(8, device, "Nasal cannula"),
            chart(9, flow, "3"),
            chart(9, device, "Nasal cannula"),
        ],
    )
    build(con, library, "oxygen_delivery", "ventilator_setting")
    rows = run_reference(task, con).to_pylist()
    got = [
        (r["ventilation_seq"], r["starttime"], r["endtime"], r["ventilation_status"]) for r in rows
    ]
    assert got == [(1, at(0), at(8), "InvasiveVent"), (2, at(8), at(9), "SupplementalOxygen")]
