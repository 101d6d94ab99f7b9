"""Fixtures for task tests: the concept library and a database per task (the shipped
catalog is the session fixture of tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import duckdb
import pytest
from task_rows import empty_database

from m4bench.concepts.library import ConceptLibrary
from m4bench.tasks.catalog import Catalog, Task


@pytest.fixture(scope="session")
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
