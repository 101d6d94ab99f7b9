"""Facts about a ground truth, measured once when it is built and kept in its footer.

Before comparing, the scorer checks that the truth's keys are unique and measures the
range of every ordered column (the nMAE scale). On a 4 M-row truth that costs about
half a second for every output scored. ``measure_truth`` does both once, when the
ground truth is built, and ``write_truth_file`` stores the result under one key of the
Parquet schema metadata. The scorer uses stored facts only when they name the spec's
key columns and the file's row count; any other truth (a CSV, a Parquet file from
elsewhere, facts that do not fit) is checked and measured as before. The facts are
computed by the same SQL the scorer would run, so a score is the same either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
from pydantic import BaseModel, ConfigDict, ValidationError

from m4bench.scoring.sqltypes import comparison_for, quote_ident, quote_literal

if TYPE_CHECKING:  # the scorer itself never needs pyarrow loaded (about 50 MB)
    import pyarrow as pa

# Key of the facts in the Parquet file's schema metadata (a JSON ``TruthFacts``).
FACTS_KEY = b"m4bench.truth_facts"
_VIEW = "truth_to_measure"


class TruthFacts(BaseModel):
    """``unique_keys``: the key columns found unique (None when some key repeats);
    ``scales``: the nMAE scale of every numeric column (see ``column_scales``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rows: int
    unique_keys: list[str] | None
    scales: dict[str, float]


def first_duplicate_key(
    con: duckdb.DuckDBPyConnection, view: str, keys: list[str]
) -> tuple[object, ...] | None:
    """The smallest repeated key of ``view`` and its count (last item), or None."""
    key_list = ", ".join(quote_ident(name) for name in keys)
    row = con.execute(
        f"SELECT {key_list}, count(*) FROM {view} GROUP BY ALL HAVING count(*) > 1 "
        f"ORDER BY ALL LIMIT 1"
    ).fetchone()
    return None if row is None else tuple(row)


def column_scales(con: duckdb.DuckDBPyConnection, view: str, names: list[str]) -> dict[str, float]:
    """Range of each column as DOUBLE (max - min), 1.0 when empty, constant or not finite."""
    if not names:
        return {}
    ranges = ", ".join(
        f"max(CAST({quote_ident(name)} AS DOUBLE)) - min(CAST({quote_ident(name)} AS DOUBLE))"
        for name in names
    )
    row = con.execute(f"SELECT {ranges} FROM {view}").fetchone()
    assert row is not None
    scales: dict[str, float] = {}
    for name, value in zip(names, row, strict=True):
        usable = value is not None and value == value and 0 < float(value) < float("inf")
        scales[name] = float(value) if usable else 1.0
    return scales


def measure_truth(table: pa.Table, key_columns: list[str]) -> TruthFacts:
    """Check the keys of ``table`` and measure its numeric columns."""
    with duckdb.connect() as con:
        con.register(_VIEW, table)
        described = con.execute(f"DESCRIBE {_VIEW}").fetchall()
        kinds = {str(name): comparison_for(str(sql_type)) for name, sql_type, *_ in described}
        numeric = [name for name, kind in kinds.items() if kind == "numeric"]
        present = all(name in table.column_names for name in key_columns)
        unique = present and first_duplicate_key(con, _VIEW, key_columns) is None
        return TruthFacts(
            rows=table.num_rows,
            unique_keys=list(key_columns) if unique else None,
            scales=column_scales(con, _VIEW, numeric),
        )


def with_facts(table: pa.Table, facts: TruthFacts) -> pa.Table:
    """``table`` with ``facts`` in its schema metadata (other metadata kept)."""
    metadata = dict(table.schema.metadata or {})
    metadata[FACTS_KEY] = facts.model_dump_json().encode()
    return table.replace_schema_metadata(metadata)


def stored_facts(con: duckdb.DuckDBPyConnection, path: Path) -> TruthFacts | None:
    """The facts in a Parquet file's footer; None when absent, unreadable or invalid."""
    try:
        row = con.execute(
            f"SELECT value FROM parquet_kv_metadata({quote_literal(str(path))}) "
            f"WHERE key = {quote_literal(FACTS_KEY.decode())}::BLOB"
        ).fetchone()
        return None if row is None else TruthFacts.model_validate_json(row[0])
    except (duckdb.Error, ValidationError):
        return None


def rows_from_footer(
    con: duckdb.DuckDBPyConnection, path: Path, keys: list[str]
) -> tuple[int, int] | None:
    """Rows of a Parquet file and rows with a null key, read from its footer.

    The footer holds each column chunk's null count, so no key is read when at most one
    key column has nulls (then its count is the answer). None when the file lacks null
    counts for some key chunk or more than one key column has nulls: count by scanning.
    """
    literal = quote_literal(str(path))
    names = ", ".join(quote_literal(name) for name in keys)
    try:
        found = con.execute(
            f"SELECT path_in_schema, count(stats_null_count), count(*), sum(stats_null_count) "
            f"FROM parquet_metadata({literal}) WHERE path_in_schema IN ({names}) GROUP BY ALL"
        ).fetchall()
        meta = con.execute(
            f"SELECT num_rows, num_row_groups FROM parquet_file_metadata({literal})"
        ).fetchone()
    except duckdb.Error:
        return None
    if meta is None or len(found) != len(set(keys)):
        return None
    rows, groups = int(meta[0]), int(meta[1])
    if any(int(counted) != groups or int(chunks) != groups for _, counted, chunks, _ in found):
        return None
    nulls = [int(total) for *_, total in found if total]
    return (rows, nulls[0] if nulls else 0) if len(nulls) <= 1 else None
