"""hosp.microbiologyevents and hosp.prescriptions: cultures and antibiotics around infections.

An infected stay gets cultures and antibiotics around its infection time, in either
order (culture first, antibiotics within 72 h; or antibiotics first, culture within
24 h), plus some pairs that fall outside those windows. Other stays get screening
cultures, prophylaxis, decoy drugs (ophthalmic, topical, antifungal) and routine drugs.

On top of that plan, every admission gets routine drug lines from the formulary
(``mimic_prescribing``), and routine cultures (``mimic_micro``) go to ward admissions and
to ICU admissions without any antibiotic line, where no antibiotic can pair with them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from m4bench.sources.synth.core import QuirkRates, group_arange
from m4bench.sources.synth.mimic_cohort import HOUR
from m4bench.sources.synth.mimic_latent import StayState
from m4bench.sources.synth.mimic_micro import culture_columns, routine_cultures
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
    MICRO_SPECIMENS,
    OTHER_DRUGS,
)

Columns = dict[str, Any]
PLAN_GROWTH = 0.4  # chance that a specimen of an infected stay's work-up grows an organism
ICU_CULTURE_RATE = (1.0, 0.8)  # routine cultures per ICU stay: base + per ICU day
WARD_CULTURE_RATE = (1.2, 0.5)  # routine culture orders per ward admission: base + per day
ICU_ROUTINE_RATE = (6.0, 14.0)  # routine lines per ICU stay: base + per ICU day
WARD_ROUTINE_RATE = (8.5, 4.0)  # routine lines per admission: base + per hospital day


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
    antibiotic_h: np.ndarray | None = None,
) -> Columns:
    """Specimens at the culture hour (1-4 per infected stay), negative or with organisms.

    With ``antibiotic_h``, stays of admissions without any antibiotic in the chunk also
    get routine cultures during the stay (none can pair with an antibiotic there).
    Specimen serials continue from ``first_specimen`` (scrambled into 8-digit ids).
    """
    stay, kind, time = _specimens(rng, s, culture_h)
    growth = np.where(s.infection[stay], PLAN_GROWTH, 0.0)
    if antibiotic_h is not None:
        extra = _routine_icu_cultures(rng, s, ids["hadm_id"], antibiotic_h)
        stay, kind, time, growth = (
            np.concatenate(p) for p in zip((stay, kind, time, growth), extra, strict=True)
        )
    return culture_columns(rng, stay, kind, time, growth, ids, admit, q, first_id, first_specimen)


def _routine_icu_cultures(
    rng: np.random.Generator, s: StayState, hadm: np.ndarray, antibiotic_h: np.ndarray
) -> tuple[np.ndarray, ...]:
    """(stay, kind, time, chance of growth) of routine cultures of antibiotic-free admissions."""
    _, adm, inverse = np.unique(hadm, return_index=True, return_inverse=True)
    treated = np.zeros(len(adm), dtype=bool)
    np.logical_or.at(treated, inverse, ~np.isnan(antibiotic_h))
    free = np.flatnonzero(~treated[inverse])
    stay, kind, hours, growth = routine_cultures(
        rng, np.zeros(len(free)), s.los_h[free], *ICU_CULTURE_RATE, icu=True
    )
    stay = free[stay]
    return stay, kind, s.intime[stay] + minutes(hours), growth


def ward_micro(
    rng: np.random.Generator,
    admit: np.ndarray,
    disch: np.ndarray,
    ids: dict[str, np.ndarray],
    q: QuirkRates,
    first_id: int,
    first_specimen: int,
) -> Columns:
    """Routine cultures of a chunk of admissions without an ICU stay (no antibiotics there)."""
    span = (disch - admit) / HOUR
    owner, kind, hours, growth = routine_cultures(
        rng, np.zeros(len(admit)), span, *WARD_CULTURE_RATE, icu=False
    )
    time = admit[owner] + minutes(hours)
    return culture_columns(rng, owner, kind, time, growth, ids, admit, q, first_id, first_specimen)


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
