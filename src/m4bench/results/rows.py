"""A run as one flat row: the released layout's columns, from any source of runs.

The paper's released per-run CSV is a table of these rows (:mod:`m4bench.results.release`);
a result record becomes one through :func:`row_of`. Readers of many runs (the analysis,
the evidence audit) read rows, so they count the same things whichever the source.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from m4bench.results.record import ResultRecord
from m4bench.results.reward import counted_reward
from m4bench.scoring import Score

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


def row_of(record: ResultRecord) -> RunRow:
    """The row of one result record."""
    spec, sandbox, usage = record.identity, record.sandbox, record.usage
    return RunRow(
        run_id=record.run_id,
        task=spec.task,
        condition=spec.condition,
        schema_name=spec.schema_name,
        model=spec.model,
        agent=spec.agent,
        trial=spec.trial,
        reward=counted_reward(record),
        publishable=record.publishable,
        simulated=record.simulated,
        # A simulated run had no sandbox: its isolation is not a finding.
        isolated=None if record.simulated else sandbox.isolated,
        filesystem_canary=None if sandbox.canary is None else sandbox.canary.passed,
        contamination_lint=None if sandbox.lint is None else sandbox.lint.passed,
        agent_returncode=sandbox.returncode,
        failure_reason=record.failure_reason,
        elapsed_seconds=record.timings.total,
        input_tokens=usage.input_total,
        cached_input_tokens=usage.input_cache_read,
        output_tokens=usage.output,
        cost_usd=usage.cost_usd,
        truth_sha256=None if record.ground_truth is None else record.ground_truth.sha256,
        **_score_fields(record.score),
    )


def _score_fields(score: Score | None) -> dict[str, object]:
    """The checks, key metrics and ordered error of a scored output."""
    if score is None:
        return {}
    keys = score.keys
    return {
        "passed": sum(check.passed for check in score.checks),
        "failed": sum(not check.passed for check in score.checks),
        "errors": 0,  # a scored output's problems are failed checks
        "total_tests": len(score.checks),
        "key_f1": keys.f1,
        "key_precision": keys.precision,
        "key_recall": keys.recall,
        "extra_keys": keys.extra_keys,
        "agent_unique_keys": keys.agent_unique_keys,
        "truth_rows": keys.truth_rows,
        "ordered_value_nmae": score.ordered_error.nmae_matched_rows,
        "ordered_value_columns": len(score.ordered_error.columns),
    }
