"""The official schemas as data, and typed empty tables built from them."""

from __future__ import annotations

import duckdb
import pytest

from m4bench.errors import M4BenchError
from m4bench.sources.schema import (
    EICU,
    MIMIC_IV,
    create_empty_tables,
    dataset_schema,
)
from m4bench.sources.schema.spec import parse_columns, table

MIMIC_HOSP = {
    "admissions", "d_hcpcs", "d_icd_diagnoses", "d_icd_procedures", "d_labitems",
    "diagnoses_icd", "drgcodes", "emar", "emar_detail", "hcpcsevents", "labevents",
    "microbiologyevents", "omr", "patients", "pharmacy", "poe", "poe_detail",
    "prescriptions", "procedures_icd", "provider", "services", "transfers",
}  # fmt: skip
MIMIC_ICU = {
    "caregiver", "chartevents", "d_items", "datetimeevents", "icustays",
    "ingredientevents", "inputevents", "outputevents", "procedureevents",
}  # fmt: skip
EICU_TABLES = {
    "admissiondrug", "admissiondx", "allergy", "apacheapsvar", "apachepatientresult",
    "apachepredvar", "careplancareprovider", "careplaneol", "careplangeneral",
    "careplangoal", "careplaninfectiousdisease", "customlab", "diagnosis", "hospital",
    "infusiondrug", "intakeoutput", "lab", "medication", "microlab", "note",
    "nurseassessment", "nursecare", "nursecharting", "pasthistory", "patient",
    "physicalexam", "respiratorycare", "respiratorycharting", "treatment",
    "vitalaperiodic", "vitalperiodic",
}  # fmt: skip


def test_every_official_table_is_defined() -> None:
    assert {t.name for t in MIMIC_IV.tables_in("mimiciv_hosp")} == MIMIC_HOSP
    assert {t.name for t in MIMIC_IV.tables_in("mimiciv_icu")} == MIMIC_ICU
    assert {t.name for t in EICU.tables_in("eicu_crd")} == EICU_TABLES
    assert EICU.schema_names == ("eicu_crd",)


def test_official_column_order_and_types() -> None:
    chart = MIMIC_IV.table("mimiciv_icu.chartevents")
    assert chart.column_names == (
        "subject_id", "hadm_id", "stay_id", "caregiver_id", "charttime", "storetime",
        "itemid", "value", "valuenum", "valueuom", "warning",
    )  # fmt: skip
    assert chart.column("valuenum").type == "DOUBLE"
    assert chart.column("warning").type == "SMALLINT"
    assert not chart.column("itemid").nullable
    patients = MIMIC_IV.table("mimiciv_hosp.patients")
    assert patients.primary_key == ("subject_id",)
    assert patients.column("dod").type == "DATE"
    micro = MIMIC_IV.table("mimiciv_hosp.microbiologyevents")
    assert micro.column("chartdate").type == "TIMESTAMP"
    patient = EICU.table("eicu_crd.patient")
    assert patient.column("age").type == "VARCHAR"
    assert patient.column("unitadmittime24").type == "VARCHAR"
    assert patient.column("admissionheight").type == "DOUBLE"
    assert EICU.table("eicu_crd.nursecharting").column("nursingchartid").type == "BIGINT"
    assert EICU.table("eicu_crd.hospital").column("teachingstatus").type == "BOOLEAN"


def test_floating_columns_are_double_everywhere() -> None:
    for schema in (MIMIC_IV, EICU):
        for tbl in schema.tables:
            for column in tbl.columns:
                assert column.type in {
                    "SMALLINT", "INTEGER", "BIGINT", "DOUBLE", "VARCHAR", "BOOLEAN",
                    "DATE", "TIMESTAMP",
                }, f"{tbl.qualified}.{column.name}"  # fmt: skip
            for key in tbl.primary_key:
                assert key in tbl.column_names


def test_dataset_schema_lookup() -> None:
    assert dataset_schema("mimic-iv") is MIMIC_IV
    assert dataset_schema("eicu") is EICU
    with pytest.raises(M4BenchError, match="unknown dataset 'mimic-iii'"):
        dataset_schema("mimic-iii")


def test_create_empty_tables_all_typed() -> None:
    con = duckdb.connect()
    create_empty_tables(con, MIMIC_IV)
    create_empty_tables(con, EICU)
    rows = con.execute(
        "SELECT table_schema, COUNT(*) FROM information_schema.tables "
        "GROUP BY table_schema ORDER BY table_schema"
    ).fetchall()
    assert rows == [("eicu_crd", 31), ("mimiciv_hosp", 22), ("mimiciv_icu", 9)]
    types = dict(
        con.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'mimiciv_icu' AND table_name = 'icustays'"
        ).fetchall()
    )
    assert types == {
        "subject_id": "INTEGER", "hadm_id": "INTEGER", "stay_id": "INTEGER",
        "first_careunit": "VARCHAR", "last_careunit": "VARCHAR",
        "intime": "TIMESTAMP", "outtime": "TIMESTAMP", "los": "DOUBLE",
    }  # fmt: skip


def test_create_selected_tables_and_insert_hand_made_rows() -> None:
    con = duckdb.connect()
    create_empty_tables(con, MIMIC_IV, ["chartevents", "mimiciv_hosp.patients"])
    names = con.execute(
        "SELECT table_schema || '.' || table_name FROM information_schema.tables ORDER BY 1"
    ).fetchall()
    assert names == [("mimiciv_hosp.patients",), ("mimiciv_icu.chartevents",)]
    con.execute(
        "INSERT INTO mimiciv_icu.chartevents (subject_id, hadm_id, stay_id, charttime, "
        "itemid, valuenum) VALUES (1, 2, 3, '2110-01-01 10:00', 223762, 36.6)"
    )
    # DOUBLE, not 32-bit FLOAT: equality with a literal holds.
    hit = con.execute("SELECT COUNT(*) FROM mimiciv_icu.chartevents WHERE valuenum = 36.6")
    assert hit.fetchone() == (1,)


def test_create_empty_tables_not_null_and_unknown_table() -> None:
    con = duckdb.connect()
    create_empty_tables(con, EICU, ["patient"], not_null=True)
    with pytest.raises(duckdb.ConstraintException):
        con.execute("INSERT INTO eicu_crd.patient (gender) VALUES ('Female')")
    with pytest.raises(M4BenchError, match="no table 'chartevents'"):
        create_empty_tables(con, EICU, ["chartevents"])


def test_spec_rejects_bad_lines() -> None:
    with pytest.raises(ValueError, match="FLOAT"):
        parse_columns("valuenum FLOAT")
    with pytest.raises(ValueError, match="expected"):
        parse_columns("a INTEGER NOTNULL")
    with pytest.raises(ValueError, match="duplicate"):
        parse_columns("a INTEGER\na VARCHAR")
    with pytest.raises(ValueError, match="unknown columns"):
        table("s", "t", "a INTEGER", primary_key=("b",))
