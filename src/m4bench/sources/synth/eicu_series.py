"""Vectorised building blocks of the eICU charting tables: time grids, trajectories, text."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from m4bench.sources.synth.core import group_arange
from m4bench.sources.synth.eicu_cohort import EicuCohort


def time_grid(
    rng: np.random.Generator,
    start: np.ndarray,
    end: np.ndarray,
    step: np.ndarray | int,
    off_hour: float = 0.2,
) -> tuple[np.ndarray, np.ndarray]:
    """Charting offsets every ``step`` minutes from ``start`` to ``end`` for each stay.

    Returns ``(owner, offset)``: the stay position of each row and its minute offset.
    A share ``off_hour`` of the rows after the first is moved a few minutes off the grid.
    """
    steps = np.broadcast_to(np.asarray(step, dtype=np.int64), start.shape)
    span = np.maximum(end - start, 0)
    counts = span // steps + 1
    owner = np.repeat(np.arange(start.size, dtype=np.int64), counts)
    k = group_arange(counts)
    offset = start[owner] + k * steps[owner]
    shift = rng.integers(-9, 10, owner.size) * (rng.random(owner.size) < off_hour) * (k > 0)
    return owner, offset + shift


def gcs_at(
    cohort: EicuCohort, rng: np.random.Generator, owner: np.ndarray, offset: np.ndarray
) -> np.ndarray:
    """GCS totals along each stay's trajectory: lowest near its nadir time, recovering after.

    The nadir falls in the first day for most stays; ventilated stays stay low while on
    the ventilator. Values are integers 3..15.
    """
    nadir = cohort.gcs_nadir[owner].astype(np.float64)
    distance = np.abs(offset - cohort.gcs_nadir_time[owner]) / cohort.gcs_recovery_minutes[owner]
    recovery = np.clip(distance, 0.0, 1.0) ** 0.7 * rng.uniform(0.5, 1.0, owner.size)
    total = nadir + np.floor((15.0 - nadir + 0.99) * recovery)
    on_vent = (
        cohort.ventilated[owner]
        & (offset >= cohort.vent_start[owner])
        & (offset <= cohort.vent_end[owner])
    )
    total = np.where(on_vent, np.minimum(total, nadir + 3), total)
    return np.asarray(np.clip(total, 3, 15), dtype=np.int64)


def gcs_components(
    rng: np.random.Generator, total: np.ndarray, intubated: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Eyes, verbal, motor summing exactly to ``total`` (3..15), and that sum.

    The deficit below 15 is shared out at random between the components; an intubated
    patient with a total of 11 or less has verbal 1.
    """
    deficit = 15 - np.clip(total, 3, 15).astype(np.int64)
    share = rng.dirichlet((1.0, 1.0, 1.0), total.size)
    d_eyes = np.minimum(3, np.floor(deficit * share[:, 0])).astype(np.int64)
    d_verbal = np.minimum(4, np.floor(deficit * share[:, 1])).astype(np.int64)
    no_voice = intubated & (deficit >= 4)
    d_verbal = np.where(no_voice, 4, d_verbal)
    d_eyes = np.minimum(d_eyes, deficit - d_verbal)
    d_motor = np.minimum(5, deficit - d_eyes - d_verbal)
    rest = deficit - d_eyes - d_verbal - d_motor
    extra = np.minimum(4 - d_verbal, rest)
    d_verbal += extra
    d_eyes += np.minimum(3 - d_eyes, rest - extra)
    eyes, verbal, motor = 4 - d_eyes, 5 - d_verbal, 6 - d_motor
    return eyes, verbal, motor, eyes + verbal + motor


def number_text(values: np.ndarray, decimals: np.ndarray | int) -> pa.Array:
    """Numbers as eICU free text: rounded to ``decimals`` places, no trailing zeros."""
    places = np.broadcast_to(np.asarray(decimals, dtype=np.int64), values.shape)
    scale = 10.0**places
    rounded = np.round(values * scale) / scale
    return pc.cast(pa.array(rounded, type=pa.float64()), pa.string())


def overlay_text(numbers: pa.Array, text: np.ndarray) -> pa.Array:
    """``text`` where it is not None, else the number text."""
    override = pa.array(text, type=pa.string())
    return pc.if_else(pc.is_null(override), numbers, override)


def pick(rng: np.random.Generator, choices: tuple[str, ...], size: int) -> np.ndarray:
    """``size`` strings drawn uniformly from ``choices`` as an object array."""
    return np.array(choices, dtype=object)[rng.integers(0, len(choices), size)]


def pick_weighted(
    rng: np.random.Generator, choices: tuple[str, ...], weights: tuple[float, ...], size: int
) -> np.ndarray:
    p = np.asarray(weights, dtype=np.float64)
    return np.array(choices, dtype=object)[rng.choice(len(choices), size=size, p=p / p.sum())]


def sprinkle(
    rng: np.random.Generator, text: np.ndarray, rate: float, choices: tuple[str, ...]
) -> None:
    """Replace a share ``rate`` of the entries of ``text`` (in place) with junk ``choices``."""
    hit = rng.random(text.size) < rate
    text[hit] = pick(rng, choices, int(hit.sum()))


def cover(index: np.ndarray, eligible: np.ndarray, choices: int) -> np.ndarray:
    """``index`` with its first ``choices`` eligible entries set to 0, 1, 2, ...

    Used so that every string of a vocabulary appears in any chunk of a few hundred
    stays, while the rest stay random.
    """
    out = index.copy()
    first = np.flatnonzero(eligible)[:choices]
    out[first] = np.arange(first.size)
    return out
