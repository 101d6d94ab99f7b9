"""Bedside documentation that brings ``eicu_crd.nursecharting`` to its real volume.

The real table holds about 755 rows per unit stay; the vitals and both GCS families the
eICU tasks read make up a little over half. The rest charted here: the oxygen device
and flow every hour, sedation (RASS) and delirium (CAM-ICU) scores, bedside glucose,
central venous pressure for stays with a central line, end-tidal CO2 while ventilated,
pulmonary artery pressures and cardiac output for stays with a PA catheter, and the
three-hourly system assessments. No row carries a label pair an eICU task selects (GCS
labels, heart rate, respiratory rate, temperature, the arterial and cuff pressures).
Rows start no earlier than the stay's first charting time and end at unit discharge.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_rounds import (
    LabelledRows,
    choice_text,
    indexed_text,
    measured,
    round_grid,
)

CAT_INVASIVE = "Invasive"
O2_DEVICE = ("O2 Admin Device", "O2 Admin Device")
O2_FLOW = ("O2 L/%", "O2 L/%")
SEDATION_SCORE = ("Sedation Scale/Score/Goal", "Sedation Score")
SEDATION_SCALE = ("Sedation Scale/Score/Goal", "Sedation Scale")
DELIRIUM_SCORE = ("Delirium Scale/Score", "Delirium Score")
DELIRIUM_SCALE = ("Delirium Scale/Score", "Delirium Scale")
BEDSIDE_GLUCOSE = ("Bedside Glucose", "Bedside Glucose")
CVP = ("CVP (mmHg)", "Value")
ETCO2 = ("End Tidal CO2", "End Tidal CO2")
PA_SYS = ("PA", "PA Systolic")
PA_DIA = ("PA", "PA Diastolic")
PA_MEAN = ("PA", "PA Mean")
CARDIAC = (("CO", "CO", 3.0, 8.0, 1), ("CI", "CI", 1.8, 4.2, 1), ("SVR", "SVR", 600, 1600, 0))
ASSESSMENTS = (
    "CV/ PV Assessment",
    "Gastrointestinal Assessment",
    "Genitourinary Assessment",
    "Integumentary Assessment",
    "Eye, Ear, Nose, Throat Assessment",
    "Respiratory Assessment",
    "Neurologic Assessment",
)
ASSESSMENT_VALUES = ("WNL", "Exceptions", "WNL", "WNL", "Not assessed")
ASSISTANCE = ("Level of Assistance", "Level of Assistance")
ASSISTANCE_VALUES = ("Independent", "Minimal assist", "Moderate assist", "Total assist")
DEVICES = (
    "room air",
    "nasal cannula",
    "NC",
    "face mask",
    "high flow nasal cannula",
    "venturi mask",
    "BiPAP",
)
DEVICE_WEIGHTS = (0.3, 0.38, 0.1, 0.08, 0.07, 0.03, 0.04)
ON_VENT_DEVICE = "ventilator"
RASS_SCALE = ("RASS",)
CAM_ICU = ("CAM-ICU",)
DELIRIUM_VALUES = ("No", "No", "No", "Yes", "UTA")

# Every (label, name) pair charted here, for the tests and the documentation.
EXTRA_PAIRS: tuple[tuple[str, str], ...] = (
    O2_DEVICE, O2_FLOW, SEDATION_SCORE, SEDATION_SCALE, DELIRIUM_SCORE, DELIRIUM_SCALE,
    BEDSIDE_GLUCOSE, CVP, ETCO2, PA_SYS, PA_DIA, PA_MEAN, ASSISTANCE,
    *((label, name) for label, name, *_ in CARDIAC),
    *((label, label) for label in ASSESSMENTS),
)  # fmt: skip


def nursecharting_volume(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """The documentation rows of one chunk (all columns but ``nursingchartid``)."""
    rows = LabelledRows()
    _oxygen(rows, cohort, rng)
    _sedation(rows, cohort, rng)
    _lines(rows, cohort, rng)
    _assessments(rows, cohort, rng)
    owner, offset, (cat, label, name), value = rows.assemble()
    delay = rng.integers(0, 40, owner.size)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "nursingchartoffset": offset,
        "nursingchartentryoffset": offset + delay,
        "nursingchartcelltypecat": cat,
        "nursingchartcelltypevallabel": label,
        "nursingchartcelltypevalname": name,
        "nursingchartvalue": value,
    }


def _on_vent(cohort: EicuCohort, owner: np.ndarray, offset: np.ndarray) -> np.ndarray:
    return np.asarray(
        cohort.ventilated[owner]
        & (offset >= cohort.vent_start[owner])
        & (offset <= cohort.vent_end[owner])
    )


def _oxygen(rows: LabelledRows, cohort: EicuCohort, rng: np.random.Generator) -> None:
    """Hourly device and flow (L/min off the ventilator, FiO2 % on it)."""
    n = cohort.n
    everyone = np.ones(n, dtype=bool)
    owner, offset = round_grid(rng, everyone, cohort.chart_start + 2, cohort.los_minutes, 60)
    vent = _on_vent(cohort, owner, offset)
    device = rng.choice(len(DEVICES), size=n, p=np.asarray(DEVICE_WEIGHTS))
    device = np.where(cohort.severity > 0.6, np.maximum(device, 1), device)[owner]
    names = (*DEVICES, ON_VENT_DEVICE)
    device = np.where(vent, len(DEVICES), device)
    rows.add((v.CAT_VITALS, *O2_DEVICE), owner, offset, indexed_text(names, device))
    flowing = device != 0
    o, t, on = owner[flowing], offset[flowing], vent[flowing]
    litres = np.clip(1 + 5 * cohort.severity[o] + rng.normal(0, 1, o.size), 1, 15)
    fio2 = np.clip(30 + 40 * cohort.severity[o] + rng.normal(0, 8, o.size), 21, 100)
    flow = np.round(np.where(on, fio2, litres))
    rows.add((v.CAT_VITALS, *O2_FLOW), o, t, pa.array(flow.astype(np.int64)).cast(pa.string()))


def _sedation(rows: LabelledRows, cohort: EicuCohort, rng: np.random.Generator) -> None:
    """RASS two-hourly for ventilated stays, four-hourly for others; CAM-ICU every 12 hours."""
    n = cohort.n
    step = np.where(cohort.ventilated, 120, 240)
    start = cohort.chart_start + 7
    owner, offset = round_grid(rng, np.ones(n, dtype=bool), start, cohort.los_minutes, step)
    vent = _on_vent(cohort, owner, offset)
    rass = np.where(vent, rng.integers(-4, 1, owner.size), rng.integers(-1, 2, owner.size))
    rows.add((v.CAT_SCORES, *SEDATION_SCORE), owner, offset, pa.array(rass).cast(pa.string()))
    scale = rng.random(owner.size) < 0.5
    rows.add(
        (v.CAT_SCORES, *SEDATION_SCALE),
        owner[scale],
        offset[scale],
        choice_text(rng, RASS_SCALE, int(scale.sum())),
    )
    o, t = round_grid(rng, np.ones(n, dtype=bool), start + 60, cohort.los_minutes, 720)
    rows.add((v.CAT_SCORES, *DELIRIUM_SCORE), o, t, choice_text(rng, DELIRIUM_VALUES, o.size))
    rows.add((v.CAT_SCORES, *DELIRIUM_SCALE), o, t, choice_text(rng, CAM_ICU, o.size))


def _lines(rows: LabelledRows, cohort: EicuCohort, rng: np.random.Generator) -> None:
    """Glucose checks, central venous and pulmonary artery pressures, end-tidal CO2."""
    n = cohort.n
    s = cohort.severity
    start, end = cohort.chart_start + 4, cohort.los_minutes
    cat = v.CAT_OTHER_VITALS
    checked = rng.random(n) < 0.6
    o, t = round_grid(rng, checked, start, end, np.where(s > 0.5, 240, 360))
    glucose = measured(rng, 110 + 80 * s[o], 35, 40, 450)
    rows.add((cat, *BEDSIDE_GLUCOSE), o, t, glucose)
    central = (cohort.vasopressor | (s > 0.55)) & (rng.random(n) < 0.7)
    o, t = round_grid(rng, central, start, end, 60)
    rows.add((cat, *CVP), o, t, measured(rng, 8 + 6 * s[o], 3, 0, 30))
    capnography = cohort.ventilated & (rng.random(n) < 0.5)
    vent_from = np.maximum(cohort.vent_start, start)
    o, t = round_grid(rng, capnography, vent_from, np.minimum(cohort.vent_end, end), 60)
    rows.add((cat, *ETCO2), o, t, measured(rng, np.full(o.size, 37.0), 5, 15, 70))
    pa_line = central & (s > 0.45) & (rng.random(n) < 0.35)
    o, t = round_grid(rng, pa_line, start, end, 60)
    mean = 18 + 14 * s[o] + rng.normal(0, 3, o.size)
    rows.add((CAT_INVASIVE, *PA_SYS), o, t, measured(rng, mean + 12, 2, 10, 90))
    rows.add((CAT_INVASIVE, *PA_DIA), o, t, measured(rng, mean - 6, 2, 2, 50))
    rows.add((CAT_INVASIVE, *PA_MEAN), o, t, measured(rng, mean, 1, 5, 70))
    o, t = round_grid(rng, pa_line, start + 10, end, 240)
    for label, name, low, high, decimals in CARDIAC:
        centre = low + (high - low) * np.clip(0.6 - 0.4 * s[o], 0, 1)
        spread = (high - low) / 8
        rows.add(
            (CAT_INVASIVE, label, name), o, t, measured(rng, centre, spread, low, high, decimals)
        )


def _assessments(rows: LabelledRows, cohort: EicuCohort, rng: np.random.Generator) -> None:
    """Three-hourly head-to-toe assessment (each system WNL or with exceptions)."""
    n = cohort.n
    o, t = round_grid(rng, np.ones(n, dtype=bool), cohort.chart_start + 15, cohort.los_minutes, 180)
    for label in ASSESSMENTS:
        documented = rng.random(o.size) < 0.9
        oo, tt = o[documented], t[documented]
        rows.add(
            (v.CAT_OTHER_VITALS, label, label), oo, tt, choice_text(rng, ASSESSMENT_VALUES, oo.size)
        )
    help_index = np.clip(
        np.floor(4 * cohort.severity[o] + rng.normal(0, 0.7, o.size)), 0, 3
    ).astype(np.int64)
    rows.add((v.CAT_OTHER_VITALS, *ASSISTANCE), o, t, indexed_text(ASSISTANCE_VALUES, help_index))
