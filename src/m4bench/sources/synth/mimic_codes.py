"""hosp.diagnoses_icd, hosp.procedures_icd and the dictionaries (d_icd_*, d_items, d_labitems)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.core import group_arange, stream_rng
from m4bench.sources.synth.mimic_code_filler import (
    AIRWAY,
    MAX_CODES,
    VENTILATION,
    diagnosis_pools,
    draw_with_repeats,
    draw_without_repeats,
    procedure_pools,
)
from m4bench.sources.synth.mimic_cohort import Cohort
from m4bench.sources.synth.mimic_latent import CONDITIONS
from m4bench.sources.synth.mimic_omr import omr_chunks
from m4bench.sources.synth.mimic_vocab import d_items, d_labitems, icd_codes

Columns = dict[str, Any]
STREAM_CODES = 5
STREAM_DIAGNOSIS_FILLER = 6
CHUNK_ADMISSIONS = 25_000
ACUTE_GROUPS = ("aki", "sepsis", "resp_failure")


def icd_version(seed: int, cohort: Cohort) -> np.ndarray:
    """9 or 10 per admission, by the patient's real-year group (2014-2016 is mixed)."""
    rng = stream_rng(seed, STREAM_CODES, 1)
    group = cohort.patients.year_group[cohort.admissions.subj]
    mixed = rng.random(len(group)) < 0.5
    return np.where((group <= 1) | ((group == 2) & mixed), 9, 10)


def _code_table(version: int) -> dict[str, np.ndarray]:
    rows = [r for r in icd_codes()["diagnoses"] if r[1] == version]
    groups: dict[str, list[str]] = {}
    for group, _, code, _ in rows:
        groups.setdefault(group, []).append(code)
    return {g: np.array(codes, dtype=object) for g, codes in groups.items()}


def diagnoses_table(
    seed: int, cohort: Cohort, conditions: np.ndarray, acute: np.ndarray
) -> Iterator[Columns]:
    """Acute codes of the stays, chronic codes of the patient and common codes as filler.

    ``acute`` is ``[admissions, len(ACUTE_GROUPS)]`` booleans collected from the stays.
    About 11.7 codes per admission (about 17.6 with an ICU stay), as in MIMIC-IV; about 3 %
    of admissions have no code at all. Each admission lists its acute codes first, then
    its chronic and filler codes in random order, ``seq_num`` 1, 2, ... Yields the table
    in chunks of :data:`CHUNK_ADMISSIONS` admissions (in admission order).
    """
    adm = cohort.admissions
    version = icd_version(seed, cohort)
    cond_adm, cond_codes, cond_acute, empty = _condition_codes(seed, cohort, conditions, acute)
    totals = _code_totals(seed, cohort, empty)
    for chunk in range(-(-len(adm) // CHUNK_ADMISSIONS)):
        lo, hi = chunk * CHUNK_ADMISSIONS, min((chunk + 1) * CHUNK_ADMISSIONS, len(adm))
        rng = stream_rng(seed, STREAM_DIAGNOSIS_FILLER, chunk)
        c_lo, c_hi = np.searchsorted(cond_adm, [lo, hi])
        coded = np.bincount(cond_adm[c_lo:c_hi] - lo, minlength=hi - lo)
        filler = np.maximum(totals[lo:hi] - coded, 0)
        f_adm, f_codes = _filler_codes(rng, version[lo:hi], filler)
        rows = np.concatenate([cond_adm[c_lo:c_hi] - lo, f_adm])
        codes = np.concatenate([cond_codes[c_lo:c_hi], f_codes])
        first = np.concatenate([cond_acute[c_lo:c_hi], np.zeros(len(f_adm), bool)])
        order = np.lexsort((rng.random(len(rows)), ~first, rows))
        rows, codes = rows[order] + lo, codes[order]
        yield {
            "subject_id": cohort.patients.subject_id[adm.subj[rows]],
            "hadm_id": adm.hadm_id[rows],
            "seq_num": group_arange(np.bincount(rows - lo)[np.unique(rows - lo)]) + 1,
            "icd_code": codes,
            "icd_version": version[rows].astype(np.int16),
        }


def _condition_codes(
    seed: int, cohort: Cohort, conditions: np.ndarray, acute: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The codes of the chronic conditions and acute problems, sorted by admission.

    Returns (admission, code, is acute, admission has no code at all).
    """
    rng = stream_rng(seed, STREAM_CODES, 0)
    adm = cohort.admissions
    version = icd_version(seed, cohort)
    names = np.array([name for name, _ in CONDITIONS] + list(ACUTE_GROUPS), dtype=object)
    has = np.concatenate([conditions[adm.subj], acute], axis=1)
    has &= rng.random(has.shape) < 0.9  # a chronic condition is not coded at every admission
    empty = rng.random(len(adm)) < 0.03
    has[empty] = False
    _cover_every_group(has, version)
    a_idx, g_idx = np.nonzero(has)  # sorted by admission
    codes = np.empty(len(a_idx), dtype=object)
    for v in (9, 10):
        for group, options in _code_table(v).items():
            sel = (version[a_idx] == v) & (names[g_idx] == group)
            codes[sel] = options[rng.integers(0, len(options), int(sel.sum()))]
    is_acute = g_idx >= len(CONDITIONS)
    return a_idx.astype(np.int64), codes, is_acute, empty & ~has.any(axis=1)


def _code_totals(seed: int, cohort: Cohort, empty: np.ndarray) -> np.ndarray:
    """How many codes each admission lists in all (gamma-Poisson, ICU admissions more)."""
    rng = stream_rng(seed, STREAM_CODES, 5)
    adm = cohort.admissions
    mean = np.where(adm.is_icu, 18.9, 10.95)
    rate = rng.gamma(3.0, (mean - 1.0) / 3.0)
    totals = np.minimum(1 + rng.poisson(rate), MAX_CODES)
    totals[empty] = 0
    return totals


def _filler_codes(
    rng: np.random.Generator, version: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct filler codes of each admission of a chunk, in the admission's ICD version."""
    rows, codes = [], []
    for v, pool in diagnosis_pools().items():
        sel = np.flatnonzero(version == v)
        r, c = draw_without_repeats(rng, pool, counts[sel])
        rows.append(sel[r])
        codes.append(c)
    return np.concatenate(rows), np.concatenate(codes)


def _cover_every_group(has: np.ndarray, version: np.ndarray) -> None:
    """Code every group in at least one ICD-9 and one ICD-10 admission, even in tiny cohorts."""
    for v in (9, 10):
        rows = np.flatnonzero(version == v)
        if len(rows) == 0:
            continue
        for group in range(has.shape[1]):
            has[rows[(group * 37 + v) % len(rows)], group] = True


def procedures_table(seed: int, cohort: Cohort, ventilated: np.ndarray) -> Columns:
    """About 1.6 procedures per admission: about 4.3 with an ICU stay, 1.0 without.

    An admission whose stays were invasively ventilated (``ventilated``, per admission)
    lists the airway and a ventilation duration first; the others are drawn by weight,
    with repeats, ICU admissions from every other procedure and the rest not from the
    ICU-only ones (arterial line, bronchoscopy, ...).
    """
    rng = stream_rng(seed, STREAM_CODES, 2)
    adm = cohort.admissions
    version = icd_version(seed, cohort)
    vent = ventilated & adm.is_icu
    mean = np.where(adm.is_icu, np.where(vent, 2.8, 4.0), 1.0)
    shape = np.where(adm.is_icu, 2.0, 0.6)
    count = rng.poisson(rng.gamma(shape, mean / shape))
    count[adm.is_icu & ~vent] = np.maximum(count[adm.is_icu & ~vent], 1)
    a = np.repeat(np.arange(len(adm)), count)
    codes = np.empty(len(a), dtype=object)
    for icu in (False, True):
        for v, pool in procedure_pools(icu).items():
            sel = np.flatnonzero((adm.is_icu[a] == icu) & (version[a] == v))
            codes[sel] = draw_with_repeats(rng, pool, len(sel))
    v_adm, v_codes = _ventilation_codes(rng, np.flatnonzero(vent), version)
    a = np.concatenate([v_adm, a])
    codes = np.concatenate([v_codes, codes])
    order = np.argsort(a, kind="stable")
    a, codes = a[order], codes[order]
    span = np.maximum(adm.dischtime[a] - adm.admittime[a], 0)
    day = (adm.admittime[a] + (rng.random(len(a)) * span).astype(np.int64)) // 86_400
    return {
        "subject_id": cohort.patients.subject_id[adm.subj[a]],
        "hadm_id": adm.hadm_id[a],
        "seq_num": group_arange(np.bincount(a, minlength=len(adm))) + 1,
        "chartdate": day.astype("datetime64[D]"),
        "icd_code": codes,
        "icd_version": version[a].astype(np.int16),
    }


def _ventilation_codes(
    rng: np.random.Generator, rows: np.ndarray, version: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The airway and one ventilation duration code for each ventilated admission."""
    airway = np.array([AIRWAY[v] for v in (9, 10)], dtype=object)[(version[rows] == 10) * 1]
    duration = np.empty(len(rows), dtype=object)
    for v, options in VENTILATION.items():
        sel = version[rows] == v
        duration[sel] = np.array(options, dtype=object)[rng.integers(0, len(options), sel.sum())]
    codes = np.column_stack([airway, duration]).ravel()
    return np.repeat(rows, 2), codes


def d_icd_diagnoses_table() -> Columns:
    rows = sorted({(r[2], r[1], r[3]) for r in icd_codes()["diagnoses"]})
    return {
        "icd_code": [r[0] for r in rows],
        "icd_version": [r[1] for r in rows],
        "long_title": [r[2] for r in rows],
    }


def d_icd_procedures_table() -> Columns:
    rows = sorted({(r[1], r[0], r[2]) for r in icd_codes()["procedures"]})
    return {
        "icd_code": [r[0] for r in rows],
        "icd_version": [r[1] for r in rows],
        "long_title": [r[2] for r in rows],
    }


def d_items_table() -> Columns:
    data = d_items()
    rows = sorted(data["rows"])
    columns: Columns = {name: [row[i] for row in rows] for i, name in enumerate(data["columns"])}
    return columns


def d_labitems_table() -> Columns:
    rows = sorted(d_labitems()["rows"])
    return {
        "itemid": [r[0] for r in rows],
        "label": [r[1] for r in rows],
        "fluid": [r[2] for r in rows],
        "category": [r[3] for r in rows],
    }


def small_tables(cohort: Cohort) -> dict[str, Columns]:
    """Tables no concept reads, kept small but valid."""
    providers = [f"P{i:05X}" for i in range(200)]
    return {
        "mimiciv_hosp.provider": {"provider_id": providers},
        "mimiciv_icu.caregiver": {"caregiver_id": list(range(10_000, 10_500))},
        "mimiciv_hosp.d_hcpcs": {
            "code": ["99291", "99292", "36556", "31500"],
            "category": [1, 1, 1, 1],
            "long_description": [
                "Critical care, first hour",
                "Critical care, each additional 30 minutes",
                "Insertion of non-tunneled centrally inserted central venous catheter",
                "Intubation, endotracheal, emergency procedure",
            ],
            "short_description": [
                "Critical care first hour",
                "Critical care addl 30 min",
                "Insert non-tunnel cv cath",
                "Insert emergency airway",
            ],
        },
    }


def omr_table(seed: int, cohort: Cohort, conditions: np.ndarray) -> Iterator[Columns]:
    """Outpatient measurements (see :mod:`m4bench.sources.synth.mimic_omr`)."""
    return omr_chunks(seed, cohort, conditions)


DRGS = (
    ("871", "SEPTICEMIA OR SEVERE SEPSIS WITHOUT MV >96 HOURS WITH MCC"),
    ("291", "HEART FAILURE AND SHOCK WITH MCC"),
    ("207", "RESPIRATORY SYSTEM DIAGNOSIS WITH VENTILATOR SUPPORT >96 HOURS"),
    ("682", "RENAL FAILURE WITH MCC"),
    ("064", "INTRACRANIAL HEMORRHAGE OR CEREBRAL INFARCTION WITH MCC"),
    ("247", "PERCUTANEOUS CARDIOVASCULAR PROCEDURES WITH DRUG-ELUTING STENT WITHOUT MCC"),
    ("392", "ESOPHAGITIS, GASTROENTERITIS AND MISCELLANEOUS DIGESTIVE DISORDERS WITHOUT MCC"),
)


def drgcodes_table(seed: int, cohort: Cohort) -> Columns:
    """One HCFA DRG per admission, plus an APR DRG with severity and mortality for some."""
    rng = stream_rng(seed, STREAM_CODES, 4)
    adm = cohort.admissions
    n = len(adm)
    apr = rng.random(n) < 0.4
    rows = np.concatenate([np.arange(n), np.flatnonzero(apr)])
    kind = np.concatenate(
        [np.full(n, "HCFA", dtype=object), np.full(int(apr.sum()), "APR", dtype=object)]
    )
    pick = rng.integers(0, len(DRGS), len(rows))
    severity = np.where(kind == "APR", rng.integers(1, 5, len(rows)), np.nan)
    mortality = np.where(kind == "APR", rng.integers(1, 5, len(rows)), np.nan)
    order = np.lexsort((kind, rows))
    return {
        "subject_id": cohort.patients.subject_id[adm.subj[rows[order]]],
        "hadm_id": adm.hadm_id[rows[order]],
        "drg_type": kind[order],
        "drg_code": np.array([d[0] for d in DRGS], dtype=object)[pick[order]],
        "description": np.array([d[1] for d in DRGS], dtype=object)[pick[order]],
        "drg_severity": pa.array(severity[order], from_pandas=True).cast(pa.int16()),
        "drg_mortality": pa.array(mortality[order], from_pandas=True).cast(pa.int16()),
    }


def hcpcsevents_table(cohort: Cohort) -> Columns:
    """Critical-care billing codes (first hour, each further 30 minutes) for ICU admissions."""
    adm = cohort.admissions
    s = cohort.stays
    first = np.unique(s.adm, return_index=True)[1]
    rows = np.repeat(s.adm[first], 2)
    intime = np.repeat(s.intime[first], 2)
    code = np.tile(np.array(["99291", "99292"], dtype=object), len(first))
    short = np.tile(
        np.array(["Critical care first hour", "Critical care addl 30 min"], dtype=object),
        len(first),
    )
    return {
        "subject_id": cohort.patients.subject_id[adm.subj[rows]],
        "hadm_id": adm.hadm_id[rows],
        "chartdate": (intime // 86_400).astype("datetime64[D]"),
        "hcpcs_cd": code,
        "seq_num": np.tile(np.array([1, 2]), len(first)),
        "short_description": short,
    }
