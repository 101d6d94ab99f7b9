"""datetimeevents and procedureevents at the real MIMIC-IV rows per ICU stay."""

from __future__ import annotations

import itertools

import duckdb
import numpy as np
from synth_helpers import one

from m4bench.sources.synth import mimic_iv
from m4bench.sources.synth.core import QuirkRates, stream_rng
from m4bench.sources.synth.mimic_dates import DATE_ITEMS, LINE_DATES
from m4bench.sources.synth.mimic_latent import StayState, stay_state
from m4bench.sources.synth.mimic_procedures import ALL_PROCEDURES
from m4bench.sources.synth.mimic_treatments import (
    concept_procedure_columns,
    procedureevents_chunk,
)

ICU = "mimiciv_icu"
# every item a concept reads from procedureevents (rrt, invasive_line) and the vent decoys
CONCEPT_ITEMS = (
    225441, 225802, 225803, 225805, 225809, 225955, 224270, 225436, 227719, 225752, 224269,
    224267, 224272, 226124, 228169, 225202, 228286, 225204, 224263, 224560, 224264, 225203,
    224273, 225789, 225761, 228201, 228202, 224268, 225199, 225315, 225205, 225792, 225794,
)  # fmt: skip


def _per_stay(con: duckdb.DuckDBPyConnection, table: str) -> float:
    rows = one(con, f"SELECT COUNT(*) FROM {ICU}.{table}")
    stays = one(con, f"SELECT COUNT(*) FROM {ICU}.icustays")
    return float(rows) / float(stays)  # type: ignore[arg-type]


def test_rows_per_stay_near_the_real_volume(con: duckdb.DuckDBPyConnection) -> None:
    assert 85 <= _per_stay(con, "datetimeevents") <= 130  # real: about 106
    assert 7.0 <= _per_stay(con, "procedureevents") <= 10.5  # real: about 8.6


def _items(con: duckdb.DuckDBPyConnection, table: str) -> set[int]:
    return {r[0] for r in con.execute(f"SELECT DISTINCT itemid FROM {ICU}.{table}").fetchall()}


def test_items_are_described_for_their_table(con: duckdb.DuckDBPyConnection) -> None:
    for table, items in (("datetimeevents", DATE_ITEMS), ("procedureevents", ALL_PROCEDURES)):
        described = {
            r[0]
            for r in con.execute(
                f"""SELECT itemid FROM {ICU}.d_items WHERE linksto = '{table}'
                AND label IS NOT NULL AND category IS NOT NULL"""
            ).fetchall()
        }
        assert set(items) <= described, table
        assert _items(con, table) <= described, table
    date_params = one(
        con,
        f"""SELECT COUNT(*) FROM {ICU}.d_items WHERE itemid IN {tuple(DATE_ITEMS)}
        AND param_type <> 'Date and time'""",
    )
    assert date_params == 0


def test_common_items_occur(con: duckdb.DuckDBPyConnection) -> None:
    dates = _items(con, "datetimeevents")
    for line in (225752, 224263):  # arterial and multi-lumen lines: every date of each
        assert {i for i in LINE_DATES[line] if i is not None} <= dates
    tracheostomies = {225448, 226237}  # only for stays with a tracheostomy, rare
    assert set(ALL_PROCEDURES) - tracheostomies <= _items(con, "procedureevents")


def test_dates_at_or_before_charttime_inside_the_stay(con: duckdb.DuckDBPyConnection) -> None:
    bad = one(
        con,
        f"""SELECT COUNT(*) FROM {ICU}.datetimeevents d JOIN {ICU}.icustays i USING (stay_id)
        WHERE d.value > d.charttime OR d.charttime < i.intime OR d.charttime > i.outtime
        OR d.storetime < d.charttime OR d.valueuom <> 'Date'
        OR CAST(d.value AS DATE) <> d.value""",
    )
    assert bad == 0
    outside = one(
        con,
        f"""SELECT COUNT(*) FROM {ICU}.procedureevents p JOIN {ICU}.icustays i USING (stay_id)
        WHERE p.itemid IN {tuple(ALL_PROCEDURES)} AND (p.starttime < i.intime
        OR p.endtime > i.outtime OR p.endtime <= p.starttime OR p.storetime < p.starttime)""",
    )
    assert outside == 0


def test_line_dates_only_while_the_line_is_in(con: duckdb.DuckDBPyConnection) -> None:
    """Each line's dates are charted between its insertion and removal, and its insertion
    date is the day the procedureevents row starts."""
    cases = " ".join(
        f"WHEN {insertion} THEN {line}" for line, (insertion, *_) in LINE_DATES.items()
    )
    orphans = one(
        con,
        f"""SELECT COUNT(*) FROM {ICU}.datetimeevents d
        WHERE (CASE d.itemid {cases} END) IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM {ICU}.procedureevents p WHERE p.stay_id = d.stay_id
            AND p.itemid = (CASE d.itemid {cases} END)
            AND d.charttime BETWEEN p.starttime AND p.endtime
            AND d.value = date_trunc('day', p.starttime))""",
    )
    assert orphans == 0


def test_changes_follow_the_insertion(con: duckdb.DuckDBPyConnection) -> None:
    """A dressing, tubing or cap change date is never before the line's insertion date,
    and the dates of one line only move forward."""
    arterial = LINE_DATES[225752]
    rows = con.execute(
        f"""SELECT d.stay_id, d.itemid, d.charttime, d.value, i.value FROM {ICU}.datetimeevents d
        JOIN {ICU}.datetimeevents i ON i.stay_id = d.stay_id AND i.charttime = d.charttime
        AND i.itemid = {arterial[0]} WHERE d.itemid IN {tuple(arterial[1:])}
        ORDER BY d.stay_id, d.itemid, d.charttime"""
    ).fetchall()
    assert rows
    assert all(value >= inserted for *_, value, inserted in rows)
    for before, after in itertools.pairwise(rows):
        if before[:2] == after[:2]:
            assert after[3] >= before[3]


def _chunk() -> tuple[StayState, dict[str, np.ndarray]]:
    cohort, conditions, _ = mimic_iv._context(5, 120, QuirkRates())
    stays = mimic_iv._chunk_stays(cohort, 0)
    return stay_state(5, 0, cohort, stays, conditions), mimic_iv._stay_ids(cohort, stays)


def _row_set(columns: dict[str, np.ndarray], keep: np.ndarray) -> set[tuple[object, ...]]:
    names = sorted(columns)
    return set(zip(*(np.asarray(columns[k])[keep].tolist() for k in names), strict=True))


def test_concept_rows_are_the_same_as_without_the_other_procedures() -> None:
    """The rows the concepts read come out exactly as their own generator draws them: the
    other procedures take a stream of their own and no concept item."""
    state, ids = _chunk()
    alone = concept_procedure_columns(stream_rng(5, 14, 0), state, ids)
    full = procedureevents_chunk(stream_rng(5, 14, 0), state, ids)
    concept = np.isin(full["itemid"], CONCEPT_ITEMS)
    assert _row_set(full, concept) == _row_set(alone, np.ones(len(alone["itemid"]), bool))
    assert not np.isin(ALL_PROCEDURES, CONCEPT_ITEMS).any()
    assert (~concept).sum() > 3 * len(alone["itemid"])
    key = full["stay_id"].astype(np.int64) * 10**12 + full["starttime"].astype(np.int64) // 10**6
    assert np.all(np.diff(key) >= 0)  # sorted by stay and start time
