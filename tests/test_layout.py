"""write_parquet: atomic, counted, and clean after a failed query."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from m4bench.sources.layout import write_parquet


def test_write_parquet_counts_rows(tmp_path: Path) -> None:
    con = duckdb.connect()
    target = tmp_path / "t.parquet"
    assert write_parquet(con, "SELECT range AS x FROM range(7)", target) == 7
    assert con.execute(f"SELECT SUM(x) FROM '{target}'").fetchone() == (21,)


def test_failed_query_leaves_old_file_and_no_temp_files(tmp_path: Path) -> None:
    con = duckdb.connect()
    target = tmp_path / "t.parquet"
    write_parquet(con, "SELECT 1 AS x", target)
    before = target.read_bytes()
    with pytest.raises(duckdb.Error):
        write_parquet(con, "SELECT CAST('abc' AS INTEGER) AS x FROM range(3)", target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]
