"""hosp.microbiologyevents and hosp.prescriptions: cultures and antibiotics around infections.

An infected stay gets cultures and antibiotics around its infection time, in either
order (culture first, antibiotics within 72 h; or antibiotics first, culture within
24 h), plus some pairs that fall outside those windows. Other stays get screening
cultures, prophylaxis, decoy drugs (ophthalmic, topical, antifungal) and routine drugs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.core import QuirkRates, group_arange, scrambled_ids, seconds_to_us
from m4bench.sources.synth.mimic_cohort import DAY, HOUR
from m4bench.sources.synth.mimic_latent import StayState
from m4bench.sources.synth.mimic_prescribing import (
    Part,
    minutes,
    prescription_columns,
    routine_lines,
)
from m4bench.sources.synth.mimic_vocab import (
    ANTIBIOTICS_EXCLUDED,
    ANTIBIOTICS_IV,
    ANTIBIOTICS_PO,
    ANTIMICROBIAL_NEAR_MISSES,
    INTERPRETATIONS,
    MICRO_SPECIMENS,
    ORG_NEGATIVE,
    ORGANISMS,
    OTHER_DRUGS,
    SUSCEPTIBILITY_ANTIBIOTICS,
)

Columns = dict[str, Any]
ICU_ROUTINE_RATE = (6.0, 14.0)  # routine lines per ICU stay: base + per ICU day
WARD_ROUTINE_RATE = (7.0, 4.0)  # routine lines per admission: base + per hospital day


def infection_plan(rng: np.random.Generator, s: StayState) -> tuple[np.ndarray, np.ndarray]:
    """(culture hour, first antibiotic hour) per stay, relative to intime; NaN when absent."""
    n = len(s)
    t = s.infection_h
    culture_first = rng.random(n) < 0.6
    late = rng.random(n) < 0.08
    culture = np.where(
        culture_first, t, t + np.where(late, rng.uniform(25, 40, n), rng.uniform(0.3, 23, n))
    )
    antibiotic = np.where(
        culture_first, t + np.where(late, rng.uniform(73, 90, n), rng.uniform(0.3, 48, n)), t
    )
    screen = ~s.infection & (rng.random(n) < 0.3)
    prophylaxis = ~s.infection & s.cvicu & (rng.random(n) < 0.6)
    culture = np.where(s.infection, culture, np.where(screen, rng.uniform(0, 4, n), np.nan))
    antibiotic = np.where(
        s.infection, antibiotic, np.where(prophylaxis, rng.uniform(-3, 1, n), np.nan)
    )
    return culture, antibiotic


def micro_chunk(
    rng: np.random.Generator,
    s: StayState,
    culture_h: np.ndarray,
    ids: dict[str, np.ndarray],
    admit: np.ndarray,
    q: QuirkRates,
    first_id: int,
    first_specimen: int,
) -> Columns:
    """Specimens at the culture hour (1-4 per infected stay), negative or with organisms.

    Specimen serials continue from ``first_specimen`` (scrambled into 8-digit ids).
    """
    stay, kind, time = _specimens(rng, s, culture_h)
    m = len(stay)
    spec_id = scrambled_ids(first_specimen + np.arange(m), 5_040_923)
    r, results = _results(rng, s.infection[stay])
    date_only = (rng.random(m) < q.micro_date_only)[r]
    null_hadm = ((rng.random(m) < q.micro_null_hadm) | (time < admit[stay]))[r]
    spec = np.array(MICRO_SPECIMENS, dtype=object)[kind[r]]
    chart = time[r]
    day = chart // DAY * DAY
    hadm = ids["hadm_id"][stay[r]].astype(float)
    hadm[null_hadm] = np.nan
    chart_us = seconds_to_us(chart)
    chart_us[date_only] = np.datetime64("NaT")
    return {
        "microevent_id": first_id + np.arange(len(r)),
        "subject_id": ids["subject_id"][stay[r]],
        "hadm_id": _nullable_int(hadm),
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


def _specimens(
    rng: np.random.Generator, s: StayState, culture_h: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(stay, specimen kind, time) of every specimen: two blood cultures first, then others."""
    n = len(s)
    has = ~np.isnan(culture_h)
    count = np.where(has, np.where(s.infection, rng.integers(1, 5, n), 1), 0)
    stay = np.repeat(np.arange(n), count)
    k = group_arange(count)
    hours = culture_h[stay] + np.where(k < 2, 0, rng.uniform(0, 6, len(stay)))
    other = 2 + (np.arange(len(stay)) % (len(MICRO_SPECIMENS) - 2))
    kind = np.where(s.infection[stay], np.where(k < 2, 0, other), 4)
    return stay, kind, s.intime[stay] + minutes(hours)


def _results(rng: np.random.Generator, infected: np.ndarray) -> tuple[np.ndarray, Columns]:
    """Result rows: one per negative specimen, one per organism x tested antibiotic if positive.

    Returns the specimen index of each row and the organism/susceptibility columns.
    """
    m = len(infected)
    positive = infected & (rng.random(m) < 0.4)
    organisms = np.where(positive, rng.integers(1, 3, m), 1)
    tested = np.where(positive, rng.integers(0, 4, m), 0)
    rows_per = np.where(positive, organisms * np.maximum(tested, 1), 1)
    r = np.repeat(np.arange(m), rows_per)
    j = group_arange(rows_per)
    pos = positive[r]
    isolate = j // np.maximum(tested[r], 1)
    org = (rng.integers(0, len(ORGANISMS), m)[r] + isolate) % len(ORGANISMS)
    sentinel = ~pos & (rng.random(len(r)) < 0.15)
    ab = rng.integers(0, len(SUSCEPTIBILITY_ANTIBIOTICS), len(r))
    has_ab = pos & (tested[r] > 0)
    org_id = np.where(sentinel, float(ORG_NEGATIVE[0]), np.nan)
    org_id[pos] = np.array([o[0] for o in ORGANISMS])[org][pos]
    org_name = _or_null(sentinel, ORG_NEGATIVE[1])
    org_name[pos] = np.array([o[1] for o in ORGANISMS], dtype=object)[org][pos]
    ab_id = np.where(has_ab, np.array([a[0] for a in SUSCEPTIBILITY_ANTIBIOTICS])[ab], np.nan)
    interpretation = np.array(INTERPRETATIONS)[rng.integers(0, len(INTERPRETATIONS), len(r))]
    return r, {
        "org_itemid": _nullable_int(org_id),
        "org_name": org_name,
        "isolate_num": _nullable_int(np.where(pos, 1 + isolate, np.nan)),
        "ab_itemid": _nullable_int(ab_id),
        "ab_name": _or_null(has_ab, np.array([a[1] for a in SUSCEPTIBILITY_ANTIBIOTICS])[ab]),
        "dilution_text": _or_null(has_ab, "<=1"),
        "dilution_comparison": _or_null(has_ab, "<="),
        "dilution_value": np.where(has_ab, 1.0, np.nan),
        "interpretation": _or_null(has_ab, interpretation),
    }


def _or_null(mask: np.ndarray, values: np.ndarray | str) -> np.ndarray:
    """``values`` where ``mask`` holds, NULL elsewhere (an object array)."""
    out = np.full(len(mask), None, dtype=object)
    out[mask] = values[mask] if isinstance(values, np.ndarray) else values
    return out


def _nullable_int(values: np.ndarray) -> Any:
    return pa.array(values, from_pandas=True).cast(pa.int64())


def prescriptions_chunk(
    rng: np.random.Generator,
    s: StayState,
    antibiotic_h: np.ndarray,
    ids: dict[str, np.ndarray],
    q: QuirkRates,
    first_pharmacy: int,
    admit: np.ndarray,
    disch: np.ndarray,
) -> Columns:
    """Antibiotics of the infection plan, decoys, and routine drugs of a chunk of stays.

    Routine drugs cover the ICU stay at the ICU rate, and (for the first stay of each
    admission in the chunk) the whole admission at the ward rate.
    """
    n = len(s)
    has = ~np.isnan(antibiotic_h)
    n_ab = np.where(has, np.where(s.infection, rng.integers(2, 5, n), 1), 0)
    stay = np.repeat(np.arange(n), n_ab)
    k = group_arange(n_ab)
    start = antibiotic_h[stay] + np.where(
        k < 2, rng.uniform(0, 0.5, len(stay)), rng.uniform(12, 96, len(stay))
    )
    iv = np.array(ANTIBIOTICS_IV, dtype=object)
    prophylactic = ~s.infection[stay]
    drug = np.where(prophylactic, 8, (np.arange(len(stay)) + rng.integers(0, 100)) % len(iv))
    chosen = iv[drug]
    po = (k >= 2) & (rng.random(len(stay)) < 0.4)
    po_pick = np.array(ANTIBIOTICS_PO, dtype=object)[np.arange(len(stay)) % len(ANTIBIOTICS_PO)]
    chosen[po] = po_pick[po]
    duration = np.where(
        prophylactic, rng.uniform(12, 24, len(stay)), rng.uniform(24, 24 * 7, len(stay))
    )
    route = chosen[:, 1].copy()
    base = rng.random(len(stay)) < 0.05
    parts: list[Part] = [
        (stay, start, duration, chosen[:, 0], route, np.where(base, "BASE", "MAIN").astype(object))
    ]
    parts.append(_decoys(rng, s))
    parts.append(routine_lines(rng, np.zeros(n), s.los_h, *ICU_ROUTINE_RATE, icu=True))
    first = np.zeros(n, dtype=bool)
    first[np.unique(ids["hadm_id"], return_index=True)[1]] = True
    whole = np.flatnonzero(first)
    ward = routine_lines(
        rng, (admit - s.intime)[whole] / HOUR, (disch - s.intime)[whole] / HOUR,
        *WARD_ROUTINE_RATE, icu=False,
    )  # fmt: skip
    parts.append((whole[ward[0]], *ward[1:]))
    return prescription_columns(rng, s.intime, ids, parts, first_pharmacy, q)


def ward_prescriptions(
    rng: np.random.Generator,
    admit: np.ndarray,
    disch: np.ndarray,
    ids: dict[str, np.ndarray],
    q: QuirkRates,
    first_pharmacy: int,
) -> Columns:
    """Routine drug lines of a chunk of admissions without an ICU stay."""
    span = (disch - admit) / HOUR
    lines = routine_lines(rng, np.zeros(len(admit)), span, *WARD_ROUTINE_RATE, icu=False)
    return prescription_columns(rng, admit, ids, [lines], first_pharmacy, q)


def _decoys(rng: np.random.Generator, s: StayState) -> Part:
    """Routine drugs for every stay and some excluded / near-miss antimicrobials."""
    n = len(s)
    count = rng.integers(3, 9, n)
    stay = np.repeat(np.arange(n), count)
    pool = list(OTHER_DRUGS) + list(ANTIBIOTICS_EXCLUDED) + list(ANTIMICROBIAL_NEAR_MISSES)
    weights = np.array(
        [1.0] * len(OTHER_DRUGS)
        + [0.08] * len(ANTIBIOTICS_EXCLUDED)
        + [0.08] * len(ANTIMICROBIAL_NEAR_MISSES)
    )
    chosen = np.array(pool, dtype=object)[
        rng.choice(len(pool), size=len(stay), p=weights / weights.sum())
    ]
    start = rng.uniform(0, 1, len(stay)) * s.los_h[stay]
    return (
        stay,
        start,
        rng.uniform(6, 96, len(stay)),
        chosen[:, 0],
        chosen[:, 1],
        np.full(len(stay), "MAIN", dtype=object),
    )
