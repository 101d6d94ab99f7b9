"""Finding dropped relation names in an agent catalog: in its views and in its bytes."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import duckdb


def catalog_views(catalog: Path) -> list[tuple[str, str]]:
    """``(qualified view name, view SQL)`` of every user view, without reading any data."""
    con = duckdb.connect(str(catalog), read_only=True)
    try:
        rows = con.execute(
            "SELECT schema_name, view_name, sql FROM duckdb_views() "
            "WHERE NOT internal ORDER BY schema_name, view_name"
        ).fetchall()
    finally:
        con.close()
    return [(f"{schema}.{name}", str(sql)) for schema, name, sql in rows]


def catalog_columns(catalog: Path) -> set[str]:
    """Every column name of the catalog's views (as stored with each view)."""
    con = duckdb.connect(str(catalog), read_only=True)
    try:
        rows = con.execute(
            "SELECT DISTINCT column_name FROM duckdb_columns() WHERE NOT internal"
        ).fetchall()
    finally:
        con.close()
    return {str(row[0]) for row in rows}


def forms_of(qualified: str) -> list[bytes]:
    """Ways a relation can be spelled in a catalog: qualified, as a file path."""
    schema_name, table = qualified.split(".", 1)
    return [f"{schema_name}.{table}".encode(), f"{schema_name}/{table}.parquet".encode()]


def _word(name: str) -> re.Pattern[bytes]:
    """``name`` as a whole word: not preceded or followed by an identifier character."""
    return re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"(?![A-Za-z0-9_])")


def leaked_in_bytes(catalog: Path, dropped: Iterable[str], legitimate: set[str]) -> list[str]:
    """Dropped names found in the file's bytes.

    A name counts when its qualified or path form appears, or when its bare table name
    appears as a whole word (not inside a longer identifier) unless that word is also a
    legitimate name in the catalog (an allowed table or column of the same spelling).
    """
    data = catalog.read_bytes()
    leaked = []
    for qualified in sorted(dropped):
        table = qualified.split(".", 1)[1]
        found = any(form in data for form in forms_of(qualified))
        if not found and table not in legitimate:
            found = _word(table).search(data) is not None
        if found:
            leaked.append(qualified)
    return leaked


def leaked_in_views(catalog: Path, dropped: Iterable[str]) -> list[str]:
    """Dropped names that are views of the catalog or appear in a view's SQL text."""
    views = catalog_views(catalog)
    names = {name for name, _ in views}
    texts = "\n".join(sql for _, sql in views)
    leaked = []
    for qualified in sorted(dropped):
        schema_name, table = qualified.split(".", 1)
        spelled = [form.decode() for form in forms_of(qualified)]
        quoted = re.search(rf"\b{re.escape(schema_name)}\W+{re.escape(table)}\b", texts)
        if qualified in names or any(form in texts for form in spelled) or quoted:
            leaked.append(qualified)
    return leaked
