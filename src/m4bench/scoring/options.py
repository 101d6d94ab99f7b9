"""Knobs of one scoring call: the null-token rule and the resource limits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

NullRule = Literal["empty", "extended"]
TieRule = Literal["admit", "strict"]

# Under the "extended" rule these cells (compared case-insensitively, after trimming
# spaces) are null in every column whose truth type is not text.
EXTENDED_NULL_TOKENS: tuple[str, ...] = ("na", "nan", "null", "none")


class ScoreOptions(BaseModel):
    """How a score is computed and how much it may cost.

    Every limit is recorded in the resulting ``Score`` so a reader knows what was
    allowed; a limit that is hit ends in a diagnostic, never in an exception.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    null_tokens: NullRule = Field(
        default="empty",
        description="empty: only an empty cell is null (the paper's rule); extended: "
        "NA, NaN, NULL and None are also null in non-text columns",
    )
    ties: TieRule = Field(
        default="admit",
        description="admit: a cell equal to an admissible alternative of the truth (another "
        "valid order of a tie the clinical definition leaves open) matches; strict: only "
        "the truth matches (the paper's scoring)",
    )
    max_output_bytes: int = Field(default=2 * 1024**3, gt=0)
    max_columns: int = Field(default=1000, gt=0)
    # The upper bounds keep a typo from reaching DuckDB or the timer thread: a larger
    # memory limit overflows DuckDB's byte count, thousands of threads exhaust memory,
    # and a timer of about 9.2e9 s or more (or inf) raises OverflowError in its thread.
    max_line_bytes: int = Field(default=1024**2, ge=4096, le=1024**3)
    memory_limit_mb: int = Field(default=1024, ge=64, le=1024**2)
    threads: int = Field(default=2, ge=1, le=1024)
    time_limit_seconds: float = Field(default=600.0, gt=0, le=86400, allow_inf_nan=False)
    mismatch_sample_size: int = Field(default=5, ge=0, le=100)
