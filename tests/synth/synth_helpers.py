"""Helpers of the synth tests: ``from synth_helpers import one, HIGH_QUIRKS``."""

from __future__ import annotations

import duckdb

from m4bench.sources.synth import QuirkRates

# high rates make each quirk measurable on a small cohort
HIGH_QUIRKS = QuirkRates(
    temperature_unit_swap=0.2,
    fio2_fraction=0.2,
    fio2_flow_typo=0.1,
    gcs_partial=0.3,
    chart_duplicate=0.1,
    lab_text_value=0.1,
    lab_out_of_range=0.05,
    lab_null_hadm=0.25,
    micro_null_hadm=0.2,
    micro_date_only=0.3,
    bg_simultaneous_venous=0.3,
    device_without_flow=0.5,
    vasopressor_unit_variant=0.2,
    vasopressor_overlap=0.3,
    absurd_weight=0.2,
    off_hour_time=0.4,
    icu_before_admission=0.3,
    null_route_antibiotic=0.2,
    deathtime_typo=0.5,
    organ_donor_admission=0.5,
)


def one(con: duckdb.DuckDBPyConnection, sql: str) -> object:
    """The single value a query returns."""
    row = con.execute(sql).fetchone()
    assert row is not None
    return row[0]


def rate(con: duckdb.DuckDBPyConnection, sql: str) -> float:
    """A query returning (hits, total) as a share."""
    row = con.execute(sql).fetchone()
    assert row is not None and row[1], sql
    return float(row[0]) / float(row[1])


def rows_per(con: duckdb.DuckDBPyConnection, table: str, per: str) -> float:
    """Rows of ``table`` per row of ``per`` (qualified table names)."""
    rows, owners = (
        one(con, f"SELECT COUNT(*) FROM {table}"),
        one(con, f"SELECT COUNT(*) FROM {per}"),
    )
    return float(rows) / float(owners)  # type: ignore[arg-type]
