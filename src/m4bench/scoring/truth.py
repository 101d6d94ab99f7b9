"""Loading the reference answer: typed Parquet (or a CSV typed by DuckDB's reader from
the whole file).

A truth that cannot be used is a harness error: it raises ``M4BenchError`` naming the
file and the problem. Agent output never reaches this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4bench.errors import M4BenchError
from m4bench.scoring.model import Comparison
from m4bench.scoring.sqltypes import comparison_for
from m4bench.scoring.truth_facts import column_scales, footer_counts, stored_facts
from m4bench.sql import first_duplicate_key, quote_ident, quote_literal
from m4bench.tasks.evaluation import EvaluationSpec

TRUTH_VIEW = "truth"
# Position of a row in the truth file (0-based); samples are taken in this order.
TRUTH_ROW = "__m4bench_row"

# Columns the paper never treats as ordered even when they look numeric.
_NEVER_ORDERED = frozenset({"specimen", "ventilation_status"})
_HINT = "rebuild the ground truth with 'm4bench setup' or pass the right --truth file"
_FORMAT_HINT = (
    "pass the typed Parquet ground truth 'm4bench setup' builds "
    "(tasks/<source>/ground-truth/<key>.parquet), or a comma-separated CSV(.gz) "
    "with a header line"
)
# A CSV truth's first bytes hold no C0 control byte other than tab, line feed and
# carriage return; gzip and zstd streams are passed to DuckDB, which inflates them.
_SNIFF_BYTES = 64 * 1024
_BINARY = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_COMPRESSED_MAGIC = {b"\x1f\x8b": "gzip", b"\x28\xb5\x2f\xfd": "zstd"}


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
    parquet = _is_parquet(path)
    if parquet:
        source = f"read_parquet({literal}, file_row_number = true)"
        sql = [
            f"CREATE VIEW {TRUTH_VIEW} AS SELECT * EXCLUDE (file_row_number), "
            f"file_row_number AS {TRUTH_ROW} FROM {source}"
        ]
    else:
        compression = _csv_compression(path)
        sql = [
            # Typed from the whole file, not a sample: a numeric column empty in the first
            # rows keeps its tolerance, and one that turns to text later stays text.
            f"CREATE TABLE truth_rows AS SELECT * FROM read_csv({literal}, header = true, "
            f"compression = '{compression}', sample_size = -1)",
            f"CREATE VIEW {TRUTH_VIEW} AS SELECT *, rowid AS {TRUTH_ROW} FROM truth_rows",
        ]
    try:
        for statement in sql:
            con.execute(statement)
        con.execute(f"SELECT * FROM {TRUTH_VIEW} LIMIT 0")
    except duckdb.Error as exc:
        # DuckDB's CSV sniffer explains itself in some 20 lines; the first says it all.
        what = "a damaged Parquet file" if parquet else "not a Parquet or CSV file"
        raise M4BenchError(f"{path}: {what}: {_first_line(exc)}", hint=_FORMAT_HINT) from exc


def _is_parquet(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(4) == b"PAR1"


def _csv_compression(path: Path) -> str:
    """How DuckDB is to read a truth that is not Parquet: a gzip or zstd stream (named
    by its first bytes, whatever the file's name), or plain text. Bytes no text holds
    are refused here, before DuckDB's CSV sniffer reports on them at length."""
    with path.open("rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    if not head:
        raise M4BenchError(f"{path}: ground truth file is empty", hint=_FORMAT_HINT)
    for magic, compression in _COMPRESSED_MAGIC.items():
        if head.startswith(magic):
            return compression
    if _BINARY.search(head):
        raise M4BenchError(
            f"{path}: not a Parquet or CSV file (binary bytes, no Parquet header)",
            hint=_FORMAT_HINT,
        )
    return "none"


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


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
