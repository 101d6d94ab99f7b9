"""icu.procedureevents: the procedures no concept reads, at the real volume.

Real procedureevents holds about 8.6 rows per ICU stay. The dialysis, access-line and
ventilation rows of ``mimic_treatments`` (the rows the concepts read) give about 2; the
rest is imaging (chest films, echocardiograms), cultures sent from the bedside,
intubations and extubations, tracheostomies, bronchoscopies and a few rarer procedures.
They are drawn here from a stream of their own, so the concept rows stay as they were.

Each :class:`Procedure` is a point event (``endtime`` one minute after ``starttime``,
``value`` 1 with ``valueuom`` 'None'), placed either at a time the latent state fixes
(intubation at the start of ventilation, extubation at its end, the first cultures at
the onset of infection) or at random minutes inside the stay. Every item id and label
was checked against public listings of MIMIC-IV d_items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from m4bench.sources.synth.core import at_least_one, seconds_to_us
from m4bench.sources.synth.mimic_events import events_at
from m4bench.sources.synth.mimic_latent import StayState

Columns = dict[str, Any]
MINUTE = 60
DAY_H = 24.0
IMAGING, CULTURES, AIRWAY, PROCEDURES = "Imaging", "Cultures", "Intubation/Extubation", "Procedures"


@dataclass(frozen=True)
class Procedure:
    """One kind of bedside procedure: its item and the order category it is charted under."""

    itemid: int
    category: str  # ordercategoryname


CHEST_XRAY = Procedure(225459, IMAGING)
ECHO = Procedure(225432, IMAGING)  # Transthoracic Echo
BLOOD_CULTURE = Procedure(225401, CULTURES)
URINE_CULTURE = Procedure(225454, CULTURES)
SPUTUM_CULTURE = Procedure(225451, CULTURES)
PAN_CULTURE = Procedure(225444, CULTURES)
STOOL_CULTURE = Procedure(225814, CULTURES)
WOUND_CULTURE = Procedure(225816, CULTURES)
BAL_CULTURE = Procedure(225817, CULTURES)
PLEURAL_CULTURE = Procedure(225818, CULTURES)
CSF_CULTURE = Procedure(225437, CULTURES)
INTUBATION = Procedure(224385, AIRWAY)
EXTUBATION = Procedure(227194, AIRWAY)
SELF_EXTUBATION = Procedure(225468, AIRWAY)  # Unplanned Extubation (patient-initiated)
UNPLANNED_EXTUBATION = Procedure(225477, AIRWAY)  # (non-patient initiated)
PERCUTANEOUS_TRACH = Procedure(225448, PROCEDURES)
OPEN_TRACH = Procedure(226237, PROCEDURES)
BRONCHOSCOPY = Procedure(225400, PROCEDURES)
CARDIAC_CATH = Procedure(225430, PROCEDURES)
PLASMA_PHERESIS = Procedure(227551, PROCEDURES)

# (procedure, expected rows per stay-day of stays that qualify, which stays)
RANDOM_PLANS: tuple[tuple[Procedure, float, str], ...] = (
    (CHEST_XRAY, 0.45, "all"),
    (CHEST_XRAY, 0.9, "vent"),  # daily films while intubated, on top of the others
    (BLOOD_CULTURE, 0.15, "all"),
    (BLOOD_CULTURE, 0.35, "infected"),
    (URINE_CULTURE, 0.06, "all"),
    (SPUTUM_CULTURE, 0.08, "vent"),
)
# (procedure, share of the qualifying stays with one row, which stays)
ONCE_PLANS: tuple[tuple[Procedure, float, str], ...] = (
    (CHEST_XRAY, 0.7, "all"),  # the admission film
    (ECHO, 0.22, "all"),
    (ECHO, 0.3, "cvicu"),
    (URINE_CULTURE, 0.55, "infected"),
    (SPUTUM_CULTURE, 0.45, "vent_infected"),
    (PAN_CULTURE, 0.15, "infected"),
    (STOOL_CULTURE, 0.04, "all"),
    (WOUND_CULTURE, 0.03, "all"),
    (BAL_CULTURE, 0.06, "vent"),
    (PLEURAL_CULTURE, 0.015, "all"),
    (CSF_CULTURE, 0.012, "all"),
    (BRONCHOSCOPY, 0.08, "vent"),
    (CARDIAC_CATH, 0.08, "cvicu"),
    (CARDIAC_CATH, 0.02, "all"),
    (PLASMA_PHERESIS, 0.004, "all"),
)
ALL_PROCEDURES = tuple(
    sorted(
        {
            p.itemid
            for p in (
                *(plan[0] for plan in RANDOM_PLANS + ONCE_PLANS),
                INTUBATION, EXTUBATION, SELF_EXTUBATION, UNPLANNED_EXTUBATION,
                PERCUTANEOUS_TRACH, OPEN_TRACH, BLOOD_CULTURE,
            )
        }
    )
)  # fmt: skip


def _group(s: StayState, name: str) -> np.ndarray:
    groups: dict[str, np.ndarray] = {
        "all": np.ones(len(s), bool),
        "vent": s.vent,
        "infected": s.infection,
        "vent_infected": s.vent & s.infection,
        "cvicu": s.cvicu,
    }
    return groups[name]


def _window(s: StayState) -> tuple[np.ndarray, np.ndarray]:
    """The hours (after intime) inside which a stay's procedures fall."""
    start = np.full(len(s), 0.1)
    return start, np.maximum(s.los_h - 0.1, start + 0.05)


@dataclass
class _Rows:
    stay: list[np.ndarray]
    hours: list[np.ndarray]
    item: list[np.ndarray]
    category: list[np.ndarray]

    def add(self, stay: np.ndarray, hours: np.ndarray, procedure: Procedure) -> None:
        self.stay.append(stay)
        self.hours.append(hours)
        self.item.append(np.full(len(stay), procedure.itemid))
        self.category.append(np.full(len(stay), procedure.category, dtype=object))


def _random_rows(rng: np.random.Generator, s: StayState, rows: _Rows) -> None:
    start, end = _window(s)
    days = (end - start) / DAY_H
    for procedure, per_day, group in RANDOM_PLANS:
        counts = np.where(_group(s, group), rng.poisson(per_day * days), 0)
        tl = events_at(rng, s.intime, counts, start, end)
        rows.add(tl.stay, tl.hours, procedure)
    for procedure, share, group in ONCE_PLANS:
        eligible = _group(s, group)
        gets = at_least_one(eligible & (rng.random(len(s)) < share), eligible)
        tl = events_at(rng, s.intime, gets.astype(np.int64), start, end)
        rows.add(tl.stay, tl.hours, procedure)


def _timed_rows(rng: np.random.Generator, s: StayState, rows: _Rows) -> None:
    """Rows placed by the latent state: airway events and the first blood cultures."""
    start, end = _window(s)
    n = len(s)
    intubated = np.flatnonzero(s.vent & (s.vent_on >= start) & (s.vent_on <= end))
    rows.add(intubated, s.vent_on[intubated], INTUBATION)
    extubated = s.vent & ~s.trach & (s.vent_off <= end) & (s.vent_off >= start)
    kind = rng.random(n)
    unplanned = at_least_one(extubated & (kind < 0.03), extubated)
    other = at_least_one(extubated & ~unplanned & (kind > 0.99), extubated & ~unplanned)
    for mask, procedure in (
        (extubated & ~unplanned & ~other, EXTUBATION),
        (unplanned, SELF_EXTUBATION),
        (other, UNPLANNED_EXTUBATION),
    ):
        idx = np.flatnonzero(mask)
        rows.add(idx, s.vent_off[idx], procedure)
    trach_h = np.clip(s.vent_on + rng.uniform(96, 240, n), start, end)
    open_trach = s.trach & (rng.random(n) < 0.25)
    for mask, procedure in ((s.trach & ~open_trach, PERCUTANEOUS_TRACH), (open_trach, OPEN_TRACH)):
        idx = np.flatnonzero(mask)
        rows.add(idx, trach_h[idx], procedure)
    # two sets of blood cultures drawn when an infection is first suspected
    infected = np.flatnonzero(s.infection)
    onset = np.clip(s.infection_h[infected], start[infected], end[infected])
    for lag_h in (0.0, 0.25):
        rows.add(infected, np.minimum(onset + lag_h, end[infected]), BLOOD_CULTURE)


def more_procedure_columns(
    rng: np.random.Generator, s: StayState, ids: dict[str, np.ndarray]
) -> Columns:
    """procedureevents columns of the imaging, culture, airway and other procedures of the
    chunk's stays (sorted by stay and time)."""
    rows = _Rows([], [], [], [])
    _timed_rows(rng, s, rows)
    _random_rows(rng, s, rows)
    stay = np.concatenate(rows.stay)
    start = s.intime[stay] + (np.round(np.concatenate(rows.hours) * 60) * MINUTE).astype(np.int64)
    start = np.minimum(start, s.outtime[stay] - MINUTE)
    order = np.lexsort((start, stay))
    stay, start = stay[order], start[order]
    m = len(stay)
    return {
        "subject_id": ids["subject_id"][stay],
        "hadm_id": ids["hadm_id"][stay],
        "stay_id": ids["stay_id"][stay],
        "caregiver_id": rng.integers(10_000, 10_500, m),
        "starttime": seconds_to_us(start),
        "endtime": seconds_to_us(start + MINUTE),
        "storetime": seconds_to_us(start + rng.integers(1, 90, m) * MINUTE),
        "itemid": np.concatenate(rows.item)[order],
        "value": np.ones(m),
        "valueuom": np.full(m, "None", dtype=object),
        "locationcategory": np.full(m, None, dtype=object),
        "orderid": rng.integers(1_000_000, 9_999_999, m),
        "ordercategoryname": np.concatenate(rows.category)[order],
        "ordercategorydescription": np.full(m, "Task", dtype=object),
        "patientweight": s.weight[stay],
        "isopenbag": np.zeros(m, dtype=np.int16),
        "continueinnextdept": np.zeros(m, dtype=np.int16),
        "statusdescription": np.full(m, "FinishedRunning", dtype=object),
    }
