"""m4bench.sql: names and values holding quotes stay one token; views over Parquet files."""

from __future__ import annotations

from pathlib import Path

import duckdb

from m4bench.sql import (
    create_parquet_views,
    first_duplicate_key,
    parquet_view_sql,
    quote_ident,
    quote_literal,
    quote_qualified,
)


def test_quotes_inside_names_and_values_are_doubled() -> None:
    assert quote_ident('we"ird') == '"we""ird"'
    assert quote_qualified('s.t"x') == '"s"."t""x"'
    assert quote_literal("it's") == "'it''s'"
    assert quote_literal(Path("/a/b's.parquet")) == "'/a/b''s.parquet'"
    with duckdb.connect() as con:
        value, name = quote_literal("a'b"), quote_ident('c"d')
        row = con.execute(f"SELECT {value} AS {name}").fetchone()
        names = [d[0] for d in con.description or []]
    assert row == ("a'b",) and names == ['c"d']


def test_views_over_parquet_files_with_quotes_in_their_paths(tmp_path: Path) -> None:
    folder = tmp_path / "it's here"
    folder.mkdir()
    first, second = folder / "one.parquet", folder / "two.parquet"
    with duckdb.connect() as con:
        con.execute(f"COPY (SELECT 1 AS k UNION ALL SELECT 1) TO {quote_literal(first)}")
        con.execute(f"COPY (SELECT 2 AS k) TO {quote_literal(second)}")
        create_parquet_views(con, [("s1.a", first), ("s2.b", second), ("s1.c", second)])
        assert con.execute("SELECT SUM(k) FROM s1.a").fetchone() == (2,)
        assert con.execute("SELECT k FROM s2.b").fetchall() == [(2,)]
        assert con.execute("SELECT k FROM s1.c").fetchall() == [(2,)]
        create_parquet_views(con, [("s1.d", first)])  # an existing schema is kept
        assert first_duplicate_key(con, "s1.a", ["k"]) == (1, 2)
        assert first_duplicate_key(con, "s2.b", ["k"]) is None
    assert parquet_view_sql("x.y", "rel/p.parquet") == (
        'CREATE VIEW "x"."y" AS SELECT * FROM read_parquet(\'rel/p.parquet\')'
    )
