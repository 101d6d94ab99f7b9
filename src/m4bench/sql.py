"""DuckDB SQL text built from names and values: quoting, Parquet views, duplicate keys.

The one place that quotes an identifier or a string literal, so a name or a path holding
a quote can never end a token early; every package (sources, concepts, provisioning,
tasks, scoring, validity, runner) builds its SQL text with these helpers. It depends on
nothing else in m4bench, so any package may import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

import duckdb


def quote_ident(name: str) -> str:
    """``name`` as a double-quoted identifier (``a"b`` -> ``"a""b"``)."""
    return '"' + name.replace('"', '""') + '"'


def quote_qualified(name: str) -> str:
    """A dotted name with each part quoted (``schema.table`` -> ``"schema"."table"``)."""
    return ".".join(quote_ident(part) for part in name.split("."))


def escape_literal(text: str | PurePath) -> str:
    """``text`` with single quotes doubled, for use between quotes of a literal."""
    return str(text).replace("'", "''")


def quote_literal(text: str | PurePath) -> str:
    """``text`` (a path, too) as a single-quoted string literal."""
    return "'" + escape_literal(text) + "'"


def parquet_view_sql(qualified: str, path: str | PurePath) -> str:
    """``CREATE VIEW "schema"."table" AS SELECT * FROM read_parquet('path')``.

    ``qualified`` is ``schema.table`` (split at its first dot); ``path`` is written as
    given, so a relative path is resolved by DuckDB's ``file_search_path``.
    """
    schema_name, table = qualified.split(".", 1)
    return (
        f"CREATE VIEW {quote_ident(schema_name)}.{quote_ident(table)} AS "
        f"SELECT * FROM read_parquet({quote_literal(path)})"
    )


def create_parquet_views(
    con: duckdb.DuckDBPyConnection, views: Iterable[tuple[str, str | PurePath]]
) -> None:
    """One view per ``(schema.table, Parquet file)``, in that order, after creating the
    schemas they need (sorted; existing ones are kept)."""
    chosen = list(views)
    for schema_name in sorted({qualified.split(".", 1)[0] for qualified, _ in chosen}):
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema_name)}")
    for qualified, path in chosen:
        con.execute(parquet_view_sql(qualified, path))


def first_duplicate_key(
    con: duckdb.DuckDBPyConnection, view: str, keys: list[str]
) -> tuple[object, ...] | None:
    """The smallest repeated key of ``view`` and its count (last item), or None."""
    key_list = ", ".join(quote_ident(name) for name in keys)
    row = con.execute(
        f"SELECT {key_list}, count(*) FROM {view} GROUP BY ALL HAVING count(*) > 1 "
        f"ORDER BY ALL LIMIT 1"
    ).fetchone()
    return None if row is None else tuple(row)
