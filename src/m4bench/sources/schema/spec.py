"""A compact text form for table definitions, so a schema module reads like its DDL.

Each column is one line ``name TYPE`` with an optional trailing ``NN`` (NOT NULL)::

    subject_id INTEGER NN
    dod DATE
"""

from __future__ import annotations

from m4bench.sources.schema.base import Column, Table

ALLOWED_TYPES = frozenset(
    {"SMALLINT", "INTEGER", "BIGINT", "DOUBLE", "VARCHAR", "BOOLEAN", "DATE", "TIMESTAMP"}
)


def parse_columns(spec: str) -> tuple[Column, ...]:
    """Parse the column lines of ``spec`` (blank lines ignored)."""
    columns: list[Column] = []
    for line in spec.strip().splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "NN"):
            raise ValueError(f"bad column line {line!r}: expected 'name TYPE [NN]'")
        name, type_ = parts[0], parts[1]
        if type_ not in ALLOWED_TYPES:
            allowed = ", ".join(sorted(ALLOWED_TYPES))
            raise ValueError(f"column {name!r}: type {type_!r} is not one of {allowed}")
        columns.append(Column(name=name, type=type_, nullable=len(parts) == 2))
    names = [column.name for column in columns]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate column names in {names}")
    return tuple(columns)


def table(
    schema_name: str,
    name: str,
    spec: str,
    primary_key: tuple[str, ...] = (),
    description: str = "",
) -> Table:
    """A ``Table`` from its column lines; the primary key must name existing columns."""
    columns = parse_columns(spec)
    known = {column.name for column in columns}
    missing = [key for key in primary_key if key not in known]
    if missing:
        raise ValueError(f"{schema_name}.{name}: primary key names unknown columns {missing}")
    return Table(
        schema_name=schema_name,
        name=name,
        columns=columns,
        primary_key=primary_key,
        description=description,
    )
