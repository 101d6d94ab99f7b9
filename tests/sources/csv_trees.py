"""Small CSV trees in the MIMIC-IV and eICU release layouts, written by the tests.

A plain module (not conftest) so test modules can import it by a unique name."""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from m4bench.sources.csv_tree import expected_paths
from m4bench.sources.schema.base import DatasetSchema, Table

Row = Mapping[str, str]

# A few patients with the quirks that matter for types: '___' placeholders, empty
# fields, timestamps with and without seconds, quoted text with commas.
MIMIC_ROWS: dict[str, list[Row]] = {
    "mimiciv_hosp.patients": [
        {"subject_id": "10000032", "gender": "F", "anchor_age": "52", "anchor_year": "2180",
         "anchor_year_group": "2014 - 2016", "dod": "2180-09-09"},
        {"subject_id": "10000084", "gender": "M", "anchor_age": "72", "anchor_year": "2160",
         "anchor_year_group": "2017 - 2019", "dod": ""},
        {"subject_id": "10000108", "gender": "M", "anchor_age": "91", "anchor_year": "2163",
         "anchor_year_group": "2014 - 2016", "dod": ""},
    ],
    "mimiciv_hosp.admissions": [
        {"subject_id": "10000032", "hadm_id": "22595853", "admittime": "2180-05-06 22:23:00",
         "dischtime": "2180-05-07 17:15", "admission_type": "URGENT",
         "admission_location": "TRANSFER FROM HOSPITAL", "discharge_location": "HOME",
         "insurance": "Other", "language": "English", "marital_status": "WIDOWED",
         "race": "WHITE", "hospital_expire_flag": "0"},
        {"subject_id": "10000084", "hadm_id": "23052089", "admittime": "2160-11-21 01:56",
         "dischtime": "2160-11-25 14:52:00", "admission_type": "EW EMER.",
         "admission_location": "WALK-IN/SELF REFERRAL", "discharge_location": "",
         "insurance": "Medicare", "language": "English", "marital_status": "",
         "race": "HISPANIC, OTHER", "edregtime": "2160-11-20 20:36:00",
         "edouttime": "2160-11-21 03:20", "hospital_expire_flag": "0"},
    ],
    "mimiciv_icu.icustays": [
        {"subject_id": "10000032", "hadm_id": "22595853", "stay_id": "39553978",
         "first_careunit": "Medical Intensive Care Unit (MICU)",
         "last_careunit": "Medical Intensive Care Unit (MICU)",
         "intime": "2180-07-23 14:00:00", "outtime": "2180-07-23 23:50:47",
         "los": "0.4102662037037037"},
    ],
    "mimiciv_icu.chartevents": [
        {"subject_id": "10000032", "hadm_id": "22595853", "stay_id": "39553978",
         "caregiver_id": "18704", "charttime": "2180-07-23 14:00", "storetime":
         "2180-07-23 14:01:00", "itemid": "223762", "value": "36.6", "valuenum": "36.6",
         "valueuom": "°C", "warning": "0"},
        {"subject_id": "10000032", "hadm_id": "22595853", "stay_id": "39553978",
         "charttime": "2180-07-23 15:00:00", "itemid": "223900", "value": "No Response-ETT",
         "valuenum": "1", "warning": "0"},
        {"subject_id": "10000032", "hadm_id": "22595853", "stay_id": "39553978",
         "charttime": "2180-07-23 15:00:00", "itemid": "226732", "value": "Bipap mask ",
         "valuenum": ""},
    ],
    "mimiciv_hosp.labevents": [
        {"labevent_id": "1", "subject_id": "10000032", "hadm_id": "", "specimen_id": "2704548",
         "itemid": "50912", "charttime": "2180-03-23 11:51:00", "storetime": "2180-03-23 15:56",
         "value": "0.7", "valuenum": "0.7", "valueuom": "mg/dL", "ref_range_lower": "0.4",
         "ref_range_upper": "1.1", "priority": "ROUTINE", "comments": "___"},
        {"labevent_id": "2", "subject_id": "10000032", "hadm_id": "22595853",
         "specimen_id": "2704549", "itemid": "50885", "charttime": "2180-05-06 22:25",
         "value": "<0.2", "valuenum": "", "valueuom": "mg/dL", "flag": "abnormal",
         "comments": "HEMOLYZED, \"repeat\"\nsee note"},
    ],
}  # fmt: skip

EICU_ROWS: dict[str, list[Row]] = {
    "eicu_crd.patient": [
        {"patientunitstayid": "141168", "patienthealthsystemstayid": "128919",
         "gender": "Female", "age": "70", "ethnicity": "Caucasian", "hospitalid": "59",
         "wardid": "91", "apacheadmissiondx": "Rhythm disturbance (atrial, supraventricular)",
         "admissionheight": "152.4", "hospitaladmittime24": "15:54:00",
         "hospitaladmitoffset": "0", "hospitaladmitsource": "Direct Admit",
         "hospitaldischargeyear": "2015", "hospitaldischargetime24": "03:50:00",
         "hospitaldischargeoffset": "3596", "hospitaldischargelocation": "Death",
         "hospitaldischargestatus": "Expired", "unittype": "Med-Surg ICU",
         "unitadmittime24": "15:54:00", "unitadmitsource": "Direct Admit",
         "unitvisitnumber": "1", "unitstaytype": "admit", "admissionweight": "84.3",
         "dischargeweight": "85.8", "unitdischargetime24": "03:50:00",
         "unitdischargeoffset": "3596", "unitdischargelocation": "Death",
         "unitdischargestatus": "Expired", "uniquepid": "002-34851"},
        {"patientunitstayid": "141178", "patienthealthsystemstayid": "128927",
         "gender": "Female", "age": "> 89", "ethnicity": "", "hospitalid": "60",
         "admissionheight": "", "hospitaladmitoffset": "-14", "hospitaldischargeyear": "2014",
         "unitvisitnumber": "1", "unitdischargeoffset": "8", "uniquepid": "002-33870"},
        {"patientunitstayid": "141179", "gender": "Male", "age": "", "hospitalid": "60",
         "hospitaldischargeyear": "2014", "uniquepid": "002-33870"},
    ],
    "eicu_crd.hospital": [
        {"hospitalid": "59", "numbedscategory": "<100", "teachingstatus": "f",
         "region": "Midwest"},
        {"hospitalid": "60", "numbedscategory": "", "teachingstatus": "t", "region": ""},
    ],
    "eicu_crd.lab": [
        {"labid": "52307161", "patientunitstayid": "141168", "labresultoffset": "2026",
         "labtypeid": "3", "labname": "fibrinogen", "labresult": "177",
         "labresulttext": "177", "labmeasurenamesystem": "mg/dL",
         "labmeasurenameinterface": "mg/dL", "labresultrevisedoffset": "2219"},
        {"labid": "50363251", "patientunitstayid": "141168", "labresultoffset": "-99",
         "labtypeid": "1", "labname": "creatinine", "labresult": "2.3100",
         "labresulttext": "2.31", "labresultrevisedoffset": ""},
    ],
    "eicu_crd.nursecharting": [
        {"nursingchartid": "4000000001", "patientunitstayid": "141168",
         "nursingchartoffset": "5", "nursingchartentryoffset": "5",
         "nursingchartcelltypecat": "Scores",
         "nursingchartcelltypevallabel": "Glasgow coma score",
         "nursingchartcelltypevalname": "GCS Total",
         "nursingchartvalue": "Unable to score due to medication"},
    ],
}  # fmt: skip


def csv_bytes(table: Table, rows: Sequence[Row], header: Sequence[str] | None = None) -> bytes:
    columns = list(header or table.column_names)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(column, "") for column in columns])
    return buffer.getvalue().encode("utf-8")


def write_tree(
    root: Path, schema: DatasetSchema, rows: Mapping[str, Sequence[Row]], gz: bool = True
) -> Path:
    """Every table of ``schema`` as a CSV file (header only unless ``rows`` has some)."""
    for table in schema.tables:
        path = expected_paths(root, table)[0 if gz else 1]
        path.parent.mkdir(parents=True, exist_ok=True)
        data = csv_bytes(table, rows.get(table.qualified, []))
        path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return root
