"""The engineered stays of the synthetic eICU-CRD: coverage needs placed in each chunk.

Each chunk of unit stays places every eICU need (``coverage_needs``) in its blocks of
stays (``coverage_plan``): the host's age is set for all stays of its patient, and the
value bands go with the chunk's cohort (``EicuCohort.targets``), which the charting
generators shape their draws with.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Sequence

import numpy as np

from m4bench.sources.synth.core import stream_rng
from m4bench.sources.synth.coverage_needs import Need, dataset_needs
from m4bench.sources.synth.coverage_plan import place
from m4bench.sources.synth.eicu_cohort import EicuCohort, draw_cohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.sources.synth.shaping import Targets

COVERAGE_STREAM = zlib.crc32(b"eicu_crd.coverage")


def engineer_cohort(seed: int, cohort: EicuCohort) -> EicuCohort:
    """``cohort`` with the needs of its chunk placed: ages set, bands attached."""
    needs = dataset_needs("eicu")
    rng = stream_rng(seed, COVERAGE_STREAM, cohort.chunk)
    placement = place(needs, rng, cohort.severity, cohort.los_minutes / 60)
    at, which = placement.hosts(np.arange(cohort.n))
    if len(at) == 0:
        return cohort
    hosted = [needs[int(i)] for i in which]
    age_years, age_text = cohort.age_years.copy(), cohort.age_text.copy()
    for stay, need in zip(at, hosted, strict=True):
        if need.age is not None:
            patient = cohort.patient_index == cohort.patient_index[stay]
            age_years[patient], age_text[patient] = float(need.age), str(need.age)
    return dataclasses.replace(
        cohort, age_years=age_years, age_text=age_text, targets=Targets.of(at.tolist(), hosted)
    )


def unplaced_needs(seed: int, chunks: Sequence[int], quirks: EicuQuirkRates) -> tuple[Need, ...]:
    """The needs no chunk of these sizes places (each chunk's cohort is drawn again)."""
    placed: set[str] = set()
    start = 0
    for chunk, n in enumerate(chunks):
        cohort = engineer_cohort(seed, draw_cohort(seed, chunk, start, n, quirks))
        placed |= {need.name for need in cohort.targets.needs.values()}
        start += n
    return tuple(n for n in dataset_needs("eicu") if n.name not in placed)
