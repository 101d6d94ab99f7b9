"""mimic-suspicion-infection(-raw): hand-built antibiotics and cultures, one case per rule of
the operational spec: the ab_id ordering, culture collapse and positivity, the 72 h / 24 h
windows with their strict ends, date-only cultures, the culture choice and the outputs."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from task_rows import T0, at, empty_database, insert, run_reference

DAY0 = datetime(T0.year, T0.month, T0.day)  # the antibiotics' start date (T0 is 08:00)
NEGATIVE = 90856


def _ab(
    subject: int, hours: float | None, drug: str = "Vancomycin", **extra: Any
) -> dict[str, Any]:
    return {
        "subject_id": subject,
        "hadm_id": subject * 10,
        "antibiotic": drug,
        "route": "IV",
        "starttime": None if hours is None else at(hours),
        "stoptime": None if hours is None else at(hours + 48),
        **extra,
    }


def _culture(
    subject: int,
    specimen_id: int,
    hours: float | None,
    day: datetime = DAY0,
    spec: str | None = "BLOOD CULTURE",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "microevent_id": specimen_id * 10 + len(extra),
        "subject_id": subject,
        "hadm_id": subject * 10,
        "micro_specimen_id": specimen_id,
        "chartdate": day if hours is None else datetime(*at(hours).timetuple()[:3]),
        "charttime": None if hours is None else at(hours),
        "spec_type_desc": spec,
        **extra,
    }


@pytest.fixture(scope="module")
def infection(catalog, library) -> dict[tuple[int, int], dict[str, Any]]:
    task = catalog.task("mimic-suspicion-infection")
    con = empty_database(task, library)
    insert(
        con,
        "antibiotic",
        [
            # subject 1: ab_id ordering; the NULL start comes first, then start, stop, name
            _ab(1, 5, "Zosyn"),
            _ab(1, 5, "Cefepime"),
            _ab(1, None, "Vancomycin"),
            _ab(1, 5, "Cefepime", stay_id=7),
            # 2: culture 72 h before (counts) and 72 h 1 min before (does not)
            _ab(2, 0),
            # 3: culture exactly at the start: neither direction; another 24 h after
            _ab(3, 0),
            # 4: cultures only after: the earlier of two wins; 24 h 1 min after is outside
            _ab(4, 0),
            # 5: date-only culture on the start date (both directions) and a timed one the
            # same date before the start: the date-only culture is chosen
            _ab(5, 0),
            # 6: date-only culture 3 days before the start date counts, 4 days does not
            _ab(6, 0),
            # 7: date-only culture the day after the start date: culture after
            _ab(7, 0),
            # 8: chosen culture has no specimen text: not a suspected infection
            _ab(8, 0),
            # 9: no culture at all
            _ab(9, 0, stay_id=90),
            # 10: organism named without an organism code: not positive; the specimen's
            # latest chart time is its culture time
            _ab(10, 0),
        ],
    )
    insert(
        con,
        "mimiciv_hosp.microbiologyevents",
        [
            _culture(2, 21, -72.0, org_name="E. COLI", org_itemid=80002),
            _culture(2, 21, -72.0, org_name=None, org_itemid=None),
            _culture(2, 22, -72.02, spec="URINE"),
            _culture(3, 31, 0.0, spec="URINE"),
            _culture(3, 32, 24.0, org_name="NEGATIVE", org_itemid=NEGATIVE),
            _culture(4, 41, 20.0, spec="SPUTUM", org_name="S. AUREUS", org_itemid=None),
            _culture(4, 42, 3.0, spec="URINE"),
            _culture(4, 43, 24.02, spec="STOOL"),
            _culture(5, 51, -2.0, spec="URINE"),
            _culture(5, 52, None, DAY0, spec="SWAB"),
            _culture(6, 61, None, DAY0 - timedelta(days=3), spec="URINE"),
            _culture(6, 62, None, DAY0 - timedelta(days=4), spec="SPUTUM"),
            _culture(7, 71, None, DAY0 + timedelta(days=1), spec="URINE"),
            _culture(8, 81, 1.0, spec=None),
            _culture(8, 82, 2.0, spec="URINE"),
            _culture(10, 101, 1.0, org_name="S. AUREUS", org_itemid=None),
            _culture(10, 101, 5.0, org_name="", org_itemid=80002),
        ],
    )
    rows = run_reference(task, con).to_pylist()
    con.close()
    return {(row["subject_id"], row["ab_id"]): row for row in rows}


def test_ab_id_orders_start_stop_name_then_ids_with_nulls_first(infection) -> None:
    got = {ab: (row["antibiotic"], row["stay_id"]) for (s, ab), row in infection.items() if s == 1}
    assert got == {
        1: ("Vancomycin", None),
        2: ("Cefepime", None),
        3: ("Cefepime", 7),
        4: ("Zosyn", None),
    }


def test_culture_before_within_72_hours(infection) -> None:
    row = infection[(2, 1)]
    assert row["suspected_infection"] == 1
    assert row["culture_time"] == at(-72) == row["suspected_infection_time"]
    assert row["specimen"] == "BLOOD CULTURE"
    assert row["positive_culture"] == 1  # one row of the specimen grew an organism


def test_culture_at_the_start_counts_in_neither_direction(infection) -> None:
    row = infection[(3, 1)]
    assert row["culture_time"] == at(24) and row["specimen"] == "BLOOD CULTURE"
    assert row["positive_culture"] == 0  # the NEGATIVE organism is not a growth
    assert row["suspected_infection_time"] == at(0)  # culture after: the antibiotic start


def test_earliest_culture_after_within_24_hours(infection) -> None:
    row = infection[(4, 1)]
    assert (row["culture_time"], row["specimen"], row["positive_culture"]) == (at(3), "URINE", 0)


def test_date_only_culture_is_chosen_first_and_counts_as_midnight(infection) -> None:
    row = infection[(5, 1)]
    assert (row["culture_time"], row["specimen"]) == (DAY0, "SWAB")
    assert row["suspected_infection_time"] == DAY0


def test_date_only_windows_in_calendar_days(infection) -> None:
    assert infection[(6, 1)]["culture_time"] == DAY0 - timedelta(days=3)
    assert infection[(6, 1)]["specimen"] == "URINE"
    row = infection[(7, 1)]
    assert row["culture_time"] == DAY0 + timedelta(days=1)
    assert row["suspected_infection_time"] == at(0)


def test_suspected_infection_needs_specimen_text(infection) -> None:
    row = infection[(8, 1)]
    assert row["suspected_infection"] == 0 and row["suspected_infection_time"] is None
    assert row["culture_time"] == at(1) and row["specimen"] is None


def test_antibiotic_without_culture_keeps_its_row(infection) -> None:
    row = infection[(9, 1)]
    assert row["stay_id"] == 90 and row["hadm_id"] == 90
    assert row["suspected_infection"] == 0
    assert [row[c] for c in ("culture_time", "specimen", "positive_culture")] == [None] * 3
    assert len(infection) == 13


def test_culture_collapse_and_positivity(infection) -> None:
    row = infection[(10, 1)]
    assert row["culture_time"] == at(5)  # the latest time of the specimen's rows
    assert row["positive_culture"] == 0  # no code, or an empty organism name
