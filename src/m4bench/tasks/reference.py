"""Reference queries: what they read, what they output, and running them deterministically."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import exp

from m4bench.concepts.library import ConceptLibrary
from m4bench.concepts.materialize import materialize
from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_path
from m4bench.sources.schema import create_empty_tables, dataset_schema
from m4bench.sql import first_duplicate_key, quote_ident, quote_literal

if TYPE_CHECKING:
    from m4bench.tasks.catalog import Task

# DuckDB names the line of an error in the query text it was given: "LINE 14: ...".
_DUCKDB_LINE = re.compile(r"^LINE (\d+):", re.M)


def parse_statement(sql: str, origin: str = "reference SQL") -> exp.Expr:
    """The one statement of ``sql`` (DuckDB dialect); a user error naming ``origin``
    when it does not parse or holds another number of statements."""
    try:
        statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    except sqlglot.errors.ParseError as exc:
        raise M4BenchError(f"{origin}: the SQL does not parse: {exc}") from exc
    if len(statements) != 1:
        raise M4BenchError(
            f"{origin}: expected exactly one statement, found {len(statements)}",
            hint="a reference file holds one SELECT (CTEs allowed), no trailing statements",
        )
    return statements[0]


def tables_read(sql: str, origin: str = "reference SQL") -> set[str]:
    """Qualified ``schema.table`` names the query reads (CTE names excluded)."""
    return statement_tables(parse_statement(sql, origin))


def statement_tables(tree: exp.Expr) -> set[str]:
    """:func:`tables_read` of a statement already parsed."""
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    found: set[str] = set()
    for table in tree.find_all(exp.Table):
        if not table.name or (not table.db and table.name in ctes):
            continue
        found.add(f"{table.db}.{table.name}" if table.db else table.name)
    return found


def derived_tables_read(sql: str, derived_schema: str, origin: str = "reference SQL") -> set[str]:
    """Unqualified names of the derived-schema tables the query reads."""
    return derived_names(tables_read(sql, origin), derived_schema)


def derived_names(tables: set[str], derived_schema: str) -> set[str]:
    """Unqualified names of the ``derived_schema`` tables among qualified ``tables``."""
    prefix = f"{derived_schema}."
    return {name[len(prefix) :] for name in tables if name.startswith(prefix)}


def output_columns(sql: str, origin: str = "reference SQL") -> list[str]:
    """Names of the outermost SELECT's columns, read statically (no database needed)."""
    return statement_columns(parse_statement(sql, origin), origin)


def statement_columns(tree: exp.Expr, origin: str = "reference SQL") -> list[str]:
    """:func:`output_columns` of a statement already parsed."""
    if not isinstance(tree, exp.Query):
        raise M4BenchError(f"{origin}: the statement is not a query")
    names = tree.named_selects
    if not names or "*" in names:
        raise M4BenchError(
            f"{origin}: the outermost SELECT must name every output column",
            hint="list the output columns explicitly instead of SELECT *",
        )
    return list(names)


def missing_tables(tables: set[str], con: duckdb.DuckDBPyConnection) -> list[str]:
    """The qualified ``tables`` the connection does not have."""
    rows = con.execute(
        "SELECT table_schema || '.' || table_name FROM information_schema.tables"
    ).fetchall()
    present = {str(row[0]) for row in rows}
    return sorted(name for name in tables if name not in present)


def empty_reference_database(
    task: Task, library: ConceptLibrary | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory database with the task's source tables, empty, and every concept its
    reference reads, materialized (empty) from them; tests and lint insert rows into it."""
    con = duckdb.connect()
    create_empty_tables(con, dataset_schema(task.card.dataset))
    needed = task.direct_dependencies
    if needed:
        library = library or ConceptLibrary.load(task.card.dataset)
        absent = [name for name in needed if name not in library.concepts]
        if absent:
            con.close()
            raise M4BenchError(f"the concept library lacks {', '.join(absent)}")
        materialize(con, library, needed, with_dependencies=True)
    return con


def query_body(sql: str) -> str:
    """The reference text to wrap in a subquery: trailing blanks and ``;`` removed, the
    start kept, so line N of the file is line N of any query :func:`wrapped` builds."""
    return sql.rstrip().rstrip(";").rstrip()


def wrapped(sql: str, suffix: str) -> str:
    """``SELECT * FROM (<sql>) <suffix>`` with the reference's lines where they are in
    its file: the prefix shares its first line, so DuckDB's ``LINE n`` is the file's."""
    return f"SELECT * FROM ({query_body(sql)}\n) {suffix}"


def ordered_query(sql: str, key_columns: list[str], columns: list[str]) -> str:
    """Wrap a query so its rows come out sorted by keys, then every other column."""
    order = list(dict.fromkeys([*key_columns, *columns]))
    terms = ", ".join(f"{quote_ident(name)} ASC NULLS LAST" for name in order)
    return wrapped(sql, f"AS reference_rows ORDER BY {terms}")


def sql_error_line(error: str) -> int | None:
    """The line DuckDB's ``error`` text names (``LINE n:``), or None when it names none."""
    match = _DUCKDB_LINE.search(error)
    return int(match.group(1)) if match else None


def reference_failure(task: Task, error: duckdb.Error) -> M4BenchError:
    """The reference's SQL error, located at its file's line when DuckDB names one."""
    line = sql_error_line(str(error))
    where = f"{task.reference_path}:{line}" if line else str(task.reference_path)
    return M4BenchError(
        f"{where}: the reference failed: {error}",
        hint="fix the reference query; `m4bench tasks lint` runs it on an empty database",
    )


def run_reference(task: Task, con: duckdb.DuckDBPyConnection) -> pa.Table:
    """Run a task's reference on ``con``; rows sorted by key columns, then all columns."""
    missing = missing_tables(task.reference_tables, con)
    if missing:
        raise M4BenchError(
            f"{task.reference_path}: the database lacks {', '.join(missing)}",
            hint="build the source and materialize its concepts before running a reference",
        )
    columns = task.reference_columns
    query = ordered_query(task.reference_sql, task.card.evaluation.key_columns, columns)
    try:
        table = con.execute(query).fetch_arrow_table()
    except duckdb.Error as exc:
        raise reference_failure(task, exc) from exc
    return table


def repeated_key_problem(task: Task, table: pa.Table) -> str | None:
    """What makes the reference's output unusable as an answer: a key column it does not
    return, or a key it returns more than once; None when every key names one row."""
    keys = list(task.card.evaluation.key_columns)
    missing = [name for name in keys if name not in table.column_names]
    if missing:
        return f"the reference of {task.name} returns no key column {', '.join(missing)}"
    with duckdb.connect() as con:
        con.register("reference_rows", table)
        repeated = first_duplicate_key(con, "reference_rows", keys)
    if repeated is None:
        return None
    *values, count = repeated
    named = ", ".join(f"{name}={value}" for name, value in zip(keys, values, strict=True))
    return (
        f"the reference of {task.name} returns {count} rows for {named}; "
        f"its key columns ({', '.join(keys)}) must name one row each"
    )


def write_reference(table: pa.Table, target: Path) -> None:
    """Write a reference result atomically: ``.parquet`` as Parquet, anything else as CSV
    (header row, ``YYYY-MM-DD HH:MM:SS`` timestamps, NULL as an empty cell)."""
    con = duckdb.connect()
    try:
        con.register("reference_rows", table)
        fmt = "(FORMAT PARQUET)" if target.suffix == ".parquet" else "(FORMAT CSV, HEADER)"
        with atomic_path(target) as tmp:
            con.execute(f"COPY reference_rows TO {quote_literal(tmp)} {fmt}")
    finally:
        con.close()
