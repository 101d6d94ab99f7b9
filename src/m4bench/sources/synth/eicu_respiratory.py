"""``eicu_crd.respiratorycare`` and ``respiratorycharting``.

Every ventilated stay documents its airway (at intubation, which may fall before unit
admission or after the first day, and every four hours while ventilated). A share of the
never-ventilated stays has respiratorycare rows with every airway column NULL.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.core import group_arange
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.sources.synth.eicu_series import number_text, pick, time_grid


def respiratorycare(
    cohort: EicuCohort, rng: np.random.Generator, q: EicuQuirkRates
) -> dict[str, Any]:
    """Every respiratorycare column except ``respcareid`` for one chunk."""
    n = cohort.n
    vent = cohort.ventilated
    end = np.minimum(cohort.vent_end, cohort.vent_start + 3 * 1440)
    v_owner, v_offset = time_grid(rng, cohort.vent_start + 5, end, 240, off_hour=1.0)
    v_owner, v_offset = v_owner[vent[v_owner]], v_offset[vent[v_owner]]
    quiet = ~vent & (rng.random(n) < q.respcare_no_airway)
    counts = np.where(quiet, rng.integers(1, 3, n), 0)
    q_owner = np.repeat(np.arange(n), counts)
    q_offset = rng.integers(-60, 2000, q_owner.size)
    owner = np.concatenate([v_owner, q_owner])
    offset = np.concatenate([v_offset, q_offset])
    airway = np.r_[np.ones(v_owner.size, dtype=bool), np.zeros(q_owner.size, dtype=bool)]
    order = np.lexsort((offset, owner))
    owner, offset, airway = owner[order], offset[order], airway[order]
    m = owner.size
    seq = group_arange(np.bincount(owner, minlength=n)[np.unique(owner)]) + 1

    def airway_text(choices: tuple[str, ...], missing: float) -> np.ndarray:
        """The stay's own airway detail on each of its rows, sometimes left blank."""
        text: np.ndarray = pick(rng, choices, n)[owner]
        text[~airway | (rng.random(m) < missing)] = None
        return text

    cuff = np.where(
        airway & (rng.random(m) < 0.7), rng.integers(18, 32, m).astype(np.float64), np.nan
    )
    tidal = (
        number_text(rng.integers(35, 60, m) * 10.0, 0).to_numpy(zero_copy_only=False).astype(object)
    )
    tidal[~airway | (rng.random(m) < 0.5)] = None
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "respcarestatusoffset": offset,
        "currenthistoryseqnum": seq,
        "airwaytype": airway_text(v.AIRWAY_TYPES, 0.05),
        "airwaysize": airway_text(v.AIRWAY_SIZES, 0.2),
        "airwayposition": airway_text(v.AIRWAY_POSITIONS, 0.3),
        "cuffpressure": cuff,
        "ventstartoffset": np.where(airway, cohort.vent_start[owner], np.nan),
        "ventendoffset": np.where(airway & (rng.random(m) < 0.8), cohort.vent_end[owner], np.nan),
        "lowexhmvlimit": np.round(rng.uniform(2, 5, m), 1),
        "hiexhmvlimit": np.round(rng.uniform(12, 20, m), 1),
        "hipeakpreslimit": rng.integers(35, 50, m).astype(np.float64),
        "hirespratelimit": rng.integers(30, 40, m).astype(np.float64),
        "lowrespratelimit": rng.integers(6, 10, m).astype(np.float64),
        "setapneatv": tidal,
    }


_VENT_SETTINGS = (
    ("respFlowSettings", "FiO2", 30.0, 60.0, 0),
    ("respFlowSettings", "PEEP", 5.0, 12.0, 0),
    ("respFlowSettings", "Tidal Volume (set)", 350.0, 550.0, 0),
    ("respFlowPtVentData", "RR (patient)", 12.0, 30.0, 0),
    ("respFlowPtVentData", "Mean Airway Pressure", 8.0, 20.0, 1),
    ("respFlowPtVentData", "Peak Insp. Pressure", 18.0, 35.0, 0),
)
_VENT_MODES = ("AC/VC", "SIMV", "CPAP/PSV", "PRVC", "AC/PC")


def respiratorycharting(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Every respiratorycharting column except ``respchartid`` for one chunk."""
    vent = cohort.ventilated
    owner, offset = time_grid(rng, cohort.vent_start, cohort.vent_end, 240)
    keep = vent[owner]
    owner, offset = owner[keep], offset[keep]
    s = cohort.severity[owner]
    cats, labels, texts, owners, offsets = [], [], [], [], []
    for cat, label, low, high, decimals in _VENT_SETTINGS:
        value = low + (high - low) * np.clip(s + rng.normal(0, 0.15, owner.size), 0, 1)
        text = number_text(value, decimals).to_numpy(zero_copy_only=False).astype(object)
        if label == "FiO2":
            fraction = rng.random(owner.size) < 0.1
            text[fraction] = number_text(value[fraction] / 100, 2).to_numpy(zero_copy_only=False)
        cats.append(np.full(owner.size, cat, dtype=object))
        labels.append(np.full(owner.size, label, dtype=object))
        texts.append(text)
        owners.append(owner)
        offsets.append(offset)
    cats.append(np.full(owner.size, "respFlowSettings", dtype=object))
    labels.append(np.full(owner.size, "Ventilator Mode", dtype=object))
    texts.append(pick(rng, _VENT_MODES, owner.size))
    owners.append(owner)
    offsets.append(offset)
    all_owner = np.concatenate(owners)
    all_offset = np.concatenate(offsets)
    order = np.lexsort((all_offset, all_owner))
    o, t = all_owner[order], all_offset[order]
    return {
        "patientunitstayid": cohort.stay_id[o],
        "respchartoffset": t,
        "respchartentryoffset": t + rng.integers(0, 30, o.size),
        "respcharttypecat": pa.array(np.concatenate(cats)[order], type=pa.string()),
        "respchartvaluelabel": pa.array(np.concatenate(labels)[order], type=pa.string()),
        "respchartvalue": pa.array(np.concatenate(texts)[order], type=pa.string()),
    }
