"""Loading the reference answer: typed Parquet (or a CSV typed by DuckDB's reader).

A truth that cannot be used is a harness error: it raises ``M4BenchError`` naming the
file and the problem. Agent output never reaches this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4bench.errors import M4BenchError
from m4bench.scoring.model import Comparison
from m4bench.scoring.sqltypes import comparison_for, quote_ident, quote_literal
from m4bench.scoring.truth_facts import (
    column_scales,
    first_duplicate_key,
    footer_counts,
    stored_facts,
)
from m4bench.tasks.evaluation import EvaluationSpec

TRUTH_VIEW = "truth"
# Position of a row in the truth file (0-based); samples are taken in this order.
TRUTH_ROW = "__m4bench_row"

# Columns the paper never treats as ordered even when they look numeric.
_NEVER_ORDERED = frozenset({"specimen", "ventilation_status"})
_HINT = "rebuild the ground truth with 'm4bench setup' or pass the right --truth file"


@dataclass(frozen=True)
class TruthColumn:
    name: str
    sql_type: str
    kind: Comparison

    @property
    def ident(self) -> str:
        return quote_ident(self.name)


@dataclass(frozen=True)
class TruthTable:
    """What the scorer needs to know about the truth registered as ``TRUTH_VIEW``."""

    path: Path
    columns: dict[str, TruthColumn]
    rows: int
    has_null_keys: bool
    ordered: list[str]
    scales: dict[str, float]
    # Columns the Parquet footer shows without a null (empty when it cannot tell).
    null_free: frozenset[str] = frozenset()


def load_truth(con: duckdb.DuckDBPyConnection, spec: EvaluationSpec, path: Path) -> TruthTable:
    """Register the truth as a view (Parquet) or table (CSV) and check it against the spec."""
    if not path.is_file():
        raise M4BenchError(f"{path}: ground truth file not found", hint=_HINT)
    _register(con, path)
    described = con.execute(f"DESCRIBE {TRUTH_VIEW}").fetchall()
    columns = {
        str(name): TruthColumn(str(name), str(sql_type), comparison_for(str(sql_type)))
        for name, sql_type, *_ in described
        if name != TRUTH_ROW
    }
    needed = list(dict.fromkeys([*spec.key_columns, *spec.scored_columns]))
    absent = [name for name in needed if name not in columns]
    if absent:
        raise M4BenchError(
            f"{path}: ground truth lacks columns {absent} named by the evaluation spec "
            f"(it has {sorted(columns)})",
            hint=_HINT,
        )
    parquet = _is_parquet(path)
    rows, null_keys, null_free = _count_rows(con, spec, columns, path if parquet else None)
    facts = stored_facts(con, path) if parquet else None
    if facts is not None and facts.rows != rows:
        facts = None
    if facts is None or facts.unique_keys != spec.key_columns:
        _reject_duplicate_keys(con, path, spec.key_columns)
    ordered = _ordered_columns(spec, columns, path)
    if facts is not None and all(name in facts.scales for name in ordered):
        scales = {name: facts.scales[name] for name in ordered}
    else:
        scales = column_scales(con, TRUTH_VIEW, ordered)
    return TruthTable(
        path=path,
        columns=columns,
        rows=rows,
        has_null_keys=null_keys > 0,
        ordered=ordered,
        scales=scales,
        null_free=null_free,
    )


def _register(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    literal = quote_literal(str(path))
    if _is_parquet(path):
        source = f"read_parquet({literal}, file_row_number = true)"
        sql = [
            f"CREATE VIEW {TRUTH_VIEW} AS SELECT * EXCLUDE (file_row_number), "
            f"file_row_number AS {TRUTH_ROW} FROM {source}"
        ]
    else:
        sql = [
            f"CREATE TABLE truth_rows AS SELECT * FROM read_csv({literal}, header = true)",
            f"CREATE VIEW {TRUTH_VIEW} AS SELECT *, rowid AS {TRUTH_ROW} FROM truth_rows",
        ]
    try:
        for statement in sql:
            con.execute(statement)
        con.execute(f"SELECT * FROM {TRUTH_VIEW} LIMIT 0")
    except duckdb.Error as exc:
        raise M4BenchError(
            f"{path}: ground truth is not readable as Parquet or CSV: {exc}", hint=_HINT
        ) from exc


def _is_parquet(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(4) == b"PAR1"


def _reject_duplicate_keys(con: duckdb.DuckDBPyConnection, path: Path, names: list[str]) -> None:
    duplicate = first_duplicate_key(con, TRUTH_VIEW, names)
    if duplicate is not None:
        key = dict(zip(names, duplicate[:-1], strict=True))
        raise M4BenchError(
            f"{path}: ground truth has {duplicate[-1]} rows with the same key {key}; "
            "keys must be unique",
            hint=_HINT,
        )


def _count_rows(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    columns: dict[str, TruthColumn],
    parquet: Path | None,
) -> tuple[int, int, frozenset[str]]:
    """Rows, rows with a null key, and the columns without a null: from a Parquet
    file's footer when it tells, else by scanning the keys."""
    footer = footer_counts(con, parquet) if parquet else None
    if footer is None:
        null_free: frozenset[str] = frozenset()
    else:
        null_free = frozenset(name for name, count in footer.nulls.items() if not count)
        null_keys = footer.null_key_rows(spec.key_columns)
        if null_keys is not None:
            return footer.rows, null_keys, null_free
    any_null = " OR ".join(f"{columns[name].ident} IS NULL" for name in spec.key_columns)
    row = con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE {any_null}) FROM {TRUTH_VIEW}"
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), null_free


def _ordered_columns(
    spec: EvaluationSpec, columns: dict[str, TruthColumn], path: Path
) -> list[str]:
    if spec.ordered_columns is None:
        return [
            name
            for name in spec.value_columns
            if name not in _NEVER_ORDERED and columns[name].kind == "numeric"
        ]
    wrong = [
        name
        for name in spec.ordered_columns
        if name not in columns or columns[name].kind != "numeric"
    ]
    if wrong:
        raise M4BenchError(
            f"{path}: ordered_columns {wrong} are missing from the ground truth or not numeric",
            hint="list only numeric truth columns in [evaluation] ordered_columns",
        )
    return list(spec.ordered_columns)
