"""Rewriting a reference query for a perturbed schema, on its sqlglot syntax tree.

*obfuscated*: every schema-qualified table is renamed through the mapping; every
column name, select alias, derived-table column list and ``USING`` column found in the
global column map is renamed the same way (so a CTE's output and the references to it
stay consistent); a column qualified by an unaliased table's own name follows the
table. Names the map does not know (CTE names, table aliases, aliases of new values)
are left alone. Comments are dropped: they are prose, not part of the query.

*restructured*: the obfuscated tree, then each reference to a table that was merged
away is replaced by a subquery that reads it back from the merged table (its
discriminator value, its own columns in order) under the table's old alias.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from m4bench.errors import M4BenchError
from m4bench.provision.layout import PerturbedVariant
from m4bench.provision.mapping import SchemaMapping

DIALECT = "duckdb"


def transform_sql(sql: str, mapping: SchemaMapping, variant: PerturbedVariant) -> str:
    """The query rewritten for ``variant``'s names and structure."""
    tree = _parse(sql)
    _rename(tree, mapping, restructure=variant == "restructured")
    return tree.sql(dialect=DIALECT, pretty=True, comments=False)


def _parse(sql: str) -> exp.Expr:
    try:
        statements = [s for s in sqlglot.parse(sql, read=DIALECT) if s is not None]
    except sqlglot.errors.ParseError as exc:
        raise M4BenchError(f"the query does not parse: {exc}") from exc
    if len(statements) != 1:
        raise M4BenchError(f"expected one statement, found {len(statements)}")
    return statements[0]


def _rename(tree: exp.Expr, mapping: SchemaMapping, restructure: bool) -> None:
    qualifiers = _rename_tables(tree, mapping, restructure)
    for column in list(tree.find_all(exp.Column)):
        _rename_column(column, mapping, qualifiers)
    for alias in list(tree.find_all(exp.Alias)):
        _rename_identifier(alias.args.get("alias"), mapping)
    for table_alias in list(tree.find_all(exp.TableAlias)):
        for identifier in table_alias.args.get("columns") or []:
            _rename_identifier(identifier, mapping)
    for join in list(tree.find_all(exp.Join)):
        for item in join.args.get("using") or []:
            if isinstance(item, exp.Identifier):
                _rename_identifier(item, mapping)


def _rename_tables(tree: exp.Expr, mapping: SchemaMapping, restructure: bool) -> dict[str, str]:
    """Rename (or replace) schema-qualified tables; return ``{old qualifier: new}`` for
    tables referenced without an alias."""
    qualifiers: dict[str, str] = {}
    for table in list(tree.find_all(exp.Table)):
        if not table.args.get("db"):
            continue  # a CTE or another unqualified name: not a source table
        native = f"{table.db}.{table.name}"
        opaque_schema, opaque_table = mapping.table(native).split(".", 1)
        alias = table.alias
        if not alias:
            qualifiers[table.name] = opaque_table
        part = mapping.merged_part(native) if restructure else None
        if part is not None:
            merged, value = part
            table.replace(
                _read_back(
                    native,
                    mapping,
                    merged.table,
                    merged.discriminator,
                    value,
                    alias or opaque_table,
                )
            )
            continue
        table.set("db", exp.to_identifier(opaque_schema))
        table.set("this", exp.to_identifier(opaque_table))
    return qualifiers


def _read_back(
    native: str, mapping: SchemaMapping, merged: str, discriminator: str, value: str, alias: str
) -> exp.Expr:
    """``(SELECT <own columns> FROM merged WHERE discriminator = value) AS alias``."""
    columns = [exp.column(mapping.column(name)) for name in mapping.table_columns[native]]
    schema_name, table = merged.split(".", 1)
    select = (
        exp.select(*columns)
        .from_(exp.table_(table, db=schema_name))
        .where(exp.EQ(this=exp.column(discriminator), expression=exp.Literal.string(value)))
    )
    return select.subquery(alias)


def _rename_column(column: exp.Column, mapping: SchemaMapping, qualifiers: dict[str, str]) -> None:
    identifier = column.args.get("this")
    if isinstance(identifier, exp.Identifier):
        _rename_identifier(identifier, mapping)
    qualifier = column.args.get("table")
    if isinstance(qualifier, exp.Identifier) and qualifier.name in qualifiers:
        qualifier.set("this", qualifiers[qualifier.name])
        if column.args.get("db"):
            raise M4BenchError(
                f"schema-qualified column {column.sql()} is not supported in a perturbed query",
                hint="give the table an alias and qualify the column with it",
            )


def _rename_identifier(identifier: object, mapping: SchemaMapping) -> None:
    if isinstance(identifier, exp.Identifier) and identifier.name in mapping.columns:
        identifier.set("this", mapping.columns[identifier.name])
