"""hosp.patients, hosp.admissions, icu.icustays, hosp.transfers and hosp.services."""

from __future__ import annotations

from typing import Any

import numpy as np

from m4bench.sources.synth import mimic_transfers
from m4bench.sources.synth.core import seconds_to_us, stream_rng
from m4bench.sources.synth.mimic_cohort import DAY, HOUR, Cohort
from m4bench.sources.synth.mimic_vocab import (
    ADMISSION_LOCATIONS,
    ANCHOR_YEAR_GROUPS,
    CAREUNITS,
    DISCHARGE_LOCATIONS_ALIVE,
    EMERGENCY_ADMISSION_TYPES,
    INSURANCE,
    LANGUAGES,
    MARITAL,
    RACES,
    WARD_SERVICES,
)

Columns = dict[str, Any]
STREAM_ADMIN = 2


def _ts(seconds: np.ndarray) -> np.ndarray:
    """Epoch seconds to timestamps, -1 becoming NULL (NaT)."""
    out = seconds_to_us(np.where(seconds < 0, 0, seconds))
    out[seconds < 0] = np.datetime64("NaT")
    return out


def _choice(rng: np.random.Generator, values: tuple[str, ...], n: int) -> np.ndarray:
    return np.array(values, dtype=object)[rng.integers(0, len(values), n)]


def patients_table(cohort: Cohort) -> Columns:
    p = cohort.patients
    dod = (cohort.dod.astype("datetime64[D]")).astype(object)
    dod[cohort.dod < 0] = None
    return {
        "subject_id": p.subject_id,
        "gender": np.where(p.female, "F", "M"),
        "anchor_age": p.anchor_age,
        "anchor_year": p.anchor_year,
        "anchor_year_group": np.array(ANCHOR_YEAR_GROUPS, dtype=object)[p.year_group],
        "dod": np.array(dod),
    }


def admissions_table(seed: int, cohort: Cohort) -> Columns:
    rng = stream_rng(seed, STREAM_ADMIN, 0)
    a = cohort.admissions
    n = len(a)
    died = a.deathtime >= 0
    emergency, ed_in = ed_times(seed, cohort)
    location = np.where(emergency, "EMERGENCY ROOM", _choice(rng, ADMISSION_LOCATIONS, n))
    discharge = np.where(died, "DIED", _choice(rng, DISCHARGE_LOCATIONS_ALIVE, n)).astype(object)
    discharge[~died & (rng.random(n) < 0.03)] = None
    marital = _choice(rng, MARITAL, n)
    marital[rng.random(n) < 0.05] = None
    return {
        "subject_id": cohort.patients.subject_id[a.subj],
        "hadm_id": a.hadm_id,
        "admittime": _ts(a.admittime),
        "dischtime": _ts(a.dischtime),
        "deathtime": _ts(a.deathtime),
        "admission_type": a.admission_type,
        "admit_provider_id": _provider_ids(rng, n),
        "admission_location": location,
        "discharge_location": discharge,
        "insurance": _choice(rng, INSURANCE, n),
        "language": _choice(rng, LANGUAGES, n),
        "marital_status": marital,
        "race": _choice(rng, RACES, n),
        "edregtime": _ts(np.where(emergency, ed_in, -1)),
        "edouttime": _ts(np.where(emergency, a.admittime, -1)),
        "hospital_expire_flag": died.astype(np.int16),
    }


def ed_times(seed: int, cohort: Cohort) -> tuple[np.ndarray, np.ndarray]:
    """Which admissions came through the ED, and when they registered there (epoch s)."""
    rng = stream_rng(seed, STREAM_ADMIN, 3)
    a = cohort.admissions
    emergency = np.isin(a.admission_type, list(EMERGENCY_ADMISSION_TYPES))
    ed_in = a.admittime - (np.round(rng.uniform(1, 10, len(a)) * 4) * HOUR // 4).astype(np.int64)
    return emergency, ed_in


def _provider_ids(rng: np.random.Generator, n: int) -> np.ndarray:
    pool = np.array([f"P{i:05X}" for i in range(200)], dtype=object)
    return pool[rng.integers(0, len(pool), n)]


def icustays_table(cohort: Cohort) -> Columns:
    s = cohort.stays
    units = np.array([name for name, _, _ in CAREUNITS], dtype=object)
    return {
        "subject_id": cohort.patients.subject_id[s.subj],
        "hadm_id": cohort.admissions.hadm_id[s.adm],
        "stay_id": s.stay_id,
        "first_careunit": units[s.first_unit],
        "last_careunit": units[s.last_unit],
        "intime": _ts(s.intime),
        "outtime": _ts(s.outtime),
        "los": (s.outtime - s.intime) / DAY,
    }


def services_table(seed: int, cohort: Cohort) -> Columns:
    """First service at admission (by the ICU unit for ICU admissions); some transfers later."""
    rng = stream_rng(seed, STREAM_ADMIN, 1)
    a = cohort.admissions
    n = len(a)
    first = _choice(rng, WARD_SERVICES, n)
    s = cohort.stays
    flat = np.array([svc for _, _, services in CAREUNITS for svc in services], dtype=object)
    lens = np.array([len(services) for _, _, services in CAREUNITS])
    offsets = np.cumsum(lens) - lens
    pick = (rng.random(len(s)) * lens[s.first_unit]).astype(np.int64)
    by_unit = flat[offsets[s.first_unit] + pick]
    first[s.adm[::-1]] = by_unit[::-1]  # the first stay of an admission decides
    moves = rng.random(n) < 0.25
    second = _choice(rng, ("MED", "SURG", "CMED", "NMED", "TRAUM", "ORTHO", "CSURG"), n)
    move_time = (
        a.admittime
        + ((a.dischtime - a.admittime) * rng.uniform(0.2, 0.8, n)).astype(np.int64) // 60 * 60
    )
    rows = np.concatenate([np.arange(n), np.flatnonzero(moves)])
    times = np.concatenate([a.admittime, move_time[moves]])
    order = np.lexsort((times, rows))
    rows, times = rows[order], times[order]
    is_second = np.r_[False, rows[1:] == rows[:-1]]
    curr = np.where(is_second, second[rows], first[rows])
    prev = np.where(is_second, first[rows], None)
    return {
        "subject_id": cohort.patients.subject_id[a.subj[rows]],
        "hadm_id": a.hadm_id[rows],
        "transfertime": _ts(times),
        "prev_service": prev,
        "curr_service": curr,
    }


def transfers_table(seed: int, cohort: Cohort) -> Columns:
    """ED, ward and ICU transfers (see :mod:`m4bench.sources.synth.mimic_transfers`)."""
    emergency, ed_in = ed_times(seed, cohort)
    return mimic_transfers.transfers_table(seed, cohort, ed_in, emergency)
