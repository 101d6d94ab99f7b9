"""Assembles the chartevents rows of one chunk of stays."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.core import QuirkRates, seconds_to_us
from m4bench.sources.synth.mimic_bedside import bedside
from m4bench.sources.synth.mimic_chart import (
    body_size,
    crrt,
    filler,
    gcs,
    other_dialysis,
    rhythm_and_neuro,
    vitals,
)
from m4bench.sources.synth.mimic_events import ChartRows
from m4bench.sources.synth.mimic_flowsheet import flowsheet
from m4bench.sources.synth.mimic_latent import StayState
from m4bench.sources.synth.mimic_resp import respiratory


def chartevents_chunk(
    rng: np.random.Generator,
    state: StayState,
    ids: dict[str, np.ndarray],
    quirks: QuirkRates,
) -> dict[str, Any]:
    """All chartevents columns for the chunk; ``ids`` holds subject/hadm/stay ids per stay."""
    rows = ChartRows()
    vitals(rng, state, rows, quirks)
    gcs(rng, state, rows, quirks)
    body_size(rng, state, rows, quirks)
    respiratory(rng, state, rows, quirks)
    rhythm_and_neuro(rng, state, rows, quirks)
    crrt(rng, state, rows, quirks)
    other_dialysis(rng, state, rows, quirks)
    filler(rng, state, rows, quirks)
    pa_line = flowsheet(rng, state, rows, quirks)
    bedside(rng, state, rows, quirks, pa_line)
    data = rows.finish()
    stay, time = data["stay"], data["time"]
    storetime = time + rng.integers(1, 45, len(stay)) * 60
    dup = np.flatnonzero(rng.random(len(stay)) < quirks.chart_duplicate)
    index = np.sort(np.concatenate([np.arange(len(stay)), dup]))
    is_dup = np.r_[False, index[1:] == index[:-1]]
    storetime = storetime[index] + is_dup * rng.integers(1, 7, len(index)) * 3600
    take = pa.array(index)
    return {
        "subject_id": ids["subject_id"][stay[index]],
        "hadm_id": ids["hadm_id"][stay[index]],
        "stay_id": ids["stay_id"][stay[index]],
        "caregiver_id": rng.integers(10_000, 10_500, len(index)),
        "charttime": seconds_to_us(time[index]),
        "storetime": seconds_to_us(storetime),
        "itemid": data["itemid"][index],
        "value": data["value"].take(take),
        "valuenum": pa.array(data["valuenum"][index], from_pandas=True),
        "valueuom": data["unit"].take(take),
        "warning": np.zeros(len(index), dtype=np.int16),
    }
