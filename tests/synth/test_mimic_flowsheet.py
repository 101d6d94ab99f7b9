"""chartevents at bedside volume: flowsheet rounds on top of the concept items."""

from __future__ import annotations

import duckdb
from synth_helpers import HIGH_QUIRKS, one, rate

from m4bench.sources.synth.mimic_flowsheet import (
    FLOWSHEET_ITEMS,
    LEVEL_OF_CONSCIOUSNESS,
    NURSING_HOURLY,
    VENTILATOR_MONITOR,
)


def test_rows_per_icu_hour_near_the_real_volume(con: duckdb.DuckDBPyConnection) -> None:
    """Real: about 55 rows per ICU hour over a mean stay of about 3.5 days; the synthetic
    stays are shorter (about 2.7 days), so the same rows per stay is more per hour."""
    rows = one(con, "SELECT COUNT(*) FROM mimiciv_icu.chartevents")
    hours = one(con, "SELECT SUM(los) * 24 FROM mimiciv_icu.icustays")
    per_hour = float(rows) / float(hours)  # type: ignore[arg-type]
    assert 55 <= per_hour <= 90, per_hour


def test_every_flowsheet_item_is_charted_and_described(con: duckdb.DuckDBPyConnection) -> None:
    sql = "SELECT DISTINCT itemid FROM mimiciv_icu.chartevents"
    charted = {r[0] for r in con.execute(sql).fetchall()}
    sql = "SELECT itemid FROM mimiciv_icu.d_items WHERE linksto = 'chartevents'"
    described = {r[0] for r in con.execute(sql).fetchall()}
    assert set(FLOWSHEET_ITEMS) <= charted
    assert set(FLOWSHEET_ITEMS) <= described


def test_hourly_round_items_share_their_times(con: duckdb.DuckDBPyConnection) -> None:
    """A round charts all its items at once: each charttime of one item has the others."""
    first, second = NURSING_HOURLY.text[0][0], NURSING_HOURLY.text[1][0]
    missing = one(
        con,
        f"""SELECT COUNT(*) FROM (SELECT stay_id, charttime FROM mimiciv_icu.chartevents
        WHERE itemid = {first} EXCEPT SELECT stay_id, charttime FROM mimiciv_icu.chartevents
        WHERE itemid = {second})""",
    )
    assert missing == 0


def test_text_answers_persist_within_a_stay(con: duckdb.DuckDBPyConnection) -> None:
    """Each stay has a usual answer (about 80 % of its rows), not uniform noise."""
    itemid, options = NURSING_HOURLY.text[1]
    usual = one(
        con,
        f"""WITH c AS (SELECT stay_id, value, COUNT(*) n FROM mimiciv_icu.chartevents
        WHERE itemid = {itemid} GROUP BY 1, 2)
        SELECT SUM(top) / SUM(total) FROM (SELECT stay_id, MAX(n) top, SUM(n) total
        FROM c GROUP BY 1)""",
    )
    assert float(usual) > 0.75 > 1 / len(options)  # type: ignore[arg-type]


def test_ventilator_monitoring_only_while_ventilated(con: duckdb.DuckDBPyConnection) -> None:
    """Airway pressures are charted only within the hours an endotracheal tube is charted."""
    itemid = VENTILATOR_MONITOR.numeric[0][0]
    outside = one(
        con,
        f"""WITH tube AS (SELECT stay_id, MIN(charttime) t0, MAX(charttime) t1
            FROM mimiciv_icu.chartevents WHERE itemid = 226732
            AND value IN ('Endotracheal tube', 'Tracheostomy tube') GROUP BY 1)
        SELECT COUNT(*) FROM mimiciv_icu.chartevents m LEFT JOIN tube USING (stay_id)
        WHERE m.itemid = {itemid} AND (tube.stay_id IS NULL
            OR m.charttime < tube.t0 - INTERVAL 1 HOUR
            OR m.charttime > tube.t1 + INTERVAL 5 HOUR)""",
    )
    assert outside == 0
    assert one(con, f"SELECT COUNT(*) FROM mimiciv_icu.chartevents WHERE itemid = {itemid}")


def test_off_hour_rate_holds_over_all_chartevents(qcon: duckdb.DuckDBPyConnection) -> None:
    """The flowsheet follows the configured off-hour rate like every other item."""
    measured = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE MINUTE(charttime) <> 0), COUNT(*)
        FROM mimiciv_icu.chartevents""",
    )
    assert abs(measured - HIGH_QUIRKS.off_hour_time) < 0.03


def test_level_of_consciousness_follows_gcs(con: duckdb.DuckDBPyConnection) -> None:
    """Stays usually charted 'Alert' have better GCS motor scores than the others."""
    rows = con.execute(
        f"""WITH loc AS (SELECT stay_id, MODE(value) usual FROM mimiciv_icu.chartevents
            WHERE itemid = {LEVEL_OF_CONSCIOUSNESS} GROUP BY 1),
        g AS (SELECT stay_id, AVG(valuenum) motor FROM mimiciv_icu.chartevents
            WHERE itemid = 223901 GROUP BY 1)
        SELECT usual = 'Alert' AS alert, AVG(motor), COUNT(*) FROM loc JOIN g USING (stay_id)
        GROUP BY 1 ORDER BY 1"""
    ).fetchall()
    (_, impaired, n_impaired), (_, alert, n_alert) = rows
    assert n_impaired >= 5 and n_alert >= 5
    assert alert > impaired + 0.3
