"""hosp.diagnoses_icd, hosp.procedures_icd and the dictionaries (d_icd_*, d_items, d_labitems)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.core import group_arange, stream_rng
from m4bench.sources.synth.mimic_cohort import Cohort
from m4bench.sources.synth.mimic_latent import CONDITIONS
from m4bench.sources.synth.mimic_vocab import d_items, d_labitems, icd_codes

Columns = dict[str, Any]
STREAM_CODES = 5
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
) -> Columns:
    """Chronic codes of the patient, acute codes of the stays, and common codes as filler.

    ``acute`` is ``[admissions, len(ACUTE_GROUPS)]`` booleans collected from the stays.
    About 3 % of admissions have no codes at all.
    """
    rng = stream_rng(seed, STREAM_CODES, 0)
    adm = cohort.admissions
    version = icd_version(seed, cohort)
    names = [name for name, _ in CONDITIONS] + list(ACUTE_GROUPS)
    has = np.concatenate([conditions[adm.subj], acute], axis=1)
    has &= rng.random(has.shape) < 0.9  # a chronic condition is not coded at every admission
    has[rng.random(len(adm)) < 0.03] = False
    _cover_every_group(has, version)
    a_idx, g_idx = np.nonzero(has)
    filler = np.where(
        has.any(axis=1) | adm.is_icu, rng.integers(3, 10, len(adm)), rng.integers(0, 5, len(adm))
    )
    filler[~has.any(axis=1) & (rng.random(len(adm)) < 0.03)] = 0
    f_idx = np.repeat(np.arange(len(adm)), filler)
    adm_all = np.concatenate([a_idx, f_idx])
    group_all = np.concatenate(
        [np.array(names, dtype=object)[g_idx], np.full(len(f_idx), "common", dtype=object)]
    )
    codes = np.empty(len(adm_all), dtype=object)
    for v in (9, 10):
        table = _code_table(v)
        for group, options in table.items():
            sel = (version[adm_all] == v) & (group_all == group)
            codes[sel] = options[rng.integers(0, len(options), int(sel.sum()))]
    order = np.lexsort((rng.random(len(adm_all)), adm_all))
    adm_all, codes = adm_all[order], codes[order]
    keep = np.r_[True, (adm_all[1:] != adm_all[:-1]) | (codes[1:] != codes[:-1])]
    adm_all, codes = adm_all[keep], codes[keep]
    seq = group_arange(np.bincount(adm_all, minlength=len(adm))[np.unique(adm_all)]) + 1
    return {
        "subject_id": cohort.patients.subject_id[adm.subj[adm_all]],
        "hadm_id": adm.hadm_id[adm_all],
        "seq_num": seq,
        "icd_code": codes,
        "icd_version": version[adm_all].astype(np.int16),
    }


def _cover_every_group(has: np.ndarray, version: np.ndarray) -> None:
    """Code every group in at least one ICD-9 and one ICD-10 admission, even in tiny cohorts."""
    for v in (9, 10):
        rows = np.flatnonzero(version == v)
        if len(rows) == 0:
            continue
        for group in range(has.shape[1]):
            has[rows[(group * 37 + v) % len(rows)], group] = True


def procedures_table(seed: int, cohort: Cohort) -> Columns:
    rng = stream_rng(seed, STREAM_CODES, 2)
    adm = cohort.admissions
    version = icd_version(seed, cohort)
    count = np.where(
        adm.is_icu, rng.integers(0, 4, len(adm)), (rng.random(len(adm)) < 0.3).astype(int)
    )
    a = np.repeat(np.arange(len(adm)), count)
    table = {
        v: np.array([r[1] for r in icd_codes()["procedures"] if r[0] == v], dtype=object)
        for v in (9, 10)
    }
    codes = np.where(
        version[a] == 9,
        table[9][rng.integers(0, len(table[9]), len(a))],
        table[10][rng.integers(0, len(table[10]), len(a))],
    )
    day = (
        adm.admittime[a]
        + (rng.random(len(a)) * np.maximum(adm.dischtime[a] - adm.admittime[a], 0)).astype(np.int64)
    ) // 86_400
    return {
        "subject_id": cohort.patients.subject_id[adm.subj[a]],
        "hadm_id": adm.hadm_id[a],
        "seq_num": group_arange(count) + 1,
        "chartdate": day.astype("datetime64[D]"),
        "icd_code": codes,
        "icd_version": version[a].astype(np.int16),
    }


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


def omr_table(seed: int, cohort: Cohort) -> Columns:
    rng = stream_rng(seed, STREAM_CODES, 3)
    adm = cohort.admissions
    pick = rng.random(len(adm)) < 0.3
    a = np.flatnonzero(pick)
    day = (adm.admittime[a] - 30 * 86_400) // 86_400
    return {
        "subject_id": cohort.patients.subject_id[adm.subj[a]],
        "chartdate": day.astype("datetime64[D]"),
        "seq_num": np.ones(len(a), dtype=np.int64),
        "result_name": np.full(len(a), "Weight (Lbs)", dtype=object),
        "result_value": np.round(rng.normal(180, 40, len(a)))
        .astype(int)
        .astype(str)
        .astype(object),
    }


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
