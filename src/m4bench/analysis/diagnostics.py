"""Key diagnostics, strict passes, resources and campaign integrity."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from m4bench.analysis.cells import Cell, CellTable
from m4bench.analysis.runs import RunRow
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import Table, Value


def _mean(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return float(np.mean(present)) if present else None


def key_table(cells: CellTable, settings: AnalysisSettings) -> Table:
    """Per condition: cell-mean key F1 / precision and summed extra keys; worst cells."""
    conditions = (settings.baseline, settings.treatment)
    chosen = [
        cell
        for cell in cells.cells()
        if cell[1] in conditions and cell[2] == settings.native_schema
    ]
    rows: list[list[Value]] = []
    for condition in conditions:
        own = [cell for cell in chosen if cell[1] == condition]
        rows.append(
            [
                condition,
                len(own),
                _mean([cells.mean(c, "key_f1") for c in own]),
                _mean([cells.mean(c, "key_precision") for c in own]),
                _mean([cells.mean(c, "key_recall") for c in own]),
                sum(cells.total(c, "extra_keys") for c in own),
            ]
        )
    worst = sorted(chosen, key=lambda c: (-cells.total(c, "extra_keys"), c))
    for cell in worst[: settings.worst_key_cells]:
        rows.append(
            [
                f"{cell[0]} / {cell[1]} / {cell[3]}",
                len(cells.runs(cell)),
                cells.mean(cell, "key_f1"),
                cells.mean(cell, "key_precision"),
                cells.mean(cell, "key_recall"),
                cells.total(cell, "extra_keys"),
            ]
        )
    return Table(
        name="key_diagnostics",
        title="Key diagnostics",
        caption=f"Runs on the {settings.native_schema} schema only. First rows summarize the "
        "baseline and treatment cells (N = cells); the rest are the cells with the most "
        "extra keys (N = runs). Means of cell means.",
        columns=["Condition or cell", "N", "Key F1", "Key precision", "Key recall", "Extra keys"],
        rows=rows,
    )


def strict_pass_table(cells: CellTable) -> Table:
    """Strict passes by condition, schema and model (schemas never pooled), and overall."""
    rows: list[list[Value]] = []
    for condition in cells.conditions():
        for schema in cells.schemas():
            for model in cells.models():
                runs = [
                    run
                    for cell in cells.cells()
                    if cell[1:] == (condition, schema, model)
                    for run in cells.runs(cell)
                ]
                if runs:
                    passes = sum(run.strict_pass for run in runs)
                    rows.append([condition, schema, model, len(runs), passes, passes / len(runs)])
    runs = cells.all_runs()
    passes = sum(run.strict_pass for run in runs)
    rows.append(["all", "all", "all", len(runs), passes, passes / len(runs) if runs else None])
    return Table(
        name="strict_passes",
        title="Strict passes",
        caption="Runs with no failed and no errored check, by condition, schema and model; "
        "the last row counts every run of every schema.",
        columns=["Condition", "Schema", "Model", "Runs", "Strict passes", "Share"],
        rows=rows,
    )


_RESOURCE_FIELDS = (
    "elapsed_seconds",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "cost_usd",
)


def _agent_hours(runs: Sequence[RunRow]) -> tuple[float | None, int]:
    """Summed wall-clock in hours, runs without one filled with the mean of those with
    one; and how many runs were filled that way (imputed)."""
    timed = [run.elapsed_seconds for run in runs if run.elapsed_seconds is not None]
    if not timed:
        return None, 0
    missing = len(runs) - len(timed)
    mean = sum(timed) / len(timed)
    return (sum(timed) + mean * missing) / 3600, missing


def resources_table(cells: CellTable, settings: AnalysisSettings) -> Table:
    """Per condition and schema: mean wall-clock, tokens and cost per run, agent hours
    (marked where imputed) and deltas to the baseline condition on the same schema."""
    means: dict[tuple[str, str], list[float | None]] = {}
    runs_of: dict[tuple[str, str], list[RunRow]] = {}
    for condition in cells.conditions():
        for schema in cells.schemas():
            own: list[Cell] = [c for c in cells.cells() if c[1:3] == (condition, schema)]
            runs = [run for cell in own for run in cells.runs(cell)]
            if runs:
                runs_of[(condition, schema)] = runs
                means[(condition, schema)] = [
                    _mean([_field(run, name) for run in runs]) for name in _RESOURCE_FIELDS
                ]
    rows: list[list[Value]] = []
    for (condition, schema), values in means.items():
        base = means.get((settings.baseline, schema))
        hours, imputed = _agent_hours(runs_of[(condition, schema)])
        deltas: list[Value] = [
            _difference(value, base[i] if base else None) for i, value in enumerate(values)
        ]
        rows.append(
            [condition, schema, len(runs_of[(condition, schema)]), hours, imputed, *values, *deltas]
        )
    names = ["wall-clock s", "input tokens", "cached tokens", "output tokens", "cost USD"]
    return Table(
        name="resources",
        title="Cost, tokens and wall-clock",
        caption=f"Means per run by condition and schema; deltas are against {settings.baseline} "
        "on the same schema. Agent hours sum the runs' wall-clock; 'Hours imputed' counts "
        "the runs without a wall-clock whose hours were filled with the mean of the others "
        "(0: none imputed). Empty cells: the runs did not record that quantity.",
        columns=[
            "Condition",
            "Schema",
            "Runs",
            "Agent hours",
            "Hours imputed",
            *(f"Mean {n}" for n in names),
            *(f"Delta {n}" for n in names),
        ],
        rows=rows,
        digits=1,
    )


def _difference(value: float | None, reference: float | None) -> float | None:
    return None if value is None or reference is None else value - reference


def _field(run: RunRow, name: str) -> float | None:
    value = getattr(run, name)
    return None if value is None else float(value)


def integrity_counts(
    loaded: Sequence[RunRow],
    analysed: Sequence[RunRow],
    cells: int,
    planned: Sequence[str] | None = None,
) -> list[tuple[str, int]]:
    """Audit counts over every loaded run (published or not); ``analysed``: the runs the
    estimands use, in ``cells`` (agent, model, task, condition, schema) cells; with the
    ``planned`` run ids of a campaign, how many were planned and how many have no result."""
    ids = [run.run_id for run in loaded]
    trials = [(run.agent, *run.cell, run.trial) for run in loaded]
    plan: list[tuple[str, int]] = []
    simulated = sum(run.simulated for run in loaded)
    if simulated:
        plan.append(("Simulated runs (no agent ran)", simulated))
    if planned is not None:
        plan += [
            ("Runs planned", len(set(planned))),
            ("Planned runs without a result", len(set(planned) - set(ids))),
        ]
    return [
        *plan,
        ("Runs loaded", len(loaded)),
        ("Runs analysed", len(analysed)),
        ("Runs excluded from estimands", len(loaded) - len(analysed)),
        ("Task/condition/schema/model cells", cells),
        ("Publishable flag failures", sum(not run.publishable for run in loaded)),
        ("Isolation flag failures", sum(run.isolated is False for run in loaded)),
        ("Filesystem canary failures", sum(run.filesystem_canary is False for run in loaded)),
        ("Contamination lint failures", sum(run.contamination_lint is False for run in loaded)),
        ("Nonzero agent exits", sum(run.agent_returncode not in (None, 0) for run in loaded)),
        ("Recorded failure reasons", sum(bool(run.failure_reason) for run in loaded)),
        ("Missing rewards", sum(run.reward is None for run in loaded)),
        ("Duplicate run ids", len(ids) - len(set(ids))),
        ("Repeated cell trials", len(trials) - len(set(trials))),
        ("Tasks scored against several ground truths", tasks_with_several_truths(loaded)),
        ("Strict passes", sum(run.strict_pass for run in loaded)),
        ("Diagnostics failed", sum(bool(run.diagnostics_failed) for run in loaded)),
    ]


def tasks_with_several_truths(loaded: Sequence[RunRow]) -> int:
    """Tasks whose runs name more than one ground truth (it was rebuilt between runs)."""
    truths: dict[str, set[str]] = {}
    for run in loaded:
        if run.truth_sha256 is not None:
            truths.setdefault(run.task, set()).add(run.truth_sha256)
    return sum(len(shas) > 1 for shas in truths.values())


def integrity_table(counts: Sequence[tuple[str, int]], include_unpublishable: bool) -> Table:
    caption = "Audit counts over every loaded run; " + (
        "unpublishable runs are included in the estimands (--include-unpublishable)."
        if include_unpublishable
        else "unpublishable runs are excluded from the estimands."
    )
    return Table(
        name="integrity",
        title="Integrity checks",
        caption=caption,
        columns=["Audit quantity", "Count"],
        rows=[[name, value] for name, value in counts],
    )
