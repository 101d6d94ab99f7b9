"""``eicu_crd.lab``, ``vitalperiodic``, ``vitalaperiodic`` and ``infusiondrug``.

None of the eICU tasks reads them, but they carry the same latent severity (sicker
stays have worse labs, faster hearts, lower pressures, vasopressor infusions) so the
database stays coherent for anyone exploring it. Labs start days before unit
admission (negative offsets) and a share carries a text result.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.sources.synth.eicu_series import cover, number_text, pick, time_grid

_LAB_DRIFT = {
    "albumin": -0.4,
    "BUN": 2.5,
    "creatinine": 2.2,
    "total bilirubin": 1.5,
    "lactate": 2.5,
    "WBC x 1000": 1.2,
    "platelets x 1000": -0.7,
    "Hct": -0.3,
    "Hgb": -0.3,
    "PT - INR": 1.2,
    "-bands": 1.5,
    "bicarbonate": -0.3,
    "paO2": -0.4,
    "pH": -0.02,
    "paCO2": 0.3,
    "FiO2": 1.0,
}


def _lab_block(
    spec: tuple[tuple[str, int, str, float, float], ...],
    cohort: EicuCohort,
    rng: np.random.Generator,
    owner: np.ndarray,
    offset: np.ndarray,
) -> list[tuple[np.ndarray, np.ndarray, str, int, str, np.ndarray]]:
    blocks = []
    s = cohort.severity[owner]
    for name, type_id, unit, low, high in spec:
        mid, half = (low + high) / 2, (high - low) / 2
        drift = _LAB_DRIFT.get(name, 0.0) * s * (high if _LAB_DRIFT.get(name, 0.0) > 0 else mid)
        value = mid + drift + rng.normal(0, half * 0.6, owner.size)
        floor = low * 0.3 if low > 0 else (0.0 if low == 0 else low - 3 * half)
        blocks.append((owner, offset, name, type_id, unit, np.maximum(value, floor)))
    return blocks


def lab(cohort: EicuCohort, rng: np.random.Generator, q: EicuQuirkRates) -> dict[str, Any]:
    """Every lab column except ``labid`` for one chunk."""
    n = cohort.n
    first = np.where(rng.random(n) < 0.6, -rng.integers(60, 2880, n), rng.integers(0, 240, n))
    owner, offset = time_grid(rng, first, cohort.los_minutes, 720, off_hour=0.9)
    blocks = _lab_block(v.LABS, cohort, rng, owner, offset)
    gas = cohort.ventilated[owner] | (cohort.severity[owner] > 0.5)
    blocks += _lab_block(v.BLOOD_GAS_LABS, cohort, rng, owner[gas], offset[gas] + 7)
    owners = np.concatenate([b[0] for b in blocks])
    offsets = np.concatenate([b[1] for b in blocks])
    names = np.concatenate([np.full(b[0].size, b[2], dtype=object) for b in blocks])
    types = np.concatenate([np.full(b[0].size, b[3], dtype=np.float64) for b in blocks])
    units = np.concatenate([np.full(b[0].size, b[4], dtype=object) for b in blocks])
    values = np.round(np.concatenate([b[5] for b in blocks]), 2)
    order = np.lexsort((names, offsets, owners))
    owners, offsets, names, types, units, values = (
        a[order] for a in (owners, offsets, names, types, units, values)
    )
    text = number_text(values, 2).to_numpy(zero_copy_only=False).astype(object)
    textual = rng.random(values.size) < q.lab_text_value
    text[textual] = pick(rng, v.LAB_TEXT_VALUES, int(textual.sum()))
    return {
        "patientunitstayid": cohort.stay_id[owners],
        "labresultoffset": offsets,
        "labtypeid": types,
        "labname": pa.array(names, type=pa.string()),
        "labresult": np.where(textual, np.nan, values),
        "labresulttext": pa.array(text, type=pa.string()),
        "labmeasurenamesystem": pa.array(units, type=pa.string()),
        "labmeasurenameinterface": pa.array(units, type=pa.string()),
        "labresultrevisedoffset": offsets + rng.integers(20, 360, owners.size),
    }


def vitalperiodic(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Five-minute monitor medians over the whole stay, with dropouts and spikes."""
    owner, offset = time_grid(
        rng, np.zeros(cohort.n, dtype=np.int64), cohort.los_minutes, 5, off_hour=0.0
    )
    s = cohort.severity[owner]
    m = owner.size

    def signal(base: np.ndarray, sd: float, missing: float) -> np.ndarray:
        value = np.round(base + rng.normal(0, sd, m))
        value[rng.random(m) < 0.002] = 0.0
        return np.where(rng.random(m) < missing, np.nan, value)

    arterial = cohort.ventilated[owner] | (s > 0.6)
    mean = 88 - 25 * s
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "observationoffset": offset,
        "temperature": np.where(
            rng.random(m) < 0.8, np.nan, np.round(37 + rng.normal(0, 0.5, m), 1)
        ),
        "sao2": signal(97 - 5 * s, 1.5, 0.05),
        "heartrate": signal(78 + 35 * s, 6.0, 0.01),
        "respiration": signal(16 + 10 * s, 3.0, 0.1),
        "systemicsystolic": np.where(arterial, signal(mean + 35, 8.0, 0.02), np.nan),
        "systemicdiastolic": np.where(arterial, signal(mean - 15, 5.0, 0.02), np.nan),
        "systemicmean": np.where(arterial, signal(mean, 6.0, 0.02), np.nan),
    }


def vitalaperiodic(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Hourly cuff pressures."""
    owner, offset = time_grid(rng, np.zeros(cohort.n, dtype=np.int64), cohort.los_minutes, 60)
    mean = 88 - 25 * cohort.severity[owner] + rng.normal(0, 8, owner.size)
    systolic = mean + 32 + rng.normal(0, 6, owner.size)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "observationoffset": offset,
        "noninvasivesystolic": np.round(systolic),
        "noninvasivediastolic": np.round((3 * mean - systolic) / 2),
        "noninvasivemean": np.round(mean),
    }


def infusiondrug(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Hourly infusion rows: vasopressors for shocked stays, sedation and others."""
    n = cohort.n
    pressor = cohort.vasopressor
    k = len(v.VASOACTIVE_DRUGS)
    drugs = np.where(pressor, cover(rng.integers(0, k, n), pressor, k), -1)
    start = rng.integers(-60, 600, n)
    end = start + rng.lognormal(np.log(600.0) + cohort.severity, 0.6, n).astype(np.int64)
    owner, offset = time_grid(rng, start, np.minimum(end, cohort.los_minutes), 60)
    keep = pressor[owner]
    owner, offset = owner[keep], offset[keep]
    spec = np.array(v.VASOACTIVE_DRUGS, dtype=object)[drugs[owner]]
    sedated = cohort.ventilated & (rng.random(n) < 0.6)
    s_owner, s_offset = time_grid(rng, cohort.vent_start, cohort.vent_end, 120)
    keep = sedated[s_owner]
    s_owner, s_offset = s_owner[keep], s_offset[keep]
    s_spec = np.array(v.OTHER_INFUSIONS, dtype=object)[
        rng.integers(0, len(v.OTHER_INFUSIONS), s_owner.size)
    ]
    owner = np.concatenate([owner, s_owner])
    offset = np.concatenate([offset, s_offset])
    spec = np.concatenate([spec, s_spec])
    order = np.lexsort((offset, owner))
    owner, offset, spec = owner[order], offset[order], spec[order]
    low = spec[:, 1].astype(np.float64)
    high = spec[:, 2].astype(np.float64)
    rate = low + (high - low) * np.clip(
        cohort.severity[owner] + rng.normal(0, 0.2, owner.size), 0, 1
    )
    weight = number_text(cohort.weight_kg[owner], 1).to_numpy(zero_copy_only=False).astype(object)
    weight[rng.random(owner.size) < 0.3] = None
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "infusionoffset": offset,
        "drugname": pa.array(spec[:, 0], type=pa.string()),
        "drugrate": number_text(rate, 3),
        "infusionrate": number_text(rate * 2.5, 1),
        "drugamount": number_text(np.full(owner.size, 250.0), 0),
        "volumeoffluid": number_text(np.full(owner.size, 250.0), 0),
        "patientweight": pa.array(weight, type=pa.string()),
    }
