"""Paired task-level deltas between two conditions and their summary estimands.

A task delta is the mean over models of (treatment cell mean - baseline cell mean),
using the models that have both cells. Task-balanced levels average the
model-averaged cell means over tasks; per-model rows use that model's cells only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict

from m4bench.analysis.bootstrap import sign_flip_p, task_bootstrap
from m4bench.analysis.cells import CellTable
from m4bench.analysis.taskmeta import TaskMeta

TASK_BALANCED = "task-balanced"
TIE_TOLERANCE = 1e-9
"""Deltas closer to zero than this are ties (floating-point noise), not changes."""


@dataclass(frozen=True)
class Comparison:
    """Treatment condition against baseline condition, paired by task and model."""

    baseline: str
    treatment: str
    schema_name: str = "native"
    baseline_schema: str | None = None

    @property
    def name(self) -> str:
        label = f"{self.treatment} vs {self.baseline}"
        return label if self.schema_name == "native" else f"{label} ({self.schema_name})"


class TaskDelta(BaseModel):
    """One task's paired difference, with the per-model cell means behind it."""

    model_config = ConfigDict(frozen=True)

    task: str
    family: str
    mode: str
    database: str
    depth: int | None
    pairs: dict[str, tuple[float, float]]  # model -> (baseline mean, treatment mean)
    agent: str = ""
    """The agent whose models these are (set when the analysis splits runs by agent)."""

    @property
    def baseline(self) -> float:
        return sum(pair[0] for pair in self.pairs.values()) / len(self.pairs)

    @property
    def treatment(self) -> float:
        return sum(pair[1] for pair in self.pairs.values()) / len(self.pairs)

    @property
    def delta(self) -> float:
        return sum(pair[1] - pair[0] for pair in self.pairs.values()) / len(self.pairs)

    def for_model(self, model: str) -> TaskDelta | None:
        if model not in self.pairs:
            return None
        return self.model_copy(update={"pairs": {model: self.pairs[model]}})


class Estimate(BaseModel):
    """A summary of task deltas: levels, mean delta, interval, improved tasks."""

    comparison: str
    metric: str
    scope: str
    tasks: int
    baseline: float
    treatment: float
    delta: float
    ci_low: float
    ci_high: float
    improved: int
    total: int
    p_value: float | None = None
    agent: str = ""
    """The agent whose runs the estimate reads; ``scope`` names its model (an arm) or
    ``task-balanced`` (the agent's models averaged within each task)."""

    def values(self) -> list[int | float]:
        """The table cells of ``ESTIMATE_COLUMNS``, in that order."""
        return [
            self.tasks,
            self.baseline,
            self.treatment,
            self.delta,
            self.ci_low,
            self.ci_high,
            self.improved,
            self.total,
        ]


# Column headers of ``Estimate.values()``, shared by every table of estimates.
ESTIMATE_COLUMNS = [
    "Tasks",
    "Baseline",
    "Treatment",
    "Delta",
    "CI low",
    "CI high",
    "Improved",
    "Total",
]


def task_deltas(
    cells: CellTable,
    comparison: Comparison,
    metric: str,
    meta: dict[str, TaskMeta],
    models: Sequence[str] | None = None,
) -> list[TaskDelta]:
    """Paired deltas for every task with at least one model in both conditions."""
    base_schema = comparison.baseline_schema or comparison.schema_name
    result: list[TaskDelta] = []
    for task in cells.tasks():
        pairs: dict[str, tuple[float, float]] = {}
        for model in models or cells.models():
            low = cells.mean((task, comparison.baseline, base_schema, model), metric)
            high = cells.mean((task, comparison.treatment, comparison.schema_name, model), metric)
            if low is not None and high is not None:
                pairs[model] = (low, high)
        if pairs:
            info = meta[task]
            result.append(
                TaskDelta(
                    task=task,
                    family=info.family,
                    mode=info.mode,
                    database=info.database,
                    depth=info.depth,
                    pairs=pairs,
                )
            )
    return result


def improved_count(deltas: Sequence[float], lower_is_better: bool = False) -> int:
    sign = -1.0 if lower_is_better else 1.0
    return sum(1 for value in deltas if sign * value > TIE_TOLERANCE)


def summarize(
    deltas: Sequence[TaskDelta],
    comparison: str,
    metric: str,
    scope: str,
    reps: int,
    seed: int,
    lower_is_better: bool = False,
    permutation_reps: int = 0,
) -> Estimate:
    """Levels, mean delta, task-bootstrap interval and improved count of task deltas."""
    values = np.array([item.delta for item in deltas], dtype=np.float64)
    nan = float("nan")
    low, high = task_bootstrap(values, reps, seed) if values.size else (nan, nan)
    p_value = sign_flip_p(values, permutation_reps, seed) if permutation_reps else None
    return Estimate(
        comparison=comparison,
        metric=metric,
        scope=scope,
        tasks=len(deltas),
        baseline=float(np.mean([item.baseline for item in deltas])) if deltas else nan,
        treatment=float(np.mean([item.treatment for item in deltas])) if deltas else nan,
        delta=float(values.mean()) if values.size else nan,
        ci_low=low,
        ci_high=high,
        improved=improved_count(values.tolist(), lower_is_better),
        total=len(deltas),
        p_value=p_value,
    )


def per_model_and_balanced(
    deltas: Sequence[TaskDelta],
    comparison: str,
    metric: str,
    reps: int,
    seed: int,
    lower_is_better: bool = False,
    permutation_reps: int = 0,
) -> list[Estimate]:
    """One estimate per model (its own cells) and the task-balanced estimate last."""
    models = sorted({model for item in deltas for model in item.pairs})
    rows: list[Estimate] = []
    for model in models:
        own = [part for item in deltas if (part := item.for_model(model)) is not None]
        rows.append(summarize(own, comparison, metric, model, reps, seed, lower_is_better))
    rows.append(
        summarize(
            deltas,
            comparison,
            metric,
            TASK_BALANCED,
            reps,
            seed,
            lower_is_better,
            permutation_reps,
        )
    )
    return rows
