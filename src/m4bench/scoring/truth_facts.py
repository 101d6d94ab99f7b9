"""Facts about a ground truth, measured once when it is built and kept in its footer.

Before comparing, the scorer checks that the truth's keys are unique and measures the
range of every ordered column (the nMAE scale). On a 4 M-row truth that costs about
half a second for every output scored. ``measure_truth`` does both once, when the
ground truth is built, and ``write_truth_file`` stores the result under one key of the
Parquet schema metadata. The scorer uses stored facts only when they name the spec's
key columns and the file's row count; any other truth (a CSV, a Parquet file from
elsewhere, facts that do not fit) is checked and measured as before. The facts are
computed by the same SQL the scorer would run, so a score is the same either way.

Any Parquet file's footer also holds its row count and each column chunk's null count
(``footer_counts``): the scorer counts rows with a null key from them, and leaves out
the null bits of columns without a null, instead of reading the columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
from pydantic import BaseModel, ConfigDict, ValidationError

from m4bench.scoring.sqltypes import comparison_for
from m4bench.sql import first_duplicate_key, quote_ident, quote_literal

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


@dataclass(frozen=True)
class FooterCounts:
    """Row count of a Parquet file and null count of every column whose chunks all
    carry one (the file's footer statistics; a column without them is absent)."""

    rows: int
    nulls: dict[str, int]

    def null_key_rows(self, keys: list[str]) -> int | None:
        """Rows with a null key, when the footer tells: at most one key column has
        nulls (then its count is the answer). None when it cannot tell."""
        if any(name not in self.nulls for name in keys):
            return None
        with_nulls = [self.nulls[name] for name in dict.fromkeys(keys) if self.nulls[name]]
        if len(with_nulls) > 1:
            return None
        return with_nulls[0] if with_nulls else 0


def footer_counts(con: duckdb.DuckDBPyConnection, path: Path) -> FooterCounts | None:
    """Counts from a Parquet file's footer, so that no column is read; None when the
    footer cannot be read."""
    literal = quote_literal(str(path))
    try:
        meta = con.execute(
            f"SELECT num_rows, num_row_groups FROM parquet_file_metadata({literal})"
        ).fetchone()
        found = con.execute(
            f"SELECT path_in_schema, count(stats_null_count), count(*), sum(stats_null_count) "
            f"FROM parquet_metadata({literal}) GROUP BY ALL"
        ).fetchall()
    except duckdb.Error:
        return None
    if meta is None:
        return None
    groups = int(meta[1])
    nulls = {
        str(name): int(total or 0)
        for name, counted, chunks, total in found
        if int(counted) == groups and int(chunks) == groups
    }
    return FooterCounts(int(meta[0]), nulls)
