"""MIMIC-IV profile queries: event tables by itemid, and one detector per quirk.

Detector names match the fields of the MIMIC-IV generator's ``QuirkRates``; the
queries only read official columns, so they measure real data just as well.
"""

from __future__ import annotations

from m4bench.sources.profile_spec import ItemQuery, QuirkDetector

HOSP = "mimiciv_hosp"
ICU = "mimiciv_icu"
CHART = f"{ICU}.chartevents"
LABS = f"{HOSP}.labevents"
SPECIMEN_TYPE_ITEM = 52033  # blood-gas specimen type: 'ART.', 'VEN.', ... (text by design)
MICRO = f"{HOSP}.microbiologyevents"
INPUTS = f"{ICU}.inputevents"
VASOPRESSORS = "221906, 221289, 221662, 221653, 221749, 222315"
USUAL_UNIT = (
    "CASE itemid WHEN 222315 THEN 'units/hour' WHEN 221749 THEN 'mcg/kg/min' ELSE 'mcg/kg/min' END"
)
LAB_LIMITS = (
    "(itemid = 50912 AND valuenum > 150) OR (itemid = 51006 AND valuenum > 300) "
    "OR (itemid = 50971 AND valuenum > 30) OR (itemid = 50983 AND valuenum > 200) "
    "OR (itemid = 50862 AND valuenum > 10) OR (itemid = 50931 AND valuenum > 10000) "
    "OR (itemid = 51221 AND valuenum > 100)"
)
FIO2 = (
    f"(SELECT valuenum FROM {CHART} WHERE itemid = 223835 AND valuenum IS NOT NULL "
    f"UNION ALL SELECT valuenum FROM {LABS} WHERE itemid = 50816 AND valuenum IS NOT NULL)"
)

# Substrings that make a prescription an antibiotic (LOWER(drug) contains one).
ANTIBIOTIC_SUBSTRINGS = (
    "adoxa",
    "ala-tet",
    "alodox",
    "amikacin",
    "amikin",
    "amoxicill",
    "amphotericin",
    "anidulafungin",
    "ancef",
    "clavulanate",
    "ampicillin",
    "augmentin",
    "avelox",
    "avidoxy",
    "azactam",
    "azithromycin",
    "aztreonam",
    "axetil",
    "bactocill",
    "bactrim",
    "bactroban",
    "bethkis",
    "biaxin",
    "bicillin l-a",
    "cayston",
    "cefazolin",
    "cedax",
    "cefoxitin",
    "ceftazidime",
    "cefaclor",
    "cefadroxil",
    "cefdinir",
    "cefditoren",
    "cefepime",
    "cefotan",
    "cefotetan",
    "cefotaxime",
    "ceftaroline",
    "cefpodoxime",
    "cefpirome",
    "cefprozil",
    "ceftibuten",
    "ceftin",
    "ceftriaxone",
    "cefuroxime",
    "cephalexin",
    "cephalothin",
    "cephapririn",
    "chloramphenicol",
    "cipro",
    "ciprofloxacin",
    "claforan",
    "clarithromycin",
    "cleocin",
    "clindamycin",
    "cubicin",
    "dicloxacillin",
    "dirithromycin",
    "doryx",
    "doxycy",
    "duricef",
    "dynacin",
    "ery-tab",
    "eryped",
    "eryc",
    "erythrocin",
    "erythromycin",
    "factive",
    "flagyl",
    "fortaz",
    "furadantin",
    "garamycin",
    "gentamicin",
    "kanamycin",
    "keflex",
    "kefzol",
    "ketek",
    "levaquin",
    "levofloxacin",
    "lincocin",
    "linezolid",
    "macrobid",
    "macrodantin",
    "maxipime",
    "mefoxin",
    "metronidazole",
    "meropenem",
    "methicillin",
    "minocin",
    "minocycline",
    "monodox",
    "monurol",
    "morgidox",
    "moxatag",
    "moxifloxacin",
    "mupirocin",
    "myrac",
    "nafcillin",
    "neomycin",
    "nicazel doxy 30",
    "nitrofurantoin",
    "norfloxacin",
    "noroxin",
    "ocudox",
    "ofloxacin",
    "omnicef",
    "oracea",
    "oraxyl",
    "oxacillin",
    "pc pen vk",
    "pce dispertab",
    "panixine",
    "pediazole",
    "penicillin",
    "periostat",
    "pfizerpen",
    "piperacillin",
    "tazobactam",
    "primsol",
    "proquin",
    "raniclor",
    "rifadin",
    "rifampin",
    "rocephin",
    "smz-tmp",
    "septra",
    "septra ds",
    "solodyn",
    "spectracef",
    "streptomycin",
    "sulfadiazine",
    "sulfamethoxazole",
    "trimethoprim",
    "sulfatrim",
    "sulfisoxazole",
    "suprax",
    "synercid",
    "tazicef",
    "tetracycline",
    "timentin",
    "tobramycin",
    "unasyn",
    "vancocin",
    "vancomycin",
    "vantin",
    "vibativ",
    "vibra-tabs",
    "vibramycin",
    "zinacef",
    "zithromax",
    "zosyn",
    "zyvox",
)
ANTIBIOTIC = "(" + " OR ".join(f"LOWER(drug) LIKE '%{x}%'" for x in ANTIBIOTIC_SUBSTRINGS) + ")"


def _share(table: str, condition: str, where: str = "TRUE") -> str:
    return f"SELECT COUNT(*) FILTER (WHERE {condition}), COUNT(*) FROM {table} WHERE {where}"


def _specimens(condition: str) -> str:
    return (
        f"SELECT COUNT(*) FILTER (WHERE hit), COUNT(*) FROM (SELECT micro_specimen_id, "
        f"BOOL_OR({condition}) AS hit FROM {MICRO} GROUP BY 1)"
    )


DETECTORS: tuple[QuirkDetector, ...] = (
    QuirkDetector(
        "temperature_unit_swap",
        "temperature rows charted in the other unit's item",
        (CHART,),
        _share(
            CHART,
            "(itemid = 223761 AND valuenum < 50) OR (itemid = 223762 AND valuenum > 50)",
            "itemid IN (223761, 223762) AND valuenum IS NOT NULL",
        ),
    ),
    QuirkDetector(
        "fio2_fraction",
        "numeric FiO2 rows (223835, lab 50816) written as a fraction <= 1",
        (CHART, LABS),
        f"SELECT COUNT(*) FILTER (WHERE valuenum <= 1), COUNT(*) FROM {FIO2}",
    ),
    QuirkDetector(
        "fio2_flow_typo",
        "numeric FiO2 rows between 1 and 20 (an O2 flow typed as FiO2)",
        (CHART, LABS),
        f"SELECT COUNT(*) FILTER (WHERE valuenum > 1 AND valuenum <= 20), COUNT(*) FROM {FIO2}",
    ),
    QuirkDetector(
        "gcs_partial",
        "GCS charttimes with fewer than three components",
        (CHART,),
        f"SELECT COUNT(*) FILTER (WHERE n < 3), COUNT(*) FROM (SELECT stay_id, charttime, "
        f"COUNT(DISTINCT itemid) AS n FROM {CHART} WHERE itemid IN (220739, 223900, 223901) "
        "GROUP BY 1, 2)",
    ),
    QuirkDetector(
        "chart_duplicate",
        "extra chartevents rows at an already charted (stay, time, item)",
        (CHART,),
        f"SELECT SUM(n - 1), COUNT(*) FROM (SELECT COUNT(*) AS n FROM {CHART} "
        "GROUP BY stay_id, charttime, itemid)",
    ),
    QuirkDetector(
        "lab_text_value",
        "rows of numeric lab items with a text value and valuenum NULL "
        "(blood-gas specimen type 52033 is text by design and left out)",
        (LABS,),
        _share(
            LABS,
            "valuenum IS NULL AND value IS NOT NULL",
            f"itemid <> {SPECIMEN_TYPE_ITEM} AND itemid IN "
            f"(SELECT itemid FROM {LABS} GROUP BY itemid HAVING COUNT(valuenum) > 0)",
        ),
    ),
    QuirkDetector(
        "lab_out_of_range",
        "creatinine/BUN/K/Na/albumin/glucose/Hct rows beyond the filters",
        (LABS,),
        _share(
            LABS,
            LAB_LIMITS,
            "itemid IN (50912, 51006, 50971, 50983, 50862, 50931, 51221) AND valuenum IS NOT NULL",
        ),
    ),
    QuirkDetector(
        "lab_null_hadm",
        "lab rows inside an admission of the subject with hadm_id NULL",
        (LABS, f"{HOSP}.admissions"),
        f"SELECT COUNT(DISTINCT l.labevent_id) FILTER (WHERE l.hadm_id IS NULL), "
        f"COUNT(DISTINCT l.labevent_id) FROM {LABS} l JOIN {HOSP}.admissions a "
        "ON a.subject_id = l.subject_id AND l.charttime BETWEEN a.admittime AND a.dischtime",
    ),
    QuirkDetector(
        "micro_null_hadm",
        "microbiology specimens with hadm_id NULL",
        (MICRO,),
        _specimens("hadm_id IS NULL"),
    ),
    QuirkDetector(
        "micro_date_only",
        "microbiology specimens with charttime NULL (date only)",
        (MICRO,),
        _specimens("charttime IS NULL"),
    ),
    QuirkDetector(
        "bg_simultaneous_venous",
        "arterial ('ART.') gases with another pO2 specimen of the subject at the same time",
        (LABS,),
        f"WITH gas AS (SELECT DISTINCT subject_id, charttime, specimen_id FROM {LABS} "
        f"WHERE itemid = 50821), art AS (SELECT DISTINCT specimen_id FROM {LABS} "
        "WHERE itemid = 52033 AND value = 'ART.'), g AS (SELECT gas.*, COUNT(*) OVER "
        "(PARTITION BY subject_id, charttime) AS n FROM gas) SELECT COUNT(*) FILTER "
        "(WHERE n > 1), COUNT(*) FROM g JOIN art USING (specimen_id)",
    ),
    QuirkDetector(
        "device_without_flow",
        "oxygen device rows (226732, not tube or None) without an O2 flow at that time",
        (CHART,),
        f"SELECT COUNT(*) FILTER (WHERE f.stay_id IS NULL), COUNT(*) FROM {CHART} d LEFT JOIN "
        f"(SELECT DISTINCT stay_id, charttime FROM {CHART} WHERE itemid IN (223834, 227582, "
        "227287)) f USING (stay_id, charttime) WHERE d.itemid = 226732 AND d.value NOT IN "
        "('Endotracheal tube', 'Tracheostomy tube', 'None')",
    ),
    QuirkDetector(
        "vasopressor_unit_variant",
        "vasopressor rows in a rare rate unit",
        (INPUTS,),
        _share(INPUTS, f"rateuom <> {USUAL_UNIT}", f"itemid IN ({VASOPRESSORS})"),
    ),
    QuirkDetector(
        "vasopressor_overlap",
        "vasopressor orders overlapping another order of the same drug in the stay",
        (INPUTS,),
        f"WITH o AS (SELECT stay_id, itemid, linkorderid, MIN(starttime) AS s, MAX(endtime) AS e "
        f"FROM {INPUTS} WHERE itemid IN ({VASOPRESSORS}) GROUP BY 1, 2, 3), hit AS (SELECT "
        "DISTINCT a.stay_id, a.itemid, a.linkorderid FROM o AS a JOIN o AS b ON b.stay_id = "
        "a.stay_id AND b.itemid = a.itemid AND b.linkorderid <> a.linkorderid AND (b.s < a.s "
        "OR (b.s = a.s AND b.linkorderid < a.linkorderid)) AND a.s < b.e) "
        "SELECT (SELECT COUNT(*) FROM hit), COUNT(*) FROM o",
    ),
    QuirkDetector(
        "absurd_weight",
        "weight rows (226512, 224639) of at most 1 kg or 1500+ kg",
        (CHART,),
        _share(CHART, "valuenum <= 1 OR valuenum >= 1500", "itemid IN (226512, 224639)"),
    ),
    QuirkDetector(
        "off_hour_time",
        "chartevents rows whose charttime is not on the hour",
        (CHART,),
        _share(CHART, "MINUTE(charttime) <> 0 OR SECOND(charttime) <> 0"),
    ),
    QuirkDetector(
        "icu_before_admission",
        "ICU stays whose intime precedes the admission time",
        (f"{ICU}.icustays", f"{HOSP}.admissions"),
        f"SELECT COUNT(*) FILTER (WHERE i.intime < a.admittime), COUNT(*) FROM {ICU}.icustays i "
        f"JOIN {HOSP}.admissions a USING (hadm_id)",
    ),
    QuirkDetector(
        "null_route_antibiotic",
        "antibiotic prescriptions with a NULL route",
        (f"{HOSP}.prescriptions",),
        _share(f"{HOSP}.prescriptions", "route IS NULL", ANTIBIOTIC),
    ),
    QuirkDetector(
        "organ_donor_admission",
        "in-hospital deaths followed by an organ-donor admission (opened after the death)",
        (f"{HOSP}.admissions",),
        "SELECT COUNT(*) FILTER (WHERE admittime >= dischtime), "
        f"COUNT(*) FILTER (WHERE admittime < dischtime) FROM {HOSP}.admissions "
        "WHERE deathtime IS NOT NULL",
    ),
    QuirkDetector(
        "deathtime_typo",
        "in-hospital deaths whose deathtime differs from dischtime",
        (f"{HOSP}.admissions",),
        _share(f"{HOSP}.admissions", "deathtime <> dischtime", "deathtime IS NOT NULL"),
    ),
)


def _by_itemid(table: str, value: str, labels: str) -> ItemQuery:
    number = f"TRY_CAST({value} AS DOUBLE)"
    return ItemQuery(
        table,
        "itemid",
        value,
        f"SELECT itemid, COUNT(*), COUNT({number}), MIN({number}), MAX({number}) FROM {table} "
        "GROUP BY itemid ORDER BY itemid",
        label_sql=f"SELECT itemid, label FROM {labels}",
    )


ITEM_QUERIES: tuple[ItemQuery, ...] = (
    _by_itemid(CHART, "valuenum", f"{ICU}.d_items"),
    _by_itemid(LABS, "valuenum", f"{HOSP}.d_labitems"),
    _by_itemid(INPUTS, "rate", f"{ICU}.d_items"),
    _by_itemid(f"{ICU}.outputevents", "value", f"{ICU}.d_items"),
)
