"""Common diagnosis and procedure codes that fill the ICD tables to their real volume.

The filler diagnoses are the ``common`` group of ``data/mimic_icd.json``: secondary
diagnoses billed on many admissions (hypertension, hyperlipidaemia, reflux, tobacco use
history, depression, anaemia, hypothyroidism, long-term drug therapy, ...). None of them
falls in a Charlson category, the SAPS-II comorbidities or the CKD sets, so they add
volume without changing any concept (tested against the concept SQL itself). An
admission draws its filler codes without repetition, the frequent ones more often.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from m4bench.sources.synth.mimic_vocab import icd_codes

FILLER_GROUP = "common"
MAX_CODES = 39  # the largest seq_num of MIMIC-IV diagnoses_icd

# relative frequency of the filler diagnoses (codes not named here weigh 1)
DIAGNOSIS_WEIGHTS = {
    "4019": 10.0, "I10": 10.0, "2724": 8.0, "E785": 8.0, "53081": 5.0, "K219": 5.0,
    "V1582": 5.0, "Z87891": 5.0, "42731": 4.0, "I4891": 4.0, "311": 4.0, "F329": 4.0,
    "41401": 4.0, "30000": 3.0, "F419": 3.0, "V5861": 3.0, "Z7901": 3.0, "2449": 3.0,
    "E039": 3.0, "V5867": 3.0, "Z794": 3.0, "2859": 3.0, "D649": 3.0, "5990": 2.5,
    "N390": 2.5, "32723": 2.5, "G4733": 2.5, "V5866": 2.5, "Z7902": 2.5, "3051": 2.0,
    "F17210": 2.0, "2762": 2.0, "E872": 2.0, "2761": 2.0, "E871": 2.0, "27800": 2.0,
    "E669": 2.0, "2720": 2.0, "E7800": 2.0, "2875": 2.0, "D696": 2.0,
}  # fmt: skip

# relative frequency of the procedures (others weigh 1)
PROCEDURE_WEIGHTS = {
    "3893": 6.0, "02HV33Z": 6.0, "9604": 3.0, "0BH17EZ": 3.0, "9671": 3.0, "5A1935Z": 3.0,
    "3891": 2.0, "30233N1": 3.0, "4516": 1.5, "0DJ08ZZ": 1.5, "9915": 1.5, "3E0G76Z": 1.5,
}  # fmt: skip

# procedures done only with an ICU stay (arterial and femoral lines, bronchoscopy, ...)
ICU_PROCEDURES = frozenset(
    {"3891", "3961", "3323", "3324", "5A1221Z", "06HM33Z"}
)  # fmt: skip
# the airway and the ventilation of each ICD version: coded for ventilated admissions only
AIRWAY = {9: "9604", 10: "0BH17EZ"}
VENTILATION = {9: ("9671", "9672"), 10: ("5A1935Z", "5A1945Z", "5A1955Z")}
VENTILATION_CODES = frozenset(AIRWAY.values()) | {c for v in VENTILATION.values() for c in v}


@dataclass(frozen=True)
class CodePool:
    """The codes one ICD version can draw, with their weights (a probability vector)."""

    codes: np.ndarray  # object array of code strings
    weights: np.ndarray

    def __len__(self) -> int:
        return len(self.codes)


@lru_cache(maxsize=1)
def diagnosis_pools() -> dict[int, CodePool]:
    """The filler diagnoses of each ICD version."""
    pools: dict[int, CodePool] = {}
    for version in (9, 10):
        codes = [r[2] for r in icd_codes()["diagnoses"] if r[0] == FILLER_GROUP and r[1] == version]
        pools[version] = _pool(codes, DIAGNOSIS_WEIGHTS)
    return pools


@lru_cache(maxsize=2)
def procedure_pools(icu: bool) -> dict[int, CodePool]:
    """The procedures of each ICD version drawn at random (never the ventilation ones), for
    admissions with (or without) an ICU stay."""
    pools: dict[int, CodePool] = {}
    for version in (9, 10):
        codes = [
            r[1]
            for r in icd_codes()["procedures"]
            if r[0] == version
            and r[1] not in VENTILATION_CODES
            and (icu or r[1] not in ICU_PROCEDURES)
        ]
        pools[version] = _pool(codes, PROCEDURE_WEIGHTS)
    return pools


def _pool(codes: list[str], weights: dict[str, float]) -> CodePool:
    w = np.array([weights.get(code, 1.0) for code in codes])
    return CodePool(codes=np.array(codes, dtype=object), weights=w / w.sum())


def draw_without_repeats(
    rng: np.random.Generator, pool: CodePool, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``counts[i]`` distinct codes for each row i, frequent codes more likely and first.

    Weighted sampling without replacement by Gumbel keys: each row ranks every code by
    ``log(weight) + Gumbel noise`` and keeps its top ``counts[i]``. Returns (row, code)
    with the rows in order and each row's codes in drawn order.
    """
    counts = np.minimum(counts, len(pool))
    if len(counts) == 0 or len(pool) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    keys = np.log(pool.weights)[None, :] + rng.gumbel(size=(len(counts), len(pool)))
    ranked = np.argsort(-keys, axis=1, kind="stable")
    keep = np.arange(len(pool))[None, :] < counts[:, None]
    rows = np.broadcast_to(np.arange(len(counts))[:, None], keep.shape)[keep]
    return rows.astype(np.int64), pool.codes[ranked[keep]]


def draw_with_repeats(rng: np.random.Generator, pool: CodePool, n: int) -> np.ndarray:
    """``n`` codes drawn independently by weight (procedures repeat, e.g. two central lines)."""
    codes: np.ndarray = pool.codes[rng.choice(len(pool), size=n, p=pool.weights)]
    return codes


def filler_diagnosis_codes() -> dict[int, set[str]]:
    """Every filler diagnosis code by ICD version (for checks and documentation)."""
    return {v: set(pool.codes) for v, pool in diagnosis_pools().items()}
