"""Transformed schemas: the schema probe and the schema-skill effect (the paper's Table 23).

Runs on a transformed schema (``obfuscated``, ``restructured``) are never pooled with
native runs. Two estimands read them, each per model and task-balanced, with the same
task bootstrap and sign-flip permutation as every other estimand:

* the **schema probe**: the baseline condition's reward, native against each transformed
  schema, paired by task and model (how much the schema alone costs);
* the **schema-skill effect**: per schema, treatment minus baseline on that schema, on
  the tasks every schema with such pairs has, and its ratio to the native delta.

What the runs do not support is named as a ``needs: <which runs>`` line.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from m4bench.analysis.cells import CellTable
from m4bench.analysis.estimands import (
    ESTIMATE_COLUMNS,
    TASK_BALANCED,
    Comparison,
    Estimate,
    TaskDelta,
    per_model_and_balanced,
    summarize,
    task_deltas,
)
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import Table, Value
from m4bench.analysis.taskmeta import TaskMeta
from m4bench.results.identity import SCHEMAS

TRANSFORMED: tuple[str, ...] = tuple(schema for schema in SCHEMAS if schema != "native")
"""The transformed schemas m4bench provisions, in the paper's order."""


class SchemaSkill(BaseModel):
    """One schema's skill effect and its ratio to the native effect (same tasks)."""

    schema_name: str
    estimate: Estimate
    ratio: float | None


class SchemaAnalysis(BaseModel):
    """The schema probe and schema-skill estimands of one agent, with their tables."""

    probe: list[Estimate]
    probe_levels: dict[str, dict[str, float]]
    """task -> schema -> model-averaged baseline-condition reward (tasks with a probe)."""
    skill: list[SchemaSkill]
    needs: list[str]
    tables: list[Table]


def probe_label(settings: AnalysisSettings, schema: str) -> str:
    return f"{settings.baseline}: {schema} vs {settings.native_schema}"


def _probe_deltas(
    cells: CellTable, meta: dict[str, TaskMeta], settings: AnalysisSettings, schema: str
) -> list[TaskDelta]:
    comparison = Comparison(
        settings.baseline, settings.baseline, schema, baseline_schema=settings.native_schema
    )
    return task_deltas(cells, comparison, "reward", meta)


def probe_estimates(
    cells: CellTable, meta: dict[str, TaskMeta], settings: AnalysisSettings
) -> tuple[list[Estimate], dict[str, list[TaskDelta]]]:
    """Per transformed schema: per-model and task-balanced native -> schema estimates."""
    estimates: list[Estimate] = []
    found: dict[str, list[TaskDelta]] = {}
    for schema in _transformed(cells, settings):
        deltas = _probe_deltas(cells, meta, settings, schema)
        if deltas:
            found[schema] = deltas
            estimates.extend(
                per_model_and_balanced(
                    deltas,
                    probe_label(settings, schema),
                    "reward",
                    settings.reps,
                    settings.seed,
                    permutation_reps=settings.permutation_reps,
                )
            )
    return estimates, found


def _transformed(cells: CellTable, settings: AnalysisSettings) -> list[str]:
    """Transformed schemas in the paper's order, then any other the runs name."""
    present = [s for s in cells.schemas() if s != settings.native_schema]
    return [s for s in TRANSFORMED if s in present] + [s for s in present if s not in TRANSFORMED]


def probe_levels(
    cells: CellTable, found: dict[str, list[TaskDelta]], settings: AnalysisSettings
) -> dict[str, dict[str, float]]:
    """Per task with a probe: the model-averaged baseline reward on each schema it has."""
    levels: dict[str, dict[str, float]] = {}
    tasks = sorted({item.task for deltas in found.values() for item in deltas})
    for task in tasks:
        for schema in [settings.native_schema, *found]:
            means = [
                cells.mean((task, settings.baseline, schema, model), "reward")
                for model in cells.models()
            ]
            present = [value for value in means if value is not None]
            if present:
                levels.setdefault(task, {})[schema] = sum(present) / len(present)
    return levels


def skill_estimates(
    cells: CellTable, meta: dict[str, TaskMeta], settings: AnalysisSettings
) -> list[SchemaSkill]:
    """Per schema with treatment/baseline pairs (native first), on the tasks all of them
    share: per-model rows (that model's shared tasks) and the task-balanced row."""
    by_schema: dict[str, list[TaskDelta]] = {}
    for schema in [settings.native_schema, *_transformed(cells, settings)]:
        comparison = Comparison(settings.baseline, settings.treatment, schema)
        deltas = task_deltas(cells, comparison, "reward", meta)
        if deltas:
            by_schema[schema] = deltas
    if settings.native_schema not in by_schema:
        return []
    rows: list[SchemaSkill] = []
    for model in [*cells.models(), TASK_BALANCED]:
        rows.extend(_skill_rows(by_schema, model, settings))
    return rows


def _skill_rows(
    by_schema: dict[str, list[TaskDelta]], scope: str, settings: AnalysisSettings
) -> list[SchemaSkill]:
    """One scope's rows (a model, or task-balanced): each schema on the shared tasks."""
    own: dict[str, dict[str, TaskDelta]] = {}
    for schema, deltas in by_schema.items():
        chosen = deltas if scope == TASK_BALANCED else [d.for_model(scope) for d in deltas]
        own[schema] = {d.task: d for d in chosen if d is not None}
    common = sorted(set.intersection(*(set(found) for found in own.values())))
    if not common:
        return []
    rows: list[SchemaSkill] = []
    native: float | None = None
    for schema, found in own.items():
        name = Comparison(settings.baseline, settings.treatment, schema).name
        chosen = [found[task] for task in common]
        estimate = summarize(
            chosen,
            name,
            "reward",
            scope,
            settings.reps,
            settings.seed,
            permutation_reps=settings.permutation_reps if scope == TASK_BALANCED else 0,
        )
        native = estimate.delta if native is None else native
        ratio = estimate.delta / native if native else None
        rows.append(SchemaSkill(schema_name=schema, estimate=estimate, ratio=ratio))
    return rows


def schema_needs(
    cells: CellTable,
    found: dict[str, list[TaskDelta]],
    skill: Sequence[SchemaSkill],
    settings: AnalysisSettings,
) -> list[str]:
    """A ``needs:`` line for every part of the two estimands the runs do not support."""
    base, treat = settings.baseline, settings.treatment
    lines: list[str] = []
    skilled = {row.schema_name for row in skill}
    for schema in [
        *TRANSFORMED,
        *(s for s in _transformed(cells, settings) if s not in TRANSFORMED),
    ]:
        if schema not in found:
            lines.append(
                f"schema probe ({schema}): needs '{base}' runs on the {schema} schema of tasks "
                f"that have '{base}' runs on the {settings.native_schema} schema"
            )
        if schema not in skilled:
            lines.append(
                f"schema-skill effect ({schema}): needs '{base}' and '{treat}' runs on the "
                f"{schema} schema of tasks that have both on the {settings.native_schema} schema"
            )
    return lines


def schema_analysis(
    cells: CellTable, meta: dict[str, TaskMeta], settings: AnalysisSettings
) -> SchemaAnalysis:
    """Both schema estimands of one agent's cells, their tables and what they lack."""
    probe, found = probe_estimates(cells, meta, settings)
    skill = skill_estimates(cells, meta, settings)
    needs = schema_needs(cells, found, skill, settings)
    return SchemaAnalysis(
        probe=probe,
        probe_levels=probe_levels(cells, found, settings),
        skill=skill,
        needs=needs,
        tables=[
            probe_table(probe, settings, needs),
            probe_task_table(found, settings),
            skill_table(skill, settings, needs),
        ],
    )


def _needs_text(needs: Sequence[str], part: str) -> str:
    own = [line for line in needs if line.startswith(part)]
    return (" Not shown — " + "; ".join(own) + ".") if own else ""


def probe_table(
    estimates: Sequence[Estimate], settings: AnalysisSettings, needs: list[str]
) -> Table:
    rows: list[list[Value]] = [[e.comparison, e.scope, *e.values(), e.p_value] for e in estimates]
    return Table(
        name="schema_probe",
        title="Schema probe: baseline reward on transformed schemas",
        caption=f"'{settings.baseline}' reward on the {settings.native_schema} schema "
        "(Baseline) against each transformed schema (Treatment), paired by task and model; "
        "task-balanced rows average the models within each task first; 95% task-bootstrap "
        "intervals, two-sided sign-flip p. Improved: tasks whose reward rose on the "
        "transformed schema." + _needs_text(needs, "schema probe"),
        columns=["Comparison", "Scope", *ESTIMATE_COLUMNS, "p"],
        rows=rows,
    )


def probe_task_table(found: dict[str, list[TaskDelta]], settings: AnalysisSettings) -> Table:
    rows: list[list[Value]] = []
    for schema, deltas in found.items():
        for item in deltas:
            models = ", ".join(sorted(item.pairs))
            rows.append([item.task, schema, models, item.baseline, item.treatment, item.delta])
    return Table(
        name="schema_probe_by_task",
        title="Schema probe by task",
        caption=f"Per task and transformed schema: the '{settings.baseline}' reward on the "
        f"{settings.native_schema} schema and on the transformed one, averaged over the "
        "models that ran both."
        + ("" if rows else " Empty: no task has baseline runs on a transformed schema."),
        columns=["Task", "Schema", "Models", "Native", "Transformed", "Delta"],
        rows=rows,
    )


def skill_table(rows: Sequence[SchemaSkill], settings: AnalysisSettings, needs: list[str]) -> Table:
    empty = (
        ""
        if rows
        else f" Empty: needs '{settings.baseline}' and '{settings.treatment}' runs of a model "
        f"on the {settings.native_schema} schema and on a transformed schema for the same tasks."
    )
    return Table(
        name="schema_robustness",
        title="Skill effect across schema variants",
        caption=f"{settings.treatment} against {settings.baseline} on each schema, per model "
        "and task-balanced, on the tasks every listed schema shares (per model: the tasks "
        "that model shares); robustness ratio = schema delta / native delta."
        + empty
        + _needs_text(needs, "schema-skill"),
        columns=["Scope", "Schema", *ESTIMATE_COLUMNS, "Robustness ratio"],
        rows=[[r.estimate.scope, r.schema_name, *r.estimate.values(), r.ratio] for r in rows],
    )
