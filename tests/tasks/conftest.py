"""Fixtures for task tests: the catalog, the concept library, a database per task."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import duckdb
import pytest
from task_rows import empty_database

from m4bench.concepts.library import ConceptLibrary
from m4bench.tasks.catalog import Catalog, Task, load_catalog


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def library() -> ConceptLibrary:
    return ConceptLibrary.load("mimic-iv")


@pytest.fixture
def task_db(
    catalog: Catalog, library: ConceptLibrary
) -> Iterator[Callable[[str], tuple[Task, duckdb.DuckDBPyConnection]]]:
    """``task_db(name)`` -> (task, connection with empty source and concept tables)."""
    opened: list[duckdb.DuckDBPyConnection] = []

    def open_task(name: str) -> tuple[Task, duckdb.DuckDBPyConnection]:
        task = catalog.task(name)
        con = empty_database(task, library)
        opened.append(con)
        return task, con

    yield open_task
    for con in opened:
        con.close()
