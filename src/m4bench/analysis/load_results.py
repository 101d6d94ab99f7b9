"""The runs of a results folder as ``RunRow`` records, read through the typed readers.

Every ``result.json`` (of a campaign's folder or a folder of ``m4bench run`` runs) is
read by :mod:`m4bench.results`, which checks its format; each record becomes one row
(:func:`m4bench.results.rows.row_of`), its reward as the reward rule counts it.
"""

from __future__ import annotations

from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.results.layout import RESULT_FILE
from m4bench.results.read import planned_run_ids, read_results
from m4bench.results.rows import RunRow, row_of

__all__ = ["load_results_dir", "planned_run_ids"]


def load_results_dir(root: Path) -> list[RunRow]:
    """Every run recorded under ``root``, by path."""
    stored = read_results(root)
    if not stored:
        raise M4BenchError(
            f"{root}: no {RESULT_FILE} records found",
            hint="point analyze at a results directory, a runs CSV or 'paper-release-v1'",
        )
    return [row_of(item.record) for item in stored]
