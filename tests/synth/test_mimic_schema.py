"""Every table and column of the official MIMIC-IV schema, with its type, in order."""

from __future__ import annotations

import duckdb
import pyarrow.parquet as pq
from synth_helpers import one

from m4bench.sources.layout import Source
from m4bench.sources.schema.mimic_iv import MIMIC_IV


def test_every_table_with_exact_columns_and_types(
    mimic_source: Source, con: duckdb.DuckDBPyConnection
) -> None:
    assert set(mimic_source.manifest.tables) == {t.qualified for t in MIMIC_IV.tables}
    for table in MIMIC_IV.tables:
        described = con.execute(f"DESCRIBE {table.qualified}").fetchall()
        assert [(r[0], r[1]) for r in described] == [(c.name, c.type) for c in table.columns], (
            table.qualified
        )


def test_not_null_columns_hold_no_nulls(con: duckdb.DuckDBPyConnection) -> None:
    for table in MIMIC_IV.tables:
        for column in table.columns:
            if not column.nullable:
                nulls = one(
                    con, f'SELECT COUNT(*) FROM {table.qualified} WHERE "{column.name}" IS NULL'
                )
                assert nulls == 0, f"{table.qualified}.{column.name}"


def test_row_counts_match_manifest_and_parquet_is_zstd(
    mimic_source: Source, con: duckdb.DuckDBPyConnection
) -> None:
    for qualified, entry in mimic_source.manifest.tables.items():
        assert one(con, f"SELECT COUNT(*) FROM {qualified}") == entry.rows
    meta = pq.ParquetFile(mimic_source.table_file("mimiciv_icu.chartevents")).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"


def test_concept_tables_are_not_empty(mimic_source: Source) -> None:
    for table in ("icu.chartevents", "hosp.labevents", "icu.inputevents", "icu.outputevents",
                  "icu.procedureevents", "hosp.microbiologyevents", "hosp.prescriptions",
                  "hosp.diagnoses_icd", "hosp.services", "hosp.transfers", "hosp.pharmacy",
                  "hosp.drgcodes", "hosp.hcpcsevents", "icu.d_items"):  # fmt: skip
        assert mimic_source.manifest.tables[f"mimiciv_{table}"].rows > 0, table
