"""eICU-CRD profile queries: nursecharting labels, lab names, and one detector per quirk.

Detector names match the fields of ``EicuQuirkRates`` so a synthetic source's
configured rates can be compared with what is present; on real data the same queries
say how common each quirk is.
"""

from __future__ import annotations

from m4bench.sources.profile_spec import ItemQuery, QuirkDetector
from m4bench.sources.synth import eicu_vocab as v
from m4bench.sql import quote_literal

NC = "eicu_crd.nursecharting"
PATIENT = "eicu_crd.patient"
IO = "eicu_crd.intakeoutput"
APS = "eicu_crd.apacheapsvar"
PRED = "eicu_crd.apachepredvar"


def _pairs(*pairs: tuple[str, str]) -> str:
    """SQL: the nursecharting row has one of the (label, name) pairs."""
    return (
        "("
        + " OR ".join(
            f"(nursingchartcelltypevallabel = {quote_literal(a)} "
            f"AND nursingchartcelltypevalname = {quote_literal(b)})"
            for a, b in pairs
        )
        + ")"
    )


GCS_TOTALS = _pairs((v.GCS_LABEL, v.GCS_TOTAL), (v.GCS_SCORE_LABEL, v.VALUE))
GCS_ANY = _pairs(
    (v.GCS_LABEL, v.GCS_TOTAL),
    (v.GCS_LABEL, v.GCS_MOTOR),
    (v.GCS_LABEL, v.GCS_VERBAL),
    (v.GCS_LABEL, v.GCS_EYES),
    (v.GCS_SCORE_LABEL, v.VALUE),
)
MAP_PAIRS = (v.IBP_MEAN, v.MAP_VALUE, v.ART_MAP_VALUE, v.NIBP_MEAN)
VITALS_CHECKED = _pairs(v.HR, v.RR, v.TEMP_C, *MAP_PAIRS)
NUMBER = "TRY_CAST(nursingchartvalue AS DOUBLE)"
URINE_TAIL = f"SUBSTR(cellpath, {len(v.IO_OUTPUT) + 1})"
URINE_ROW = (
    f"(cellpath LIKE {quote_literal(v.IO_OUTPUT + '%')} AND ("
    f"{URINE_TAIL} IN ({', '.join(quote_literal(t) for t in v.urine_tails())})"
    f" OR (LOWER(cellpath) LIKE {quote_literal((v.IO_OUTPUT + 'foley').lower() + '%')}"
    " AND LOWER(cellpath) NOT LIKE '%pacu%' AND LOWER(cellpath) NOT LIKE '%or%'"
    " AND LOWER(cellpath) NOT LIKE '%ir%')"
    f" OR {URINE_TAIL} LIKE 'Output%Urinary Catheter%'"
    f" OR {URINE_TAIL} LIKE 'Output%Urethral Catheter%'"
    f" OR {URINE_TAIL} LIKE 'Urine Output (mL)%'"
    f" OR {URINE_TAIL} LIKE 'Output%External Urethral%'"
    f" OR {URINE_TAIL} LIKE 'Urinary Catheter Output%'))"
)
EXCLUDED_FOLEY = (
    f"(LOWER(cellpath) LIKE {quote_literal((v.IO_OUTPUT + 'foley').lower() + '%')}"
    " AND (LOWER(cellpath) LIKE '%pacu%' OR LOWER(cellpath) LIKE '%or%'"
    " OR LOWER(cellpath) LIKE '%ir%'))"
)
APS_VALUES = (
    "wbc", "temperature", "respiratoryrate", "sodium", "heartrate", "meanbp",
    "hematocrit", "creatinine", "albumin", "bun", "glucose", "bilirubin",
)  # fmt: skip
APS_GASES = ("ph", "pao2", "pco2", "fio2")


def _minus_one_cells(columns: tuple[str, ...]) -> str:
    hits = " + ".join(f"COUNT(*) FILTER (WHERE {c} = -1)" for c in columns)
    return f"SELECT {hits}, COUNT(*) * {len(columns)} FROM {APS}"


def _share(table: str, condition: str, where: str = "TRUE") -> str:
    return f"SELECT COUNT(*) FILTER (WHERE {condition}), COUNT(*) FROM {table} WHERE {where}"


def _stays_with(condition: str) -> str:
    """SQL: patient stays with a nursecharting row meeting ``condition`` (numerator, all)."""
    return (
        f"SELECT COUNT(*) FILTER (WHERE s.patientunitstayid IS NOT NULL), COUNT(*) "
        f"FROM {PATIENT} p LEFT JOIN (SELECT DISTINCT patientunitstayid FROM {NC} "
        f"WHERE {condition}) s USING (patientunitstayid)"
    )


DETECTORS: tuple[QuirkDetector, ...] = (
    QuirkDetector(
        "age_over_89",
        "patient rows with age '> 89'",
        (PATIENT,),
        _share(PATIENT, "age = '> 89'"),
    ),
    QuirkDetector("age_empty", "patient rows with age ''", (PATIENT,), _share(PATIENT, "age = ''")),
    QuirkDetector(
        "pre_unit_charting",
        "stays with nursecharting whose first offset is negative",
        (NC,),
        f"SELECT COUNT(*) FILTER (WHERE first < 0), COUNT(*) FROM (SELECT patientunitstayid, "
        f"MIN(nursingchartoffset) AS first FROM {NC} GROUP BY 1)",
    ),
    QuirkDetector(
        "chart_junk",
        "GCS and OASIS vital rows whose value is not a number",
        (NC,),
        _share(NC, f"{NUMBER} IS NULL", f"{GCS_ANY} OR {VITALS_CHECKED}"),
    ),
    QuirkDetector(
        "gcs_out_of_range",
        "numeric GCS total rows outside 3-15",
        (NC,),
        _share(NC, f"{NUMBER} NOT BETWEEN 3 AND 15", f"{GCS_TOTALS} AND {NUMBER} IS NOT NULL"),
    ),
    QuirkDetector(
        "exam_gcs_out_of_range",
        "numeric physical-exam GCS totals (path tail of 1-2 characters) outside 3-15",
        ("eicu_crd.physicalexam",),
        _share(
            "eicu_crd.physicalexam",
            "TRY_CAST(physicalexamvalue AS DOUBLE) NOT BETWEEN 3 AND 15",
            f"(physicalexampath LIKE {quote_literal(v.PE_GCS + '/_')} OR physicalexampath "
            f"LIKE {quote_literal(v.PE_GCS + '/__')}) "
            "AND TRY_CAST(physicalexamvalue AS DOUBLE) IS NOT NULL",
        ),
    ),
    QuirkDetector(
        "gcs_partial",
        "'Glasgow coma score' charting times without all of total/motor/verbal/eyes",
        (NC,),
        f"SELECT COUNT(*) FILTER (WHERE names < 4), COUNT(*) FROM (SELECT patientunitstayid, "
        f"nursingchartoffset, COUNT(DISTINCT nursingchartcelltypevalname) AS names FROM {NC} "
        f"WHERE nursingchartcelltypevallabel = {quote_literal(v.GCS_LABEL)} GROUP BY 1, 2)",
    ),
    QuirkDetector(
        "gcs_score_family",
        "stays with GCS rows that use 'Score (Glasgow Coma Scale)'",
        (NC,),
        f"SELECT COUNT(*) FILTER (WHERE score), COUNT(*) FROM (SELECT patientunitstayid, "
        f"BOOL_OR(nursingchartcelltypevallabel = {quote_literal(v.GCS_SCORE_LABEL)}) AS score "
        f"FROM {NC} WHERE {GCS_ANY} GROUP BY 1)",
    ),
    QuirkDetector(
        "gcs_uncharted",
        "patient stays without any nursecharting GCS row",
        (PATIENT, NC),
        "SELECT all_stays - charted, all_stays FROM ("
        + _stays_with(GCS_ANY)
        + ") AS t(charted, all_stays)",
    ),
    QuirkDetector(
        "chart_duplicate",
        "extra GCS/vital rows at an already charted (stay, offset, item)",
        (NC,),
        f"SELECT SUM(n - 1), COUNT(*) FROM (SELECT COUNT(*) AS n FROM {NC} "
        f"WHERE {GCS_ANY} OR {VITALS_CHECKED} GROUP BY patientunitstayid, nursingchartoffset, "
        "nursingchartcelltypevallabel, nursingchartcelltypevalname)",
    ),
    QuirkDetector(
        "temperature_f_label",
        "stays charting 'Temperature (C)' that also chart 'Temperature (F)'",
        (NC,),
        f"SELECT COUNT(*) FILTER (WHERE f), COUNT(*) FILTER (WHERE c) FROM (SELECT "
        f"patientunitstayid, BOOL_OR({_pairs(v.TEMP_F)}) AS f, BOOL_OR({_pairs(v.TEMP_C)}) AS c "
        f"FROM {NC} GROUP BY 1)",
    ),
    QuirkDetector(
        "temperature_unit_swap",
        "numeric 'Temperature (C)' rows above 50 (Fahrenheit numbers)",
        (NC,),
        _share(NC, f"{NUMBER} > 50", f"{_pairs(v.TEMP_C)} AND {NUMBER} IS NOT NULL"),
    ),
    QuirkDetector(
        "vital_out_of_range",
        "numeric HR/RR/MAP rows outside the OASIS validity ranges",
        (NC,),
        _share(
            NC,
            f"CASE WHEN {_pairs(v.HR)} THEN {NUMBER} NOT BETWEEN 25 AND 225 "
            f"WHEN {_pairs(v.RR)} THEN {NUMBER} <= 0 OR {NUMBER} > 60 "
            f"ELSE {NUMBER} NOT BETWEEN 1 AND 250 END",
            f"{_pairs(v.HR, v.RR, *MAP_PAIRS)} AND {NUMBER} IS NOT NULL",
        ),
    ),
    QuirkDetector(
        "no_apache",
        "patient stays without an apacheapsvar row",
        (PATIENT, APS),
        f"SELECT COUNT(*) FILTER (WHERE a.patientunitstayid IS NULL), COUNT(*) FROM {PATIENT} p "
        f"LEFT JOIN (SELECT DISTINCT patientunitstayid FROM {APS}) a USING (patientunitstayid)",
    ),
    QuirkDetector(
        "apache_missing_value",
        "apacheapsvar vital/lab cells equal to -1",
        (APS,),
        _minus_one_cells(APS_VALUES),
    ),
    QuirkDetector(
        "apache_blood_gas_missing",
        "apacheapsvar ph/pao2/pco2/fio2 cells equal to -1",
        (APS,),
        _minus_one_cells(APS_GASES),
    ),
    QuirkDetector(
        "apache_urine_missing",
        "apacheapsvar rows with urine = -1",
        (APS,),
        _share(APS, "urine = -1"),
    ),
    QuirkDetector(
        "elective_surgery_null",
        "apachepredvar rows with electivesurgery NULL",
        (PRED,),
        _share(PRED, "electivesurgery IS NULL"),
    ),
    QuirkDetector(
        "io_no_urine",
        "patient stays without any intakeoutput output row",
        (PATIENT, IO),
        f"SELECT COUNT(*) FILTER (WHERE o.patientunitstayid IS NULL), COUNT(*) FROM {PATIENT} p "
        f"LEFT JOIN (SELECT DISTINCT patientunitstayid FROM {IO} WHERE cellpath LIKE "
        f"{quote_literal(v.IO_OUTPUT + '%')}) o USING (patientunitstayid)",
    ),
    QuirkDetector(
        "io_urine_variant",
        "urine rows whose cell path tail is not plain 'Urine'",
        (IO,),
        _share(IO, f"{URINE_TAIL} <> 'Urine'", URINE_ROW),
    ),
    QuirkDetector(
        "io_excluded_foley",
        "foley rows the urine rule excludes, per urine charting time",
        (IO,),
        f"SELECT (SELECT COUNT(*) FROM {IO} WHERE {EXCLUDED_FOLEY}), COUNT(*) FROM (SELECT "
        f"DISTINCT patientunitstayid, intakeoutputoffset FROM {IO} WHERE {URINE_ROW})",
    ),
    QuirkDetector(
        "io_same_offset",
        "urine charting times with more than one urine row",
        (IO,),
        f"SELECT COUNT(*) FILTER (WHERE n > 1), COUNT(*) FROM (SELECT COUNT(*) AS n FROM {IO} "
        f"WHERE {URINE_ROW} GROUP BY patientunitstayid, intakeoutputoffset)",
    ),
    QuirkDetector(
        "respcare_no_airway",
        "stays without airway documentation that still have respiratorycare rows",
        ("eicu_crd.respiratorycare", PATIENT),
        "SELECT COUNT(*) FILTER (WHERE r.stay IS NOT NULL AND NOT r.airway), "
        "COUNT(*) FILTER (WHERE r.stay IS NULL OR NOT r.airway) FROM eicu_crd.patient p "
        "LEFT JOIN (SELECT patientunitstayid AS stay, BOOL_OR(airwaytype IS NOT NULL OR "
        "airwaysize IS NOT NULL OR airwayposition IS NOT NULL OR cuffpressure IS NOT NULL OR "
        "setapneatv IS NOT NULL) AS airway FROM eicu_crd.respiratorycare GROUP BY 1) r "
        "ON r.stay = p.patientunitstayid",
    ),
    QuirkDetector(
        "lab_text_value",
        "lab rows with a text result and labresult NULL",
        ("eicu_crd.lab",),
        _share("eicu_crd.lab", "labresult IS NULL AND labresulttext IS NOT NULL"),
    ),
    QuirkDetector(
        "pre_unit_lab",
        "stays whose first lab is before unit admission",
        ("eicu_crd.lab",),
        "SELECT COUNT(*) FILTER (WHERE first < 0), COUNT(*) FROM (SELECT patientunitstayid, "
        "MIN(labresultoffset) AS first FROM eicu_crd.lab GROUP BY 1)",
    ),
)

ITEM_QUERIES: tuple[ItemQuery, ...] = (
    ItemQuery(
        NC,
        "nursingchartcelltypecat | nursingchartcelltypevallabel | nursingchartcelltypevalname",
        "nursingchartvalue (numeric text)",
        f"SELECT CONCAT_WS(' | ', nursingchartcelltypecat, nursingchartcelltypevallabel, "
        f"nursingchartcelltypevalname) AS k, COUNT(*), COUNT({NUMBER}), MIN({NUMBER}), "
        f"MAX({NUMBER}) FROM {NC} GROUP BY k ORDER BY k",
    ),
    ItemQuery(
        "eicu_crd.lab",
        "labname",
        "labresult",
        "SELECT labname, COUNT(*), COUNT(labresult), MIN(labresult), MAX(labresult) "
        "FROM eicu_crd.lab GROUP BY labname ORDER BY labname",
    ),
    ItemQuery(
        "eicu_crd.infusiondrug",
        "drugname",
        "drugrate (numeric text)",
        "SELECT drugname, COUNT(*), COUNT(TRY_CAST(drugrate AS DOUBLE)), "
        "MIN(TRY_CAST(drugrate AS DOUBLE)), MAX(TRY_CAST(drugrate AS DOUBLE)) "
        "FROM eicu_crd.infusiondrug GROUP BY drugname ORDER BY drugname",
    ),
)
