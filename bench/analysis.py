"""Time the full analysis of the paper's 760 released runs, and the resampling core
(task-cluster, family-cluster, family-balanced bootstrap and sign-flip permutation at
the paper's replicate counts) against a plain-Python loop implementation, in one run.

    .venv/bin/python bench/analysis.py [--reps 20000] [--permutation-reps 200000]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

from m4bench.analysis import AnalysisSettings, RunRow, analyze, analyze_runs, load_source
from m4bench.analysis.bootstrap import (
    family_balanced,
    family_cluster_bootstrap,
    sign_flip_p,
    task_bootstrap,
)
from m4bench.analysis.taskmeta import resolve_task_meta


def _interval(replicates: list[float]) -> tuple[float, float]:
    ordered = sorted(replicates)
    return ordered[int(0.025 * len(ordered))], ordered[int(0.975 * len(ordered))]


def loop_task(values: Sequence[float], reps: int, rng: random.Random) -> tuple[float, float]:
    count = len(values)
    means = []
    for _ in range(reps):
        total = 0.0
        for _ in range(count):
            total += values[rng.randrange(count)]
        means.append(total / count)
    return _interval(means)


def loop_family_cluster(
    values: Sequence[float], families: Sequence[str], reps: int, rng: random.Random
) -> tuple[float, float]:
    groups: dict[str, list[float]] = {}
    for value, family in zip(values, families, strict=True):
        groups.setdefault(family, []).append(value)
    members = list(groups.values())
    means = []
    for _ in range(reps):
        pooled: list[float] = []
        for _ in members:
            pooled.extend(members[rng.randrange(len(members))])
        means.append(sum(pooled) / len(pooled))
    return _interval(means)


def loop_family_balanced(
    values: Sequence[float], families: Sequence[str], reps: int, rng: random.Random
) -> tuple[float, float]:
    groups: dict[str, list[float]] = {}
    for value, family in zip(values, families, strict=True):
        groups.setdefault(family, []).append(value)
    family_means = [sum(v) / len(v) for v in groups.values()]
    return loop_task(family_means, reps, rng)


def loop_sign_flip(values: Sequence[float], reps: int, rng: random.Random) -> float:
    observed = abs(sum(values) / len(values))
    hits = 0
    for _ in range(reps):
        total = 0.0
        for value in values:
            total += value if rng.random() < 0.5 else -value
        if abs(total / len(values)) >= observed - 1e-12:
            hits += 1
    return (hits + 1) / (reps + 1)


def loop_within_task(
    pairs: Sequence[tuple[Sequence[float], Sequence[float]]],
    reps: int,
    seed: int,
    task_index: int = 0,
) -> tuple[float, float]:
    rng = random.Random(seed * 1_000 + task_index)
    replicates = []
    for _ in range(reps):
        total = 0.0
        for baseline, treatment in pairs:
            low = sum(baseline[rng.randrange(len(baseline))] for _ in baseline) / len(baseline)
            high = sum(treatment[rng.randrange(len(treatment))] for _ in treatment)
            total += high / len(treatment) - low
        replicates.append(total / len(pairs))
    return _interval(replicates)


def loop_backend() -> list[Any]:
    """Patches that swap every numpy resampling routine the pipeline calls for a loop."""

    def task(values: Sequence[float], reps: int, seed: int) -> tuple[float, float]:
        return loop_task(list(values), reps, random.Random(seed))

    def cluster(
        values: Sequence[float], families: Sequence[str], reps: int, seed: int
    ) -> tuple[float, float]:
        return loop_family_cluster(list(values), families, reps, random.Random(seed))

    def balanced(
        values: Sequence[float], families: Sequence[str], reps: int, seed: int
    ) -> tuple[float, float, float]:
        groups: dict[str, list[float]] = {}
        for value, family in zip(values, families, strict=True):
            groups.setdefault(family, []).append(value)
        point = sum(sum(v) / len(v) for v in groups.values()) / len(groups)
        return (point, *loop_family_balanced(list(values), families, reps, random.Random(seed)))

    def flip(values: Sequence[float], reps: int, seed: int) -> float:
        return loop_sign_flip(list(values), reps, random.Random(seed))

    return [
        mock.patch("m4bench.analysis.estimands.task_bootstrap", task),
        mock.patch("m4bench.analysis.estimands.sign_flip_p", flip),
        mock.patch("m4bench.analysis.primary.task_bootstrap", task),
        mock.patch("m4bench.analysis.primary.family_cluster_bootstrap", cluster),
        mock.patch("m4bench.analysis.primary.family_balanced", balanced),
        mock.patch("m4bench.analysis.controls.task_bootstrap", task),
        mock.patch("m4bench.analysis.group.within_task_interval", loop_within_task),
    ]


def synthetic_runs(tasks: int, seed: int) -> list[RunRow]:
    """A campaign of ``tasks`` tasks x 2 models x 2 conditions x 5 trials."""
    rng = random.Random(seed)
    runs = []
    for index in range(tasks):
        task = f"mimic-synthetic-{index:04d}" + ("-raw" if index % 2 else "")
        effect = rng.uniform(-0.05, 0.3)
        for model in ("model-a", "model-b"):
            for condition, shift in (("no-skill", 0.0), ("with-skill", effect)):
                for trial in range(1, 6):
                    reward = min(1.0, max(0.0, 0.6 + shift + rng.gauss(0.0, 0.05)))
                    runs.append(
                        RunRow(
                            run_id=f"{task}-{model}-{condition}-{trial}",
                            task=task,
                            condition=condition,
                            model=model,
                            trial=trial,
                            reward=reward,
                        )
                    )
    return runs


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20_000)
    parser.add_argument("--permutation-reps", type=int, default=200_000)
    parser.add_argument(
        "--scale-tasks",
        type=int,
        default=500,
        help="tasks in the synthetic scale-out campaign (0 to skip)",
    )
    args = parser.parse_args()
    reps, perm = args.reps, args.permutation_reps
    settings = AnalysisSettings(reps=reps, permutation_reps=perm)

    runs, label = load_source("paper-release-v1")
    tasks = sorted({run.task for run in runs})
    catalog_s, _ = timed(lambda: resolve_task_meta(tasks))
    fixed = settings.model_copy(update={"use_catalog": False})
    estimands_s, result = timed(lambda: analyze_runs(runs, fixed, label))
    with tempfile.TemporaryDirectory() as tmp:
        full_s, _ = timed(lambda: analyze("paper-release-v1", Path(tmp), settings))
    with contextlib.ExitStack() as stack:
        for patch in loop_backend():
            stack.enter_context(patch)
        loop_full_s, loop_result = timed(lambda: analyze_runs(runs, fixed, label))
    deltas = [item.delta for item in result.task_deltas]
    families = [item.family for item in result.task_deltas]

    seed = settings.seed
    vector_s, vector = timed(
        lambda: (
            task_bootstrap(deltas, reps, seed),
            family_cluster_bootstrap(deltas, families, reps, seed),
            family_balanced(deltas, families, reps, seed)[1:],
            sign_flip_p(deltas, perm, seed),
        )
    )
    rng = random.Random(seed)
    loop_s, loop = timed(
        lambda: (
            loop_task(deltas, reps, rng),
            loop_family_cluster(deltas, families, reps, rng),
            loop_family_balanced(deltas, families, reps, rng),
            loop_sign_flip(deltas, perm, rng),
        )
    )

    print(
        f"runs: {len(runs)}  tasks: {len(deltas)}  bootstrap reps: {reps}  permutation reps: {perm}"
    )
    print(f"task metadata from the catalog     : {catalog_s:8.3f} s")
    print(f"estimands + tables (numpy)         : {estimands_s:8.3f} s")
    print(f"estimands + tables (loop backend)  : {loop_full_s:8.3f} s")
    print(f"speed-up of the estimands          : {loop_full_s / estimands_s:8.1f} x")
    print(f"full analyze incl. figures, report : {full_s:8.3f} s")
    print(f"resampling core, numpy             : {vector_s:8.3f} s")
    print(f"resampling core, plain-Python loop : {loop_s:8.3f} s")
    print(f"speed-up (loop / numpy)            : {loop_s / vector_s:8.1f} x")
    fast_head = [(e.scope, round(e.ci_low, 3), round(e.ci_high, 3)) for e in result.headline]
    slow_head = [(e.scope, round(e.ci_low, 3), round(e.ci_high, 3)) for e in loop_result.headline]
    print(f"  headline intervals numpy {fast_head}")
    print(f"  headline intervals loop  {slow_head}")
    if args.scale_tasks:
        big = synthetic_runs(args.scale_tasks, seed)
        big_s, big_result = timed(lambda: analyze_runs(big, fixed, "synthetic"))
        balanced = next(e for e in big_result.headline if e.scope == "task-balanced")
        print(
            f"synthetic campaign: {len(big)} runs, {args.scale_tasks} tasks, estimands + "
            f"tables (numpy): {big_s:.3f} s; delta {balanced.delta:+.3f} "
            f"[{balanced.ci_low:.3f}, {balanced.ci_high:.3f}]"
        )
    names = ("task-cluster CI", "family-cluster CI", "family-balanced CI", "sign-flip p")
    for name, fast, slow in zip(names, vector, loop, strict=True):
        print(f"  {name:<19} numpy {fast}  loop {slow}")


if __name__ == "__main__":
    main()
