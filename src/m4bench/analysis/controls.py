"""Matched controls and the operational-spec follow-up."""

from __future__ import annotations

import numpy as np

from m4bench.analysis.bootstrap import task_bootstrap
from m4bench.analysis.cells import CellTable
from m4bench.analysis.estimands import (
    ESTIMATE_COLUMNS,
    Comparison,
    Estimate,
    summarize,
    task_deltas,
)
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import Table, Value
from m4bench.analysis.taskmeta import TaskMeta


def control_conditions(cells: CellTable, settings: AnalysisSettings) -> list[str]:
    """Conditions other than baseline, treatment and operational spec."""
    fixed = {settings.baseline, settings.treatment, settings.operational_spec}
    return [condition for condition in cells.conditions() if condition not in fixed]


def _triples(
    cells: CellTable, control: str, settings: AnalysisSettings
) -> dict[str, list[tuple[float, float, float]]]:
    """task -> per-model (baseline, treatment, control) reward means, all three present."""
    schema = settings.native_schema
    found: dict[str, list[tuple[float, float, float]]] = {}
    for task in cells.tasks():
        for model in cells.models():
            means = [
                cells.mean((task, condition, schema, model), "reward")
                for condition in (settings.baseline, settings.treatment, control)
            ]
            if all(value is not None for value in means):
                low, high, ctrl = (float(value or 0.0) for value in means)
                found.setdefault(task, []).append((low, high, ctrl))
    return found


def matched_controls_table(cells: CellTable, settings: AnalysisSettings) -> Table:
    """Each control against baseline and treatment on the tasks where it ran."""
    rows: list[list[Value]] = []
    for control in control_conditions(cells, settings):
        triples = _triples(cells, control, settings)
        if not triples:
            continue
        per_task = np.array([np.mean(values, axis=0) for values in triples.values()])
        base, targeted, ctrl = per_task.mean(axis=0)
        vs_targeted = per_task[:, 2] - per_task[:, 1]
        vs_base = per_task[:, 2] - per_task[:, 0]
        t_low, t_high = task_bootstrap(vs_targeted, settings.reps, settings.seed)
        b_low, b_high = task_bootstrap(vs_base, settings.reps, settings.seed)
        rows.append(
            [
                control,
                len(triples),
                float(base),
                float(targeted),
                float(ctrl),
                float(vs_targeted.mean()),
                t_low,
                t_high,
                float(vs_base.mean()),
                b_low,
                b_high,
            ]
        )
    return Table(
        name="matched_controls",
        title="Matched-context controls",
        caption=f"Controls compared with {settings.treatment} (targeted) and "
        f"{settings.baseline} on the tasks where each control ran, {settings.native_schema} "
        "schema only, after averaging models within task; 95% task-bootstrap intervals.",
        columns=[
            "Condition",
            "Tasks",
            "Baseline",
            "Targeted",
            "Control",
            "Control-targeted",
            "C-T CI low",
            "C-T CI high",
            "Control-baseline",
            "C-B CI low",
            "C-B CI high",
        ],
        rows=rows,
    )


def operational_spec_estimates(
    cells: CellTable, meta: dict[str, TaskMeta], settings: AnalysisSettings
) -> list[Estimate]:
    """Spec minus baseline and treatment minus spec, on tasks with spec runs."""
    spec = settings.operational_spec
    if spec not in cells.conditions():
        return []
    spec_tasks = {cell[0] for cell in cells.cells() if cell[1] == spec}
    subset = {task: info for task, info in meta.items() if task in spec_tasks}
    rows: list[Estimate] = []
    for comparison in (
        Comparison(settings.baseline, spec, settings.native_schema),
        Comparison(spec, settings.treatment, settings.native_schema),
    ):
        deltas = [d for d in task_deltas(cells, comparison, "reward", meta) if d.task in subset]
        if deltas:
            rows.append(
                summarize(
                    deltas, comparison.name, "reward", "task-balanced", settings.reps, settings.seed
                )
            )
    return rows


def operational_spec_table(estimates: list[Estimate]) -> Table:
    return Table(
        name="operational_spec",
        title="Operational-spec follow-up",
        caption="Task-balanced after averaging models within each task; 95% task-bootstrap "
        "intervals.",
        columns=["Comparison", *ESTIMATE_COLUMNS],
        rows=[[e.comparison, *e.values()] for e in estimates],
    )


def operational_spec_task_table(cells: CellTable, settings: AnalysisSettings) -> Table:
    """Per task with spec runs: baseline, spec and treatment levels and both deltas."""
    rows: list[list[Value]] = []
    for task, triples in _triples(cells, settings.operational_spec, settings).items():
        base, targeted, spec = (float(v) for v in np.mean(triples, axis=0))
        rows.append([task, base, spec, targeted, spec - base, targeted - spec])
    return Table(
        name="operational_spec_by_task",
        title="Operational spec by task",
        caption="Model-averaged reward per task with operational-spec runs.",
        columns=[
            "Task",
            "Baseline",
            "Operational spec",
            "Targeted",
            "Spec-baseline",
            "Targeted-spec",
        ],
        rows=rows,
    )
