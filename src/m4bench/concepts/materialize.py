"""Create concept tables inside an open DuckDB connection.

Used by tests (hand-built patients in an in-memory database), by the docs dry run and
by anything that wants derived tables without writing Parquet.
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from m4bench.concepts.library import DERIVED_SCHEMA, Concept, ConceptLibrary
from m4bench.errors import M4BenchError


def materialize(
    con: duckdb.DuckDBPyConnection,
    library: ConceptLibrary,
    names: Iterable[str] | None = None,
    *,
    with_dependencies: bool = True,
) -> None:
    """Create ``mimiciv_derived.<name>`` tables in ``con``, inputs first.

    ``names=None`` builds the whole library. With ``with_dependencies=False`` only the
    named concepts are built and their inputs must already exist as tables or views.
    """
    if names is None or with_dependencies:
        concepts = library.order(names)
    else:
        wanted = {library.get(name).name for name in names}
        concepts = [c for c in library.order(wanted) if c.name in wanted]
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {DERIVED_SCHEMA}")
    for concept in concepts:
        create_concept_table(con, concept)


def create_concept_table(con: duckdb.DuckDBPyConnection, concept: Concept) -> None:
    """(Re)create one concept table; a failing query is reported with its file."""
    try:
        con.execute(f"CREATE OR REPLACE TABLE {concept.qualified} AS\n{concept.query}")
    except duckdb.Error as exc:
        raise M4BenchError(
            f"{concept.path}: building {concept.qualified} failed: {exc}",
            hint="fix the concept's SQL (or build its inputs first)",
        ) from exc
