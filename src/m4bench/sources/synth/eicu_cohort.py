"""The latent cohort of one chunk of synthetic eICU unit stays.

Each stay draws a latent severity in [0, 1]; every table of the stay (vitals, GCS,
urine, ventilation, vasopressors, APACHE values, outcome) is derived from it, so the
eICU scores correlate the way they do in real ICUs. A chunk covers the stays with
global index ``start .. start + n - 1`` and depends only on (seed, chunk index).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from m4bench.sources.synth.core import stream_rng
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.sources.synth.shaping import NO_TARGETS, Targets

COHORT_STREAM = 0
FIRST_STAY_ID = 141_168
FIRST_HEALTH_SYSTEM_STAY_ID = 128_919
HOSPITAL_IDS = np.linspace(56, 459, 208).round().astype(np.int64)  # 208 distinct ids


@dataclass(frozen=True)
class EicuCohort:
    """Per-stay latent and demographic arrays of one chunk (all of length ``n``)."""

    chunk: int
    start: int
    stay_id: np.ndarray
    health_system_stay_id: np.ndarray
    patient_index: np.ndarray  # global patient number, for uniquepid
    visit_number: np.ndarray
    severity: np.ndarray
    age_years: np.ndarray  # NaN where the age string is empty
    age_text: np.ndarray  # object: '0'..'89', '> 89', ''
    female: np.ndarray
    weight_kg: np.ndarray
    height_cm: np.ndarray
    hospital_admit_offset: np.ndarray
    los_minutes: np.ndarray
    died: np.ndarray
    surgical: np.ndarray
    elective: np.ndarray
    ventilated: np.ndarray
    vent_start: np.ndarray
    vent_end: np.ndarray
    vasopressor: np.ndarray
    has_apache: np.ndarray
    chart_start: np.ndarray
    gcs_charted: np.ndarray
    gcs_nadir: np.ndarray
    gcs_nadir_time: np.ndarray
    gcs_recovery_minutes: np.ndarray
    hospital_id: np.ndarray
    urine_ml_per_hour: np.ndarray
    targets: Targets = NO_TARGETS  # the coverage needs engineered into some of the stays

    @property
    def n(self) -> int:
        return int(self.stay_id.size)


def draw_cohort(seed: int, chunk: int, start: int, n: int, quirks: EicuQuirkRates) -> EicuCohort:
    """The stays ``start .. start + n - 1``; deterministic in (seed, chunk)."""
    rng = stream_rng(seed, COHORT_STREAM, chunk)
    gidx = start + np.arange(n, dtype=np.int64)
    stay_id = FIRST_STAY_ID + gidx * 16 + rng.integers(0, 16, n)
    new_hosp, hosp_local, hosp_first, patient_local = _grouping(rng, n)
    visit = np.arange(n) - hosp_first[hosp_local] + 1
    severity = rng.beta(1.5, 3.0, n)
    age_years, age_text = _ages(rng, patient_local, quirks)
    female = (rng.random(n) < 0.46)[patient_local]
    weight = np.clip(rng.normal(83.0, 21.0, n), 38.0, 220.0).round(1)[patient_local]
    height = np.clip(rng.normal(np.where(female, 162.0, 176.0), 8.0), 140.0, 205.0).round(1)
    los = np.maximum(60, rng.lognormal(np.log(1800.0) + 0.8 * severity, 0.7, n)).astype(np.int64)
    last_in_hospital = np.append(new_hosp[1:], True)
    died = last_in_hospital & (rng.random(n) < 1.0 / (1.0 + np.exp(-(-4.9 + 6.5 * severity))))
    surgical = rng.random(n) < 0.27
    elective = surgical & (rng.random(n) < 0.6)
    ventilated = rng.random(n) < np.clip(0.05 + 0.85 * severity + 0.15 * surgical, 0, 0.95)
    vent_start = np.where(
        rng.random(n) < 0.8,
        rng.integers(-240, 90, n),
        rng.integers(90, 4000, n),
    )
    vent_end = vent_start + rng.lognormal(np.log(900.0) + 1.5 * severity, 0.8, n).astype(np.int64)
    vasopressor = rng.random(n) < np.clip(-0.05 + 0.75 * severity, 0.01, 0.9)
    has_apache = rng.random(n) >= quirks.no_apache
    pre = rng.random(n) < quirks.pre_unit_charting
    chart_start = np.where(pre, -rng.integers(20, 720, n), rng.integers(0, 25, n))
    gcs_nadir, gcs_nadir_time = _gcs_latent(rng, severity)
    hospital_id = HOSPITAL_IDS[rng.integers(0, HOSPITAL_IDS.size, n)][hosp_local]
    return EicuCohort(
        chunk=chunk,
        start=start,
        stay_id=stay_id,
        health_system_stay_id=FIRST_HEALTH_SYSTEM_STAY_ID + start + hosp_local,
        patient_index=start + patient_local,
        visit_number=visit,
        severity=severity,
        age_years=age_years,
        age_text=age_text,
        female=female,
        weight_kg=weight,
        height_cm=height,
        hospital_admit_offset=_hospital_admit_offsets(rng, los, hosp_local, hosp_first),
        los_minutes=los,
        died=died,
        surgical=surgical,
        elective=elective,
        ventilated=ventilated,
        vent_start=vent_start,
        vent_end=vent_end,
        vasopressor=vasopressor,
        has_apache=has_apache,
        chart_start=chart_start,
        gcs_charted=rng.random(n) >= quirks.gcs_uncharted,
        gcs_nadir=gcs_nadir,
        gcs_nadir_time=gcs_nadir_time,
        gcs_recovery_minutes=rng.uniform(600.0, 3000.0, n) * (1.0 + severity),
        hospital_id=hospital_id,
        urine_ml_per_hour=_urine_rates(rng, severity, weight),
    )


def _grouping(
    rng: np.random.Generator, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unit stays grouped into hospital stays (~17 % continue one) and those into patients.

    Returns the new-hospital-stay flags, each stay's hospital-stay number, the first
    stay of each hospital stay, and each stay's patient number (all chunk-local).
    """
    new_hosp = rng.random(n) >= 0.17
    new_hosp[0] = True
    hosp_local = np.cumsum(new_hosp) - 1
    hosp_first = np.flatnonzero(new_hosp)
    new_patient = rng.random(hosp_first.size) >= 0.17
    new_patient[0] = True
    patient_local = (np.cumsum(new_patient) - 1)[hosp_local]
    return new_hosp, hosp_local, hosp_first, patient_local


def _gcs_latent(rng: np.random.Generator, severity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each stay's lowest GCS (15 for unimpaired stays) and the offset it is reached at."""
    n = severity.size
    impaired = rng.random(n) < np.clip(0.12 + 1.1 * severity, 0, 0.97)
    drop = np.ceil(12.0 * severity**0.8 * rng.uniform(0.45, 1.3, n))
    nadir = np.clip(15 - np.where(impaired, drop, 0), 3, 15).astype(np.int64)
    early = rng.random(n) < 0.85
    when = np.where(early, rng.integers(-120, 1200, n), rng.integers(0, 4000, n))
    return nadir, when


def _ages(
    rng: np.random.Generator, patient_local: np.ndarray, quirks: EicuQuirkRates
) -> tuple[np.ndarray, np.ndarray]:
    """Integer ages (NaN for '') and their text, shared by every stay of a patient."""
    m = int(patient_local.max()) + 1 if patient_local.size else 0
    years = np.clip(rng.normal(64.0, 16.0, m), 18, 89).round()
    pediatric = rng.random(m) < 0.005
    years = np.where(pediatric, rng.integers(0, 18, m), years)
    kind = rng.random(m)
    over = kind < quirks.age_over_89
    empty = (kind >= quirks.age_over_89) & (kind < quirks.age_over_89 + quirks.age_empty)
    text = np.array([str(int(y)) for y in years], dtype=object)
    text[over] = "> 89"
    text[empty] = ""
    years = np.where(over, 91.0, np.where(empty, np.nan, years))
    return years[patient_local], text[patient_local]


def _urine_rates(rng: np.random.Generator, severity: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Mean urine flow (mL/h): oliguria with severity, a few polyuric stays."""
    n = severity.size
    per_kg = np.clip(0.85 - 0.85 * severity + rng.normal(0, 0.22, n), 0.02, 3.0)
    polyuric = rng.random(n) < 0.02
    return np.asarray(weight * per_kg * np.where(polyuric, 4.5, 1.0))


def _hospital_admit_offsets(
    rng: np.random.Generator, los: np.ndarray, hosp_local: np.ndarray, hosp_first: np.ndarray
) -> np.ndarray:
    """Minutes from hospital to unit admission (<= 0), spread over every OASIS bin.

    A later unit stay of the same hospital stay lies further from hospital admission
    by the earlier stays' lengths plus the gaps between them.
    """
    n = los.size
    bins = rng.choice(5, size=n, p=[0.18, 0.34, 0.2, 0.24, 0.04])
    low = np.array([-10, -296, -1440, -18708, -60000])
    high = np.array([0, -11, -297, -1441, -18709])
    offsets = rng.integers(low[bins], high[bins] + 1)
    edge = rng.random(n) < 0.02
    edges = np.array([-10, -11, -296, -297, -1440, -1441, -18708, -18709])
    first_offsets = np.where(edge, edges[rng.integers(0, edges.size, n)], offsets)
    step = los + rng.integers(60, 4000, n)
    before = np.cumsum(step) - step
    prior = before - before[hosp_first][hosp_local]
    return np.asarray(first_offsets[hosp_first][hosp_local] - prior, dtype=np.int64)
