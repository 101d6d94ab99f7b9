"""The official schemas of the supported datasets, and helpers over them."""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from m4bench.errors import M4BenchError
from m4bench.sources.schema.base import Column, DatasetSchema, Table
from m4bench.sources.schema.eicu import EICU
from m4bench.sources.schema.mimic_iv import MIMIC_IV
from m4bench.sql import quote_ident, quote_qualified

__all__ = [
    "EICU",
    "MIMIC_IV",
    "Column",
    "DatasetSchema",
    "Table",
    "create_empty_tables",
    "create_table_sql",
    "dataset_schema",
]

_SCHEMAS: dict[str, DatasetSchema] = {"mimic-iv": MIMIC_IV, "eicu": EICU}


def dataset_schema(dataset: str) -> DatasetSchema:
    """The schema of ``dataset`` ("mimic-iv" or "eicu")."""
    try:
        return _SCHEMAS[dataset]
    except KeyError as exc:
        raise M4BenchError(
            f"unknown dataset {dataset!r}",
            hint=f"use one of: {', '.join(sorted(_SCHEMAS))}",
        ) from exc


def create_table_sql(table: Table, not_null: bool = False) -> str:
    """``CREATE TABLE schema.table (...)`` with the official columns and types.

    ``not_null`` adds the official NOT NULL constraints (off by default: hand-built
    test rows often leave columns a query does not read empty).
    """
    parts = []
    for column in table.columns:
        constraint = " NOT NULL" if not_null and not column.nullable else ""
        parts.append(f"{quote_ident(column.name)} {column.type}{constraint}")
    return f"CREATE TABLE {quote_qualified(table.qualified)} ({', '.join(parts)})"


def create_empty_tables(
    con: duckdb.DuckDBPyConnection,
    schema: DatasetSchema,
    tables: Iterable[str] | None = None,
    not_null: bool = False,
) -> None:
    """Create typed empty tables ``schema.table`` in ``con``.

    ``tables`` selects tables by qualified (``mimiciv_icu.chartevents``) or bare
    (``chartevents``) name; ``None`` creates every table of the dataset. The schemas
    are created as needed; an existing table of the same name is an error.
    """
    selected = schema.tables if tables is None else _select(schema, tables)
    for schema_name in sorted({table.schema_name for table in selected}):
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema_name)}")
    for table in selected:
        con.execute(create_table_sql(table, not_null=not_null))


def _select(schema: DatasetSchema, names: Iterable[str]) -> tuple[Table, ...]:
    by_qualified = {table.qualified: table for table in schema.tables}
    by_bare = {table.name: table for table in schema.tables}
    chosen: list[Table] = []
    for name in names:
        found = by_qualified.get(name) or by_bare.get(name)
        if found is None:
            raise M4BenchError(
                f"{schema.dataset} {schema.version} has no table {name!r}",
                hint="name a table as schema.table, e.g. " + schema.tables[0].qualified,
            )
        if found not in chosen:
            chosen.append(found)
    return tuple(chosen)
