"""Patient cases: hand-built rows and the answer a task's reference must give on them.

A task folder may hold ``cases.toml``. Each case pins one rule of the concept in terms a
clinician can check: a few rows of source or derived tables, and the output rows the
reference must return for them (``m4bench tasks test`` runs them; see docs/tasks.md)::

    format_version = 1

    [[case]]
    name = "rrt-caps-creatinine"
    rule = "renal replacement therapy scores creatinine as 4.0 mg/dL"
    tolerance = 0.005                    # optional: else the card's tolerance per column
    rebuild = []                         # optional: derived concepts rebuilt from the rows
    only_expected = false                # optional: true = no output key beyond `expect`

    [[case.rows]]
    table = "mimiciv_icu.icustays"
    rows = [{ subject_id = 1, hadm_id = 10, stay_id = 100, intime = 2150-01-01T08:00:00 }]

    [[case.expect]]                      # key columns, then any output columns
    stay_id = 100
    meld = 20.0

    [[case.absent]]                      # keys the output must not hold
    stay_id = 101

TOML has no null: the string ``"<null>"`` stands for NULL, in rows and expectations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.errors import M4BenchError
from m4bench.fileio import read_toml_model, reject_duplicate_names

CASES_FILE = "cases.toml"
NULL = "<null>"
_DOCS = "docs/tasks.md (Patient cases)"


class CaseRows(BaseModel):
    """Rows inserted into one table (absent columns stay NULL)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table: str = Field(pattern=r"^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$")
    rows: list[dict[str, Any]] = Field(min_length=1)


class Case(BaseModel):
    """One ``[[case]]`` of ``cases.toml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    rule: str = Field(min_length=10, description="the rule it pins, in words")
    tolerance: float | None = Field(default=None, ge=0)
    rebuild: list[str] = Field(default_factory=list)
    only_expected: bool = False
    rows: list[CaseRows] = Field(min_length=1)
    expect: list[dict[str, Any]] = Field(default_factory=list)
    absent: list[dict[str, Any]] = Field(default_factory=list)


class CasesFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: Literal[1] = 1
    case: list[Case] = Field(min_length=1)


def cases_path(task_dir: Path) -> Path:
    return task_dir / CASES_FILE


def load_cases(task_dir: Path, key_columns: list[str], columns: list[str]) -> list[Case]:
    """The cases of a task folder (none without ``cases.toml``), checked against the
    task's key and output columns."""
    path = cases_path(task_dir)
    parsed = read_toml_model(path, CasesFile, _DOCS)
    if parsed is None:
        return []
    reject_duplicate_names(path, [case.name for case in parsed.case], "case")
    for case in parsed.case:
        _check_case(path, case, key_columns, columns)
    return list(parsed.case)


def _check_case(path: Path, case: Case, key_columns: list[str], columns: list[str]) -> None:
    if not case.expect and not case.absent:
        raise M4BenchError(f"{path}: case {case.name!r} expects nothing", hint=f"see {_DOCS}")
    for label, rows in (("expect", case.expect), ("absent", case.absent)):
        for number, row in enumerate(rows, start=1):
            missing = [name for name in key_columns if name not in row]
            unknown = sorted(set(row) - set(columns))
            where = f"{path}: case {case.name!r}, {label} row {number}"
            if missing:
                raise M4BenchError(f"{where}: no key column {', '.join(missing)}")
            if unknown:
                raise M4BenchError(
                    f"{where}: {', '.join(unknown)} not among the output columns",
                    hint=f"the task returns {', '.join(columns)}",
                )
            if label == "absent" and set(row) != set(key_columns):
                raise M4BenchError(f"{where}: an absent row names the key columns only")


def sql_value(value: Any) -> Any:
    """A TOML value as inserted: ``"<null>"`` becomes NULL."""
    return None if value == NULL else value
