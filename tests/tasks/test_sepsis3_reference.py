"""mimic-sepsis3-raw: hand-built suspected infections and SOFA hours, one case per rule of
the operational spec: the SOFA >= 2 window around suspected infection, stays inside the ICU,
the choice of the first match, the timed-culture preference of the suspicion concept and
the hourly SOFA rules that differ from the first-day SOFA."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from task_rows import T0, at, empty_database, insert, result, stay

from m4bench.concepts.materialize import materialize

SOFA_PARTS = ("respiration", "coagulation", "liver", "cardiovascular", "cns", "renal")


def _infection(
    stay_id: int | None, subject: int, hours: float | None, **extra: Any
) -> dict[str, Any]:
    return {
        "subject_id": subject,
        "hadm_id": subject * 10,
        "stay_id": stay_id,
        "ab_id": extra.pop("ab_id", 1),
        "antibiotic": "Vancomycin",
        "antibiotic_time": at(hours if hours is not None else 0),
        "suspected_infection": 0 if hours is None else 1,
        "suspected_infection_time": None if hours is None else at(hours),
        "culture_time": None if hours is None else at(hours - 1),
        **extra,
    }


def _sofa_hour(stay_id: int, end: float, sofa: int, **parts: int) -> dict[str, Any]:
    return {
        "stay_id": stay_id,
        "hr": int(end),
        "endtime": at(end),
        "sofa_24hours": sofa,
        **{f"{p}_24hours": parts.get(p, 0) for p in SOFA_PARTS},
    }


@pytest.fixture(scope="module")
def sepsis(catalog, library) -> dict[Any, dict[str, Any]]:
    task = catalog.task("mimic-sepsis3-raw")
    con = empty_database(task, library)
    insert(
        con,
        "suspicion_of_infection",
        [
            _infection(1, 1, 50),  # SOFA hours at -48 h and +24 h from it
            _infection(2, 2, 50),  # SOFA hours just outside the window
            _infection(3, 3, 50),  # SOFA of 1 only
            _infection(None, 4, 50),  # antibiotic outside any ICU stay
            _infection(5, 5, None),  # no suspected infection
            _infection(6, 6, 60, ab_id=1),  # two infections: the earlier one wins
            _infection(6, 6, 40, ab_id=2),
        ],
    )
    insert(
        con,
        "sofa",
        [
            _sofa_hour(1, 2, 3, renal=3),
            _sofa_hour(1, 74, 2, liver=2),
            _sofa_hour(2, 1.99, 4, cns=4),
            _sofa_hour(2, 74.01, 4, cns=4),
            _sofa_hour(3, 50, 1, coagulation=1),
            _sofa_hour(4, 50, 5, renal=5),
            _sofa_hour(5, 50, 5, renal=5),
            _sofa_hour(6, 30, 2, respiration=2),
            _sofa_hour(6, 45, 6, cardiovascular=4, cns=2),
        ],
    )
    rows = result(task, con)
    con.close()
    return rows


def test_window_from_48_hours_before_to_24_hours_after(sepsis) -> None:
    row = sepsis[1]
    assert row["sofa_time"] == at(2)  # the earliest SOFA hour in the window, at -48 h
    assert (row["sofa_score"], row["renal"], row["sepsis3"]) == (3, 3, 1)
    assert 2 not in sepsis  # hours ending 0.01 h outside both ends do not match


def test_only_icu_suspected_infections_with_sofa_of_two(sepsis) -> None:
    assert set(sepsis) == {1, 6}  # 3: SOFA 1; 4: no stay; 5: no suspected infection


def test_first_match_by_suspected_infection_time(sepsis) -> None:
    row = sepsis[6]
    assert row["suspected_infection_time"] == at(40) and row["antibiotic_time"] == at(40)
    assert row["culture_time"] == at(39) and row["sofa_time"] == at(30)
    assert {p: row[p] for p in SOFA_PARTS} == {**dict.fromkeys(SOFA_PARTS, 0), "respiration": 2}


def test_timed_culture_preferred_over_date_only_on_one_date(task_db, library) -> None:
    task, con = task_db("mimic-sepsis3-raw")
    insert(con, "mimiciv_icu.icustays", [stay(1)])
    insert(
        con,
        "antibiotic",
        [
            {
                "subject_id": 1,
                "hadm_id": 10,
                "stay_id": 1,
                "antibiotic": "Cefepime",
                "route": "IV",
                "starttime": at(10),
            }
        ],
    )
    day = datetime(T0.year, T0.month, T0.day)
    insert(
        con,
        "mimiciv_hosp.microbiologyevents",
        [
            {
                "microevent_id": 1,
                "subject_id": 1,
                "micro_specimen_id": 1,
                "chartdate": day,
                "spec_type_desc": "URINE",
            },
            {
                "microevent_id": 2,
                "subject_id": 1,
                "micro_specimen_id": 2,
                "chartdate": day,
                "charttime": at(2),
                "spec_type_desc": "BLOOD CULTURE",
            },
        ],
    )
    materialize(con, library, ["suspicion_of_infection"], with_dependencies=False)
    insert(con, "sofa", [_sofa_hour(1, 5, 2, cns=2)])
    row = result(task, con)[1]
    assert row["culture_time"] == at(2) == row["suspected_infection_time"]


def test_hourly_sofa_rules_that_differ_from_the_first_day(task_db, library) -> None:
    """Built through the hourly SOFA concept: ventilated P/F 250 scores 2, a running
    norepinephrine rate of 0 scores 3, projected urine below 500 mL scores 3, and each
    24-hour value is the worst of the hour and the 23 before it."""
    task, con = task_db("mimic-sepsis3-raw")
    insert(con, "mimiciv_icu.icustays", [stay(s) for s in (1, 2, 3)])
    insert(
        con,
        "icustay_hourly",
        [{"stay_id": s, "hr": h, "endtime": at(h)} for s in (1, 2, 3) for h in range(0, 30)],
    )
    insert(
        con,
        "ventilation",
        [
            {
                "stay_id": 1,
                "starttime": at(0),
                "endtime": at(10),
                "ventilation_status": "InvasiveVent",
            }
        ],
    )
    insert(
        con,
        "bg",
        [{"subject_id": 1, "charttime": at(3), "specimen": "ART.", "pao2fio2ratio": 250.0}],
    )
    insert(
        con,
        "norepinephrine",
        [{"stay_id": 2, "starttime": at(1), "endtime": at(6), "vaso_rate": 0.0}],
    )
    insert(
        con,
        "urine_output_rate",
        [{"stay_id": 3, "charttime": at(4), "urineoutput_24hr": 400.0, "uo_tm_24hr": 24.0}],
    )
    materialize(con, library, ["sofa"], with_dependencies=False)
    hours = dict(
        con.execute("SELECT stay_id * 100 + hr, sofa_24hours FROM mimiciv_derived.sofa").fetchall()
    )
    assert hours[103] == 2 and hours[126] == 2 and hours[127] == 0  # rolls 23 hours on
    insert(con, "suspicion_of_infection", [_infection(s, s, 20) for s in (1, 2, 3)])
    rows = result(task, con)
    assert rows[1]["respiration"] == 2 and rows[1]["sofa_time"] == at(3)
    assert rows[2]["cardiovascular"] == 3 and rows[2]["sofa_time"] == at(2)
    assert rows[3]["renal"] == 3 and rows[3]["sofa_time"] == at(4)
    for row in rows.values():
        assert row["sofa_score"] == sum(row[p] for p in SOFA_PARTS)


def test_sepsis3_is_compositional_in_the_concept_graph(catalog) -> None:
    task = catalog.task("mimic-sepsis3-raw")
    assert task.direct_dependencies == ["sofa", "suspicion_of_infection"]
    assert {"antibiotic", "icustay_hourly", "ventilation", "urine_output_rate"} <= set(
        task.depends_on
    )
    assert "compositional" in task.card.metadata.tags
    parts = [catalog.task(n) for n in ("mimic-suspicion-infection", "mimic-sofa-24h")]
    assert task.dependency_depth > max(part.dependency_depth for part in parts)
