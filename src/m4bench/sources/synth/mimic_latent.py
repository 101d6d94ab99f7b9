"""The latent clinical state that drives all data of a patient and an ICU stay together.

Chronic conditions are per patient; the acute course (severity trajectory, organ
failures and their timing, treatments) is per ICU stay. Event generators of one chunk
share the same :class:`StayState`, so vitals, labs, ventilation, vasopressors, urine,
infections and outcome stay mutually consistent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from m4bench.sources.synth.core import at_least_one, stream_rng
from m4bench.sources.synth.mimic_cohort import HOUR, Cohort
from m4bench.sources.synth.shaping import NO_TARGETS, Targets

STREAM_CONDITIONS = 3
STREAM_LATENT = 4

# chronic condition groups of mimic_icd.json, with their prevalence among ICU patients
CONDITIONS = (
    ("mi", 0.15),
    ("chf", 0.25),
    ("pvd", 0.10),
    ("cvd", 0.10),
    ("dementia", 0.05),
    ("copd", 0.18),
    ("rheum", 0.04),
    ("pud", 0.03),
    ("mild_liver", 0.08),
    ("severe_liver", 0.03),
    ("dm", 0.20),
    ("dm_cc", 0.08),
    ("para", 0.03),
    ("renal", 0.16),
    ("ckd456", 0.06),
    ("transplant", 0.01),
    ("cancer", 0.12),
    ("heme", 0.03),
    ("mets", 0.05),
    ("aids", 0.01),
)
CONDITION_INDEX = {name: i for i, (name, _) in enumerate(CONDITIONS)}
UNIT_CVICU = 2


def subject_conditions(seed: int, cohort: Cohort) -> np.ndarray:
    """``[patients, conditions]`` booleans; ICU patients carry more disease than others."""
    rng = stream_rng(seed, STREAM_CONDITIONS, 0)
    n = len(cohort.patients.subject_id)
    icu = np.zeros(n, bool)
    icu[cohort.stays.subj] = True
    age = cohort.patients.anchor_age
    prevalence = np.array([p for _, p in CONDITIONS])
    factor = np.where(icu, 1.0, 0.35)[:, None] * (0.5 + age[:, None] / 90)
    has = rng.random((n, len(CONDITIONS))) < prevalence[None, :] * factor
    has[:, CONDITION_INDEX["renal"]] |= has[:, CONDITION_INDEX["ckd456"]]
    has[:, CONDITION_INDEX["mild_liver"]] |= has[:, CONDITION_INDEX["severe_liver"]]
    has[:, CONDITION_INDEX["cancer"]] |= has[:, CONDITION_INDEX["mets"]] & (rng.random(n) < 0.7)
    return has


@dataclass(frozen=True)
class StayState:
    """Latent per-stay state for one chunk of stays (all arrays are per stay)."""

    intime: np.ndarray
    outtime: np.ndarray
    los_h: np.ndarray
    sev0: np.ndarray
    sev_end: np.ndarray
    died: np.ndarray
    vent: np.ndarray
    vent_on: np.ndarray  # hours after intime
    vent_off: np.ndarray
    trach: np.ndarray
    niv: np.ndarray
    hfnc: np.ndarray
    oxygen: np.ndarray
    pressor: np.ndarray
    pressor_on: np.ndarray
    pressor_off: np.ndarray
    infection: np.ndarray
    infection_h: np.ndarray  # hours after intime (may be negative)
    aki_stage: np.ndarray
    aki_peak_h: np.ndarray
    crrt: np.ndarray
    ihd: np.ndarray  # intermittent haemodialysis
    peritoneal: np.ndarray  # peritoneal dialysis
    cr_base: np.ndarray
    liver: np.ndarray
    platelet_base: np.ndarray
    gcs_loss: np.ndarray  # 0 = alert, up to 12 points lost
    weight: np.ndarray
    height_cm: np.ndarray
    art_line: np.ndarray
    cvicu: np.ndarray
    hct_base: np.ndarray  # haematocrit before the acute illness
    targets: Targets = NO_TARGETS  # the coverage needs engineered into some of the stays

    def __len__(self) -> int:
        return len(self.intime)

    def severity_at(self, stay: np.ndarray, hours: np.ndarray) -> np.ndarray:
        """Severity of each (stay, hour) pair along the stay's trajectory."""
        frac = np.clip(hours / np.maximum(self.los_h[stay], 1.0), 0.0, 1.0)
        out: np.ndarray = self.sev0[stay] + (self.sev_end[stay] - self.sev0[stay]) * frac
        return out


def stay_state(
    seed: int, chunk: int, cohort: Cohort, stays: np.ndarray, conditions: np.ndarray
) -> StayState:
    """The latent state of the stays ``stays`` (indices into the cohort's stays)."""
    rng = stream_rng(seed, STREAM_LATENT, chunk)
    s = cohort.stays
    n = len(stays)
    intime, outtime = s.intime[stays], s.outtime[stays]
    los_h = (outtime - intime) / HOUR
    sev0 = s.severity[stays]
    died = s.died[stays]
    sev_end = np.where(
        died, np.minimum(1.0, sev0 + rng.uniform(0.2, 0.5, n)), sev0 * rng.uniform(0.2, 0.8, n)
    )
    cvicu = s.first_unit[stays] == UNIT_CVICU
    cond = conditions[s.subj[stays]]
    support = _support(rng, sev0, los_h, cvicu)
    infection = rng.random(n) < 0.25 + 0.75 * sev0
    pre_h = (intime - cohort.admissions.admittime[s.adm[stays]]) / HOUR
    infection_h = rng.uniform(np.clip(-pre_h + 0.5, -8, 0), 48)
    kidney = _kidney(rng, sev0, cond)
    return StayState(
        intime=intime,
        outtime=outtime,
        los_h=los_h,
        sev0=sev0,
        sev_end=sev_end,
        died=died,
        **support,
        infection=infection,
        infection_h=infection_h,
        **kidney,
        liver=np.where(
            cond[:, 9] | (rng.random(n) < 0.06 + 0.2 * sev0), rng.uniform(2, 12, n), 1.0
        ),
        platelet_base=rng.lognormal(np.log(230), 0.35, n) * (1 - 0.6 * sev0),
        gcs_loss=_gcs_loss(rng, sev0),
        weight=np.round(np.clip(rng.normal(82, 20, n), 40, 200), 1),
        height_cm=np.round(np.clip(rng.normal(170, 10, n), 145, 200)),
        art_line=cvicu | support["vent"] | support["pressor"] | (rng.random(n) < 0.15),
        cvicu=cvicu,
        hct_base=rng.normal(39, 5, n),
    )


def _gcs_loss(rng: np.random.Generator, sev0: np.ndarray) -> np.ndarray:
    """GCS points lost at the worst: none for about half, mostly mild, comatose for some."""
    n = len(sev0)
    mild = np.clip(np.ceil(rng.exponential(3.0, n)), 1, 12)
    coma = rng.uniform(7, 12.99, n).astype(int)
    loss = np.where(rng.random(n) < 0.1 + 0.4 * sev0, coma, mild)
    out: np.ndarray = np.where(rng.random(n) < 0.3 + 0.6 * sev0, loss, 0)
    return out


class _Support(TypedDict):
    vent: np.ndarray
    vent_on: np.ndarray
    vent_off: np.ndarray
    trach: np.ndarray
    niv: np.ndarray
    hfnc: np.ndarray
    oxygen: np.ndarray
    pressor: np.ndarray
    pressor_on: np.ndarray
    pressor_off: np.ndarray


class _Kidney(TypedDict):
    cr_base: np.ndarray
    aki_stage: np.ndarray
    crrt: np.ndarray
    aki_peak_h: np.ndarray
    ihd: np.ndarray
    peritoneal: np.ndarray


def _support(
    rng: np.random.Generator, sev0: np.ndarray, los_h: np.ndarray, cvicu: np.ndarray
) -> _Support:
    """Respiratory support and vasopressors: who, and from/to when (hours after intime)."""
    n = len(sev0)
    vent, vent_on, vent_off, trach = _ventilation(rng, sev0, los_h, cvicu)
    free = ~vent
    niv = free & (rng.random(n) < 0.08 + 0.2 * sev0)
    hfnc = free & ~niv & (rng.random(n) < 0.06)
    oxygen = free & (rng.random(n) < 0.75)
    pressor = rng.random(n) < np.clip(-0.06 + 0.8 * sev0 + 0.15 * cvicu, 0.0, 0.95)
    pressor_on = np.where(
        rng.random(n) < 0.6, rng.uniform(-2, 6, n), rng.uniform(0, 0.5, n) * los_h
    )
    pressor_on = np.clip(pressor_on, -2, np.maximum(los_h - 2, 0))
    pressor_off = np.minimum(pressor_on + rng.lognormal(np.log(20), 0.8, n), los_h + 1)
    return {
        "vent": vent, "vent_on": vent_on, "vent_off": vent_off, "trach": trach, "niv": niv,
        "hfnc": hfnc, "oxygen": oxygen, "pressor": pressor, "pressor_on": pressor_on,
        "pressor_off": pressor_off,
    }  # fmt: skip


def _kidney(rng: np.random.Generator, sev0: np.ndarray, cond: np.ndarray) -> _Kidney:
    """Baseline creatinine (CKD raises it), the AKI stage reached and when, and CRRT."""
    n = len(sev0)
    ckd = cond[:, CONDITION_INDEX["renal"]] | cond[:, CONDITION_INDEX["ckd456"]]
    cr_base = np.where(
        cond[:, CONDITION_INDEX["ckd456"]],
        rng.uniform(2.2, 6.0, n),
        np.where(ckd, rng.uniform(1.3, 2.4, n), rng.lognormal(np.log(0.85), 0.25, n)),
    )
    aki_draw = rng.random(n) - 0.25 * sev0
    aki_stage = np.select([aki_draw < 0.02, aki_draw < 0.10, aki_draw < 0.46], [3, 2, 1], 0)
    crrt = (aki_stage == 3) & (rng.random(n) < 0.45 + 0.3 * sev0)
    peak = rng.uniform(6, 60, n)
    ihd = at_least_one((aki_stage == 3) & ~crrt & (rng.random(n) < 0.3), (aki_stage >= 2) & ~crrt)
    peritoneal = cond[:, CONDITION_INDEX["ckd456"]] & ~crrt & ~ihd & (rng.random(n) < 0.25)
    if n >= 50 and not peritoneal.any():  # keep the rare modality present in every chunk
        peritoneal[np.argmax(np.where(crrt | ihd, 0.0, cr_base))] = True
    return {
        "cr_base": cr_base, "aki_stage": aki_stage, "crrt": crrt, "aki_peak_h": peak,
        "ihd": ihd, "peritoneal": peritoneal,
    }  # fmt: skip


def _ventilation(
    rng: np.random.Generator, sev: np.ndarray, los_h: np.ndarray, cvicu: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Who is invasively ventilated, from/to when (hours after intime), who gets a trach."""
    n = len(sev)
    vent = rng.random(n) < np.clip(0.06 + 0.85 * sev + 0.35 * cvicu, 0, 0.97)
    start = np.where(rng.random(n) < 0.7, rng.uniform(-3, 1, n), rng.uniform(0, 0.4, n) * los_h)
    post_op = cvicu & (rng.random(n) < 0.7)
    duration = np.where(post_op, rng.uniform(4, 16, n), rng.lognormal(np.log(40), 0.9, n))
    end = np.minimum(start + duration, los_h - 0.5)
    vent &= end > start + 2
    trach = vent & (end - start > 96) & (rng.random(n) < 0.5)
    return vent, start, end, trach
