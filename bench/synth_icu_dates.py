"""Seconds and rows of the synthetic MIMIC-IV datetimeevents, procedureevents and poe orders.

Draws every chunk of the source at each scale in this process (no files written) and
times the three generators alone, next to their budget (10 s at scale 0.1) and to the
concept procedure rows alone. Rows per ICU stay (per admission for poe) are printed next
to the real MIMIC-IV v3.1 figures. The load average before and after is printed: other
jobs on the machine slow the generators down.

    .venv/bin/python bench/synth_icu_dates.py [--scales 0.01 0.1]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from m4bench.sources.synth import mimic_iv
from m4bench.sources.synth.core import QuirkRates, resolve_sizes, stream_rng
from m4bench.sources.synth.mimic_cohort import DEFAULT_STAYS, REAL_PATIENTS, REAL_STAYS, Cohort
from m4bench.sources.synth.mimic_dates import datetimeevents_chunk
from m4bench.sources.synth.mimic_latent import stay_state
from m4bench.sources.synth.mimic_orders import admission_orders
from m4bench.sources.synth.mimic_treatments import (
    concept_procedure_columns,
    procedureevents_chunk,
)

BUDGET_SECONDS = 10.0  # at scale 0.1
REAL = {"procedureevents": 8.6, "datetimeevents": 106.0, "poe": 96.0}
SEED = 0


def _icu(cohort: Cohort, conditions: np.ndarray) -> dict[str, float]:
    took = {"concept": 0.0, "procedureevents": 0.0, "datetimeevents": 0.0}
    rows = {"procedureevents": 0, "datetimeevents": 0}
    for chunk in range(-(-len(cohort.stays) // mimic_iv.CHUNK_STAYS)):
        stays = mimic_iv._chunk_stays(cohort, chunk)
        state = stay_state(SEED, chunk, cohort, stays, conditions)
        ids = mimic_iv._stay_ids(cohort, stays)
        admit = cohort.admissions.admittime[cohort.stays.adm[stays]]
        started = time.perf_counter()
        concept_procedure_columns(stream_rng(SEED, 14, chunk), state, ids)
        took["concept"] += time.perf_counter() - started
        started = time.perf_counter()
        procedures = procedureevents_chunk(stream_rng(SEED, 14, chunk), state, ids)
        took["procedureevents"] += time.perf_counter() - started
        started = time.perf_counter()
        dates = datetimeevents_chunk(stream_rng(SEED, 15, chunk), state, ids, procedures, admit)
        took["datetimeevents"] += time.perf_counter() - started
        rows["procedureevents"] += len(procedures["itemid"])
        rows["datetimeevents"] += len(dates["itemid"])
    stays_n = len(cohort.stays)
    return {**took, **{f"{k}_rows": v / stays_n for k, v in rows.items()}}


def _orders(cohort: Cohort) -> tuple[float, float]:
    """(seconds, non-medication orders per admission) of every admission's poe orders."""
    n = len(cohort.admissions)
    vent = np.zeros(n, dtype=bool)
    took, rows = 0.0, 0
    for chunk in range(-(-n // mimic_iv.CHUNK_ADMISSIONS)):
        block = np.arange(
            chunk * mimic_iv.CHUNK_ADMISSIONS, min((chunk + 1) * mimic_iv.CHUNK_ADMISSIONS, n)
        )
        started = time.perf_counter()
        poe, _ = admission_orders(stream_rng(SEED, 21, chunk), cohort, block, vent[block], 0)
        took += time.perf_counter() - started
        rows += len(poe["poe_seq"])
    return took, rows / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scales", nargs="+", type=float, default=[0.01, 0.1])
    args = parser.parse_args()
    for scale in args.scales:
        load = os.getloadavg()[0]
        sizes = resolve_sizes(
            REAL_STAYS, REAL_PATIENTS, DEFAULT_STAYS, stays=None, patients=None, scale=scale
        )
        cohort, conditions, _ = mimic_iv._context(SEED, sizes.stays, QuirkRates())
        icu = _icu(cohort, conditions)
        poe_s, poe_rows = _orders(cohort)
        total = icu["procedureevents"] + icu["datetimeevents"] + poe_s
        print(
            f"scale {scale}: {len(cohort.stays):,} stays, {len(cohort.admissions):,} admissions"
            f" (load {load:.1f} -> {os.getloadavg()[0]:.1f})"
        )
        print(
            f"  procedureevents {icu['procedureevents']:.2f} s"
            f" (concept rows alone {icu['concept']:.2f} s),"
            f" {icu['procedureevents_rows']:.1f}/stay (real {REAL['procedureevents']},"
            f" x{icu['procedureevents_rows'] / REAL['procedureevents']:.2f})"
        )
        print(
            f"  datetimeevents {icu['datetimeevents']:.2f} s,"
            f" {icu['datetimeevents_rows']:.1f}/stay (real {REAL['datetimeevents']:.0f},"
            f" x{icu['datetimeevents_rows'] / REAL['datetimeevents']:.2f})"
        )
        print(f"  poe non-medication orders {poe_s:.2f} s, {poe_rows:.1f}/admission")
        if scale == 0.1:
            print(
                f"  budget: <= {BUDGET_SECONDS:.0f} s -> {total:.2f} s,"
                f" x{total / BUDGET_SECONDS:.2f} of the budget"
            )
        mimic_iv._context.cache_clear()


if __name__ == "__main__":
    main()
