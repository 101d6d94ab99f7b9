"""The eICU orders, diagnoses, notes, care plans and nursing flowsheets at real volume.

``medication``, ``treatment``, ``diagnosis``, ``note``, ``nurseassessment``,
``nursecare``, ``careplangeneral``, ``careplangoal``, ``careplancareprovider``,
``admissiondrug`` and ``pasthistory``: no eICU task reads them. Each stay gets the real
rows per stay on average, in proportion to its length of stay (admission records in
proportion to nothing), at offsets inside the stay. Strings that imply an intervention
follow the stay: ventilation treatments, care plans and respiratory failure only for
ventilated stays, vasopressor treatments and septic shock only for stays on
vasopressors, antibiotics for those and a share of the others.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth import eicu_records_vocab as r
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_rounds import choice_text, indexed_text, round_grid

MEAN_LOS_MINUTES = 3100.0  # the cohort's mean unit stay; rates per stay scale with it

# Real rows per unit stay (eICU-CRD v2.0 row counts over 200,859 stays).
PER_STAY = {
    "medication": 36.0,
    "treatment": 18.0,
    "diagnosis": 13.5,
    "careplangoal": 2.5,
    "careplancareprovider": 2.5,
    "admissiondrug": 4.4,
    "pasthistory": 5.7,
}


def stay_rows(
    cohort: EicuCohort, rng: np.random.Generator, per_stay: float, by_length: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Poisson rows per stay (scaled by length of stay) at sorted offsets inside the stay."""
    scale = cohort.los_minutes / MEAN_LOS_MINUTES if by_length else 1.0
    counts = rng.poisson(np.broadcast_to(per_stay * scale, (cohort.n,)))
    owner = np.repeat(np.arange(cohort.n), counts)
    low = np.minimum(cohort.chart_start, 0)[owner]
    high = cohort.los_minutes[owner]
    offset = low + (rng.random(owner.size) * (high - low + 1)).astype(np.int64)
    order = np.lexsort((offset, owner))
    return owner[order], offset[order]


def _admission_rows(
    cohort: EicuCohort, rng: np.random.Generator, per_stay: float
) -> tuple[np.ndarray, np.ndarray]:
    """Rows recorded around unit admission (the first two hours)."""
    counts = rng.poisson(per_stay, cohort.n)
    owner = np.repeat(np.arange(cohort.n), counts)
    offset = np.minimum(rng.integers(0, 120, owner.size), cohort.los_minutes[owner])
    order = np.lexsort((offset, owner))
    return owner[order], offset[order]


def _pick_group(
    rng: np.random.Generator, eligible: np.ndarray, share: float, size: int
) -> np.ndarray:
    return eligible & (rng.random(size) < share)


def _strings(values: tuple[str, ...], index: np.ndarray) -> pa.Array:
    return indexed_text(values, index)


def medication(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset = stay_rows(cohort, rng, PER_STAY["medication"])
    m = owner.size
    infected = cohort.vasopressor | (rng.random(cohort.n) < 0.3)
    entries = r.FORMULARY + r.ANTIBIOTICS
    drug = rng.integers(0, len(r.FORMULARY), m)
    antibiotic = _pick_group(rng, infected[owner], 0.18, m)
    drug = np.where(antibiotic, len(r.FORMULARY) + rng.integers(0, len(r.ANTIBIOTICS), m), drug)
    take = pa.array(drug)
    start = offset + rng.integers(0, 120, m)
    frequency = pa.array([e[4] for e in entries], type=pa.string()).take(take)
    prn = np.array(["PRN" in e[4] for e in entries])[drug]
    iv = np.array([e[3] in ("IV", "IVPB") for e in entries])[drug]
    cancelled = rng.random(m) < 0.04
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "drugorderoffset": offset,
        "drugstartoffset": start,
        "drugivadmixture": _strings(("No", "Yes"), (iv & (rng.random(m) < 0.3)).astype(np.int64)),
        "drugordercancelled": _strings(("No", "Yes"), cancelled.astype(np.int64)),
        "drugname": pa.array([e[0] for e in entries], type=pa.string()).take(take),
        "drughiclseqno": pa.array([e[1] for e in entries], type=pa.int32()).take(take),
        "dosage": pa.array([e[2] for e in entries], type=pa.string()).take(take),
        "routeadmin": pa.array([e[3] for e in entries], type=pa.string()).take(take),
        "frequency": frequency,
        "loadingdose": _strings(("No",), np.zeros(m, dtype=np.int64)),
        "prn": _strings(("No", "Yes"), prn.astype(np.int64)),
        "drugstopoffset": start + rng.lognormal(np.log(2000.0), 0.7, m).astype(np.int64),
        "gtc": np.zeros(m, dtype=np.int64),
    }


def treatment(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset = stay_rows(cohort, rng, PER_STAY["treatment"])
    m = owner.size
    strings = r.TREATMENTS_GENERAL + r.TREATMENTS_VENTILATED + r.TREATMENTS_VASOPRESSOR
    vent_first = len(r.TREATMENTS_GENERAL)
    pressor_first = vent_first + len(r.TREATMENTS_VENTILATED)
    pick = rng.integers(0, vent_first, m)
    vent = _pick_group(rng, cohort.ventilated[owner], 0.3, m)
    pick = np.where(vent, vent_first + rng.integers(0, len(r.TREATMENTS_VENTILATED), m), pick)
    pressor = _pick_group(rng, cohort.vasopressor[owner], 0.2, m) & ~vent
    count = len(r.TREATMENTS_VASOPRESSOR)
    pick = np.where(pressor, pressor_first + rng.integers(0, count, m), pick)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "treatmentoffset": offset,
        "treatmentstring": _strings(strings, pick),
        "activeupondischarge": choice_text(rng, ("True", "False"), m),
    }


def diagnosis(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset = stay_rows(cohort, rng, PER_STAY["diagnosis"])
    m = owner.size
    pairs = r.DIAGNOSES_GENERAL + r.DIAGNOSES_VENTILATED + r.DIAGNOSES_SHOCK
    vent_first = len(r.DIAGNOSES_GENERAL)
    shock_first = vent_first + len(r.DIAGNOSES_VENTILATED)
    pick = rng.integers(0, vent_first, m)
    vent = _pick_group(rng, cohort.ventilated[owner], 0.15, m)
    pick = np.where(vent, vent_first, pick)
    shock = _pick_group(rng, cohort.vasopressor[owner], 0.3, m) & ~vent
    pick = np.where(shock, shock_first + rng.integers(0, len(r.DIAGNOSES_SHOCK), m), pick)
    codes = pa.array([c or None for _, c in pairs], type=pa.string())
    first_of_stay = np.r_[True, owner[1:] != owner[:-1]] if m else np.zeros(0, dtype=bool)
    priority = np.where(first_of_stay, 0, rng.integers(1, 3, m))
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "activeupondischarge": choice_text(rng, ("True", "False"), m),
        "diagnosisoffset": offset,
        "diagnosisstring": _strings(tuple(s for s, _ in pairs), pick),
        "icd9code": codes.take(pa.array(pick)),
        "diagnosispriority": _strings(r.DIAGNOSIS_PRIORITIES, priority),
    }


def _flowsheet(
    cohort: EicuCohort,
    rng: np.random.Generator,
    cells: tuple[tuple[str, str, str, tuple[str, ...]], ...],
    root: str,
    step: int,
    share: float,
) -> tuple[np.ndarray, np.ndarray, dict[str, pa.Array]]:
    """Rounds every ``step`` minutes, each documenting a share of ``cells``."""
    everyone = np.ones(cohort.n, dtype=bool)
    o, t = round_grid(
        rng, everyone, np.maximum(cohort.chart_start, 0) + 30, cohort.los_minutes, step
    )
    documented = rng.random((o.size, len(cells))) < share
    rounds, cell = np.nonzero(documented)
    owner, offset = o[rounds], t[rounds]
    values = tuple(v for c in cells for v in c[3])
    first = np.cumsum([0] + [len(c[3]) for c in cells])
    sizes = np.diff(first)
    value = first[cell] + (rng.random(cell.size) * sizes[cell]).astype(np.int64)
    columns = {
        "cellattributepath": _strings(tuple(f"{root}|{c[0]}|{c[1]}" for c in cells), cell),
        "celllabel": _strings(tuple(c[1] for c in cells), cell),
        "cellattribute": _strings(tuple(c[2] for c in cells), cell),
        "cellattributevalue": _strings(values, value),
    }
    return owner, offset, columns


def nurseassessment(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset, cells = _flowsheet(cohort, rng, r.NURSE_ASSESSMENT, r.ASSESSMENT_PATH, 240, 0.36)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "nurseassessoffset": offset,
        "nurseassessentryoffset": offset + rng.integers(0, 45, owner.size),
        **cells,
    }


def nursecare(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset, cells = _flowsheet(cohort, rng, r.NURSE_CARE, r.CARE_PATH, 240, 0.37)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "nursecareoffset": offset,
        "nursecareentryoffset": offset + rng.integers(0, 45, owner.size),
        **cells,
    }


def note(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """An admission note, then a progress note a day, each of a few sections."""
    everyone = np.ones(cohort.n, dtype=bool)
    start = np.minimum(rng.integers(30, 300, cohort.n), cohort.los_minutes)
    o, t = round_grid(rng, everyone, start, cohort.los_minutes, 1440, off_hour=1.0)
    documented = rng.random((o.size, len(r.NOTE_SECTIONS))) < 0.8
    notes, section = np.nonzero(documented)
    owner, offset = o[notes], t[notes]
    first = np.r_[True, o[1:] != o[:-1]] if o.size else np.zeros(0, dtype=bool)
    kind = np.where(first, 1, np.where(rng.random(o.size) < 0.05, 2, 0))[notes]
    text = choice_text(rng, r.NOTE_TEXTS, owner.size)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "noteoffset": offset,
        "noteenteredoffset": offset + rng.integers(5, 120, owner.size),
        "notetype": _strings(r.NOTE_TYPES, kind),
        "notepath": _strings(tuple(p for p, _ in r.NOTE_SECTIONS), section),
        "notevalue": _strings(tuple(v for _, v in r.NOTE_SECTIONS), section),
        "notetext": text,
    }


def careplangeneral(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Care plan items saved at admission and once a day: airway and ventilation by status."""
    everyone = np.ones(cohort.n, dtype=bool)
    start = np.minimum(rng.integers(10, 240, cohort.n), cohort.los_minutes)
    o, t = round_grid(rng, everyone, start, cohort.los_minutes, 1440, off_hour=1.0)
    on_vent = (
        cohort.ventilated[o] & (t >= cohort.vent_start[o]) & (t <= cohort.vent_end[o])
    ).astype(np.int64)
    general = len(r.CAREPLAN_GENERAL)
    documented = rng.random((o.size, general)) < 0.33
    rounds, item = np.nonzero(documented)
    items = (
        *r.CAREPLAN_GENERAL,
        r.CAREPLAN_AIRWAY_NORMAL,
        r.CAREPLAN_AIRWAY_VENTILATED,
        r.CAREPLAN_VENTILATION_NONE,
        r.CAREPLAN_VENTILATION_VENTILATED,
    )
    everyone_round = np.arange(o.size)
    owner_round = np.concatenate([rounds, everyone_round, everyone_round])
    item = np.concatenate([item, general + on_vent, general + 2 + on_vent])
    order = np.lexsort((item, owner_round))
    owner_round, item = owner_round[order], item[order]
    return {
        "patientunitstayid": cohort.stay_id[o[owner_round]],
        "activeupondischarge": choice_text(rng, ("True", "False"), item.size),
        "cplitemoffset": t[owner_round],
        "cplgroup": _strings(tuple(g for g, _ in items), item),
        "cplitemvalue": _strings(tuple(v for _, v in items), item),
    }


def careplangoal(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset = stay_rows(cohort, rng, PER_STAY["careplangoal"], by_length=False)
    goal = rng.integers(0, len(r.CAREPLAN_GOALS), owner.size)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "cplgoaloffset": offset,
        "cplgoalcategory": _strings(tuple(c for c, _ in r.CAREPLAN_GOALS), goal),
        "cplgoalvalue": _strings(tuple(g for _, g in r.CAREPLAN_GOALS), goal),
        "cplgoalstatus": choice_text(rng, r.GOAL_STATUS, owner.size),
        "activeupondischarge": choice_text(rng, ("True", "False"), owner.size),
    }


def careplancareprovider(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset = _admission_rows(cohort, rng, PER_STAY["careplancareprovider"])
    m = owner.size
    first = np.r_[True, owner[1:] != owner[:-1]] if m else np.zeros(0, dtype=bool)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "careprovidersaveoffset": offset,
        "providertype": _strings(r.PROVIDER_TYPES, np.where(first, 0, rng.integers(1, 3, m))),
        "specialty": choice_text(rng, r.SPECIALTIES, m),
        "interventioncategory": choice_text(rng, r.INTERVENTION_CATEGORIES, m),
        "managingphysician": _strings(r.MANAGING, (~first).astype(np.int64)),
        "activeupondischarge": choice_text(rng, ("True", "False"), m),
    }


def admissiondrug(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset = _admission_rows(cohort, rng, PER_STAY["admissiondrug"])
    m = owner.size
    drug = pa.array(rng.integers(0, len(r.HOME_DRUGS), m))
    drugs = r.HOME_DRUGS
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "drugoffset": offset - rng.integers(0, 60, m),
        "drugenteredoffset": offset,
        "drugnotetype": choice_text(rng, r.DRUG_NOTE_TYPES, m, (0.8, 0.2)),
        "specialtytype": choice_text(rng, r.SPECIALTIES[:3], m),
        "usertype": choice_text(rng, r.USER_TYPES, m),
        "rxincluded": choice_text(rng, ("Yes", "No"), m, (0.7, 0.3)),
        "writtenineicu": choice_text(rng, ("True", "False"), m, (0.4, 0.6)),
        "drugname": pa.array([d[0] for d in drugs], type=pa.string()).take(drug),
        "drugdosage": pa.array([d[2] for d in drugs], type=pa.float64()).take(drug),
        "drugunit": pa.array([d[3] for d in drugs], type=pa.string()).take(drug),
        "drugadmitfrequency": pa.array([d[4] for d in drugs], type=pa.string()).take(drug),
        "drughiclseqno": pa.array([d[1] for d in drugs], type=pa.int32()).take(drug),
    }


def pasthistory(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    owner, offset = _admission_rows(cohort, rng, PER_STAY["pasthistory"])
    m = owner.size
    items = r.PAST_HISTORY
    paths = (
        *tuple(f"{r.PAST_HISTORY_ROOT}/{system}/{item}/{item.lower()}" for system, item in items),
        r.PAST_HISTORY_NONE,
    )
    values = (*tuple(item.lower() for _, item in items), "No Health Problems")
    pick = rng.integers(0, len(items), m)
    healthy = np.r_[True, owner[1:] != owner[:-1]] if m else np.zeros(0, dtype=bool)
    healthy &= rng.random(m) < 0.05
    pick = np.where(healthy, len(items), pick)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "pasthistoryoffset": offset,
        "pasthistoryenteredoffset": offset + rng.integers(0, 60, m),
        "pasthistorynotetype": choice_text(rng, r.DRUG_NOTE_TYPES, m, (0.85, 0.15)),
        "pasthistorypath": _strings(paths, pick),
        "pasthistoryvalue": _strings(values, pick),
        "pasthistoryvaluetext": _strings(values, pick),
    }


BUILDERS = {
    "medication": medication,
    "treatment": treatment,
    "diagnosis": diagnosis,
    "note": note,
    "nurseassessment": nurseassessment,
    "nursecare": nursecare,
    "careplangeneral": careplangeneral,
    "careplangoal": careplangoal,
    "careplancareprovider": careplancareprovider,
    "admissiondrug": admissiondrug,
    "pasthistory": pasthistory,
}
