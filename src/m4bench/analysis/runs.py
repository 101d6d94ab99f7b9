"""The run row: the fields of one agent run that the analysis needs.

Every loader (a released runs CSV, a results directory) maps its input into
``RunRow`` records; everything downstream reads only these.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RunRow(BaseModel):
    """One scored agent run, reduced to what the estimands and tables use."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    task: str
    condition: str
    schema_name: str = "native"
    model: str
    agent: str = ""
    trial: int
    reward: float | None
    publishable: bool = True
    isolated: bool | None = None
    filesystem_canary: bool | None = None
    contamination_lint: bool | None = None
    agent_returncode: int | None = None
    failure_reason: str | None = None
    passed: int | None = None
    failed: int | None = None
    errors: int | None = None
    total_tests: int | None = None
    diagnostics_failed: bool | None = None
    key_f1: float | None = None
    key_precision: float | None = None
    key_recall: float | None = None
    extra_keys: int | None = None
    agent_unique_keys: int | None = None
    truth_rows: int | None = None
    ordered_value_nmae: float | None = None
    ordered_value_columns: int | None = None
    elapsed_seconds: float | None = None
    input_tokens: int | None = None
    cached_input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    truth_sha256: str | None = None
    """The ground truth the run was scored against, when its record names it."""

    @property
    def strict_pass(self) -> bool:
        """Every check passed: no failed and no errored test."""
        return self.failed == 0 and self.errors == 0 and self.reward is not None

    @property
    def cell(self) -> tuple[str, str, str, str]:
        """The (task, condition, schema, model) cell the run belongs to."""
        return (self.task, self.condition, self.schema_name, self.model)


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
