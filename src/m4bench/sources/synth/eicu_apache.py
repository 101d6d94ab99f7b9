"""The APACHE tables: ``apacheapsvar``, ``apachepredvar`` (at most one row per stay) and
``apachepatientresult`` (two rows, IV and IVa, per scored stay). -1 means missing."""

from __future__ import annotations

from typing import Any

import numpy as np

from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates

# (column, normal value, spread per unit severity, noise sd, decimals)
_APS_VALUES: tuple[tuple[str, float, float, float, int], ...] = (
    ("wbc", 8.5, 14.0, 3.0, 1),
    ("temperature", 36.9, 1.2, 0.6, 1),
    ("respiratoryrate", 16.0, 20.0, 4.0, 0),
    ("sodium", 139.0, -6.0, 3.0, 0),
    ("heartrate", 85.0, 45.0, 12.0, 0),
    ("meanbp", 80.0, -30.0, 10.0, 0),
    ("hematocrit", 37.0, -9.0, 4.0, 1),
    ("creatinine", 1.0, 2.8, 0.4, 2),
    ("albumin", 3.4, -1.2, 0.4, 1),
    ("bun", 18.0, 45.0, 6.0, 0),
    ("glucose", 130.0, 90.0, 35.0, 0),
    ("bilirubin", 0.7, 2.5, 0.3, 1),
)
_BLOOD_GAS_VALUES: tuple[tuple[str, float, float, float, int], ...] = (
    ("ph", 7.40, -0.15, 0.04, 2),
    ("pao2", 95.0, -30.0, 20.0, 0),
    ("pco2", 40.0, 8.0, 6.0, 0),
    ("fio2", 30.0, 45.0, 10.0, 0),
)


def first_day_vent(cohort: EicuCohort) -> np.ndarray:
    """Ventilated at some point of the first day."""
    return cohort.ventilated & (cohort.vent_start <= 1440) & (cohort.vent_end > 0)


def apacheapsvar(cohort: EicuCohort, rng: np.random.Generator, q: EicuQuirkRates) -> dict[str, Any]:
    """One row per stay with APACHE data."""
    rows = np.flatnonzero(cohort.has_apache)
    n = rows.size
    s = cohort.severity[rows]
    vent = first_day_vent(cohort)[rows]
    worst = cohort.gcs_nadir[rows]
    eyes = np.clip(np.round(1 + 3 * (worst - 3) / 12), 1, 4)
    verbal = np.where(vent, 1, np.clip(np.round(1 + 4 * (worst - 3) / 12), 1, 5))
    motor = np.clip(worst - eyes - verbal, 1, 6)
    meds = rng.random(n) < 0.1
    urine = np.round(cohort.urine_ml_per_hour[rows] * 24 * rng.uniform(0.8, 1.2, n))
    urine = np.where(rng.random(n) < 0.02, 0.0, urine)
    columns: dict[str, Any] = {
        "patientunitstayid": cohort.stay_id[rows],
        "intubated": (vent & (rng.random(n) < 0.85)).astype(np.int16),
        "vent": vent.astype(np.int16),
        "dialysis": (rng.random(n) < 0.03 + 0.08 * s).astype(np.int16),
        "eyes": np.where(meds, -1, eyes).astype(np.int16),
        "motor": np.where(meds, -1, motor).astype(np.int16),
        "verbal": np.where(meds, -1, verbal).astype(np.int16),
        "meds": meds.astype(np.int16),
        "urine": np.where(rng.random(n) < q.apache_urine_missing, -1.0, urine),
    }
    for spec, rate in (
        (_APS_VALUES, q.apache_missing_value),
        (_BLOOD_GAS_VALUES, q.apache_blood_gas_missing),
    ):
        for name, normal, slope, sd, decimals in spec:
            value = np.round(np.abs(normal + slope * s + rng.normal(0, sd, n)), decimals)
            columns[name] = np.where(rng.random(n) < rate, -1.0, value)
    return columns


def apachepredvar(
    cohort: EicuCohort, rng: np.random.Generator, q: EicuQuirkRates
) -> dict[str, Any]:
    """One row per stay with APACHE data: elective surgery, day-1 ventilation flags, ..."""
    rows = np.flatnonzero(cohort.has_apache)
    n = rows.size
    vent = first_day_vent(cohort)[rows]
    # a few non-surgical stays are flagged elective (entry noise), so the ED rule matters
    flagged = ~cohort.surgical[rows] & (rng.random(n) < 0.03)
    elective = (cohort.elective[rows] | flagged).astype(np.float64)
    elective = np.where(rng.random(n) < q.elective_surgery_null, np.nan, elective)
    age = np.nan_to_num(cohort.age_years[rows], nan=-1.0)

    def flag(p: float) -> np.ndarray:
        return (rng.random(n) < p).astype(np.int16)

    return {
        "patientunitstayid": cohort.stay_id[rows],
        "sicuday": np.ones(n, dtype=np.int16),
        "saps3day1": np.zeros(n, dtype=np.int16),
        "saps3today": np.zeros(n, dtype=np.int16),
        "saps3yesterday": np.zeros(n, dtype=np.int16),
        "gender": np.where(cohort.female[rows], 1, 0).astype(np.int16),
        "teachtype": flag(0.2),
        "region": rng.integers(1, 5, n).astype(np.int16),
        "bedcount": rng.integers(50, 900, n).astype(np.int16),
        "admitsource": rng.integers(1, 9, n).astype(np.int16),
        "graftcount": np.where(cohort.surgical[rows], rng.integers(1, 5, n), 0).astype(np.int16),
        "age": age.astype(np.int16),
        "admitdiagnosis": np.where(cohort.surgical[rows], "CABG", "SEPSISPULM"),
        "diedinhospital": cohort.died[rows].astype(np.int16),
        "aids": flag(0.003),
        "hepaticfailure": flag(0.01),
        "lymphoma": flag(0.005),
        "metastaticcancer": flag(0.02),
        "leukemia": flag(0.006),
        "immunosuppression": flag(0.03),
        "cirrhosis": flag(0.015),
        "electivesurgery": elective,
        "readmit": (cohort.visit_number[rows] > 1).astype(np.int16),
        "ventday1": vent.astype(np.int16),
        "oobventday1": (vent & (rng.random(n) < 0.8)).astype(np.int16),
        "oobintubday1": (vent & (rng.random(n) < 0.7)).astype(np.int16),
        "diabetes": flag(0.25),
        "visitnumber": cohort.visit_number[rows].astype(np.int16),
        "creatinine": np.round(1.0 + 2.5 * cohort.severity[rows] * rng.random(n), 2),
    }


def apachepatientresult(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Two rows (APACHE IV and IVa) for most stays with APACHE data."""
    scored = np.flatnonzero(cohort.has_apache & (rng.random(cohort.n) < 0.87))
    rows = np.repeat(scored, 2)
    n = rows.size
    s = cohort.severity[rows]
    aps = np.round(15 + 110 * s + rng.normal(0, 8, n)).clip(0, 200)
    mortality = 1 / (1 + np.exp(-(aps - 90) / 18))
    predicted = np.array([f"{p:.6f}" for p in mortality], dtype=object)
    predicted[rng.random(n) < 0.03] = "-1"
    died = np.where(cohort.died[rows], "EXPIRED", "ALIVE")
    unit_days = np.round(cohort.los_minutes[rows] / 1440.0, 4)
    return {
        "patientunitstayid": cohort.stay_id[rows],
        "physicianspeciality": np.where(
            cohort.surgical[rows], "surgery-general", "critical care medicine (CCM)"
        ),
        "acutephysiologyscore": aps.astype(np.int32),
        "apachescore": (aps + np.nan_to_num(cohort.age_years[rows], nan=60) // 5).astype(np.int32),
        "apacheversion": np.tile(np.array(["IV", "IVa"], dtype=object), scored.size),
        "predictedicumortality": predicted,
        "actualicumortality": died,
        "predictediculos": np.round(1.5 + 4 * s, 4),
        "actualiculos": unit_days,
        "predictedhospitalmortality": predicted,
        "actualhospitalmortality": died,
        "predictedhospitallos": np.round(5 + 8 * s, 4),
        "actualhospitallos": np.minimum(np.round(unit_days + 3, 4), 50.0),
        "unabridgedunitlos": unit_days,
        "unabridgedhosplos": np.round(unit_days + 3, 4),
    }
