"""The run row and its numeric metrics: what the analysis reads of each run.

Every source (a released runs CSV, a results folder) becomes ``RunRow`` records
(:mod:`m4bench.results.rows`); everything downstream reads only these.
"""

from __future__ import annotations

from m4bench.results.rows import RunRow

__all__ = ["METRICS", "RunRow", "metric_value"]

METRICS: tuple[str, ...] = (
    "reward",
    "key_f1",
    "key_precision",
    "key_recall",
    "ordered_value_nmae",
    "elapsed_seconds",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "cost_usd",
)
"""Numeric run fields that cells can average."""


def metric_value(run: RunRow, metric: str) -> float | None:
    """A run's numeric metric, or None when the run did not record it."""
    if metric not in METRICS:
        raise KeyError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    value = getattr(run, metric)
    return None if value is None else float(value)
