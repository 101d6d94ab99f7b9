"""Shared pieces of the task reference tests: a database per task, row builders, results by key.

Import in test modules with ``from task_rows import ...``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import duckdb

from m4bench.concepts.library import ConceptLibrary
from m4bench.concepts.materialize import materialize
from m4bench.tasks.catalog import Task
from m4bench.tasks.reference import empty_reference_database, run_reference

T0 = datetime(2150, 1, 1, 8, 0, 0)


def at(hours: float = 0.0) -> datetime:
    """``hours`` after the common ICU admission time T0 (2150-01-01 08:00)."""
    return T0 + timedelta(hours=hours)


def empty_database(task: Task, library: ConceptLibrary) -> duckdb.DuckDBPyConnection:
    """Empty source tables plus, empty, every concept the task's reference reads."""
    return empty_reference_database(task, library)


def insert(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """INSERT dict rows; bare names are derived tables; absent columns stay NULL."""
    qualified = table if "." in table else f"mimiciv_derived.{table}"
    for row in rows:
        columns = ", ".join(f'"{c}"' for c in row)
        marks = ", ".join("?" for _ in row)
        con.execute(f"INSERT INTO {qualified} ({columns}) VALUES ({marks})", list(row.values()))


def build(con: duckdb.DuckDBPyConnection, library: ConceptLibrary, *names: str) -> None:
    """(Re)build concepts from the source rows inserted so far, inputs first."""
    materialize(con, library, names, with_dependencies=True)


def result(
    task: Task, con: duckdb.DuckDBPyConnection, key: str = "stay_id"
) -> dict[Any, dict[str, Any]]:
    """The reference's rows indexed by a unique key column."""
    rows = run_reference(task, con).to_pylist()
    indexed = {row[key]: row for row in rows}
    assert len(indexed) == len(rows), f"{key} is not unique in the reference output"
    return indexed


def stay(
    stay_id: int, intime: datetime = T0, hours: float = 72.0, subject_id: int | None = None
) -> dict[str, Any]:
    """An icustays row; subject and admission ids derive from the stay id unless given."""
    subject = stay_id if subject_id is None else subject_id
    return {
        "subject_id": subject,
        "hadm_id": stay_id * 10,
        "stay_id": stay_id,
        "intime": intime,
        "outtime": intime + timedelta(hours=hours),
        "los": hours / 24,
    }
