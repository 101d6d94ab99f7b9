"""The ``[evaluation]`` section of a task card: what is joined, what is scored, how strictly.

The scorer reads only this model and two tables; it knows nothing else about a task.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# Columns the paper's scorer never adds to the scored set on its own.
IDENTIFIER_COLUMNS: frozenset[str] = frozenset(
    {
        "subject_id",
        "hadm_id",
        "stay_id",
        "patientunitstayid",
        "patienthealthsystemstayid",
        "uniquepid",
    }
)


class ColumnTolerance(BaseModel):
    """A cell matches when ``|t - a| <= absolute`` or, if set, ``<= relative * |t|``.

    For timestamp columns both bounds are in seconds / fractions of the truth's epoch
    distance; in practice timestamps use ``absolute`` only.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    absolute: float = Field(default=0.0, ge=0.0)
    relative: float | None = Field(default=None, ge=0.0)


def paper_scored_columns(
    key_columns: list[str], value_columns: list[str], required_columns: list[str]
) -> list[str]:
    """The paper's rule: value columns, then every required column that is not a key,
    not an identifier and not already listed (order kept, no duplicates)."""
    scored = list(dict.fromkeys(value_columns))
    for column in required_columns:
        if column in key_columns or column in IDENTIFIER_COLUMNS or column in scored:
            continue
        scored.append(column)
    return scored


class EvaluationSpec(BaseModel):
    """How an agent's ``output.csv`` is compared with the reference answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key_columns: list[str] = Field(min_length=1)
    value_columns: list[str] = Field(min_length=1)
    required_columns: list[str]
    scored_columns: list[str] = Field(min_length=1)
    ordered_columns: list[str] | None = Field(
        default=None,
        description="columns for ordered nMAE; None = numeric value columns of the truth",
    )
    tolerance: dict[str, ColumnTolerance] = Field(default_factory=dict)
    row_coverage_threshold: float = Field(default=0.95, ge=0.0, le=1.0)
    accuracy_threshold: float = Field(default=0.90, ge=0.0, le=1.0)
    timeout_seconds: int = Field(default=1800, gt=0)

    @field_validator("tolerance", mode="before")
    @classmethod
    def _plain_numbers_are_absolute(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                name: {"absolute": tol} if isinstance(tol, int | float) else tol
                for name, tol in value.items()
            }
        return value

    @model_validator(mode="after")
    def _columns_are_consistent(self) -> EvaluationSpec:
        required = set(self.required_columns)
        for group, names in (
            ("key_columns", self.key_columns),
            ("value_columns", self.value_columns),
            ("scored_columns", self.scored_columns),
        ):
            missing = [name for name in names if name not in required]
            if missing:
                raise ValueError(f"{group} not in required_columns: {missing}")
        overlap = set(self.key_columns) & set(self.scored_columns)
        if overlap:
            raise ValueError(f"key columns cannot be scored: {sorted(overlap)}")
        unknown = [name for name in self.tolerance if name not in self.scored_columns]
        if unknown:
            raise ValueError(f"tolerance given for columns that are not scored: {unknown}")
        return self

    def tolerance_for(self, column: str) -> ColumnTolerance:
        return self.tolerance.get(column, ColumnTolerance())
