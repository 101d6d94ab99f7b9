"""Which stays of a synthetic source were engineered, and into which clinical state.

The hosts of the coverage needs follow from the generator's inputs alone (seed, size,
quirk rates, all in the manifest), so they are recomputed rather than stored: nothing in
the source's tables marks them, as nothing marks a real patient.
"""

from __future__ import annotations

import numpy as np

from m4bench.errors import M4BenchError
from m4bench.sources.layout import Source
from m4bench.sources.synth.core import QuirkRates
from m4bench.sources.synth.coverage_needs import dataset_needs
from m4bench.sources.synth.eicu import CHUNK_STAYS as EICU_CHUNK_STAYS
from m4bench.sources.synth.eicu_cohort import draw_cohort
from m4bench.sources.synth.eicu_engineered import engineer_cohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.sources.synth.mimic_cohort import build_cohort
from m4bench.sources.synth.mimic_engineered import place_needs


def engineered_stays(source: Source) -> dict[int, str]:
    """``stay_id`` (MIMIC-IV) or ``patientunitstayid`` (eICU) of each engineered stay, with
    the name of the need it hosts; empty for a source from before engineered stays."""
    parameters = source.manifest.parameters
    if source.manifest.kind != "synthetic" or "coverage_needs" not in parameters:
        return {}
    seed, stays, quirks = parameters.get("seed"), parameters.get("stays"), parameters.get("quirks")
    if not isinstance(seed, int) or not isinstance(stays, int) or not isinstance(quirks, str):
        raise M4BenchError(f"source {source.name}: its manifest lacks the seed, size or quirks")
    if source.manifest.dataset == "eicu":
        return _eicu(seed, stays, EicuQuirkRates.model_validate_json(quirks))
    return _mimic(seed, stays, QuirkRates.model_validate_json(quirks))


def _mimic(seed: int, stays: int, quirks: QuirkRates) -> dict[int, str]:
    cohort = build_cohort(seed, stays, quirks)
    at, which = place_needs(seed, cohort).hosts(np.arange(len(cohort.stays)))
    needs = dataset_needs("mimic-iv")
    return {
        int(cohort.stays.stay_id[a]): needs[int(w)].name for a, w in zip(at, which, strict=True)
    }


def _eicu(seed: int, stays: int, quirks: EicuQuirkRates) -> dict[int, str]:
    out: dict[int, str] = {}
    for chunk, start in enumerate(range(0, stays, EICU_CHUNK_STAYS)):
        n = min(EICU_CHUNK_STAYS, stays - start)
        cohort = engineer_cohort(seed, draw_cohort(seed, chunk, start, n, quirks))
        for position, need in cohort.targets.needs.items():
            out[int(cohort.stay_id[position])] = need.name
    return out
