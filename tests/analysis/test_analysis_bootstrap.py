from __future__ import annotations

import random

import numpy as np
import pytest

from m4bench.analysis.bootstrap import (
    bootstrap_means,
    family_balanced,
    family_cluster_bootstrap,
    sign_flip_p,
    task_bootstrap,
    within_task_interval,
)

DELTAS = [
    0.47,
    0.46,
    0.35,
    0.30,
    0.29,
    0.28,
    0.27,
    0.25,
    0.22,
    0.18,
    0.14,
    0.12,
    0.10,
    0.05,
    0.05,
    0.05,
    0.05,
    0.04,
    0.03,
    0.03,
    0.02,
    0.02,
    0.02,
    0.01,
    0.01,
    0.00,
    -0.00,
    -0.04,
]


def _loop_interval(values: list[float], reps: int, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    means = sorted(
        sum(values[rng.randrange(len(values))] for _ in values) / len(values) for _ in range(reps)
    )
    return means[int(0.025 * reps)], means[int(0.975 * reps)]


def test_task_bootstrap_agrees_with_an_independent_loop() -> None:
    low, high = task_bootstrap(DELTAS, 20_000, seed=7)
    ref_low, ref_high = _loop_interval(DELTAS, 20_000, seed=11)
    assert low == pytest.approx(ref_low, abs=0.006)
    assert high == pytest.approx(ref_high, abs=0.006)
    assert low < float(np.mean(DELTAS)) < high


def test_constant_deltas_give_a_degenerate_interval() -> None:
    assert task_bootstrap([0.2] * 9, 500, seed=1) == pytest.approx((0.2, 0.2))


def test_same_seed_same_draws_other_seed_other_draws() -> None:
    first = bootstrap_means(DELTAS, 300, seed=5)
    assert np.array_equal(first, bootstrap_means(DELTAS, 300, seed=5))
    assert not np.array_equal(first, bootstrap_means(DELTAS, 300, seed=6))


def test_replicates_are_drawn_in_chunks_without_losing_any() -> None:
    values = np.linspace(0.0, 1.0, 3_000)
    means = bootstrap_means(values, 5_000, seed=3)  # 15M draws: several chunks
    assert means.shape == (5_000,)
    assert abs(float(means.mean()) - 0.5) < 0.01


def test_family_cluster_pools_whole_families() -> None:
    # Family a: three tasks at 1.0; family b: one task at 0.0. Resampling two families
    # gives aa -> 1.0, bb -> 0.0, ab/ba -> 0.75 (pooled over four tasks).
    values = [1.0, 1.0, 1.0, 0.0]
    families = ["a", "a", "a", "b"]
    assert family_cluster_bootstrap(values, families, 4_000, seed=2) == (0.0, 1.0)
    point, low, high = family_balanced(values, families, 4_000, seed=2)
    assert point == 0.5 and (low, high) == (0.0, 1.0)


def test_single_task_families_match_the_task_bootstrap() -> None:
    families = [f"f{i}" for i in range(len(DELTAS))]
    cluster = family_cluster_bootstrap(DELTAS, families, 20_000, seed=4)
    task = task_bootstrap(DELTAS, 20_000, seed=4)
    assert cluster == pytest.approx(task, abs=0.006)


def test_sign_flip_p_matches_the_exact_value() -> None:
    # Five equal positive deltas: only the all-plus and all-minus flips reach |mean|,
    # so the exact two-sided p is 2 / 32.
    p_value = sign_flip_p([0.1] * 5, 50_000, seed=9)
    assert p_value == pytest.approx(2 / 32, abs=0.005)
    assert sign_flip_p([0.3, -0.3, 0.1, -0.1], 5_000, seed=9) == pytest.approx(1.0)


def test_within_task_interval_resamples_trials_of_each_cell() -> None:
    fixed = within_task_interval([([0.5, 0.5, 0.5], [0.7, 0.7, 0.7])], 1_000, seed=1)
    assert fixed == pytest.approx((0.2, 0.2))
    low, high = within_task_interval(
        [([0.4, 0.5, 0.6], [0.8, 0.9, 1.0]), ([0.2, 0.2, 0.2], [0.2, 0.3, 0.4])], 4_000, seed=1
    )
    # model deltas 0.4 and 0.1 average to 0.25; resampled extremes stay in [0.1, 0.4]
    assert low < 0.25 < high and low >= 0.1 and high <= 0.4


def test_within_task_interval_is_unknown_with_one_trial_per_cell() -> None:
    single = within_task_interval([([0.5], [0.7]), ([0.1], [0.4])], 1_000, seed=1)
    assert all(np.isnan(single))
    mixed = within_task_interval([([0.5, 0.6], [0.7]), ([0.1], [0.4])], 1_000, seed=1)
    assert mixed[0] < mixed[1]  # one cell with two trials is enough to resample


def test_empty_input_gives_nan_not_an_error() -> None:
    assert all(np.isnan(task_bootstrap([], 100, seed=1)))
    assert np.isnan(sign_flip_p([], 100, seed=1))
