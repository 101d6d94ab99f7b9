"""Arms side by side: one row per (agent, model) arm, and the per-agent tables joined.

An arm is one agent with one model. The headline compares arms; it never averages two
agents. The task-balanced row of an agent with several models is the paper's estimand
(the agent's models averaged within each task), shown under that agent only.
"""

from __future__ import annotations

from collections.abc import Sequence

from m4bench.analysis.bootstrap import p_text
from m4bench.analysis.estimands import ESTIMATE_COLUMNS, TASK_BALANCED, Estimate
from m4bench.analysis.group import GroupResult
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import Table, Value


def _reward(group: GroupResult, scope: str) -> Estimate | None:
    return next(
        (e for e in group.headline if e.metric == "reward" and e.scope == scope),
        None,
    )


def _arm_row(group: GroupResult, scope: str, runs: int, settings: AnalysisSettings) -> list[Value]:
    found = _reward(group, scope)
    values: list[Value] = list(found.values()) if found else [None] * len(ESTIMATE_COLUMNS)
    # one model: its deltas are the task-balanced ones, whose row carries the p
    tested = _reward(group, TASK_BALANCED) if len(group.models) == 1 else found
    p = p_text(tested.p_value, settings.permutation_reps) if tested else ""
    return [group.agent or "(unnamed)", scope, ", ".join(group.inputs), runs, *values, p]


def arms_table(groups: Sequence[GroupResult], settings: AnalysisSettings) -> Table:
    """The primary reward effect of every arm, and of each multi-model agent's models
    averaged within task."""
    rows: list[list[Value]] = []
    for group in groups:
        for model in group.models:
            rows.append(_arm_row(group, model, group.model_runs.get(model, 0), settings))
        if len(group.models) > 1:
            rows.append(_arm_row(group, TASK_BALANCED, group.runs, settings))
    lacking = [group.agent for group in groups if not group.headline]
    note = (
        f" Empty rows: the agent has no '{settings.baseline}'/'{settings.treatment}' pair on "
        f"the {settings.native_schema} schema ({', '.join(lacking)})."
        if lacking
        else ""
    )
    return Table(
        name="arms",
        title="Arms side by side",
        caption=f"{settings.treatment} against {settings.baseline} on the "
        f"{settings.native_schema} schema for each (agent, model) arm, from the inputs named; "
        "agents are never pooled. Runs: every analysed run of the arm (any condition and "
        "schema). A task-balanced row averages one agent's models within "
        f"each task. 95% task-bootstrap intervals ({settings.reps} replicates); sign-flip p "
        f"({settings.permutation_reps} replicates).{note}",
        columns=["Agent", "Model", "Inputs", "Runs", *ESTIMATE_COLUMNS, "p"],
        rows=rows,
    )


def _columns(tables: Sequence[Table]) -> list[str]:
    found: list[str] = []
    for table in tables:
        found.extend(column for column in table.columns if column not in found)
    return found


def _caption(owned: Sequence[tuple[str, Table]]) -> str:
    captions = [table.caption for _, table in owned]
    if len(set(captions)) == 1:
        return captions[0]
    return " ".join(f"[{agent}] {table.caption}" for agent, table in owned)


def merge_group_tables(groups: Sequence[GroupResult]) -> list[Table]:
    """Each group's tables as they are for one agent; for several, one table per name
    with a leading Agent column (columns one agent lacks stay empty)."""
    if len(groups) == 1:
        return list(groups[0].tables)
    names: list[str] = []
    for group in groups:
        names.extend(table.name for table in group.tables if table.name not in names)
    merged: list[Table] = []
    for name in names:
        owned = [
            (group.agent, table) for group in groups for table in group.tables if table.name == name
        ]
        columns = _columns([table for _, table in owned])
        rows: list[list[Value]] = [
            [agent, *(dict(zip(table.columns, row, strict=True)).get(c) for c in columns)]
            for agent, table in owned
            for row in table.rows
        ]
        first = owned[0][1]
        merged.append(
            first.model_copy(
                update={
                    "caption": _caption(owned) + " Rows per agent, never pooled.",
                    "columns": ["Agent", *columns],
                    "rows": rows,
                }
            )
        )
    return merged
