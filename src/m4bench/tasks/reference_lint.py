"""The ``reference-runs`` lint rule: each reference runs on an empty database.

The database holds the task's source tables, empty, and the concepts it reads,
materialized from the concept library; the reference must run and return exactly the
task's required columns.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from m4bench.concepts.library import ConceptLibrary
from m4bench.errors import M4BenchError
from m4bench.tasks.catalog import Task
from m4bench.tasks.finding import Finding
from m4bench.tasks.reference import (
    empty_reference_database,
    missing_tables,
    sql_error_line,
    wrapped,
)

DatabaseFactory = Callable[[Task], duckdb.DuckDBPyConnection]


def check_reference_runs(task: Task, database: DatabaseFactory) -> list[Finding]:
    """Run the reference (no rows needed) and compare its real output columns."""
    path = task.reference_path
    if not path.exists():
        return []
    try:
        con = database(task)
    except M4BenchError as exc:
        return [
            Finding(
                "reference-runs",
                path,
                1,
                f"cannot build a database to run on: {exc.message}",
                "warning",
            )
        ]
    try:
        missing = missing_tables(task.reference_tables, con)
        if missing:
            return [
                Finding(
                    "reference-runs",
                    path,
                    1,
                    f"reads tables that do not exist: {', '.join(missing)}",
                )
            ]
        cursor = con.execute(wrapped(task.reference_sql, "LIMIT 0"))
        columns = [d[0] for d in cursor.description or []]
    except duckdb.Error as exc:
        line = sql_error_line(str(exc)) or 1
        return [Finding("reference-runs", path, line, f"the reference fails: {exc}")]
    finally:
        con.close()
    if columns != task.card.evaluation.required_columns:
        return [Finding("reference-runs", path, 1, f"the reference returns {columns}")]
    return []


def empty_database_factory(library: ConceptLibrary | None) -> DatabaseFactory:
    def build(task: Task) -> duckdb.DuckDBPyConnection:
        if library is None and task.direct_dependencies:
            raise M4BenchError("the concept library did not load")
        return empty_reference_database(task, library)

    return build
