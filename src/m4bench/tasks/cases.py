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

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from m4bench.fileio import read_user_text, toml_error_line
from m4bench.tasks.case_errors import (
    CaseLines,
    CasesFileError,
    validation_problem,
)

CASES_FILE = "cases.toml"
NULL = "<null>"


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


# The fields each part of cases.toml takes, for "did you mean" on an unknown one.
_FIELDS: dict[str, list[str]] = {
    "file": list(CasesFile.model_fields),
    "case": list(Case.model_fields),
    "rows": list(CaseRows.model_fields),
}


def cases_path(task_dir: Path) -> Path:
    return task_dir / CASES_FILE


def load_cases(task_dir: Path, key_columns: list[str], columns: list[str]) -> list[Case]:
    """The cases of a task folder (none without ``cases.toml``), checked against the
    task's key and output columns; a problem raises :class:`CasesFileError` at its line."""
    path = cases_path(task_dir)
    try:
        text = read_user_text(path)
    except FileNotFoundError:
        return []
    lines = CaseLines.of(text)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = toml_error_line(str(exc), text)
        raise CasesFileError(path, line, f"not valid TOML: {exc}") from exc
    try:
        parsed = CasesFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        problem = validation_problem(first, raw, _FIELDS)
        raise CasesFileError(path, lines.line(first["loc"]), problem) from exc
    seen: dict[str, int] = {}
    for index, case in enumerate(parsed.case):
        if case.name in seen:
            message = f"case {index + 1}: case {seen[case.name] + 1} is also named {case.name!r}"
            raise CasesFileError(
                path, lines.case_line(index), message, "give each case its own name"
            )
        seen[case.name] = index
        _check_case(path, lines, index, case, key_columns, columns)
    return list(parsed.case)


def _check_case(
    path: Path,
    lines: CaseLines,
    index: int,
    case: Case,
    key_columns: list[str],
    columns: list[str],
) -> None:
    label = f"case {index + 1} ({case.name!r})"
    if not case.expect and not case.absent:
        message = f"{label} expects nothing: add a [[case.expect]] or [[case.absent]] block"
        raise CasesFileError(path, lines.case_line(index), message)
    for block, rows in (("expect", case.expect), ("absent", case.absent)):
        for number, row in enumerate(rows):
            missing = [name for name in key_columns if name not in row]
            unknown = sorted(set(row) - set(columns))
            where = f"{label}, {block} block {number + 1}"
            line = lines.block_line(index, block, number)
            if missing:
                message = f"{where}: no key column {', '.join(missing)}"
                raise CasesFileError(path, line, message)
            if unknown:
                message = (
                    f"{where}: {', '.join(unknown)} is not an output column "
                    f"(the task returns {', '.join(columns)})"
                )
                raise CasesFileError(path, line, message)
            if block == "absent" and set(row) != set(key_columns):
                message = f"{where}: an absent block names the key columns only"
                raise CasesFileError(path, line, message)


def sql_value(value: Any) -> Any:
    """A TOML value as inserted: ``"<null>"`` becomes NULL."""
    return None if value == NULL else value
