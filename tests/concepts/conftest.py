"""Shared fixtures for concept tests: an empty MIMIC-IV database and small helpers.

Typical use::

    def test_something(insert, build, rows):
        insert("mimiciv_icu.icustays", [{"subject_id": 1, "hadm_id": 10, "stay_id": 100,
                                         "intime": "2150-01-01 08:00:00", ...}])
        build("icustay_times")
        assert rows("icustay_times") == [{...}]

Rows are plain dicts; columns not given are NULL. Timestamps may be given as
``'YYYY-MM-DD HH:MM:SS'`` strings or ``datetime`` values; ``rows`` returns ``datetime``.
Row builders (``stay``, ``at``) live in ``concept_rows`` (``from concept_rows import at``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import duckdb
import pytest
from concept_rows import Row, fetch_rows, insert_rows

from m4bench.concepts.library import ConceptLibrary
from m4bench.concepts.materialize import materialize


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
