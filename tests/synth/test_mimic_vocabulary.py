"""Every item id and exact string the concepts match on is present in a 200-stay source."""

from __future__ import annotations

from pathlib import Path

import duckdb

from m4bench.home import DataHome
from m4bench.sources.synth import mimic_vocab as v
from m4bench.sources.synth import synthesize_mimic_iv

CHART_ITEMS = {
    220045, 220050, 220051, 220052, 225309, 225310, 225312, 220179, 220180, 220181, 220210, 224690,
    220277, 223761, 223762, 224642, 225664, 220621, 226537, 220739, 223900, 223901, 226512, 224639,
    226531, 226707, 226730, 223834, 227582, 227287, 226732, 223835, 220339, 224700, 224684, 224685,
    224686, 224687, 224688, 224689, 224696, 224691, 223849, 229314, 223848, 220048, 224650, 224651,
    226479, 226480, 220765, 227989,
    # renal replacement therapy (rrt, crrt)
    226118, 227357, 225725, 226499, 224154, 225183, 227438, 224191, 225806, 225807, 225810, 225965,
    228004, 228005, 228006, 224144, 224145, 224149, 224150, 224151, 224152, 224153, 224404, 224406,
    226457, 224135, 224139, 227290, 224146, 225976, 225977,
}  # fmt: skip
LAB_ITEMS = {
    52033, 50801, 50802, 50803, 50804, 50805, 50806, 50808, 50809, 50810, 50811, 50813, 50814,
    50815, 50816, 50817, 50818, 50819, 50820, 50821, 50822, 50824, 50825, 50862, 50868, 50882,
    51006, 50893, 50902, 50912, 50931, 50983, 50971, 50861, 50863, 50878, 50885, 51221, 51222,
    51248, 51249, 51250, 51265, 51279, 51277, 51301, 51144, 51146, 51200, 51244, 51254, 51256,
    51237, 51274, 51275, 51003, 50911, 50963, 50889,
}  # fmt: skip
INPUT_ITEMS = {
    221906, 221289, 221662, 221653, 221749, 222315, 221986, 222062, 221555, 227536, 227525, 225158,
}  # fmt: skip
OUTPUT_ITEMS = {
    226559, 226560, 226561, 226584, 226563, 226564, 226565, 226567, 226557, 226558, 227488, 227489,
}  # fmt: skip
PROCEDURE_ITEMS = {
    225802, 225441, 224270, 225436, 225752, 224263, 224264, 225792, 225794, 227719, 224269,
    224267, 224272, 226124, 228169, 225202, 228286, 225204, 224560, 225203, 224273, 225789,
    225761, 228201, 228202, 224268, 225199, 225315, 225205,
}  # fmt: skip


def _values(con: duckdb.DuckDBPyConnection, sql: str) -> set[object]:
    return {row[0] for row in con.execute(sql).fetchall()}


def test_item_ids_present(con: duckdb.DuckDBPyConnection) -> None:
    assert _values(con, "SELECT DISTINCT itemid FROM mimiciv_icu.chartevents") >= CHART_ITEMS
    assert _values(con, "SELECT DISTINCT itemid FROM mimiciv_hosp.labevents") >= LAB_ITEMS
    assert _values(con, "SELECT DISTINCT itemid FROM mimiciv_icu.inputevents") >= INPUT_ITEMS
    assert _values(con, "SELECT DISTINCT itemid FROM mimiciv_icu.outputevents") >= OUTPUT_ITEMS
    assert (
        _values(con, "SELECT DISTINCT itemid FROM mimiciv_icu.procedureevents") >= PROCEDURE_ITEMS
    )


def test_every_used_item_is_in_the_dictionaries(con: duckdb.DuckDBPyConnection) -> None:
    known = _values(con, "SELECT itemid FROM mimiciv_icu.d_items")
    for table in (
        "chartevents",
        "inputevents",
        "outputevents",
        "procedureevents",
        "datetimeevents",
    ):
        assert _values(con, f"SELECT DISTINCT itemid FROM mimiciv_icu.{table}") <= known, table
    labs = _values(con, "SELECT itemid FROM mimiciv_hosp.d_labitems")
    assert _values(con, "SELECT DISTINCT itemid FROM mimiciv_hosp.labevents") <= labs


def test_device_and_mode_strings_exact(con: duckdb.DuckDBPyConnection) -> None:
    devices = _values(
        con, "SELECT DISTINCT value FROM mimiciv_icu.chartevents WHERE itemid = 226732"
    )
    expected = (
        set(v.DEVICES_SUPPLEMENTAL)
        | set(v.DEVICES_INVASIVE)
        | set(v.DEVICES_TRACH)
        | set(v.DEVICES_NIV)
    )
    expected |= {v.DEVICE_HFNC, v.DEVICE_NONE, *v.DEVICE_NEAR_MISSES}
    assert expected <= devices
    assert {
        "Trach mask ",
        "Bipap mask ",
        "CPAP mask ",
        "Venti mask ",
        "Medium conc mask ",
    } <= devices
    modes = _values(con, "SELECT DISTINCT value FROM mimiciv_icu.chartevents WHERE itemid = 223849")
    assert set(v.VENT_MODES) <= modes
    assert "Standby" in modes
    hamilton = _values(
        con, "SELECT DISTINCT value FROM mimiciv_icu.chartevents WHERE itemid = 229314"
    )
    assert set(v.HAMILTON_MODES_INVASIVE) | set(v.HAMILTON_MODES_NIV) <= hamilton


def test_gcs_strings_and_scores(con: duckdb.DuckDBPyConnection) -> None:
    verbal = con.execute(
        "SELECT DISTINCT value, valuenum FROM mimiciv_icu.chartevents WHERE itemid = 223900"
    ).fetchall()
    assert ("No Response-ETT", 1.0) in verbal
    assert {(text, float(score)) for score, text in v.GCS_VERBAL} <= set(verbal)
    eyes = _values(con, "SELECT DISTINCT value FROM mimiciv_icu.chartevents WHERE itemid = 220739")
    assert {text for _, text in v.GCS_EYES} <= eyes
    motor = _values(con, "SELECT DISTINCT value FROM mimiciv_icu.chartevents WHERE itemid = 223901")
    assert {text for _, text in v.GCS_MOTOR} <= motor


def test_lab_specimen_strings(con: duckdb.DuckDBPyConnection) -> None:
    kinds = _values(con, "SELECT DISTINCT value FROM mimiciv_hosp.labevents WHERE itemid = 52033")
    assert {"ART.", "VEN.", "MIX.", "CENTRAL VENOUS."} <= kinds


def test_vasopressor_units(con: duckdb.DuckDBPyConnection) -> None:
    units = set(
        con.execute("SELECT DISTINCT itemid, rateuom FROM mimiciv_icu.inputevents").fetchall()
    )
    assert {(221906, "mcg/kg/min"), (222315, "units/hour"), (221749, "mcg/kg/min")} <= units
    status = _values(con, "SELECT DISTINCT statusdescription FROM mimiciv_icu.inputevents")
    assert {"Rewritten", "Paused", "ChangeDose/Rate", "FinishedRunning"} <= status


def test_antibiotics_routes_and_decoys(con: duckdb.DuckDBPyConnection) -> None:
    pairs = set(
        con.execute("SELECT DISTINCT drug, route FROM mimiciv_hosp.prescriptions").fetchall()
    )
    assert set(v.ANTIBIOTICS_IV) <= pairs
    assert set(v.ANTIBIOTICS_PO) <= pairs
    drugs = {d for d, _ in pairs}
    assert {d for d, _ in v.ANTIBIOTICS_EXCLUDED} & drugs
    assert {d for d, _ in v.ANTIMICROBIAL_NEAR_MISSES} & drugs
    assert "BASE" in _values(con, "SELECT DISTINCT drug_type FROM mimiciv_hosp.prescriptions")


def test_microbiology_strings(con: duckdb.DuckDBPyConnection) -> None:
    specimens = _values(con, "SELECT DISTINCT spec_type_desc FROM mimiciv_hosp.microbiologyevents")
    assert {"BLOOD CULTURE", "URINE", "MRSA SCREEN", "SPUTUM"} <= specimens
    orgs = _values(con, "SELECT DISTINCT org_itemid FROM mimiciv_hosp.microbiologyevents")
    assert 90856 in orgs and None in orgs and len(orgs) > 3


def test_codes_cover_every_charlson_category_in_both_versions(
    con: duckdb.DuckDBPyConnection,
) -> None:
    coded = set(
        con.execute(
            "SELECT DISTINCT icd_version, icd_code FROM mimiciv_hosp.diagnoses_icd"
        ).fetchall()
    )
    groups: dict[tuple[str, int], set[str]] = {}
    for group, version, code, _ in v.icd_codes()["diagnoses"]:
        groups.setdefault((group, version), set()).add(code)
    for (group, version), codes in groups.items():
        assert any((version, code) in coded for code in codes), (group, version)


def test_admission_strings(con: duckdb.DuckDBPyConnection) -> None:
    types = _values(con, "SELECT DISTINCT admission_type FROM mimiciv_hosp.admissions")
    assert {name for name, _ in v.ADMISSION_TYPES_ICU} <= types
    assert "DIED" in _values(con, "SELECT DISTINCT discharge_location FROM mimiciv_hosp.admissions")
    services = _values(con, "SELECT DISTINCT curr_service FROM mimiciv_hosp.services")
    assert {"SURG", "CSURG", "NSURG", "TSURG", "VSURG", "ORTHO", "TRAUM", "MED", "CMED"} <= services
    units = _values(con, "SELECT DISTINCT first_careunit FROM mimiciv_icu.icustays")
    assert (
        "Medical Intensive Care Unit (MICU)" in units
        and "Cardiac Vascular Intensive Care Unit (CVICU)" in units
    )


def test_another_seed_covers_the_item_ids_too(tmp_path: Path) -> None:
    source = synthesize_mimic_iv(DataHome(tmp_path), stays=200, seed=3, progress=False)
    con = source.connect()
    test_item_ids_present(con)
    test_device_and_mode_strings_exact(con)
    test_antibiotics_routes_and_decoys(con)
