"""One agent's analysis: every estimand and table over that agent's runs alone.

Runs of different agents are never pooled: the pipeline splits the runs by agent and
analyses each group here. Within a group, per-model rows use one (agent, model) arm's
cells; the task-balanced row is the paper's estimand, the mean over the agent's models
within each task (the paper's two Codex models).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from m4bench.analysis.bootstrap import within_task_interval
from m4bench.analysis.cells import CellTable
from m4bench.analysis.controls import (
    control_conditions,
    matched_controls_table,
    operational_spec_estimates,
    operational_spec_table,
    operational_spec_task_table,
)
from m4bench.analysis.diagnostics import key_table, resources_table, strict_pass_table
from m4bench.analysis.estimands import (
    Comparison,
    Estimate,
    TaskDelta,
    per_model_and_balanced,
    task_deltas,
)
from m4bench.analysis.primary import (
    cluster_table,
    extremes_tables,
    groups_table,
    headline_estimates,
    headline_table,
    mode_table,
    primary_comparison,
    secondary_table,
)
from m4bench.analysis.schema import SchemaAnalysis, schema_analysis
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import Table, Value
from m4bench.analysis.taskmeta import TaskMeta


class TaskInterval(BaseModel):
    task: str
    ci_low: float
    ci_high: float
    agent: str = ""


class GroupResult(BaseModel):
    """One agent's estimands and tables; ``inputs`` name where its runs came from."""

    agent: str
    inputs: list[str]
    models: list[str]
    runs: int
    model_runs: dict[str, int]
    headline: list[Estimate]
    comparisons: list[Estimate]
    task_deltas: list[TaskDelta]
    task_intervals: list[TaskInterval]
    tables: list[Table]
    cell_rewards: dict[str, dict[str, float]]  # task -> condition -> model-averaged mean
    schemas: SchemaAnalysis
    needs: list[str]
    """What runs the parts this group lacks would need (e.g. the primary comparison)."""

    def table(self, name: str) -> Table:
        for table in self.tables:
            if table.name == name:
                return table
        raise KeyError(name)


def cells_table(cells: CellTable) -> Table:
    """One row per cell: runs, reward statistics, strict passes, key F1."""
    rows: list[list[Value]] = []
    for cell in cells.cells():
        rewards = cells.values(cell, "reward")
        spread = float(np.std(rewards, ddof=1)) if len(rewards) > 1 else None
        rows.append(
            [
                *cell,
                len(cells.runs(cell)),
                cells.mean(cell, "reward"),
                spread,
                min(rewards),
                max(rewards),
                sum(run.strict_pass for run in cells.runs(cell)),
                cells.mean(cell, "key_f1"),
            ]
        )
    return Table(
        name="cells",
        title="Cells",
        caption="Every task/condition/schema/model cell: runs, reward mean, standard "
        "deviation, minimum and maximum, strict passes and mean key F1.",
        columns=[
            "Task",
            "Condition",
            "Schema",
            "Model",
            "Runs",
            "Mean reward",
            "SD",
            "Min",
            "Max",
            "Strict passes",
            "Key F1",
        ],
        rows=rows,
    )


def _comparisons(cells: CellTable, settings: AnalysisSettings) -> list[Comparison]:
    found = [primary_comparison(settings)]
    for control in control_conditions(cells, settings):
        found.append(Comparison(settings.baseline, control, settings.native_schema))
        found.append(Comparison(settings.treatment, control, settings.native_schema))
    if settings.operational_spec in cells.conditions():
        spec = settings.operational_spec
        found.append(Comparison(settings.baseline, spec, settings.native_schema))
        found.append(Comparison(spec, settings.treatment, settings.native_schema))
    for schema in cells.schemas():
        if schema != settings.native_schema:
            found.append(Comparison(settings.baseline, settings.treatment, schema))
    return found


def comparison_estimates(
    cells: CellTable, meta: dict[str, TaskMeta], settings: AnalysisSettings
) -> list[Estimate]:
    """Per-model and task-balanced reward estimates for every comparison the data allow."""
    rows: list[Estimate] = []
    for comparison in _comparisons(cells, settings):
        deltas = task_deltas(cells, comparison, "reward", meta)
        if deltas:
            rows.extend(
                per_model_and_balanced(
                    deltas,
                    comparison.name,
                    "reward",
                    settings.reps,
                    settings.seed,
                    permutation_reps=settings.permutation_reps,
                )
            )
    return rows


def _task_intervals(
    cells: CellTable, deltas: Sequence[TaskDelta], settings: AnalysisSettings
) -> list[TaskInterval]:
    comparison = primary_comparison(settings)
    schema = comparison.schema_name
    found: list[TaskInterval] = []
    for index, item in enumerate(deltas):
        pairs = [
            (
                cells.values((item.task, comparison.baseline, schema, model), "reward"),
                cells.values((item.task, comparison.treatment, schema, model), "reward"),
            )
            for model in item.pairs
        ]
        low, high = within_task_interval(pairs, settings.reps, settings.seed, index)
        found.append(TaskInterval(task=item.task, ci_low=low, ci_high=high))
    return found


def _cell_rewards(cells: CellTable, schema: str) -> dict[str, dict[str, float]]:
    result: dict[str, dict[str, float]] = {}
    for task in cells.tasks():
        for condition in cells.conditions():
            means = [cells.mean((task, condition, schema, m), "reward") for m in cells.models()]
            present = [value for value in means if value is not None]
            if present:
                result.setdefault(task, {})[condition] = sum(present) / len(present)
    return result


def task_table(
    result_cells: dict[str, dict[str, float]],
    meta: dict[str, TaskMeta],
    deltas: Sequence[TaskDelta],
    conditions: Sequence[str],
) -> Table:
    by_task = {item.task: item for item in deltas}
    rows: list[list[Value]] = []
    for task, levels in result_cells.items():
        info = meta[task]
        delta = by_task[task].delta if task in by_task else None
        rows.append(
            [
                task,
                info.family,
                info.mode,
                info.database,
                info.depth,
                *(levels.get(condition) for condition in conditions),
                delta,
            ]
        )
    return Table(
        name="per_task",
        title="Per-task mean reward by condition",
        caption="Model-averaged cell means on the native schema; delta is the primary "
        "treatment-minus-baseline difference.",
        columns=["Task", "Family", "Mode", "Database", "Depth", *conditions, "Delta"],
        rows=rows,
    )


def _primary_tables(
    cells: CellTable,
    meta: dict[str, TaskMeta],
    settings: AnalysisSettings,
    primary: Sequence[TaskDelta],
    headline: Sequence[Estimate],
) -> list[Table]:
    """The tables of the primary comparison; none when the group has no such pair."""
    if not primary:
        return []
    spec = operational_spec_estimates(cells, meta, settings)
    return [
        headline_table(headline, settings),
        mode_table(primary, settings),
        cluster_table(primary, settings),
        *extremes_tables(primary, settings),
        groups_table(primary, settings),
        secondary_table(cells, meta, settings),
        key_table(cells, settings),
        matched_controls_table(cells, settings),
        *(
            [operational_spec_table(spec), operational_spec_task_table(cells, settings)]
            if spec
            else []
        ),
    ]


def primary_need(settings: AnalysisSettings) -> str:
    return (
        f"needs: '{settings.baseline}' and '{settings.treatment}' runs of one model on the "
        f"same task, '{settings.native_schema}' schema (the primary skill effect)"
    )


def analyze_group(
    agent: str,
    cells: CellTable,
    meta: dict[str, TaskMeta],
    settings: AnalysisSettings,
    inputs: Sequence[str],
) -> GroupResult:
    """Every estimand and table of one agent's runs (``cells`` holds only that agent's)."""
    primary = task_deltas(cells, primary_comparison(settings), "reward", meta)
    headline = headline_estimates(cells, meta, settings) if primary else []
    rewards = _cell_rewards(cells, settings.native_schema)
    schema = schema_analysis(cells, meta, settings)
    tables = [
        *_primary_tables(cells, meta, settings, primary, headline),
        *schema.tables,
        strict_pass_table(cells),
        resources_table(cells, settings),
        task_table(rewards, meta, primary, cells.conditions()),
        cells_table(cells),
    ]
    intervals = _task_intervals(cells, primary, settings)
    return GroupResult(
        agent=agent,
        inputs=list(inputs),
        models=cells.models(),
        runs=len(cells.all_runs()),
        model_runs={
            model: sum(len(cells.runs(c)) for c in cells.cells() if c[3] == model)
            for model in cells.models()
        },
        headline=[item.model_copy(update={"agent": agent}) for item in headline],
        comparisons=[
            item.model_copy(update={"agent": agent})
            for item in comparison_estimates(cells, meta, settings)
        ],
        task_deltas=[item.model_copy(update={"agent": agent}) for item in primary],
        task_intervals=[item.model_copy(update={"agent": agent}) for item in intervals],
        tables=tables,
        cell_rewards=rewards,
        schemas=schema,
        needs=[] if primary else [primary_need(settings)],
    )
