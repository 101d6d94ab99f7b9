"""``eicu_crd.physicalexam``: daily structured exams, with the GCS total as a path tail.

The GCS total sits at ``.../Neurologic/GCS/<total>`` (a one or two character tail);
component scores sit one level deeper and must not be read as totals. Stays without
nursecharting GCS get an exam GCS more often, so the OASIS fallback is exercised.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.sources.synth.eicu_series import gcs_at, gcs_components, time_grid

OTHER_SHARE = 0.7  # share of the other exam paths documented at each exam


def physicalexam(
    cohort: EicuCohort, rng: np.random.Generator, quirks: EicuQuirkRates
) -> dict[str, Any]:
    """Every physicalexam column except ``physicalexamid`` for one chunk."""
    n = cohort.n
    first = np.where(rng.random(n) < 0.9, rng.integers(30, 1200, n), rng.integers(-600, 30, n))
    first = np.minimum(first, cohort.los_minutes // 2)
    owner, offset = time_grid(rng, first, cohort.los_minutes, 1440, off_hour=1.0)
    exam_gcs = rng.random(n) < np.where(cohort.gcs_charted, 0.35, 0.7)
    with_gcs = exam_gcs[owner] & (rng.random(owner.size) < 0.8)
    o, t = owner[with_gcs], offset[with_gcs]
    eyes, verbal, motor, total = gcs_components(
        rng, gcs_at(cohort, rng, o, t), np.zeros(o.size, dtype=bool)
    )
    typo = rng.random(total.size) < quirks.exam_gcs_out_of_range
    total = np.where(typo, np.array([0, 1, 2, 16, 45])[rng.integers(0, 5, total.size)], total)
    paths: list[np.ndarray] = [np.array([f"{v.PE_GCS}/{x}" for x in total.tolist()], dtype=object)]
    values: list[np.ndarray] = [total.astype(str).astype(object)]
    owners, offsets = [o], [t]
    for (path, _), score in zip(v.PE_GCS_COMPONENTS, (eyes, verbal, motor), strict=True):
        paths.append(np.array([f"{path}/{x}" for x in score.tolist()], dtype=object))
        values.append(score.astype(str).astype(object))
        owners.append(o)
        offsets.append(t)
    k = len(v.PE_OTHER_PATHS)
    documented = rng.random((owner.size, k)) < OTHER_SHARE
    exam, other = np.nonzero(documented)
    paths.append(np.array(v.PE_OTHER_PATHS, dtype=object)[other])
    values.append(np.array([p.rsplit("/", 1)[1] for p in v.PE_OTHER_PATHS], dtype=object)[other])
    owners.append(owner[exam])
    offsets.append(offset[exam])
    return _assemble(cohort, owners, offsets, paths, values)


def _assemble(
    cohort: EicuCohort,
    owners: list[np.ndarray],
    offsets: list[np.ndarray],
    paths: list[np.ndarray],
    values: list[np.ndarray],
) -> dict[str, Any]:
    owner = np.concatenate(owners)
    offset = np.concatenate(offsets)
    path = np.concatenate(paths)
    value = np.concatenate(values)
    order = np.lexsort((path, offset, owner))
    return {
        "patientunitstayid": cohort.stay_id[owner[order]],
        "physicalexamoffset": offset[order],
        "physicalexampath": pa.array(path[order], type=pa.string()),
        "physicalexamvalue": pa.array(value[order], type=pa.string()),
        "physicalexamtext": pa.array(value[order], type=pa.string()),
    }
