"""Finding dropped relation names in an agent catalog: in its views and in its bytes."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb


@dataclass(frozen=True)
class CatalogListing:
    """What an agent can list in a catalog: its views (name, SQL) and column names."""

    views: list[tuple[str, str]]
    columns: set[str]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.views]


def read_listing(catalog: Path) -> CatalogListing:
    """List a catalog's user views and their columns, without reading any data."""
    con = duckdb.connect(str(catalog), read_only=True)
    try:
        views = con.execute(
            "SELECT schema_name, view_name, sql FROM duckdb_views() "
            "WHERE NOT internal ORDER BY schema_name, view_name"
        ).fetchall()
        columns = con.execute(
            "SELECT DISTINCT column_name FROM duckdb_columns() WHERE NOT internal"
        ).fetchall()
    finally:
        con.close()
    return CatalogListing(
        views=[(f"{schema}.{name}", str(sql)) for schema, name, sql in views],
        columns={str(row[0]) for row in columns},
    )


def forms_of(qualified: str) -> list[bytes]:
    """Ways a relation can be spelled in a catalog: qualified, as a file path."""
    schema_name, table = qualified.split(".", 1)
    return [f"{schema_name}.{table}".encode(), f"{schema_name}/{table}.parquet".encode()]


def _words(names: Iterable[str]) -> re.Pattern[bytes]:
    """Any of ``names`` as a whole word: not preceded or followed by an identifier byte."""
    alternatives = b"|".join(re.escape(name.encode()) for name in sorted(names, key=len)[::-1])
    return re.compile(rb"(?<![A-Za-z0-9_])(" + alternatives + rb")(?![A-Za-z0-9_])")


def leaked_in_bytes(catalog: Path, dropped: Iterable[str], legitimate: set[str]) -> list[str]:
    """Dropped names found in the file's bytes.

    A name counts when its qualified or path form appears, or when its bare table name
    appears as a whole word (not inside a longer identifier) unless that word is also a
    legitimate name in the catalog (an allowed table or column of the same spelling).
    """
    data = catalog.read_bytes()
    dropped = sorted(dropped)
    bare = {q.split(".", 1)[1] for q in dropped} - legitimate
    words = {m.decode() for m in _words(bare).findall(data)} if bare else set()
    return [
        qualified
        for qualified in dropped
        if any(form in data for form in forms_of(qualified)) or qualified.split(".", 1)[1] in words
    ]


def leaked_in_views(listing: CatalogListing, dropped: Iterable[str]) -> list[str]:
    """Dropped names that are views of the catalog or appear in a view's SQL text."""
    names = set(listing.names)
    texts = "\n".join(sql for _, sql in listing.views)
    leaked = []
    for qualified in sorted(dropped):
        schema_name, table = qualified.split(".", 1)
        spelled = [form.decode() for form in forms_of(qualified)]
        quoted = re.search(rf"\b{re.escape(schema_name)}\W+{re.escape(table)}\b", texts)
        if qualified in names or any(form in texts for form in spelled) or quoted:
            leaked.append(qualified)
    return leaked
