"""Shared fixtures for concept tests: an empty MIMIC-IV database and small helpers.

Typical use::

    def test_something(insert, build, rows):
        insert("mimiciv_icu.icustays", [{"subject_id": 1, "hadm_id": 10, "stay_id": 100,
                                         "intime": "2150-01-01 08:00:00", ...}])
        build("icustay_times")
        assert rows("icustay_times") == [{...}]

Rows are plain dicts; columns not given are NULL. Timestamps may be given as
``'YYYY-MM-DD HH:MM:SS'`` strings or ``datetime`` values; ``rows`` returns ``datetime``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import duckdb
import pytest

from m4bench.concepts.library import ConceptLibrary
from m4bench.concepts.materialize import materialize

Row = Mapping[str, Any]


@pytest.fixture(scope="session")
def concept_library() -> ConceptLibrary:
    return ConceptLibrary.load("mimic-iv")


@pytest.fixture
def mimic_con() -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB with every MIMIC-IV source table, empty."""
    from m4bench.sources.schema import create_empty_tables, dataset_schema

    con = duckdb.connect()
    create_empty_tables(con, dataset_schema("mimic-iv"))
    try:
        yield con
    finally:
        con.close()


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Row]) -> None:
    """INSERT dict rows into a qualified table (missing columns are NULL)."""
    for row in rows:
        columns = ", ".join(f'"{c}"' for c in row)
        marks = ", ".join("?" for _ in row)
        con.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(row.values()))


def fetch_rows(
    con: duckdb.DuckDBPyConnection, table: str, order_by: str | None = None
) -> list[dict[str, Any]]:
    """All rows of a table (``mimiciv_derived.`` implied for bare names) as dicts."""
    qualified = table if "." in table else f"mimiciv_derived.{table}"
    order = f" ORDER BY {order_by}" if order_by else " ORDER BY ALL"
    cursor = con.execute(f"SELECT * FROM {qualified}{order}")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]


@pytest.fixture
def insert(mimic_con: duckdb.DuckDBPyConnection) -> Callable[[str, Sequence[Row]], None]:
    def _insert(table: str, rows: Sequence[Row]) -> None:
        insert_rows(mimic_con, table, rows)

    return _insert


@pytest.fixture
def build(
    mimic_con: duckdb.DuckDBPyConnection, concept_library: ConceptLibrary
) -> Callable[..., None]:
    """``build("name", ...)``: materialize concepts (with their inputs unless told not to)."""

    def _build(*names: str, with_dependencies: bool = True) -> None:
        materialize(mimic_con, concept_library, names, with_dependencies=with_dependencies)

    return _build


@pytest.fixture
def rows(mimic_con: duckdb.DuckDBPyConnection) -> Callable[..., list[dict[str, Any]]]:
    """``rows("table", order_by=None)``: the table's rows as dicts, sorted."""

    def _rows(table: str, order_by: str | None = None) -> list[dict[str, Any]]:
        return fetch_rows(mimic_con, table, order_by)

    return _rows


T0 = datetime(2150, 1, 1, 8, 0, 0)


def at(hours: float = 0.0, base: datetime = T0) -> datetime:
    """A timestamp ``hours`` after the tests' common reference time (2150-01-01 08:00)."""
    return base + timedelta(hours=hours)


def stay(
    subject_id: int = 1,
    hadm_id: int = 10,
    stay_id: int = 100,
    intime: datetime = T0,
    los_hours: float = 72.0,
) -> dict[str, Any]:
    """An icustays row starting at ``intime``."""
    return {
        "subject_id": subject_id,
        "hadm_id": hadm_id,
        "stay_id": stay_id,
        "first_careunit": "Medical Intensive Care Unit (MICU)",
        "last_careunit": "Medical Intensive Care Unit (MICU)",
        "intime": intime,
        "outtime": intime + timedelta(hours=los_hours),
        "los": los_hours / 24,
    }
