"""The ``Score`` record: everything the scorer decided about one output, as JSON."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.scoring.options import NullRule, ScoreOptions
from m4bench.tasks.evaluation import ColumnTolerance

SCORE_FORMAT_VERSION = 1

Comparison = Literal["numeric", "temporal", "boolean", "text"]

# Why an output could not be compared at all (None when it was compared).
Failure = Literal[
    "output_missing",
    "output_not_a_file",
    "output_too_large",
    "output_compressed",
    "output_empty",
    "header_unreadable",
    "output_unreadable",
    "too_many_columns",
    "key_columns_missing",
    "time_limit",
    "resource_limit",
    "internal_error",
]

Cell = str | None


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Mismatch(_Record):
    """One disagreeing cell: the row's key, the truth value and the agent's text."""

    key: dict[str, Cell]
    truth: Cell
    agent: Cell
    reason: Literal["value", "uncastable", "agent_null", "truth_null"]


class ColumnScore(_Record):
    """Counts for one scored column; ``match_rate = matched / denominator``.

    ``denominator = truth rows + extra agent keys + duplicate agent rows`` (the
    paper's rule), so ``matched + mismatched + missing + extra + duplicate`` equals it.
    """

    column: str
    truth_type: str
    comparison: Comparison
    tolerance: ColumnTolerance
    present: bool
    matched: int
    mismatched: int
    missing: int
    extra: int
    duplicate: int
    uncastable: int = Field(
        description="agent cells of this column, on rows compared with a truth row, "
        "that did not cast to the truth type"
    )
    denominator: int
    match_rate: float
    passed: bool
    mismatch_sample: list[Mismatch]
    error: str | None = None
    matched_by_alternative: int = Field(
        default=0,
        description="cells of truth keys counted in matched because they equal an "
        "admissible alternative (another valid tie order) instead of the truth",
    )


class KeyMetrics(_Record):
    """Row-grain agreement: which truth keys the agent produced, and which extra.

    With tie alternatives admitted, ``truth_rows`` counts ``alternative_keys`` in and
    ``excused_keys`` out."""

    truth_rows: int
    agent_rows: int
    agent_unique_keys: int
    agent_keys_in_truth: int
    extra_keys: int
    duplicate_rows: int
    uncastable_key_rows: int
    missing_keys: int
    precision: float
    recall: float
    f1: float
    row_coverage: float
    missing_key_sample: list[dict[str, Cell]]
    extra_key_sample: list[dict[str, Cell]]
    alternative_keys: int = Field(
        default=0,
        description="output keys only another valid tie order gives: counted as truth rows",
    )
    excused_keys: int = Field(
        default=0,
        description="truth keys another valid tie order does not give, absent from the "
        "output: not counted as truth rows",
    )


class OrderedError(_Record):
    """Normalized mean absolute error over the ordered (numeric) value columns.

    ``nmae_matched_rows`` is the paper's definition (truth rows whose key the agent
    produced; missing rows are ignored). ``nmae_all_truth_rows`` also counts every
    missing truth row as error 1. ``None`` when there is no ordered column or (for the
    paper's definition) no matched row.
    """

    columns: list[str]
    scales: dict[str, float]
    per_column_matched_rows: dict[str, float | None]
    per_column_all_truth_rows: dict[str, float | None]
    nmae_matched_rows: float | None
    nmae_all_truth_rows: float | None


class StrictCheck(_Record):
    name: str
    passed: bool
    detail: str


class TieReading(_Record):
    """The same output scored against the truth alone, as ``ties="strict"`` (the
    paper's scoring) would score it."""

    reward: float = Field(ge=0.0, le=1.0)
    strict_pass: bool


class Score(_Record):
    """The verdict on one agent output. ``reward`` is always in [0, 1]."""

    format_version: int = SCORE_FORMAT_VERSION
    reward: float = Field(ge=0.0, le=1.0)
    strict_pass: bool
    checks: list[StrictCheck]
    columns: list[ColumnScore]
    keys: KeyMetrics
    ordered_error: OrderedError
    null_tokens: NullRule
    options: ScoreOptions
    failure: Failure | None
    limits_hit: list[str]
    diagnostics: list[str]
    output_bytes: int | None
    rejected_lines: int
    strict_ties: TieReading | None = Field(
        default=None,
        description="the score under ties='strict', given when admitting tie alternatives "
        "changed it (otherwise it equals this score)",
    )

    def match_rates(self) -> dict[str, float]:
        return {column.column: column.match_rate for column in self.columns}
