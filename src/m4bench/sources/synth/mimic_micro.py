"""hosp.microbiologyevents rows: specimens, their organisms and susceptibility tests.

A specimen is (owner, kind, time) with a chance of growth; kinds index
``mimic_vocab.MICRO_SPECIMENS``. Routine cultures (blood culture sets of two bottles,
urine, MRSA screens, C. difficile tests, sputum, ...) are ordered at a daily rate and
mostly grow nothing. A specimen without growth is one row (organism NULL or the
'NEGATIVE' sentinel); with growth, one row per isolate, or one per isolate and tested
antibiotic when susceptibilities were run, each with its dilution and interpretation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.core import QuirkRates, group_arange, scrambled_ids, seconds_to_us
from m4bench.sources.synth.mimic_cohort import DAY, HOUR
from m4bench.sources.synth.mimic_vocab import (
    MICRO_SPECIMENS,
    ORG_NEGATIVE,
    ORGANISMS,
    SUSCEPTIBILITY_ANTIBIOTICS,
)

Columns = dict[str, Any]
BLOOD, URINE, SPUTUM, MRSA, SWAB, STOOL, TIP, BAL, TOXO, SEROLOGY = (0, 2, 3, 4, 5, 6, 7, 8, 9, 10)
# routine culture orders: (kind, share on the ward, share in the ICU, chance of growth)
CULTURE_MENU = (
    (BLOOD, 0.30, 0.30, 0.07),
    (URINE, 0.26, 0.20, 0.30),
    (MRSA, 0.14, 0.22, 0.12),
    (STOOL, 0.08, 0.06, 0.0),
    (SPUTUM, 0.05, 0.09, 0.45),
    (SWAB, 0.05, 0.03, 0.40),
    (SEROLOGY, 0.08, 0.03, 0.0),
    (TOXO, 0.02, 0.01, 0.0),
    (TIP, 0.01, 0.03, 0.20),
    (BAL, 0.01, 0.03, 0.40),
)
YEAST = next(i for i, o in enumerate(ORGANISMS) if o[1] == "YEAST")
STAPH_AUREUS = next(i for i, o in enumerate(ORGANISMS) if o[1] == "STAPH AUREUS COAG +")
DILUTIONS = np.array([0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
SENTINEL_SHARE = 0.15  # specimens without growth written with the 'NEGATIVE' organism


def routine_cultures(
    rng: np.random.Generator,
    start_h: np.ndarray,
    end_h: np.ndarray,
    base: float,
    per_day: float,
    icu: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(owner, kind, hours, chance of growth) of routine cultures over each owner's span.

    Each owner gets Poisson(``base`` + ``per_day`` x days) orders (none when its span ends
    before it starts); a blood culture order
    is two specimens at the same minute.
    """
    span = np.maximum(end_h - start_h, 1.0)
    count = np.where(end_h >= start_h, rng.poisson(base + per_day * span / 24.0), 0)
    owner = np.repeat(np.arange(len(span)), count)
    share = np.array([row[2] if icu else row[1] for row in CULTURE_MENU])
    order = rng.choice(len(CULTURE_MENU), size=len(owner), p=share / share.sum())
    hours = start_h[owner] + rng.random(len(owner)) * span[owner]
    kind = np.array([row[0] for row in CULTURE_MENU])[order]
    bottles = np.where(kind == BLOOD, 2, 1)
    pick = np.repeat(np.arange(len(owner)), bottles)
    growth = np.array([row[3] for row in CULTURE_MENU])[order]
    return owner[pick], kind[pick], hours[pick], growth[pick]


def culture_columns(
    rng: np.random.Generator,
    owner: np.ndarray,
    kind: np.ndarray,
    time: np.ndarray,
    growth: np.ndarray,
    ids: dict[str, np.ndarray],
    admit: np.ndarray,
    q: QuirkRates,
    first_id: int,
    first_specimen: int,
) -> Columns:
    """microbiologyevents columns of specimens (owner, kind, epoch second, chance of growth).

    Specimen serials continue from ``first_specimen`` (scrambled into 8-digit ids), row
    ids from ``first_id``; specimens before the owner's admission have no hadm_id.
    """
    m = len(owner)
    spec_id = scrambled_ids(first_specimen + np.arange(m), 5_040_923)
    r, results = _results(rng, kind, rng.random(m) < growth)
    date_only = (rng.random(m) < q.micro_date_only)[r]
    null_hadm = ((rng.random(m) < q.micro_null_hadm) | (time < admit[owner]))[r]
    spec = np.array(MICRO_SPECIMENS, dtype=object)[kind[r]]
    chart = time[r]
    day = chart // DAY * DAY
    hadm = ids["hadm_id"][owner[r]].astype(float)
    hadm[null_hadm] = np.nan
    chart_us = seconds_to_us(chart)
    chart_us[date_only] = np.datetime64("NaT")
    return {
        "microevent_id": first_id + np.arange(len(r)),
        "subject_id": ids["subject_id"][owner[r]],
        "hadm_id": nullable_int(hadm),
        "micro_specimen_id": spec_id[r],
        "chartdate": seconds_to_us(day),
        "charttime": chart_us,
        "spec_itemid": spec[:, 0].astype(np.int64),
        "spec_type_desc": spec[:, 1],
        "test_seq": np.ones(len(r), dtype=np.int64),
        "storedate": seconds_to_us(day + 2 * DAY),
        "storetime": seconds_to_us(chart + 2 * DAY + 3 * HOUR),
        "test_itemid": spec[:, 2].astype(np.int64),
        "test_name": spec[:, 3],
        **results,
    }


def _organisms(rng: np.random.Generator, kind: np.ndarray) -> np.ndarray:
    """The first isolate of each specimen: MRSA screens grow S. aureus, others any organism."""
    org = rng.integers(0, len(ORGANISMS), len(kind))
    return np.where(kind == MRSA, STAPH_AUREUS, org)


def _results(
    rng: np.random.Generator, kind: np.ndarray, positive: np.ndarray
) -> tuple[np.ndarray, Columns]:
    """Result rows of the specimens and the specimen index of each row."""
    m = len(kind)
    organisms = np.where(positive, np.where(rng.random(m) < 0.2, 2, 1), 1)
    first_org = _organisms(rng, kind)
    tested = np.where(positive & (kind != MRSA), rng.integers(3, len(DILUTIONS) + 1, m), 0)
    per_isolate = np.maximum(tested, 1)
    rows_per = np.where(positive, organisms * per_isolate, 1)
    r = np.repeat(np.arange(m), rows_per)
    j = group_arange(rows_per)
    pos = positive[r]
    isolate = j // per_isolate[r]
    org = np.where(isolate == 0, first_org[r], (first_org[r] + 3) % len(ORGANISMS))
    has_ab = pos & (tested[r] > 0) & (org != YEAST)
    keep = ~pos | has_ab | (j % per_isolate[r] == 0)  # a yeast isolate is one row
    r, j, pos, isolate, org, has_ab = (a[keep] for a in (r, j, pos, isolate, org, has_ab))
    n = len(r)
    sentinel = ~pos & (rng.random(m) < SENTINEL_SHARE)[r]
    org_id = np.where(sentinel, float(ORG_NEGATIVE[0]), np.nan)
    org_id[pos] = np.array([o[0] for o in ORGANISMS])[org][pos]
    org_name = _or_null(sentinel, ORG_NEGATIVE[1])
    org_name[pos] = np.array([o[1] for o in ORGANISMS], dtype=object)[org][pos]
    ab = (rng.integers(0, len(SUSCEPTIBILITY_ANTIBIOTICS), m)[r] + j) % len(
        SUSCEPTIBILITY_ANTIBIOTICS
    )
    return r, {
        "org_itemid": nullable_int(org_id),
        "org_name": org_name,
        "isolate_num": nullable_int(np.where(pos, 1 + isolate, np.nan)),
        "ab_itemid": nullable_int(
            np.where(has_ab, np.array([a[0] for a in SUSCEPTIBILITY_ANTIBIOTICS])[ab], np.nan)
        ),
        "ab_name": _or_null(has_ab, np.array([a[1] for a in SUSCEPTIBILITY_ANTIBIOTICS])[ab]),
        **_susceptibility(rng, has_ab, n),
    }


def _susceptibility(rng: np.random.Generator, tested: np.ndarray, n: int) -> Columns:
    """Dilution (MIC) and its interpretation: low MICs susceptible, high ones resistant."""
    step = np.minimum(rng.geometric(0.35, n) - 1, len(DILUTIONS) - 1)
    value = DILUTIONS[step]
    low, high = step == 0, step == len(DILUTIONS) - 1
    comparison = np.where(low, "<=", np.where(high, ">=", "=")).astype(object)
    number = np.char.mod("%g", value).astype(object)
    text = np.where(comparison == "=", number, comparison + number)
    interpretation = np.where(step >= 6, "R", np.where(step == 5, "I", "S")).astype(object)
    return {
        "dilution_text": _or_null(tested, text),
        "dilution_comparison": _or_null(tested, comparison),
        "dilution_value": np.where(tested, value, np.nan),
        "interpretation": _or_null(tested, interpretation),
    }


def _or_null(mask: np.ndarray, values: np.ndarray | str) -> np.ndarray:
    """``values`` where ``mask`` holds, NULL elsewhere (an object array)."""
    out = np.full(len(mask), None, dtype=object)
    out[mask] = values[mask] if isinstance(values, np.ndarray) else values
    return out


def nullable_int(values: np.ndarray) -> Any:
    return pa.array(values, from_pandas=True).cast(pa.int64())
