"""Rows that bring ``vitalaperiodic``, ``respiratorycharting``, ``physicalexam`` and
``infusiondrug`` to their real rows per unit stay.

Each builder draws from a stream of its own and its rows are merged into the table's
own rows (see ``eicu.VOLUME``), so the rows the eICU tasks read do not change:

- vitalaperiodic: cuff pressures every half hour (every quarter hour in the first hours
  and for unstable stays) and hourly cardiac output, index and resistances for stays
  with a pulmonary artery catheter.
- respiratorycharting: the rest of the ventilator flowsheet every two hours while
  ventilated; oxygen device, flow and FiO2 every four hours for stays on oxygen.
- physicalexam: the vital-sign, intake/output and system findings of each daily exam;
  no path lies under ``.../Neurologic/GCS/`` (the GCS the OASIS task reads).
- infusiondrug: sedation and analgesia drips while ventilated, maintenance fluids,
  insulin, heparin and antiarrhythmic or antihypertensive drips; never a vasoactive drug
  of the eICU pivots.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_rounds import LabelledRows, choice_text, measured, round_grid
from m4bench.sources.synth.eicu_series import number_text


def vitalaperiodic_volume(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    n = cohort.n
    s = cohort.severity
    end = cohort.los_minutes
    everyone = np.ones(n, dtype=bool)
    half = round_grid(rng, everyone, np.full(n, 30), end, 60, off_hour=0.5)
    first = np.minimum(end, np.where(s > 0.5, 720, 360))
    quarter = round_grid(rng, everyone, np.full(n, 15), first, 30, off_hour=0.3)
    owner = np.concatenate([half[0], quarter[0]])
    offset = np.concatenate([half[1], quarter[1]])
    m = owner.size
    mean = 88 - 25 * s[owner] + rng.normal(0, 8, m)
    systolic = mean + 32 + rng.normal(0, 6, m)
    catheter = cohort.vasopressor & (s > 0.45) & (rng.random(n) < 0.25)
    c_owner, c_offset = round_grid(rng, catheter, np.full(n, 45), end, 60)
    c = c_owner.size
    output = np.clip(5.5 - 2.0 * s[c_owner] + rng.normal(0, 0.8, c), 1.5, 12)
    index = output / rng.uniform(1.7, 2.2, c)
    svr = np.clip((85 - 25 * s[c_owner] - 8) * 80 / output + rng.normal(0, 60, c), 300, 2500)
    pvr = np.clip(rng.normal(180, 50, c), 40, 600)
    paop = np.where(rng.random(c) < 0.2, np.round(rng.uniform(8, 22, c)), np.nan)
    nothing = np.full(m, np.nan)
    return {
        "patientunitstayid": cohort.stay_id[np.concatenate([owner, c_owner])],
        "observationoffset": np.concatenate([offset, c_offset]),
        "noninvasivesystolic": np.r_[np.round(systolic), np.full(c, np.nan)],
        "noninvasivediastolic": np.r_[np.round((3 * mean - systolic) / 2), np.full(c, np.nan)],
        "noninvasivemean": np.r_[np.round(mean), np.full(c, np.nan)],
        "paop": np.r_[nothing, paop],
        "cardiacoutput": np.r_[nothing, np.round(output, 2)],
        "cardiacinput": np.r_[nothing, np.round(index, 2)],
        "svr": np.r_[nothing, np.round(svr)],
        "svri": np.r_[nothing, np.round(svr * output / index)],
        "pvr": np.r_[nothing, np.round(pvr)],
        "pvri": np.r_[nothing, np.round(pvr * output / index)],
    }


SETTINGS = "respFlowSettings"
PATIENT_DATA = "respFlowPtVentData"
CARE_DATA = "respFlowCareData"
# (category, label, low, high, decimals): measured at severity 0 .. 1.
VENT_ROUND = (
    (SETTINGS, "Vent Rate", 10.0, 24.0, 0),
    (SETTINGS, "TV/kg IBW", 5.5, 8.0, 1),
    (SETTINGS, "Pressure Support", 5.0, 15.0, 0),
    (PATIENT_DATA, "Plateau Pressure", 14.0, 30.0, 0),
    (PATIENT_DATA, "Exhaled MV", 6.0, 14.0, 1),
    (PATIENT_DATA, "Exhaled TV (patient)", 380.0, 560.0, 0),
    (PATIENT_DATA, "Total RR", 12.0, 30.0, 0),
    (PATIENT_DATA, "SaO2", 99.0, 88.0, 0),
)
OXYGEN_DEVICES = ("Nasal cannula", "High flow nasal cannula", "Face mask", "Bi-PAP", "Venti mask")
OXYGEN_DEVICE_WEIGHTS = (0.6, 0.12, 0.12, 0.1, 0.06)


def respiratorycharting_volume(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    n = cohort.n
    s = cohort.severity
    rows = LabelledRows()
    low_end = np.maximum(np.minimum(cohort.chart_start, 0), cohort.vent_start)
    vent_end = np.minimum(cohort.vent_end, cohort.los_minutes)
    o, t = round_grid(rng, cohort.ventilated, low_end + 60, vent_end, 120)
    for cat, label, low, high, decimals in VENT_ROUND:
        centre = low + (high - low) * s[o]
        bottom, top = min(low, high) * 0.7, max(low, high) * 1.3
        value = measured(rng, centre, abs(high - low) / 6, bottom, top, decimals)
        rows.add((cat, label), o, t, value)
    rows.add(
        (CARE_DATA, "Head of Bed Elevation"), o, t, choice_text(rng, ("Yes", "Yes", "No"), o.size)
    )
    on_oxygen = rng.random(n) < 0.75
    o, t = round_grid(
        rng, on_oxygen, np.maximum(cohort.chart_start, 0) + 20, cohort.los_minutes, 240
    )
    free = ~(cohort.ventilated[o] & (t >= cohort.vent_start[o]) & (t <= cohort.vent_end[o]))
    o, t = o[free], t[free]
    device = choice_text(rng, OXYGEN_DEVICES, o.size, OXYGEN_DEVICE_WEIGHTS)
    rows.add((CARE_DATA, "O2 Device"), o, t, device)
    rows.add((SETTINGS, "LPM O2"), o, t, measured(rng, 2 + 4 * s[o], 1.0, 1, 15))
    rows.add((SETTINGS, "FiO2"), o, t, measured(rng, 28 + 25 * s[o], 4.0, 24, 100))
    owner, offset, (cat, label), value = rows.assemble()
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "respchartoffset": offset,
        "respchartentryoffset": offset + rng.integers(0, 30, owner.size),
        "respcharttypecat": cat,
        "respchartvaluelabel": label,
        "respchartvalue": value,
    }


_VITALS = f"{v.PE_ROOT}/Constitutional/Vital Sign and Physiological Data"
# (path, low, high) of numeric findings: value at severity 0 .. 1.
EXAM_NUMBERS = (
    (f"{_VITALS}/HR Lowest: /HR Lowest", 70.0, 95.0),
    (f"{_VITALS}/HR Highest: /HR Highest", 85.0, 130.0),
    (f"{_VITALS}/BP (systolic) Lowest", 110.0, 80.0),
    (f"{_VITALS}/BP (systolic) Highest", 140.0, 150.0),
    (f"{_VITALS}/BP (diastolic) Current", 72.0, 50.0),
    (f"{_VITALS}/O2 Sat% Current", 98.0, 91.0),
    (f"{_VITALS}/FiO2%", 21.0, 60.0),
    (f"{v.PE_ROOT}/Constitutional/Weight and I&O/Weight (kg)/Admission", 80.0, 85.0),
    (f"{v.PE_ROOT}/Constitutional/Weight and I&O/Intake Total", 1800.0, 3500.0),
    (f"{v.PE_ROOT}/Constitutional/Weight and I&O/Output Total", 1900.0, 900.0),
)
EXAM_FINDINGS = (
    f"{v.PE_ROOT}/Constitutional/General Appearance/ill-appearing",
    f"{v.PE_ROOT}/HEENT/Eyes/PERRL",
    f"{v.PE_ROOT}/HEENT/Neck/supple",
    f"{v.PE_ROOT}/Pulmonary/Respiratory Effort/Tachypnea",
    f"{v.PE_ROOT}/Pulmonary/Auscultation/rales",
    f"{v.PE_ROOT}/Cardiovascular/Peripheral Pulses/2+ and symmetric",
    f"{v.PE_ROOT}/GI/Bowel Sounds/normal",
    f"{v.PE_ROOT}/Neurologic/Sedated",
)


def physicalexam_volume(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    n = cohort.n
    first = np.minimum(rng.integers(60, 900, n), cohort.los_minutes // 2)
    owner, offset = round_grid(rng, np.ones(n, dtype=bool), first, cohort.los_minutes, 1440, 1.0)
    s = cohort.severity[owner]
    rows = LabelledRows()
    for path, low, high in EXAM_NUMBERS:
        kept = rng.random(owner.size) < 0.65
        o, t = owner[kept], offset[kept]
        centre = low + (high - low) * s[kept]
        value = measured(rng, centre, abs(high - low) / 5 + 2, 0, 9000)
        rows.add((path,), o, t, value)
    for path in EXAM_FINDINGS:
        kept = rng.random(owner.size) < 0.35
        tail = path.rsplit("/", 1)[1]
        rows.add((path,), owner[kept], offset[kept], pa.array(np.full(int(kept.sum()), tail)))
    o, t, (path_column,), value = rows.assemble()
    return {
        "patientunitstayid": cohort.stay_id[o],
        "physicalexamoffset": t,
        "physicalexampath": path_column,
        "physicalexamvalue": value,
        "physicalexamtext": value,
    }


# (drugname, rate low, high, mL per rate unit per hour, amount, volume)
FLUID_DRIPS = (
    ("Lactated Ringers (ml/hr)", 75.0, 150.0, 1.0, None, "1000"),
    ("Dextrose 5% in Water (ml/hr)", 40.0, 100.0, 1.0, None, "1000"),
    ("Sodium Chloride 0.45% (ml/hr)", 50.0, 125.0, 1.0, None, "1000"),
)
SEDATION_DRIPS = (
    ("Fentanyl (mcg/hr)", 25.0, 200.0, 0.1, "2500", "250"),
    ("Midazolam (mg/hr)", 1.0, 8.0, 1.0, "100", "100"),
    ("Dexmedetomidine (mcg/kg/hr)", 0.2, 1.2, 20.0, "400", "100"),
    ("Propofol (mcg/kg/min)", 5.0, 50.0, 0.5, "1000", "100"),
)
OTHER_DRIPS = (
    ("Insulin (units/hr)", 1.0, 12.0, 1.0, "100", "100"),
    ("Heparin (units/hr)", 500.0, 1800.0, 0.01, "25000", "250"),
    ("Amiodarone (mg/min)", 0.5, 1.0, 33.3, "450", "250"),
    ("Diltiazem (mg/hr)", 5.0, 15.0, 1.0, "125", "125"),
    ("Nicardipine (mg/hr)", 2.5, 15.0, 10.0, "25", "250"),
    ("Nitroglycerin (mcg/min)", 5.0, 100.0, 0.3, "50", "250"),
    ("Esmolol (mcg/kg/min)", 50.0, 200.0, 0.6, "2500", "250"),
    ("Pantoprazole (mg/hr)", 8.0, 8.0, 10.0, "80", "100"),
)
INFUSION_VOLUME_DRUGS = FLUID_DRIPS + SEDATION_DRIPS + OTHER_DRIPS


def infusiondrug_volume(cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    n = cohort.n
    los = cohort.los_minutes
    floor = np.maximum(cohort.chart_start, 0)
    fluid_first = 0
    sed_first = len(FLUID_DRIPS)
    other_first = sed_first + len(SEDATION_DRIPS)
    # Episodes: (stay, drug, start, end, step); at most one of each group per stay.
    fluid = rng.random(n) < 0.65
    f_start = floor + rng.integers(0, 120, n)
    f_end = np.minimum(los, f_start + rng.lognormal(np.log(1800.0), 0.5, n).astype(np.int64))
    sedated = cohort.ventilated & (rng.random(n) < 0.55)
    s_start = np.maximum(cohort.vent_start, floor) + 15
    s_end = np.minimum(cohort.vent_end, los)
    other = rng.random(n) < 0.6
    o_start = floor + rng.integers(0, 1440, n)
    o_end = np.minimum(los, o_start + rng.lognormal(np.log(1500.0), 0.6, n).astype(np.int64))
    groups = (
        (fluid, fluid_first, len(FLUID_DRIPS), f_start, f_end, 240),
        (sedated, sed_first, len(SEDATION_DRIPS), s_start, s_end, 60),
        (other, other_first, len(OTHER_DRIPS), o_start, o_end, 120),
    )
    owners, offsets, drugs = [], [], []
    for chosen, first, count, start, end, step in groups:
        drug = first + rng.integers(0, count, n)
        o, t = round_grid(rng, chosen, start, end, step, off_hour=0.5)
        owners.append(o)
        offsets.append(t)
        drugs.append(drug[o])
    owner, offset, drug = (np.concatenate(a) for a in (owners, offsets, drugs))
    order = np.lexsort((drug, offset, owner))
    owner, offset, drug = owner[order], offset[order], drug[order]
    return _infusion_columns(cohort, rng, owner, offset, drug)


def _infusion_columns(
    cohort: EicuCohort,
    rng: np.random.Generator,
    owner: np.ndarray,
    offset: np.ndarray,
    drug: np.ndarray,
) -> dict[str, Any]:
    specs = INFUSION_VOLUME_DRUGS
    low = np.array([d[1] for d in specs])[drug]
    high = np.array([d[2] for d in specs])[drug]
    per_ml = np.array([d[3] for d in specs])[drug]
    level = np.clip(cohort.severity[owner] + rng.normal(0, 0.2, owner.size), 0, 1)
    rate = low + (high - low) * level
    weight = number_text(cohort.weight_kg[owner], 1)
    weighed = pa.array(rng.random(owner.size) < 0.6)
    take = pa.array(drug)
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "infusionoffset": offset,
        "drugname": pa.array([d[0] for d in specs], type=pa.string()).take(take),
        "drugrate": number_text(rate, 2),
        "infusionrate": number_text(rate * per_ml, 1),
        "drugamount": pa.array([d[4] for d in specs], type=pa.string()).take(take),
        "volumeoffluid": pa.array([d[5] for d in specs], type=pa.string()).take(take),
        "patientweight": pc.if_else(weighed, weight, pa.nulls(owner.size, pa.string())),
    }
