"""The run row: the fields of one agent run that the analysis needs.

Every loader (a released runs CSV, a results directory) maps its input into
``RunRow`` records; everything downstream reads only these.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
"""A rate or score in [0, 1]: a reward, key precision, recall or F1, an nMAE."""
Count = Annotated[int, Field(ge=0)]
Amount = Annotated[float, Field(ge=0.0)]


class RunRow(BaseModel):
    """One scored agent run, reduced to what the estimands and tables use."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    task: str
    condition: str
    schema_name: str = "native"
    model: str
    agent: str = ""
    trial: Count
    reward: Fraction | None
    publishable: bool = True
    simulated: bool = False
    """A rehearsal record (``campaign run --simulate``): no agent ran, nothing was scored."""
    isolated: bool | None = None
    filesystem_canary: bool | None = None
    contamination_lint: bool | None = None
    agent_returncode: int | None = None
    failure_reason: str | None = None
    passed: Count | None = None
    failed: Count | None = None
    errors: Count | None = None
    total_tests: Count | None = None
    diagnostics_failed: bool | None = None
    key_f1: Fraction | None = None
    key_precision: Fraction | None = None
    key_recall: Fraction | None = None
    extra_keys: Count | None = None
    agent_unique_keys: Count | None = None
    truth_rows: Count | None = None
    ordered_value_nmae: Fraction | None = None
    ordered_value_columns: Count | None = None
    elapsed_seconds: Amount | None = None
    input_tokens: Count | None = None
    cached_input_tokens: Count | None = None
    output_tokens: Count | None = None
    cost_usd: Amount | None = None
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
