"""``eicu_crd.patient`` and ``eicu_crd.hospital``: one row per unit stay, 208 hospitals."""

from __future__ import annotations

from typing import Any

import numpy as np

from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu_cohort import HOSPITAL_IDS, EicuCohort
from m4bench.sources.synth.eicu_series import cover, pick, pick_weighted

UNMAPPED_DX = ("Pancreatitis", "Fracture-femur", "Weaning from mechanical ventilation")


def clock(minutes: np.ndarray) -> np.ndarray:
    """Minute-of-day values as 'HH:MM:SS' strings."""
    m = np.mod(minutes, 1440).astype(np.int64)
    return np.array(
        [f"{h:02d}:{mm:02d}:00" for h, mm in zip(m // 60, m % 60, strict=True)], dtype=object
    )


def uniquepid(patient_index: np.ndarray) -> np.ndarray:
    """'NNN-NNNNN' identifiers, unique per patient number."""
    return np.array(
        [f"{2 + 3 * (p // 100_000):03d}-{p % 100_000:05d}" for p in patient_index.tolist()],
        dtype=object,
    )


def patient(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Every patient column for one chunk."""
    n = cohort.n
    hospital = _hospital_stay(cohort, rng)
    unit_admit = hospital["admit_clock"] - cohort.hospital_admit_offset
    died_in_unit = cohort.died & hospital["died_in_unit"]
    unit_location = pick_weighted(
        rng, v.UNIT_DISCHARGE_LOCATIONS_ALIVE, v.UNIT_DISCHARGE_WEIGHTS, n
    )
    weight = np.where(rng.random(n) < 0.05, np.nan, cohort.weight_kg)
    discharge_weight = np.where(rng.random(n) < 0.4, np.nan, cohort.weight_kg + rng.normal(0, 2, n))
    return {
        "patientunitstayid": cohort.stay_id,
        "patienthealthsystemstayid": cohort.health_system_stay_id,
        "gender": np.where(
            rng.random(n) < 0.005,
            pick(rng, ("Unknown", "Other", ""), n),
            np.where(cohort.female, "Female", "Male"),
        ),
        "age": cohort.age_text,
        "ethnicity": pick_weighted(rng, v.ETHNICITIES, v.ETHNICITY_WEIGHTS, n),
        "hospitalid": cohort.hospital_id,
        "wardid": cohort.hospital_id * 10 + rng.integers(0, 4, n),
        "admissionheight": np.where(rng.random(n) < 0.04, np.nan, cohort.height_cm),
        "hospitaladmittime24": clock(hospital["admit_clock"]),
        "hospitaladmitoffset": cohort.hospital_admit_offset,
        "hospitaladmitsource": hospital["source"],
        "hospitaldischargeyear": hospital["year"],
        "hospitaldischargetime24": clock(unit_admit + hospital["discharge"]),
        "hospitaldischargeoffset": hospital["discharge"],
        "hospitaldischargelocation": hospital["location"],
        "hospitaldischargestatus": hospital["status"],
        "unittype": pick_weighted(rng, v.UNIT_TYPES, v.UNIT_TYPE_WEIGHTS, n),
        "unitadmittime24": clock(unit_admit),
        "unitvisitnumber": cohort.visit_number,
        "admissionweight": weight,
        "dischargeweight": discharge_weight.round(1),
        "unitdischargetime24": clock(unit_admit + cohort.los_minutes),
        "unitdischargeoffset": cohort.los_minutes,
        "unitdischargelocation": np.where(died_in_unit, "Death", unit_location),
        "unitdischargestatus": np.where(died_in_unit, "Expired", "Alive"),
        "uniquepid": uniquepid(cohort.patient_index),
        **_admission(cohort, rng),
    }


def _hospital_stay(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Hospital-stay facts shared by every unit stay of one hospital stay.

    Admission clock, source and discharge (time, year, location, status) are drawn
    once per hospital stay; the discharge offset of each unit stay is that one
    discharge seen from its own unit admission. A death happens in the last unit stay.
    """
    n = cohort.n
    hs = cohort.health_system_stay_id
    group = np.cumsum(np.r_[True, hs[1:] != hs[:-1]]) - 1 if n else np.zeros(0, dtype=np.int64)
    last = np.flatnonzero(np.r_[hs[1:] != hs[:-1], True])[group] if n else group
    died_in_unit = rng.random(n) < 0.75
    after_unit = np.where(
        cohort.died & died_in_unit, rng.integers(0, 30, n), rng.integers(120, 12_000, n)
    )
    from_admission = -cohort.hospital_admit_offset + cohort.los_minutes + after_unit
    died = cohort.died[last]
    status = np.where(died, "Expired", "Alive").astype(object)
    status[(rng.random(n) < 0.005)[group]] = None
    alive = pick_weighted(rng, v.DISCHARGE_LOCATIONS_ALIVE, v.DISCHARGE_LOCATION_WEIGHTS, n)
    return {
        "admit_clock": rng.integers(0, 1440, n)[group],
        "source": pick(rng, v.HOSPITAL_ADMIT_SOURCES, n)[group],
        "year": np.where(rng.random(n) < 0.5, 2014, 2015)[group],
        "discharge": from_admission[last] + cohort.hospital_admit_offset,
        "location": np.where(died, "Death", alive[last]),
        "status": status,
        "died_in_unit": died_in_unit,
    }


def _admission(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Admission source, APACHE diagnosis and stay type, following surgical status."""
    n = cohort.n
    later_visit = cohort.visit_number > 1
    surgical_source = pick_weighted(rng, v.SURGICAL_SOURCES, v.SURGICAL_SOURCE_WEIGHTS, n)
    medical_source = pick_weighted(rng, v.MEDICAL_SOURCES, v.MEDICAL_SOURCE_WEIGHTS, n)
    source = np.where(cohort.surgical, surgical_source, medical_source)
    transfer_source = pick(rng, ("Other ICU", "Floor", "Step-Down Unit (SDU)"), n)
    dx, covered = _diagnoses(cohort, rng)
    unmapped = (rng.random(n) < 0.03) & ~covered
    dx = np.where(unmapped, pick(rng, UNMAPPED_DX, n), dx)
    dx[(rng.random(n) < 0.05) & ~covered] = None
    first_type = np.where(rng.random(n) < 0.05, "stepdown/other", "admit")
    return {
        "apacheadmissiondx": dx,
        "unitadmitsource": np.where(later_visit, transfer_source, source),
        "unitstaytype": np.where(later_visit, pick(rng, ("transfer", "readmit"), n), first_type),
    }


def _diagnoses(cohort: EicuCohort, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """APACHE admission diagnoses by surgical status; the first stays cover every string.

    Returns the diagnoses (object array) and which stays carry a covering string.
    """
    n = cohort.n
    dx = np.empty(n, dtype=object)
    covered = np.zeros(n, dtype=bool)
    for group, strings in (
        (cohort.surgical, v.APACHE_DX_SURGICAL),
        (~cohort.surgical, v.APACHE_DX_MEDICAL),
    ):
        k = len(strings)
        index = cover(rng.integers(0, k, n), group, k)
        dx[group] = np.array(strings, dtype=object)[index[group]]
        covered[np.flatnonzero(group)[:k]] = True
    return dx, covered


def hospital(rng: np.random.Generator) -> dict[str, Any]:
    """The 208 hospitals (not scaled)."""
    n = HOSPITAL_IDS.size
    beds = ("<100", "100 - 249", "250 - 499", ">= 500")
    regions = ("Midwest", "South", "West", "Northeast")
    region = pick(rng, regions, n)
    region[rng.random(n) < 0.1] = None
    return {
        "hospitalid": HOSPITAL_IDS,
        "numbedscategory": pick(rng, beds, n),
        "teachingstatus": rng.random(n) < 0.2,
        "region": region,
    }
