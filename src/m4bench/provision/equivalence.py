"""Equivalence: the rewritten reference on a perturbed variant gives the native answer.

The transformed query runs over the variant's files; its output columns are mapped
back to native names through the inverse column map; the rows, sorted by the task's
key columns then every column, must equal the native ground truth exactly (same
columns, same types, same values, same order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from m4bench.errors import M4BenchError
from m4bench.fileio import read_model
from m4bench.home import DataHome
from m4bench.provision.ground_truth import ground_truth_path
from m4bench.provision.layout import PerturbedVariant, mapping_path
from m4bench.provision.mapping import SchemaMapping
from m4bench.provision.perturb import perturbed_view
from m4bench.provision.relations import SchemaView
from m4bench.provision.rewrite import transform_sql
from m4bench.sql import create_parquet_views, quote_literal
from m4bench.tasks.catalog import Task
from m4bench.tasks.reference import ordered_query, output_columns


@dataclass(frozen=True)
class EquivalenceResult:
    name: str  # the task, or the table for a round trip
    variant: PerturbedVariant
    ok: bool
    detail: str


def load_mapping(home: DataHome, source: str) -> SchemaMapping:
    path = mapping_path(home, source)
    if not path.exists():
        raise M4BenchError(
            f"{path}: no schema mapping for {source!r}",
            hint=f"build it with `m4bench setup --source {source} --schema obfuscated`",
        )
    return read_model(path, SchemaMapping)


def run_transformed(
    task: Task, mapping: SchemaMapping, view: SchemaView, variant: PerturbedVariant
) -> pa.Table:
    """The task's reference rewritten for ``variant``, run on its files, columns renamed
    back to native names."""
    sql = transform_sql(task.reference_sql, mapping, variant)
    columns = output_columns(sql, f"{task.name} ({variant})")
    keys = [mapping.column(name) for name in task.card.evaluation.key_columns]
    con = duckdb.connect()
    try:
        create_views(con, view.files)
        try:
            table = con.execute(ordered_query(sql, keys, columns)).fetch_arrow_table()
        except duckdb.Error as exc:
            raise M4BenchError(f"{task.name}: the {variant} reference failed: {exc}") from exc
    finally:
        con.close()
    inverse = mapping.native_column()
    return table.rename_columns([inverse.get(name, name) for name in table.column_names])


def verify_equivalence(
    home: DataHome, source: str, task: Task, variant: PerturbedVariant
) -> EquivalenceResult:
    """Compare the transformed reference on ``variant`` with the native ground truth."""
    truth_path = ground_truth_path(home, source, task)
    if not truth_path.exists():
        raise M4BenchError(
            f"{truth_path}: no ground truth for {task.name}",
            hint=f"build it with `m4bench setup --source {source} --task {task.name}`",
        )
    truth = pq.read_table(truth_path)
    got = run_transformed(
        task, load_mapping(home, source), perturbed_view(home, source, variant), variant
    )
    return EquivalenceResult(task.name, variant, *compare_tables(truth, got))


def compare_tables(truth: pa.Table, got: pa.Table) -> tuple[bool, str]:
    """Exact equality (columns, types, values, order) and, if not, the first difference."""
    if truth.column_names != got.column_names:
        return False, f"columns differ: {got.column_names} vs {truth.column_names}"
    if truth.num_rows != got.num_rows:
        return False, f"{got.num_rows} rows vs {truth.num_rows} in the ground truth"
    for name in truth.column_names:
        left, right = truth.column(name), got.column(name)
        if left.type != right.type:
            return False, f"column {name}: type {right.type} vs {left.type}"
        if not left.equals(right):
            return False, f"column {name}: values differ"
    return True, f"{truth.num_rows} rows, {truth.num_columns} columns identical"


def create_views(con: duckdb.DuckDBPyConnection, files: Mapping[str, Path]) -> None:
    """One view per ``{qualified name: Parquet file}`` over its absolute path."""
    create_parquet_views(con, sorted(files.items()))


def verify_round_trip(home: DataHome, source: str) -> list[EquivalenceResult]:
    """Each table merged away, read back from the restructured schema through the same
    rewrite a reference gets, equals its obfuscated table as a multiset of rows."""
    mapping = load_mapping(home, source)
    restructured = perturbed_view(home, source, "restructured")
    obfuscated = perturbed_view(home, source, "obfuscated")
    results = []
    con = duckdb.connect()
    try:
        create_views(con, restructured.files)
        for merged in mapping.merged.values():
            for native in sorted(merged.values):
                read_back = transform_sql(f"SELECT * FROM {native}", mapping, "restructured")
                original = obfuscated.files[mapping.table(native)]
                results.append(_multiset_equal(con, native, read_back, original))
    finally:
        con.close()
    return results


def _multiset_equal(
    con: duckdb.DuckDBPyConnection, native: str, read_back: str, original_file: Path
) -> EquivalenceResult:
    original = f"SELECT * FROM read_parquet({quote_literal(original_file)})"
    counts = con.execute(
        f"SELECT (SELECT COUNT(*) FROM ({read_back})), (SELECT COUNT(*) FROM ({original})), "
        f"(SELECT COUNT(*) FROM (({read_back}) EXCEPT ALL ({original}))), "
        f"(SELECT COUNT(*) FROM (({original}) EXCEPT ALL ({read_back})))"
    ).fetchone() or (0, 0, 0, 0)
    back, orig, extra, lost = (int(value) for value in counts)
    ok = back == orig and extra == 0 and lost == 0
    detail = f"{back} rows read back, {orig} original, {extra} extra, {lost} lost"
    return EquivalenceResult(native, "restructured", ok, detail)
