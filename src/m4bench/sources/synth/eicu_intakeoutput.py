"""``eicu_crd.intakeoutput``: urine under many cell-path spellings, other outputs, intake.

Totals are cumulative per stay and repeated on every row of one offset. Quirks: stays
without any output row, urine tails other than plain 'Urine' (exact variants, the
'foley' prefix rule, the wildcard patterns), foley rows the rule excludes, rows
re-entered at the same offset.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.sources.synth.eicu_series import number_text, pick, time_grid

URINE, OTHER_OUTPUT, INTAKE, DIALYSIS = 0, 1, 2, 3


def _urine_tails(
    rng: np.random.Generator, owner: np.ndarray, has_output: np.ndarray, q: EicuQuirkRates
) -> np.ndarray:
    """Each urine row's tail: plain 'Urine' or the stay's own variant spelling.

    The first stays with output of a chunk take the variants in turn (their first row
    uses it), so every accepted spelling appears in any chunk of a few hundred stays.
    """
    exact = tuple(t for t in v.urine_tails() if t != "Urine")
    variants = np.array(exact + v.URINE_FOLEY_TAILS + v.URINE_PATTERN_TAILS, dtype=object)
    weights = np.concatenate(
        [
            np.full(len(exact), 0.6 / len(exact)),
            np.full(len(v.URINE_FOLEY_TAILS), 0.25 / len(v.URINE_FOLEY_TAILS)),
            np.full(len(v.URINE_PATTERN_TAILS), 0.15 / len(v.URINE_PATTERN_TAILS)),
        ]
    )
    stay_variant = variants[rng.choice(variants.size, has_output.size, p=weights)]
    covering = np.flatnonzero(has_output)[: variants.size if q.io_urine_variant > 0 else 0]
    stay_variant[covering] = variants[: covering.size]
    uses_variant = rng.random(owner.size) < q.io_urine_variant
    first_row = np.r_[True, owner[1:] != owner[:-1]] if owner.size else np.zeros(0, dtype=bool)
    uses_variant |= first_row & np.isin(owner, covering)
    return np.where(uses_variant, stay_variant[owner], "Urine")


def intakeoutput(cohort: EicuCohort, rng: np.random.Generator, q: EicuQuirkRates) -> dict[str, Any]:
    """Every intakeoutput column except ``intakeoutputid`` for one chunk."""
    n = cohort.n
    # engineered stays with a banded urine total chart it once per row, all of it counted
    banded = cohort.targets.flag(n, lambda need: "urine_24h" in need.values)
    has_output = (rng.random(n) >= q.io_no_urine) | banded
    step = rng.choice(np.array([60, 120, 240]), n)
    start = np.where(cohort.chart_start < 0, cohort.chart_start, rng.integers(0, 90, n))
    start = np.where(rng.random(n) < 0.05, 0, start)
    owner, offset = time_grid(rng, start, cohort.los_minutes, step)
    keep = has_output[owner]
    owner, offset = owner[keep], offset[keep]
    urine_ml = (
        cohort.urine_ml_per_hour[owner] * step[owner] / 60 * rng.uniform(0.5, 1.5, owner.size)
    )
    urine_ml = cohort.targets.total("urine_24h", owner, offset / 60, urine_ml)
    urine_ml = np.maximum(np.round(urine_ml), 1.0)
    tails = _urine_tails(rng, owner, has_output, q)
    again = (rng.random(owner.size) < q.io_same_offset) & ~banded[owner]
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = [
        (owner, offset, urine_ml, np.full(owner.size, URINE), tails),
        (
            owner[again],
            offset[again],
            np.maximum(np.round(urine_ml[again] / 2), 1.0),
            np.full(int(again.sum()), URINE),
            tails[again],
        ),
    ]
    excluded = (rng.random(owner.size) < q.io_excluded_foley) & ~banded[owner]
    parts.append(
        (
            owner[excluded],
            offset[excluded] + 5,
            np.round(urine_ml[excluded]),
            np.full(int(excluded.sum()), URINE),
            pick(rng, v.URINE_EXCLUDED_FOLEY_TAILS, int(excluded.sum())),
        )
    )
    for kind, tails_of_kind, share, amount in (
        (OTHER_OUTPUT, v.OUTPUT_OTHER_TAILS, 0.2, 80.0),
        (INTAKE, v.INTAKE_TAILS, 0.9, 150.0),
        (DIALYSIS, v.DIALYSIS_TAILS, 0.02, 200.0),
    ):
        hit = rng.random(owner.size) < share
        m = int(hit.sum())
        parts.append(
            (
                owner[hit],
                offset[hit],
                np.round(rng.exponential(amount, m)) + 1,
                np.full(m, kind),
                pick(rng, tails_of_kind, m),
            )
        )
    return _assemble(cohort, rng, parts)


def _assemble(
    cohort: EicuCohort,
    rng: np.random.Generator,
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
) -> dict[str, Any]:
    owner = np.concatenate([p[0] for p in parts])
    offset = np.concatenate([p[1] for p in parts])
    value = np.concatenate([p[2] for p in parts])
    kind = np.concatenate([p[3] for p in parts])
    tail = np.concatenate([p[4] for p in parts])
    order = np.lexsort((kind, offset, owner))
    owner, offset, value, kind, tail = (
        owner[order],
        offset[order],
        value[order],
        kind[order],
        tail[order],
    )
    totals = {
        k: _cumulative(owner, offset, np.where(kind == k, value, 0.0)) for k in (INTAKE, DIALYSIS)
    }
    output = _cumulative(
        owner, offset, np.where((kind == URINE) | (kind == OTHER_OUTPUT), value, 0.0)
    )
    prefix = np.array([v.IO_OUTPUT, v.IO_OUTPUT, v.IO_INTAKE, v.IO_DIALYSIS], dtype=object)[kind]
    return {
        "patientunitstayid": cohort.stay_id[owner],
        "intakeoutputoffset": offset,
        "intaketotal": totals[INTAKE],
        "outputtotal": output,
        "dialysistotal": totals[DIALYSIS],
        "nettotal": totals[INTAKE] - output - totals[DIALYSIS],
        "intakeoutputentryoffset": offset + rng.integers(0, 60, owner.size),
        "cellpath": pa.array(prefix + tail, type=pa.string()),
        "celllabel": pa.array(tail, type=pa.string()),
        "cellvaluenumeric": value,
        "cellvaluetext": number_text(value, 0),
    }


def _cumulative(owner: np.ndarray, offset: np.ndarray, amount: np.ndarray) -> np.ndarray:
    """Running total per stay, taken at the end of each offset (rows sorted by stay, offset)."""
    if owner.size == 0:
        return amount
    running = np.cumsum(amount)
    stay_start = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    stay_of_row = np.cumsum(np.r_[True, owner[1:] != owner[:-1]]) - 1
    before_stay = (running - amount)[stay_start][stay_of_row]
    per_stay = running - before_stay
    last_of_group = np.r_[(owner[1:] != owner[:-1]) | (offset[1:] != offset[:-1]), True]
    group_end = np.flatnonzero(last_of_group)
    group_of_row = np.r_[0, np.cumsum(last_of_group[:-1])]
    return np.asarray(per_stay[group_end][group_of_row])
