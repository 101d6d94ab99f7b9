"""One analysis: from the runs of one or more inputs to estimates and tables (no file
output here).

Runs are grouped by agent and each group is analysed alone (:mod:`m4bench.analysis.group`):
no estimate pools two agents. Rows of several inputs (a campaign and its follow-up, a
released CSV) are joined first; an arm, an (agent, model) pair, names the inputs its
runs came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel

from m4bench.analysis.arms import arms_table, merge_group_tables
from m4bench.analysis.cells import CellTable
from m4bench.analysis.diagnostics import integrity_counts, integrity_table
from m4bench.analysis.estimands import Estimate, TaskDelta
from m4bench.analysis.group import GroupResult, TaskInterval, analyze_group
from m4bench.analysis.runs import RunRow
from m4bench.analysis.settings import AnalysisSettings
from m4bench.analysis.tables import Table
from m4bench.analysis.taskmeta import TaskMeta, resolve_task_meta
from m4bench.errors import M4BenchError

__all__ = ["AnalysisResult", "LoadedInput", "TaskInterval", "analyze_inputs", "analyze_runs"]


@dataclass(frozen=True)
class LoadedInput:
    """The runs of one input, the name the report gives it, and (for a campaign's
    folder) the run ids its campaign planned."""

    label: str
    runs: list[RunRow]
    planned: list[str] | None = field(default=None)


class AnalysisResult(BaseModel):
    """Everything the writers, figures and report need.

    ``groups`` holds one result per agent; ``headline``, ``comparisons``, ``task_deltas``
    and ``task_intervals`` list every group's, each item naming its agent."""

    settings: AnalysisSettings
    source: str
    inputs: list[str]
    groups: list[GroupResult]
    headline: list[Estimate]
    comparisons: list[Estimate]
    task_deltas: list[TaskDelta]
    task_intervals: list[TaskInterval]
    meta: dict[str, TaskMeta]
    integrity: list[tuple[str, int]]
    tables: list[Table]

    def table(self, name: str) -> Table:
        for table in self.tables:
            if table.name == name:
                return table
        raise KeyError(name)


def join_inputs(inputs: Sequence[LoadedInput]) -> tuple[list[RunRow], dict[str, str]]:
    """Every input's runs, and the input of each run id. A run id in two inputs is an
    error naming both, unless both hold the same row (one record copied twice)."""
    rows: list[RunRow] = []
    origin: dict[str, str] = {}
    first: dict[str, RunRow] = {}
    for item in inputs:
        for run in item.runs:
            other = origin.get(run.run_id)
            if other is not None and other != item.label:
                if first[run.run_id] == run:
                    continue
                raise M4BenchError(
                    f"run {run.run_id} is in {other} and in {item.label} with different records",
                    hint="each run belongs to one input: remove one copy, or analyse the "
                    "inputs separately",
                )
            origin[run.run_id] = item.label
            first.setdefault(run.run_id, run)
            rows.append(run)
    return rows, origin


def _nothing_to_analyse(runs: Sequence[RunRow], source: str) -> M4BenchError:
    simulated = all(run.simulated for run in runs)
    why = "every run is simulated (campaign run --simulate: no agent ran); " if simulated else ""
    return M4BenchError(
        f"{source}: no publishable runs with a reward to analyse",
        hint=f"{why}check the runs' publishable flags, or pass --include-unpublishable",
    )


def _planned(inputs: Sequence[LoadedInput]) -> list[str] | None:
    lists = [item.planned for item in inputs if item.planned is not None]
    return [run_id for planned in lists for run_id in planned] if lists else None


def analyze_inputs(inputs: Sequence[LoadedInput], settings: AnalysisSettings) -> AnalysisResult:
    """Run every estimand and build every table for the runs of ``inputs``, one agent
    at a time."""
    source = ", ".join(item.label for item in inputs)
    if settings.baseline == settings.treatment:
        raise M4BenchError(
            f"baseline and treatment are both {settings.baseline!r}: every delta would be 0",
            hint="compare two conditions, e.g. --baseline no-skill --treatment with-skill",
        )
    runs, origin = join_inputs(inputs)
    kept = [run for run in runs if run.publishable or settings.include_unpublishable]
    scored = [run for run in kept if run.reward is not None]
    if not scored:
        raise _nothing_to_analyse(runs, source)
    meta = resolve_task_meta({run.task for run in scored}, settings.use_catalog)
    groups: list[GroupResult] = []
    cell_count = 0
    for agent in sorted({run.agent for run in scored}):
        own = [run for run in scored if run.agent == agent]
        cells = CellTable(own)
        cell_count += len(cells.cells())
        labels = [item.label for item in inputs if item.label in {origin[r.run_id] for r in own}]
        groups.append(analyze_group(agent, cells, meta, settings, labels))
    if not any(group.task_deltas for group in groups):
        raise M4BenchError(
            f"{source}: no task has both '{settings.baseline}' and '{settings.treatment}' runs "
            f"on the '{settings.native_schema}' schema",
            hint="choose the compared conditions with --baseline / --treatment",
        )
    integrity = integrity_counts(runs, scored, cell_count, _planned(inputs))
    return AnalysisResult(
        settings=settings,
        source=source,
        inputs=[item.label for item in inputs],
        groups=groups,
        headline=[item for group in groups for item in group.headline],
        comparisons=[item for group in groups for item in group.comparisons],
        task_deltas=[item for group in groups for item in group.task_deltas],
        task_intervals=[item for group in groups for item in group.task_intervals],
        meta=meta,
        integrity=integrity,
        tables=[
            arms_table(groups, settings),
            *merge_group_tables(groups),
            integrity_table(integrity, settings.include_unpublishable),
        ],
    )


def analyze_runs(
    runs: Sequence[RunRow],
    settings: AnalysisSettings,
    source: str,
    planned: Sequence[str] | None = None,
) -> AnalysisResult:
    """Run every estimand and build every table for a set of runs; ``planned``: the run
    ids of the campaign that made them, when known (missing runs are then counted)."""
    loaded = LoadedInput(source, list(runs), None if planned is None else list(planned))
    return analyze_inputs([loaded], settings)
