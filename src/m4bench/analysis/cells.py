"""Cells: the runs of one (task, condition, schema, model), and their means."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

from m4bench.analysis.runs import RunRow, metric_value

Cell = tuple[str, str, str, str]  # task, condition, schema, model


class CellTable:
    """Runs grouped by cell; means ignore runs that did not record a metric."""

    def __init__(self, runs: Iterable[RunRow]) -> None:
        grouped: dict[Cell, list[RunRow]] = defaultdict(list)
        for run in runs:
            grouped[run.cell].append(run)
        self._runs: dict[Cell, list[RunRow]] = {
            cell: sorted(members, key=lambda run: (run.trial, run.run_id))
            for cell, members in sorted(grouped.items())
        }
        self._axes: tuple[tuple[str, ...], ...] = tuple(
            tuple(sorted({cell[axis] for cell in self._runs})) for axis in range(4)
        )

    def cells(self) -> list[Cell]:
        return list(self._runs)

    def runs(self, cell: Cell) -> list[RunRow]:
        return self._runs.get(cell, [])

    def all_runs(self) -> list[RunRow]:
        return [run for members in self._runs.values() for run in members]

    def values(self, cell: Cell, metric: str) -> list[float]:
        found = (metric_value(run, metric) for run in self.runs(cell))
        return [value for value in found if value is not None and not math.isnan(value)]

    def mean(self, cell: Cell, metric: str) -> float | None:
        values = self.values(cell, metric)
        return sum(values) / len(values) if values else None

    def total(self, cell: Cell, field: str) -> int:
        """Sum of an integer run field over the cell (missing values count 0)."""
        return sum(int(getattr(run, field) or 0) for run in self.runs(cell))

    def tasks(self) -> list[str]:
        return list(self._axes[0])

    def conditions(self) -> list[str]:
        return list(self._axes[1])

    def schemas(self) -> list[str]:
        return list(self._axes[2])

    def models(self) -> list[str]:
        return list(self._axes[3])
