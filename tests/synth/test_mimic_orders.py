"""Orders (poe, poe_detail), administrations (emar, emar_detail) and ingredientevents."""

from __future__ import annotations

from pathlib import Path

import duckdb
from synth_helpers import one, rows_per

from m4bench.fileio import sha256_file
from m4bench.home import DataHome
from m4bench.sources.synth import synthesize_mimic_iv

H, ICU = "mimiciv_hosp", "mimiciv_icu"
# value sets documented for MIMIC-IV v3.1
ORDER_TYPES = {
    "ADT orders", "Blood Bank", "Cardiology", "Consults", "Critical Care", "General Care",
    "Hemodialysis", "IV therapy", "Lab", "Medications", "Neurology", "Nutrition", "OB",
    "Radiology", "Respiratory", "TPN",
}  # fmt: skip
TRANSACTION_TYPES = {"Change", "Co", "D/C", "H", "New", "T"}
EMAR_EVENTS = {
    "Administered", "Not Given", "Flushed", "Not Flushed", "Confirmed", "Started", "Stopped",
    "Rate Change", "Hold Dose", "Delayed Administered", "Partial Administered",
    "Administered in Other Location", "Not Given per Sliding Scale",
}  # fmt: skip
NOT_GIVEN = ("Not Given", "Not Flushed", "Hold Dose", "Not Given per Sliding Scale", "Stopped")


def test_row_counts_per_admission_near_the_real_rates(con: duckdb.DuckDBPyConnection) -> None:
    assert 80 <= rows_per(con, f"{H}.poe", f"{H}.admissions") <= 115  # real: 96
    assert 12 <= rows_per(con, f"{H}.poe_detail", f"{H}.admissions") <= 20  # real: 16
    assert 1.7 <= rows_per(con, f"{H}.emar_detail", f"{H}.emar") <= 2.6  # real: 160 / 78
    assert 2 <= rows_per(con, f"{H}.emar", f"{H}.prescriptions") <= 8
    assert 1.0 <= rows_per(con, f"{ICU}.ingredientevents", f"{ICU}.inputevents") <= 2.0


def test_orders_reference_existing_rows(con: duckdb.DuckDBPyConnection) -> None:
    orphans = {
        "emar without its order": f"""SELECT COUNT(*) FROM {H}.emar e
            LEFT JOIN {H}.poe p ON p.poe_id = e.poe_id AND p.subject_id = e.subject_id
            AND p.hadm_id = e.hadm_id WHERE p.poe_id IS NULL""",
        "emar without its pharmacy line": f"""SELECT COUNT(*) FROM {H}.emar e
            LEFT JOIN {H}.prescriptions r ON r.pharmacy_id = e.pharmacy_id
            AND r.poe_id = e.poe_id WHERE r.pharmacy_id IS NULL""",
        "detail without its emar": f"""SELECT COUNT(*) FROM {H}.emar_detail d
            LEFT JOIN {H}.emar e ON e.emar_id = d.emar_id AND e.emar_seq = d.emar_seq
            AND e.subject_id = d.subject_id AND e.pharmacy_id = d.pharmacy_id
            WHERE e.emar_id IS NULL""",
        "poe_detail without its order": f"""SELECT COUNT(*) FROM {H}.poe_detail d
            LEFT JOIN {H}.poe p ON p.poe_id = d.poe_id AND p.poe_seq = d.poe_seq
            AND p.subject_id = d.subject_id WHERE p.poe_id IS NULL""",
        "prescription without its order": f"""SELECT COUNT(*) FROM {H}.prescriptions r
            LEFT JOIN {H}.poe p ON p.poe_id = r.poe_id AND p.poe_seq = r.poe_seq
            AND p.hadm_id = r.hadm_id AND p.order_type = 'Medications' WHERE p.poe_id IS NULL""",
        "ingredient without its input row": f"""SELECT COUNT(*) FROM {ICU}.ingredientevents g
            LEFT JOIN {ICU}.inputevents i ON i.orderid = g.orderid AND i.stay_id = g.stay_id
            AND i.starttime = g.starttime AND i.endtime = g.endtime
            AND i.linkorderid = g.linkorderid WHERE i.orderid IS NULL""",
        "poe of an unknown admission": f"""SELECT COUNT(*) FROM {H}.poe p
            LEFT JOIN {H}.admissions a USING (hadm_id, subject_id) WHERE a.hadm_id IS NULL""",
    }
    found = {name: one(con, sql) for name, sql in orphans.items()}
    assert all(count == 0 for count in found.values()), found


def test_identifiers_are_unique_and_well_formed(con: duckdb.DuckDBPyConnection) -> None:
    assert one(con, f"SELECT COUNT(*) - COUNT(DISTINCT poe_id) FROM {H}.poe") == 0
    assert one(con, f"SELECT COUNT(*) - COUNT(DISTINCT emar_id) FROM {H}.emar") == 0
    keys = "COUNT(DISTINCT (poe_id, field_name))"
    assert one(con, f"SELECT COUNT(*) - {keys} FROM {H}.poe_detail") == 0
    keys = "COUNT(DISTINCT (emar_id, COALESCE(parent_field_ordinal, '-')))"
    assert one(con, f"SELECT COUNT(*) - {keys} FROM {H}.emar_detail") == 0
    for table, ident, seq in (("poe", "poe_id", "poe_seq"), ("emar", "emar_id", "emar_seq")):
        bad = f"""SELECT COUNT(*) FROM {H}.{table}
            WHERE {ident} <> CAST(subject_id AS VARCHAR) || '-' || CAST({seq} AS VARCHAR)"""
        assert one(con, bad) == 0, table


def test_discontinuations_point_both_ways(con: duckdb.DuckDBPyConnection) -> None:
    followed = one(con, f"SELECT COUNT(*) FROM {H}.poe WHERE discontinue_of_poe_id IS NOT NULL")
    assert followed and int(followed) > 100  # type: ignore[call-overload]
    broken = f"""SELECT COUNT(*) FROM {H}.poe f LEFT JOIN {H}.poe o
        ON o.poe_id = f.discontinue_of_poe_id AND o.discontinued_by_poe_id = f.poe_id
        AND o.hadm_id = f.hadm_id AND o.order_type = f.order_type
        AND o.ordertime <= f.ordertime
        WHERE f.discontinue_of_poe_id IS NOT NULL AND o.poe_id IS NULL"""
    assert one(con, broken) == 0
    reverse = f"""SELECT COUNT(*) FROM {H}.poe o LEFT JOIN {H}.poe f
        ON f.poe_id = o.discontinued_by_poe_id AND f.discontinue_of_poe_id = o.poe_id
        WHERE o.discontinued_by_poe_id IS NOT NULL AND f.poe_id IS NULL"""
    assert one(con, reverse) == 0
    status = f"""SELECT COUNT(*) FROM {H}.poe WHERE (discontinued_by_poe_id IS NOT NULL
        OR transaction_type <> 'New') AND order_status <> 'Inactive'"""
    assert one(con, status) == 0
    new_follow_up = f"""SELECT COUNT(*) FROM {H}.poe
        WHERE (transaction_type = 'New') <> (discontinue_of_poe_id IS NULL)"""
    assert one(con, new_follow_up) == 0


def _values(con: duckdb.DuckDBPyConnection, sql: str) -> set[object]:
    return {row[0] for row in con.execute(sql).fetchall()}


def test_values_come_from_the_real_vocabularies(con: duckdb.DuckDBPyConnection) -> None:
    order_types = _values(con, f"SELECT DISTINCT order_type FROM {H}.poe")
    assert {"ADT orders", "Lab", "Medications", "General Care", "Radiology"} <= order_types
    assert order_types <= ORDER_TYPES
    transactions = _values(con, f"SELECT DISTINCT transaction_type FROM {H}.poe")
    assert {"New", "D/C", "Change"} <= transactions <= TRANSACTION_TYPES
    assert _values(con, f"SELECT DISTINCT order_status FROM {H}.poe") == {"Active", "Inactive"}
    events = _values(con, f"SELECT DISTINCT event_txt FROM {H}.emar")
    assert {"Administered", "Not Given", "Flushed", "Started", "Stopped"} <= events <= EMAR_EVENTS
    fields = _values(con, f"SELECT DISTINCT field_name FROM {H}.poe_detail")
    assert {"Admit to", "Code status", "Discharge Planning", "Level of Urgency"} <= fields
    providers = f"""SELECT COUNT(*) FROM {H}.poe p LEFT JOIN {H}.provider v
        ON v.provider_id = p.order_provider_id WHERE v.provider_id IS NULL"""
    assert one(con, providers) == 0
    items = f"""SELECT COUNT(*) FROM {ICU}.ingredientevents g LEFT JOIN {ICU}.d_items d
        ON d.itemid = g.itemid AND d.linksto = 'ingredientevents' WHERE d.itemid IS NULL"""
    assert one(con, items) == 0
    assert _values(con, f"SELECT DISTINCT amountuom FROM {ICU}.ingredientevents") == {"mL", "Kcal"}


def test_administrations_follow_their_prescription(con: duckdb.DuckDBPyConnection) -> None:
    outside = f"""SELECT COUNT(*) FROM {H}.emar e JOIN {H}.prescriptions r USING (pharmacy_id)
        JOIN {H}.admissions a ON a.hadm_id = e.hadm_id
        WHERE e.charttime < r.starttime OR e.charttime > LEAST(r.stoptime, a.dischtime)
        OR e.storetime < e.charttime OR e.medication <> r.drug"""
    assert one(con, outside) == 0
    route = f"""SELECT COUNT(*) FROM {H}.emar_detail d JOIN {H}.prescriptions r USING (pharmacy_id)
        WHERE d.parent_field_ordinal IS NULL AND d.route IS DISTINCT FROM r.route"""
    assert one(con, route) == 0
    # a drip starts once and stops once
    drips = f"""SELECT COUNT(*) FROM (SELECT pharmacy_id,
        COUNT(*) FILTER (WHERE event_txt = 'Started') AS started,
        COUNT(*) FILTER (WHERE event_txt = 'Stopped') AS stopped
        FROM {H}.emar JOIN {H}.prescriptions USING (pharmacy_id) WHERE route = 'IV DRIP'
        GROUP BY pharmacy_id) WHERE started <> 1 OR stopped <> 1"""
    assert one(con, drips) == 0


def test_doses_are_the_ones_the_prescription_states(con: duckdb.DuckDBPyConnection) -> None:
    stated = f"""FROM {H}.emar_detail d JOIN {H}.prescriptions r USING (pharmacy_id)
        WHERE d.parent_field_ordinal IS NULL
        AND TRY_CAST(r.dose_val_rx AS DOUBLE) IS NOT NULL
        AND TRY_CAST(r.form_val_disp AS DOUBLE) IS NOT NULL
        AND r.dose_unit_rx IS NOT NULL AND r.form_unit_disp IS NOT NULL
        AND r.prod_strength IS NOT NULL AND r.formulary_drug_cd IS NOT NULL"""
    assert one(con, f"SELECT COUNT(*) {stated}") > 0  # type: ignore[operator]
    differ = f"""SELECT COUNT(*) {stated} AND (
        TRY_CAST(d.dose_due AS DOUBLE) <> TRY_CAST(r.dose_val_rx AS DOUBLE)
        OR d.dose_due_unit <> r.dose_unit_rx)"""
    assert one(con, differ) == 0
    product = f"""SELECT COUNT(*) FROM {H}.emar_detail p JOIN {H}.emar_detail d
        ON d.emar_id = p.emar_id AND d.parent_field_ordinal IS NULL
        JOIN {H}.prescriptions r ON r.pharmacy_id = d.pharmacy_id
        WHERE p.parent_field_ordinal = '1.1' AND TRY_CAST(r.dose_val_rx AS DOUBLE) IS NOT NULL
        AND TRY_CAST(r.form_val_disp AS DOUBLE) IS NOT NULL AND r.prod_strength IS NOT NULL
        AND r.formulary_drug_cd IS NOT NULL AND r.form_unit_disp IS NOT NULL
        AND (p.product_code <> r.formulary_drug_cd OR p.product_unit <> r.form_unit_disp
             OR p.product_description <> r.prod_strength)"""
    assert one(con, product) == 0


def test_products_only_for_what_was_given(con: duckdb.DuckDBPyConnection) -> None:
    not_given = ", ".join(f"'{e}'" for e in NOT_GIVEN)
    wrong = f"""SELECT COUNT(*) FROM {H}.emar_detail d JOIN {H}.emar e USING (emar_id)
        WHERE d.parent_field_ordinal IS NOT NULL AND e.event_txt IN ({not_given})"""
    assert one(con, wrong) == 0
    given_without_product = f"""SELECT COUNT(*) FROM {H}.emar e WHERE e.event_txt = 'Administered'
        AND NOT EXISTS (SELECT 1 FROM {H}.emar_detail d WHERE d.emar_id = e.emar_id
        AND d.parent_field_ordinal = '1.1')"""
    assert one(con, given_without_product) == 0
    doses = f"""SELECT COUNT(*) FROM {H}.emar_detail d JOIN {H}.emar e USING (emar_id)
        WHERE d.parent_field_ordinal IS NULL AND e.event_txt = 'Administered'
        AND (d.dose_given IS DISTINCT FROM d.dose_due OR d.dose_due_unit IS NULL)"""
    assert one(con, doses) == 0


def test_ingredients_follow_their_input(con: duckdb.DuckDBPyConnection) -> None:
    water = f"""SELECT COUNT(*) FROM {ICU}.inputevents i JOIN {ICU}.ingredientevents g
        ON g.orderid = i.orderid AND g.itemid = 220490
        WHERE lower(i.amountuom) = 'ml' AND abs(g.amount - i.amount) > 0.01"""
    assert one(con, water) == 0
    every_input = f"""SELECT COUNT(*) FROM {ICU}.inputevents i WHERE NOT EXISTS (
        SELECT 1 FROM {ICU}.ingredientevents g WHERE g.orderid = i.orderid AND g.itemid = 220490)"""
    assert one(con, every_input) == 0
    bolus_rate = f"""SELECT COUNT(*) FROM {ICU}.ingredientevents g JOIN {ICU}.inputevents i
        USING (orderid) WHERE (i.rate IS NULL) <> (g.rate IS NULL)"""
    assert one(con, bolus_rate) == 0
    assert one(con, f"SELECT COUNT(*) FROM {ICU}.ingredientevents WHERE itemid = 226060") > 0  # type: ignore[operator]


def test_code_status_follows_the_outcome(con: duckdb.DuckDBPyConnection) -> None:
    share = f"""SELECT a.hospital_expire_flag, AVG(CASE WHEN d.field_value = 'Full code'
        THEN 0.0 ELSE 1.0 END) FROM {H}.poe_detail d JOIN {H}.poe p USING (poe_id)
        JOIN {H}.admissions a ON a.hadm_id = p.hadm_id WHERE d.field_name = 'Code status'
        GROUP BY 1"""
    limited = dict(con.execute(share).fetchall())
    assert limited[1] > limited[0] + 0.3, limited


def _order_hashes(home: Path, seed: int) -> dict[str, str]:
    source = synthesize_mimic_iv(DataHome(home), stays=30, seed=seed, progress=False)
    return {
        name: sha256_file(source.layout.resolve(source.manifest.tables[name].file))
        for name in (f"{H}.poe", f"{H}.poe_detail", f"{H}.emar", f"{H}.emar_detail",
                     f"{ICU}.ingredientevents")
    }  # fmt: skip


def test_order_tables_are_deterministic(tmp_path: Path) -> None:
    first = _order_hashes(tmp_path / "a", 3)
    assert first == _order_hashes(tmp_path / "b", 3)
    other = _order_hashes(tmp_path / "c", 4)
    assert all(other[name] != first[name] for name in first)
