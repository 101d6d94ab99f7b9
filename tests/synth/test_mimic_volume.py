"""chartevents and inputevents at the real MIMIC-IV rows per ICU stay, with real item ids."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from synth_helpers import one

from m4bench.home import DataHome
from m4bench.sources.synth import mimic_treatments, synthesize_mimic_iv
from m4bench.sources.synth.mimic_bedside import BEDSIDE_ITEMS
from m4bench.sources.synth.mimic_infusions import INFUSION_ITEMS, PLANS
from m4bench.sources.synth.mimic_vocab import VASOPRESSORS

ICU = "mimiciv_icu"


def _per_stay(con: duckdb.DuckDBPyConnection, table: str) -> float:
    rows = one(con, f"SELECT COUNT(*) FROM {ICU}.{table}")
    stays = one(con, f"SELECT COUNT(*) FROM {ICU}.icustays")
    return float(rows) / float(stays)  # type: ignore[arg-type]


def test_chartevents_rows_per_stay_near_the_real_volume(con: duckdb.DuckDBPyConnection) -> None:
    assert 3_900 <= _per_stay(con, "chartevents") <= 5_300  # real: about 4,600


def test_inputevents_rows_per_stay_near_the_real_volume(con: duckdb.DuckDBPyConnection) -> None:
    assert 95 <= _per_stay(con, "inputevents") <= 140  # real: about 116


@pytest.mark.parametrize(
    ("table", "linksto"),
    [
        ("chartevents", "chartevents"),
        ("inputevents", "inputevents"),
        ("outputevents", "outputevents"),
        ("procedureevents", "procedureevents"),
        ("datetimeevents", "datetimeevents"),
    ],
)
def test_every_item_is_described_with_its_table(
    con: duckdb.DuckDBPyConnection, table: str, linksto: str
) -> None:
    wrong = con.execute(
        f"""SELECT DISTINCT e.itemid, d.linksto FROM {ICU}.{table} e
        LEFT JOIN {ICU}.d_items d USING (itemid) WHERE d.linksto IS DISTINCT FROM '{linksto}'"""
    ).fetchall()
    assert wrong == []


def test_every_new_item_occurs(con: duckdb.DuckDBPyConnection) -> None:
    charted = {
        r[0] for r in con.execute(f"SELECT DISTINCT itemid FROM {ICU}.chartevents").fetchall()
    }
    given = {r[0] for r in con.execute(f"SELECT DISTINCT itemid FROM {ICU}.inputevents").fetchall()}
    assert set(BEDSIDE_ITEMS) <= charted
    assert set(INFUSION_ITEMS) <= given


def test_d_items_rows_are_unique_and_complete(con: duckdb.DuckDBPyConnection) -> None:
    dupes = one(con, f"SELECT COUNT(*) - COUNT(DISTINCT itemid) FROM {ICU}.d_items")
    blanks = one(
        con,
        f"""SELECT COUNT(*) FROM {ICU}.d_items WHERE label IS NULL OR abbreviation IS NULL
        OR category IS NULL OR param_type IS NULL""",
    )
    assert dupes == 0 and blanks == 0


def test_titrated_infusions_form_gapless_chains(con: duckdb.DuckDBPyConnection) -> None:
    """A rate change closes a row and opens the next: within a linkorderid chain each row
    starts when the previous ends, and only the last row is not 'ChangeDose/Rate'."""
    drips = [p[0].itemid for p in PLANS if p[0].rateuom and p[0].run_h >= p[0].every_h]
    rows = con.execute(
        f"""WITH c AS (SELECT linkorderid, starttime, statusdescription,
            LAG(endtime) OVER w AS previous_end, LEAD(starttime) OVER w AS next_start
            FROM {ICU}.inputevents WHERE itemid IN ({",".join(map(str, drips))})
            WINDOW w AS (PARTITION BY linkorderid ORDER BY starttime))
        SELECT COUNT(*) FILTER (WHERE previous_end IS NOT NULL AND previous_end <> starttime),
               COUNT(*) FILTER (WHERE next_start IS NOT NULL
                                AND statusdescription <> 'ChangeDose/Rate'),
               COUNT(*) FILTER (WHERE next_start IS NULL
                                AND statusdescription = 'ChangeDose/Rate'),
               COUNT(*) FROM c"""
    ).fetchone()
    assert rows is not None and rows[3] > 100
    assert rows[:3] == (0, 0, 0)


def test_doses_given_at_once_have_no_rate(con: duckdb.DuckDBPyConnection) -> None:
    pushes = [p[0].itemid for p in PLANS if p[0].rateuom is None and p[0].run_h < 0.1]
    rows = con.execute(
        f"""SELECT COUNT(*), COUNT(rate), MAX(endtime - starttime), MIN(amount)
        FROM {ICU}.inputevents WHERE itemid IN ({",".join(map(str, pushes))})"""
    ).fetchone()
    assert rows is not None and rows[0] > 100
    assert rows[1] == 0 and rows[2].total_seconds() == 60 and rows[3] > 0


def _build(root: Path) -> duckdb.DuckDBPyConnection:
    source = synthesize_mimic_iv(DataHome(root), stays=40, seed=5, progress=False)
    con: duckdb.DuckDBPyConnection = source.connect()
    return con


def test_vasoactive_rows_do_not_depend_on_the_other_infusions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other infusions draw from their own stream: without them, the concept rows
    (vasoactive drips, blockers, CRRT additives, saline) are identical, order ids too."""
    items = ",".join(map(str, [*VASOPRESSORS, 221555, 222062, 227536, 227525, 225158]))
    sql = f"SELECT * FROM {ICU}.inputevents WHERE itemid IN ({items}) ORDER BY orderid"
    full = _build(tmp_path / "full").execute(sql).fetchall()
    real = mimic_treatments.infusion_columns

    def nothing(*args: Any) -> dict[str, Any]:
        return {k: np.asarray(v)[:0] for k, v in real(*args).items()}

    monkeypatch.setattr(mimic_treatments, "infusion_columns", nothing)
    alone = _build(tmp_path / "alone").execute(sql).fetchall()
    assert len(full) > 50 and full == alone
