"""The primary comparison (treatment vs baseline on the native schema) and its splits."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from m4bench.analysis.bootstrap import family_balanced, family_cluster_bootstrap, task_bootstrap
from m4bench.analysis.cells import CellTable
from m4bench.analysis.estimands import (
    ESTIMATE_COLUMNS,
    TASK_BALANCED,
    Comparison,
    Estimate,
    TaskDelta,
    per_model_and_balanced,
    task_deltas,
)
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import Table, Value
from m4bench.analysis.taskmeta import TaskMeta

HEADLINE_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("reward", "Reward", False),
    ("key_f1", "Key F1", False),
    ("ordered_value_nmae", "Ordered nMAE", True),
)


def primary_comparison(settings: AnalysisSettings) -> Comparison:
    return Comparison(settings.baseline, settings.treatment, settings.native_schema)


def headline_estimates(
    cells: CellTable, meta: dict[str, TaskMeta], settings: AnalysisSettings
) -> list[Estimate]:
    """Reward per model and task-balanced; key F1 and nMAE task-balanced."""
    comparison = primary_comparison(settings)
    rows: list[Estimate] = []
    for metric, _label, lower in HEADLINE_METRICS:
        deltas = task_deltas(cells, comparison, metric, meta)
        if not deltas:
            continue
        estimates = per_model_and_balanced(
            deltas,
            comparison.name,
            metric,
            settings.reps,
            settings.seed,
            lower,
            settings.permutation_reps if metric == "reward" else 0,
        )
        rows.extend(estimates if metric == "reward" else estimates[-1:])
    return rows


def _estimate_row(label: str, item: Estimate) -> list[Value]:
    return [
        label,
        item.scope,
        *item.values(),
    ]


def headline_table(estimates: Sequence[Estimate], settings: AnalysisSettings) -> Table:
    labels = {metric: label for metric, label, _ in HEADLINE_METRICS}
    rows = [_estimate_row(labels[item.metric], item) for item in estimates]
    return Table(
        name="headline",
        title="Skill effect and diagnostics",
        caption=(
            f"{settings.treatment} against {settings.baseline} on the "
            f"{settings.native_schema} schema. Intervals are 95% task-bootstrap "
            f"intervals ({settings.reps} replicates). Ordered nMAE is lower-is-better."
        ),
        columns=["Measure", "Scope", *ESTIMATE_COLUMNS],
        rows=rows,
    )


def split_estimates(
    deltas: Sequence[TaskDelta],
    key: Callable[[TaskDelta], str | int | None],
    comparison: str,
    settings: AnalysisSettings,
) -> list[tuple[str, Estimate]]:
    """Per-model and task-balanced estimates within each group of tasks."""
    groups = sorted({str(key(item)) for item in deltas})
    rows: list[tuple[str, Estimate]] = []
    for group in groups:
        members = [item for item in deltas if str(key(item)) == group]
        for estimate in per_model_and_balanced(
            members, comparison, "reward", settings.reps, settings.seed
        ):
            rows.append((group, estimate))
    return rows


def mode_table(deltas: Sequence[TaskDelta], settings: AnalysisSettings) -> Table:
    rows = split_estimates(deltas, lambda item: item.mode, "mode", settings)
    rows.sort(
        key=lambda pair: (pair[1].scope == TASK_BALANCED, pair[1].scope, pair[0] != "standard")
    )
    return Table(
        name="by_mode",
        title="Skill effect by task mode",
        caption="Task-paired reward deltas split by task mode; task-balanced rows average "
        "the models within each task first.",
        columns=["Scope", "Mode", "Tasks", "Delta", "CI low", "CI high", "Improved", "Total"],
        rows=[
            [e.scope, group, e.tasks, e.delta, e.ci_low, e.ci_high, e.improved, e.total]
            for group, e in rows
        ],
    )


def groups_table(deltas: Sequence[TaskDelta], settings: AnalysisSettings) -> Table:
    """Task-balanced and per-model deltas by family, dependency depth and database."""
    rows: list[list[Value]] = []
    splits: tuple[tuple[str, Callable[[TaskDelta], str | int | None]], ...] = (
        ("model", lambda item: "all"),
        ("family", lambda item: item.family),
        ("dependency depth", lambda item: item.depth),
        ("database", lambda item: item.database),
    )
    for kind, key in splits:
        for group, e in split_estimates(deltas, key, kind, settings):
            if kind != "model" and e.scope != TASK_BALANCED:
                continue
            rows.append(
                [
                    kind,
                    group,
                    e.scope,
                    *e.values(),
                ]
            )
    return Table(
        name="by_group",
        title="Skill effect by model, family, dependency depth and database",
        caption="Reward deltas within groups of tasks (95% task-bootstrap intervals).",
        columns=["Split", "Group", "Scope", *ESTIMATE_COLUMNS],
        rows=rows,
    )


def cluster_table(deltas: Sequence[TaskDelta], settings: AnalysisSettings) -> Table:
    values = np.array([item.delta for item in deltas])
    families = [item.family for item in deltas]
    n_families = len(set(families))
    reps, seed = settings.reps, settings.seed
    task_low, task_high = task_bootstrap(values, reps, seed)
    fam_low, fam_high = family_cluster_bootstrap(values, families, reps, seed)
    balanced, bal_low, bal_high = family_balanced(values, families, reps, seed)
    mean = float(values.mean()) if values.size else float("nan")
    return Table(
        name="cluster_sensitivity",
        title="Cluster sensitivity of the primary effect",
        caption="Task-cluster resamples tasks; family-cluster resamples whole families and "
        "pools their tasks; family-balanced averages family means and resamples them.",
        columns=["Analysis", "Units", "Delta", "CI low", "CI high"],
        rows=[
            ["Task-cluster bootstrap", f"{len(deltas)} tasks", mean, task_low, task_high],
            ["Family-cluster bootstrap", f"{n_families} families", mean, fam_low, fam_high],
            ["Family-balanced bootstrap", f"{n_families} families", balanced, bal_low, bal_high],
        ],
    )


def extremes_tables(deltas: Sequence[TaskDelta], settings: AnalysisSettings) -> list[Table]:
    ordered = sorted(deltas, key=lambda item: (-item.delta, item.task))
    models = sorted({model for item in deltas for model in item.pairs})

    def row(item: TaskDelta) -> list[Value]:
        per_model: list[Value] = [
            (item.pairs[m][1] - item.pairs[m][0]) if m in item.pairs else None for m in models
        ]
        return [item.task, item.mode, item.database, *per_model, item.delta]

    columns = ["Task", "Mode", "Database", *(f"Delta {m}" for m in models), "Mean delta"]
    declines = sorted(deltas, key=lambda item: (item.delta, item.task))
    return [
        Table(
            name="largest_gains",
            title="Largest skill gains",
            caption="Tasks with the largest model-averaged reward deltas.",
            columns=columns,
            rows=[row(item) for item in ordered[: settings.gains_shown]],
        ),
        Table(
            name="largest_declines",
            title="Largest declines or flat effects",
            caption="Tasks with the smallest model-averaged reward deltas.",
            columns=columns,
            rows=[row(item) for item in declines[: settings.declines_shown]],
        ),
    ]


def secondary_table(
    cells: CellTable, meta: dict[str, TaskMeta], settings: AnalysisSettings
) -> Table:
    comparison = primary_comparison(settings)
    by_metric = {
        metric: {item.task: item.delta for item in task_deltas(cells, comparison, metric, meta)}
        for metric in ("reward", "key_f1", "ordered_value_nmae")
    }
    ordered: dict[str, int] = {}
    for run in cells.all_runs():
        if run.ordered_value_columns is not None:
            ordered[run.task] = max(ordered.get(run.task, 0), run.ordered_value_columns)
    rows: list[list[Value]] = []
    for task in sorted(by_metric["reward"]):
        rows.append(
            [
                task,
                by_metric["reward"][task],
                by_metric["key_f1"].get(task),
                by_metric["ordered_value_nmae"].get(task),
                ordered.get(task),
            ]
        )
    return Table(
        name="secondary_by_task",
        title="Per-task secondary diagnostics",
        caption="Model-averaged deltas per task; negative nMAE deltas are improvements.",
        columns=["Task", "Reward delta", "Key F1 delta", "nMAE delta", "Ordered cols"],
        rows=rows,
    )
