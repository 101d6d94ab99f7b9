"""Spec builder and type names shared by the scoring tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from m4bench.tasks.evaluation import EvaluationSpec

TruthMaker = Callable[[str], Path]
OutputMaker = Callable[[str], Path]


def spec_for(
    keys: list[str],
    values: list[str],
    *,
    tolerance: dict[str, float | dict[str, float]] | None = None,
    coverage: float = 0.95,
    accuracy: float = 0.9,
    ordered: list[str] | None = None,
) -> EvaluationSpec:
    return EvaluationSpec.model_validate(
        {
            "key_columns": keys,
            "value_columns": values,
            "required_columns": keys + values,
            "scored_columns": values,
            "tolerance": tolerance or {},
            "row_coverage_threshold": coverage,
            "accuracy_threshold": accuracy,
            "ordered_columns": ordered,
        }
    )
