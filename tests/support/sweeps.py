"""Which tasks a sweep covers: every task in the heavy tier, a fixed sample by default.

The sample takes one task of each (dataset, mode) pair the tasks have, drawn with a
fixed seed from that pair's tasks sorted by name: the same tasks on every run for a
given catalog, each kind of plan (standard MIMIC-IV, raw MIMIC-IV, eICU) represented.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from m4bench.tasks.catalog import Task

SWEEP_SEED = 26

# parametrize a sweep with this: "sample" in the default suite, "every" in the heavy tier
SWEEP_PARAMS = [
    pytest.param(False, id="sample"),
    pytest.param(True, id="every", marks=pytest.mark.heavy),
]
SWEEP = pytest.mark.parametrize("every", SWEEP_PARAMS)


def sweep_sample(tasks: Sequence[Task], seed: int = SWEEP_SEED) -> list[Task]:
    """One task per (dataset, mode) pair, drawn with ``seed``; sorted by name."""
    strata: dict[tuple[str, str], list[Task]] = {}
    for task in sorted(tasks, key=lambda t: t.name):
        strata.setdefault((task.card.dataset, task.card.mode), []).append(task)
    rng = random.Random(seed)
    chosen = [rng.choice(strata[pair]) for pair in sorted(strata)]
    return sorted(chosen, key=lambda t: t.name)


def swept(tasks: Sequence[Task], every: bool) -> list[Task]:
    """Every task when ``every``, else the fixed sample."""
    return sorted(tasks, key=lambda t: t.name) if every else sweep_sample(tasks)
