"""The statements the ``oracle`` agent runs: the task's reference, made self-sufficient.

A task's agent database lacks the derived tables its reference reads (a raw task lacks
the whole derived schema). The oracle therefore first creates, in the run's own copy of
the database, every derived table the reference needs that the catalog does not hold,
from the concept library's SQL in dependency order, then copies the reference's rows
(sorted like the ground truth) to ``output.csv``. Under a perturbed schema every
statement is rewritten to the variant's names and the output columns are renamed back
to the native names the task asks for. A mutant is the same plan with a changed
reference query.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from m4bench.concepts.library import ConceptLibrary
from m4bench.provision.mapping import SchemaMapping
from m4bench.provision.rewrite import transform_sql
from m4bench.results.identity import SchemaName
from m4bench.sql import quote_ident, quote_qualified
from m4bench.tasks.catalog import Task
from m4bench.tasks.reference import ordered_query, output_columns

OUTPUT_FILE = "output.csv"
Rewrite = Callable[[str], str]


def oracle_statements(
    task: Task,
    present: Collection[str],
    schema: SchemaName = "native",
    mapping: SchemaMapping | None = None,
    reference_sql: str | None = None,
) -> list[str]:
    """SQL statements that write the task's answer to ``output.csv`` in the workdir.

    ``present``: qualified relations the run's database holds (variant names).
    ``reference_sql``: a replacement reference (a mutant); default the task's own.
    """
    sql = reference_sql if reference_sql is not None else task.reference_sql
    rewrite = _rewriter(schema, mapping)
    statements = _missing_concepts(task, present, rewrite, mapping)
    columns = output_columns(sql, str(task.reference_path))
    query = ordered_query(sql, task.card.evaluation.key_columns, columns)
    if mapping is not None and schema != "native":
        query = _renamed_back(rewrite(query), columns, mapping)
    # The query starts on COPY's own line, so an error's LINE n is the reference file's.
    statements.append(f"COPY ({query}\n) TO '{OUTPUT_FILE}' (FORMAT CSV, HEADER)")
    return statements


def _rewriter(schema: SchemaName, mapping: SchemaMapping | None) -> Rewrite:
    if schema == "native" or mapping is None:
        return lambda sql: sql
    variant = schema
    return lambda sql: transform_sql(sql, mapping, variant)


def _missing_concepts(
    task: Task, present: Collection[str], rewrite: Rewrite, mapping: SchemaMapping | None
) -> list[str]:
    if not task.direct_dependencies:
        return []
    library = ConceptLibrary.load(task.card.dataset)
    statements: list[str] = []
    schemas: set[str] = set()
    for concept in library.order(task.direct_dependencies):
        target = mapping.table(concept.qualified) if mapping else concept.qualified
        if target in present:
            continue
        schema_name = target.split(".", 1)[0]
        if schema_name not in schemas:
            schemas.add(schema_name)
            statements.append(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema_name)}")
        body = rewrite(concept.query)
        statements.append(f"CREATE OR REPLACE TABLE {quote_qualified(target)} AS\n{body}")
    return statements


def _renamed_back(query: str, native_columns: list[str], mapping: SchemaMapping) -> str:
    select = ", ".join(
        f"{quote_ident(mapping.column(name))} AS {quote_ident(name)}" for name in native_columns
    )
    return f"SELECT {select} FROM (\n{query}\n) AS oracle_rows"
