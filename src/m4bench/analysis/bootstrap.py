"""Vectorized resampling statistics over per-task (or per-family) paired deltas.

Percentile intervals use the sorted replicate at indices ``int(0.025 R)`` and
``int(0.975 R)``. Replicates are drawn in chunks so memory stays bounded for large
task sets. Every function takes an explicit seed; equal inputs give equal outputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

DEFAULT_REPS = 20_000
DEFAULT_PERMUTATION_REPS = 200_000
DEFAULT_SEED = 20_260_504
_CHUNK_CELLS = 4_000_000  # replicate-by-unit draws held in memory at once

# Stream ids keep the estimands' random draws independent for one user seed.
STREAM_TASK = 0
STREAM_FAMILY_CLUSTER = 1
STREAM_FAMILY_BALANCED = 2
STREAM_SIGN_FLIP = 3
STREAM_WITHIN_TASK = 4


def rng_for(seed: int, stream: int) -> np.random.Generator:
    """A generator for one estimand: the same (seed, stream) gives the same draws."""
    return np.random.default_rng([seed, stream])


def percentile_interval(replicates: FloatArray) -> tuple[float, float]:
    """The 95 % percentile interval of bootstrap replicates."""
    ordered = np.sort(replicates)
    count = ordered.size
    return float(ordered[int(0.025 * count)]), float(ordered[min(int(0.975 * count), count - 1)])


def _chunked(reps: int, units: int, draw: Callable[[int], FloatArray]) -> FloatArray:
    size = max(1, _CHUNK_CELLS // max(units, 1))
    parts = [draw(min(size, reps - start)) for start in range(0, reps, size)]
    return np.concatenate(parts) if parts else np.empty(0)


def bootstrap_means(
    values: Sequence[float] | FloatArray, reps: int, seed: int, stream: int = STREAM_TASK
) -> FloatArray:
    """Means of ``reps`` resamples (with replacement) of ``values``."""
    data = np.asarray(values, dtype=np.float64)
    rng = rng_for(seed, stream)
    count = data.size

    def draw(batch: int) -> FloatArray:
        idx = rng.integers(0, count, size=(batch, count))
        means: FloatArray = data[idx].mean(axis=1)
        return means

    return _chunked(reps, count, draw)


def task_bootstrap(
    values: Sequence[float] | FloatArray, reps: int, seed: int
) -> tuple[float, float]:
    """Task-cluster bootstrap: resample task deltas, 95 % percentile interval."""
    if len(values) == 0:
        return (float("nan"), float("nan"))
    if len(values) == 1:  # every resample of one value is that value
        return (float(values[0]), float(values[0]))
    return percentile_interval(bootstrap_means(values, reps, seed, STREAM_TASK))


def _group_sums(values: FloatArray, groups: Sequence[str]) -> tuple[FloatArray, FloatArray]:
    labels = sorted(set(groups))
    index = np.array([labels.index(group) for group in groups])
    sums = np.bincount(index, weights=values, minlength=len(labels)).astype(np.float64)
    counts = np.bincount(index, minlength=len(labels)).astype(np.float64)
    return sums, counts


def family_cluster_bootstrap(
    values: Sequence[float] | FloatArray, families: Sequence[str], reps: int, seed: int
) -> tuple[float, float]:
    """Resample whole families, pool their task deltas, take the mean."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return (float("nan"), float("nan"))
    sums, counts = _group_sums(data, families)
    rng = rng_for(seed, STREAM_FAMILY_CLUSTER)
    n_families = sums.size

    def draw(batch: int) -> FloatArray:
        idx = rng.integers(0, n_families, size=(batch, n_families))
        result: FloatArray = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
        return result

    return percentile_interval(_chunked(reps, n_families, draw))


def family_means(values: Sequence[float] | FloatArray, families: Sequence[str]) -> FloatArray:
    """Mean task delta of each family (families in sorted order)."""
    sums, counts = _group_sums(np.asarray(values, dtype=np.float64), families)
    result: FloatArray = sums / counts
    return result


def family_balanced(
    values: Sequence[float] | FloatArray, families: Sequence[str], reps: int, seed: int
) -> tuple[float, float, float]:
    """Mean of family means and its bootstrap interval over family means."""
    if len(values) == 0:
        return (float("nan"), float("nan"), float("nan"))
    means = family_means(values, families)
    replicates = bootstrap_means(means, reps, seed, STREAM_FAMILY_BALANCED)
    low, high = percentile_interval(replicates)
    return float(means.mean()), low, high


def sign_flip_p(values: Sequence[float] | FloatArray, reps: int, seed: int) -> float:
    """Two-sided sign-flip permutation p of the mean: (hits + 1) / (reps + 1)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return float("nan")
    observed = abs(float(data.mean()))
    rng = rng_for(seed, STREAM_SIGN_FLIP)
    count = data.size

    total = float(data.sum())

    def draw(batch: int) -> FloatArray:
        # a kept sign contributes +x, a flipped one -x: sum = 2 * (kept . x) - sum(x)
        kept = rng.integers(0, 2, size=(batch, count), dtype=np.int8).astype(np.float64)
        flipped: FloatArray = np.abs((2.0 * (kept @ data) - total) / count)
        return flipped

    flipped = _chunked(reps, count, draw)
    hits = int(np.count_nonzero(flipped >= observed - 1e-12))
    return (hits + 1) / (reps + 1)


def p_text(p_value: float | None, reps: int) -> str:
    """A permutation p as text: ``p < 1e-5`` when no replicate reached the observed
    statistic (the smallest p that ``reps`` replicates resolve, 1/(reps+1), is a bound,
    not a value), else ``p = 0.012``; empty when there is no p."""
    if p_value is None or math.isnan(p_value):
        return ""
    floor = 1.0 / (reps + 1)
    if p_value <= floor * (1 + 1e-9):
        exponent = math.ceil(math.log10(floor))
        return f"p < 1e{exponent}" if 10.0**exponent > floor else f"p ≤ 1e{exponent}"
    return f"p = {p_value:.2g}"


def within_task_interval(
    pairs: Sequence[tuple[Sequence[float], Sequence[float]]],
    reps: int,
    seed: int,
    task_index: int = 0,
) -> tuple[float, float]:
    """Interval of one task's model-averaged delta, resampling trials within each cell.

    ``pairs`` holds, per model, the baseline and the treatment trial values. NaN when
    no cell has two trials: resampling one trial shows no spread, and an interval of
    zero width would claim a certainty the runs do not give.
    """
    if not any(len(values) > 1 for pair in pairs for values in pair):
        return (float("nan"), float("nan"))
    rng = np.random.default_rng([seed, STREAM_WITHIN_TASK, task_index])
    total = np.zeros(reps)
    for baseline, treatment in pairs:
        for values, sign in ((baseline, -1.0), (treatment, 1.0)):
            data = np.asarray(values, dtype=np.float64)
            idx = rng.integers(0, data.size, size=(reps, data.size))
            total += sign * data[idx].mean(axis=1)
    return percentile_interval(total / len(pairs))
