"""hosp.omr: blood pressure, weight, BMI, height and eGFR charted at outpatient visits.

Each patient has outpatient visits in the two years before and after their admissions
(about 5.4 per admission, none for some patients). A visit records a blood pressure
(sometimes twice), mostly a weight with its BMI, sometimes a height and an eGFR. Values
are the patient's own and stable over time: a fixed height, a BMI and a blood pressure
around the patient's level, a weight drifting slowly, an eGFR in the range of the
patient's kidney function (below 60 with chronic kidney disease, below 30 when severe).
``seq_num`` numbers the repeats of one measurement on one date.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from m4bench.sources.synth.core import group_arange, stream_rng
from m4bench.sources.synth.mimic_cohort import DAY, Cohort
from m4bench.sources.synth.mimic_latent import CONDITION_INDEX

Columns = dict[str, Any]
STREAM_OMR = 7
CHUNK_PATIENTS = 40_000
VISITS_PER_ADMISSION = 5.45
LBS_PER_KG = 2.204_622_6
# (result_name, share of visits recording it), in the order of a visit's rows
RESULTS = (
    ("Blood Pressure", 0.96),
    ("Blood Pressure", 0.12),  # a second reading on the same visit
    ("Weight (Lbs)", 0.70),
    ("BMI (kg/m2)", 0.63),  # only with a weight
    ("Height (Inches)", 0.28),
    ("eGFR", 0.12),
)

_NAMES = np.array(sorted({name for name, _ in RESULTS}), dtype=object)
_NAME_RANK = np.array([list(_NAMES).index(name) for name, _ in RESULTS])


def omr_chunks(seed: int, cohort: Cohort, conditions: np.ndarray) -> Iterator[Columns]:
    """The omr table in chunks of :data:`CHUNK_PATIENTS` patients (in patient order)."""
    n = len(cohort.patients.subject_id)
    for chunk in range(-(-n // CHUNK_PATIENTS)):
        patients = np.arange(chunk * CHUNK_PATIENTS, min((chunk + 1) * CHUNK_PATIENTS, n))
        rng = stream_rng(seed, STREAM_OMR, chunk)
        columns = _omr_rows(rng, cohort, conditions, patients)
        if len(columns["subject_id"]):
            yield columns


def _visits(
    rng: np.random.Generator, cohort: Cohort, patients: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(patient, epoch day) of each outpatient visit, near one of the patient's admissions."""
    a = cohort.admissions
    lo, hi = np.searchsorted(a.subj, [patients[0], patients[-1] + 1])
    n_adm = np.bincount(a.subj[lo:hi] - patients[0], minlength=len(patients))
    first_adm = lo + np.cumsum(n_adm) - n_adm
    has_any = rng.random(len(patients)) < 0.85
    rate = rng.gamma(2.0, VISITS_PER_ADMISSION / 0.85 / 2.0, len(patients)) * n_adm
    count = np.where(has_any & (n_adm > 0), rng.poisson(rate), 0)
    who = np.repeat(np.arange(len(patients)), count)
    near = first_adm[who] + (rng.random(len(who)) * n_adm[who]).astype(np.int64)
    gap = np.minimum(3 + rng.exponential(150.0, len(who)), 730).astype(np.int64)
    before = rng.random(len(who)) < 0.5
    after = np.maximum(a.dischtime[near], a.admittime[near]) // DAY + gap
    day = np.where(before, a.admittime[near] // DAY - gap, after)
    return who, day


def _omr_rows(
    rng: np.random.Generator, cohort: Cohort, conditions: np.ndarray, patients: np.ndarray
) -> Columns:
    who, day = _visits(rng, cohort, patients)
    base = _patient_levels(rng, cohort, conditions, patients)
    shares = np.array([share for _, share in RESULTS])
    recorded = rng.random((len(who), len(RESULTS))) < shares[None, :]
    recorded[:, 1] &= recorded[:, 0]
    recorded[:, 3] &= recorded[:, 2]
    visit, slot = np.nonzero(recorded)
    values = _values(rng, base, who[visit], day[visit], slot)
    name_rank = _NAME_RANK[slot]  # rows sort by result_name within a date
    p, d = who[visit], day[visit]
    order = np.lexsort((slot, name_rank, d, p))
    p, d, name_rank = p[order], d[order], name_rank[order]
    values = values.take(pa.array(order))
    new = np.r_[True, (p[1:] != p[:-1]) | (d[1:] != d[:-1]) | (name_rank[1:] != name_rank[:-1])]
    runs = np.diff(np.r_[np.flatnonzero(new), len(p)])
    return {
        "subject_id": cohort.patients.subject_id[patients[p]],
        "chartdate": d.astype("datetime64[D]"),
        "seq_num": group_arange(runs) + 1,
        "result_name": _NAMES[name_rank],
        "result_value": values,
    }


def _patient_levels(
    rng: np.random.Generator, cohort: Cohort, conditions: np.ndarray, patients: np.ndarray
) -> dict[str, np.ndarray]:
    """Each patient's own height, BMI, weight drift, blood pressure and eGFR."""
    n = len(patients)
    first = np.searchsorted(cohort.admissions.subj, patients)
    first = np.minimum(first, len(cohort.admissions) - 1)
    female = cohort.patients.female[patients]
    height = np.where(female, rng.normal(63.8, 2.7, n), rng.normal(69.3, 2.9, n))
    systolic = np.clip(rng.normal(128, 14, n), 95, 185)
    diastolic = np.clip(rng.normal(76, 9, n), 50, np.minimum(110, systolic - 25))
    ckd = conditions[patients, CONDITION_INDEX["renal"]]
    severe = conditions[patients, CONDITION_INDEX["ckd456"]]
    egfr = np.where(
        severe,
        rng.uniform(8, 29, n),
        np.where(ckd, rng.uniform(30, 59, n), np.clip(rng.normal(86, 17, n), 60, 130)),
    )
    return {
        "height": np.clip(height, 55, 80),
        "bmi": np.clip(rng.lognormal(np.log(27.5), 0.2, n), 15, 60),
        "drift": rng.normal(0, 0.02, n) / 365.0,  # weight change per day, as a share
        "systolic": systolic,
        "diastolic": diastolic,
        "egfr": egfr,
        "first_day": cohort.admissions.admittime[first] // DAY,
    }


def _values(
    rng: np.random.Generator,
    base: dict[str, np.ndarray],
    who: np.ndarray,
    day: np.ndarray,
    slot: np.ndarray,
) -> pa.Array:
    """The result_value text of each row: '128/76', '174.2', '27.3', '66.5', '54'."""
    n = len(who)
    height_in = base["height"][who]
    height_m = height_in * 0.0254
    days = day - base["first_day"][who]
    weight_kg = base["bmi"][who] * height_m**2 * (1 + base["drift"][who] * days)
    weight_kg *= 1 + rng.normal(0, 0.012, n)
    systolic = np.round(np.maximum(base["systolic"][who] + rng.normal(0, 9, n), 80))
    diastolic = np.round(base["diastolic"][who] + rng.normal(0, 6, n))
    diastolic = np.clip(diastolic, 40, systolic - 20)
    systolic, diastolic = systolic.astype(np.int64), diastolic.astype(np.int64)
    blood_pressure = pc.binary_join_element_wise(
        pa.array(systolic).cast(pa.string()), pa.array(diastolic).cast(pa.string()), "/"
    )
    numbers = np.select(
        [slot == 2, slot == 3, slot == 4, slot == 5],
        [
            np.round(weight_kg * LBS_PER_KG, 1),
            np.round(weight_kg / height_m**2, 1),
            np.round(height_in * 2) / 2,
            np.round(base["egfr"][who] * (1 + rng.normal(0, 0.06, n))),
        ],
        default=0.0,
    )
    text = pa.array(numbers).cast(pa.string())
    is_bp = pa.array(slot <= 1)
    out: pa.Array = pc.if_else(is_bp, blood_pressure, text)
    return out
