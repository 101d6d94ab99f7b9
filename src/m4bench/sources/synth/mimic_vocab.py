"""Exact strings of MIMIC-IV v3.1 that the clinical concepts match on.

Trailing spaces are part of the strings ('Trach mask ', 'Bipap mask ', ...).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

ADMISSION_TYPES_ICU = (
    ("EW EMER.", 0.50),
    ("URGENT", 0.16),
    ("SURGICAL SAME DAY ADMISSION", 0.10),
    ("OBSERVATION ADMIT", 0.09),
    ("ELECTIVE", 0.06),
    ("DIRECT EMER.", 0.05),
    ("EU OBSERVATION", 0.02),
    ("DIRECT OBSERVATION", 0.01),
    ("AMBULATORY OBSERVATION", 0.01),
)
ADMISSION_TYPES_WARD = (
    ("EW EMER.", 0.30),
    ("EU OBSERVATION", 0.18),
    ("OBSERVATION ADMIT", 0.12),
    ("URGENT", 0.10),
    ("SURGICAL SAME DAY ADMISSION", 0.09),
    ("ELECTIVE", 0.08),
    ("DIRECT EMER.", 0.05),
    ("DIRECT OBSERVATION", 0.05),
    ("AMBULATORY OBSERVATION", 0.03),
)
ADMISSION_LOCATIONS = (
    "EMERGENCY ROOM",
    "PHYSICIAN REFERRAL",
    "TRANSFER FROM HOSPITAL",
    "WALK-IN/SELF REFERRAL",
    "CLINIC REFERRAL",
    "PROCEDURE SITE",
    "PACU",
    "TRANSFER FROM SKILLED NURSING FACILITY",
    "INFORMATION NOT AVAILABLE",
    "INTERNAL TRANSFER TO OR FROM PSYCH",
    "AMBULATORY SURGERY TRANSFER",
)
DISCHARGE_LOCATIONS_ALIVE = (
    "HOME",
    "HOME HEALTH CARE",
    "SKILLED NURSING FACILITY",
    "REHAB",
    "CHRONIC/LONG TERM ACUTE CARE",
    "HOSPICE",
    "AGAINST ADVICE",
    "ACUTE HOSPITAL",
    "PSYCH FACILITY",
    "OTHER FACILITY",
    "ASSISTED LIVING",
    "HEALTHCARE FACILITY",
)
INSURANCE = ("Medicare", "Medicaid", "Private", "Other", "No charge")
LANGUAGES = (
    "English",
    "English",
    "English",
    "English",
    "Spanish",
    "Chinese",
    "Russian",
    "Portuguese",
)
MARITAL = ("MARRIED", "SINGLE", "WIDOWED", "DIVORCED")
RACES = (
    "WHITE",
    "WHITE",
    "WHITE",
    "BLACK/AFRICAN AMERICAN",
    "HISPANIC/LATINO - PUERTO RICAN",
    "ASIAN - CHINESE",
    "UNKNOWN",
    "OTHER",
    "UNABLE TO OBTAIN",
    "PATIENT DECLINED TO ANSWER",
)
ANCHOR_YEAR_GROUPS = ("2008 - 2010", "2011 - 2013", "2014 - 2016", "2017 - 2019", "2020 - 2022")

# (careunit, share, first service choices); the first service depends on the unit.
CAREUNITS = (
    ("Medical Intensive Care Unit (MICU)", 0.21, ("MED", "MED", "OMED")),
    ("Medical/Surgical Intensive Care Unit (MICU/SICU)", 0.17, ("MED", "SURG", "NMED")),
    ("Cardiac Vascular Intensive Care Unit (CVICU)", 0.16, ("CSURG", "CSURG", "VSURG", "CMED")),
    ("Surgical Intensive Care Unit (SICU)", 0.14, ("SURG", "VSURG", "ORTHO", "PSURG")),
    ("Trauma SICU (TSICU)", 0.12, ("TRAUM", "TSURG", "SURG", "ORTHO")),
    ("Coronary Care Unit (CCU)", 0.11, ("CMED", "CMED", "MED")),
    ("Neuro Surgical Intensive Care Unit (Neuro SICU)", 0.04, ("NSURG", "NMED")),
    ("Neuro Intermediate", 0.02, ("NMED", "NSURG")),
    ("Neuro Stepdown", 0.01, ("NMED",)),
    ("Surgery/Vascular/Intermediate", 0.01, ("VSURG", "SURG")),
    ("Intensive Care Unit (ICU)", 0.01, ("MED", "GU", "ENT")),
)
WARD_UNITS = (
    "Medicine",
    "Med/Surg",
    "Surgery/Trauma",
    "Medicine/Cardiology",
    "Transplant",
    "Neurology",
    "Vascular",
    "Hematology/Oncology",
    "PACU",
    "UNKNOWN",
)
WARD_SERVICES = (
    "MED",
    "MED",
    "SURG",
    "CMED",
    "ORTHO",
    "GU",
    "GYN",
    "OBS",
    "PSYCH",
    "NMED",
    "ENT",
    "EYE",
    "DENT",
    "OMED",
)
EMERGENCY_ADMISSION_TYPES = frozenset({"EW EMER.", "DIRECT EMER.", "URGENT", "EU OBSERVATION"})

# --- chartevents strings ---
GCS_EYES = ((4, "Spontaneously"), (3, "To Speech"), (2, "To Pain"), (1, "None"))
GCS_VERBAL = (
    (5, "Oriented"),
    (4, "Confused"),
    (3, "Inappropriate Words"),
    (2, "Incomprehensible sounds"),
    (1, "No Response"),
)
GCS_VERBAL_ETT = "No Response-ETT"
GCS_MOTOR = (
    (6, "Obeys Commands"),
    (5, "Localizes Pain"),
    (4, "Flex-withdraws"),
    (3, "Abnormal Flexion"),
    (2, "Abnormal extension"),
    (1, "No response"),
)
DEVICES_SUPPLEMENTAL = (
    "Nasal cannula",
    "Nasal cannula",
    "Nasal cannula",
    "Nasal cannula",
    "Nasal cannula",
    "Nasal cannula",
    "Face tent",
    "Face tent",
    "Aerosol-cool",
    "Aerosol-cool",
    "Non-rebreather",
    "Venti mask ",
    "Medium conc mask ",
    "High flow neb",
    "High flow neb",
    "Oxymizer",
    "Trach mask ",
    "Tracheostomy tube",
    "Ultrasonic neb",
    "Vapomist",
)
DEVICES_INVASIVE = ("Endotracheal tube",)
DEVICES_TRACH = ("Tracheostomy tube", "Trach mask ")
DEVICES_NIV = ("Bipap mask ", "CPAP mask ")
DEVICE_HFNC = "High flow nasal cannula"
DEVICE_NONE = "None"
DEVICE_NEAR_MISSES = ("T-piece", "Other", "Trach mask")
VENT_MODES = (
    "(S) CMV",
    "APRV",
    "APRV/Biphasic+ApnPress",
    "APRV/Biphasic+ApnVol",
    "APV (cmv)",
    "Ambient",
    "Apnea Ventilation",
    "CMV",
    "CMV/ASSIST",
    "CMV/ASSIST/AutoFlow",
    "CMV/AutoFlow",
    "CPAP/PPS",
    "CPAP/PSV",
    "CPAP/PSV+Apn TCPL",
    "CPAP/PSV+ApnPres",
    "CPAP/PSV+ApnVol",
    "MMV",
    "MMV/AutoFlow",
    "MMV/PSV",
    "MMV/PSV/AutoFlow",
    "P-CMV",
    "PCV+",
    "PCV+/PSV",
    "PCV+Assist",
    "PRES/AC",
    "PRVC/AC",
    "PRVC/SIMV",
    "PSV/SBT",
    "SIMV",
    "SIMV/AutoFlow",
    "SIMV/PRES",
    "SIMV/PSV",
    "SIMV/PSV/AutoFlow",
    "SIMV/VOL",
    "SYNCHRON MASTER",
    "SYNCHRON SLAVE",
    "VOL/AC",
)
COMMON_VENT_MODES = (
    "CMV/ASSIST/AutoFlow",
    "CMV/ASSIST",
    "CPAP/PSV",
    "PRVC/AC",
    "SIMV/PSV",
    "VOL/AC",
)
HAMILTON_MODES_INVASIVE = (
    "APRV",
    "APV (cmv)",
    "Ambient",
    "(S) CMV",
    "P-CMV",
    "SIMV",
    "APV (simv)",
    "P-SIMV",
    "VS",
    "ASV",
)
HAMILTON_MODES_NIV = ("DuoPaP", "NIV", "NIV-ST")
VENT_MODE_NEAR_MISSES = ("Standby",)
VENTILATOR_TYPES = ("Drager", "Hamilton", "PB 840", "Servo")
TEMPERATURE_SITES = ("Oral", "Axillary", "Rectal", "Tympanic", "Blood", "Temporal", "Core")
RHYTHMS = (
    "SR (Sinus Rhythm)",
    "SR (Sinus Rhythm)",
    "SR (Sinus Rhythm)",
    "ST (Sinus Tachycardia)",
    "SB (Sinus Bradycardia)",
    "AF (Atrial Fibrillation)",
    "A Flut (Atrial Flutter)",
    "Paced",
)
CRRT_MODES = ("CVVH", "CVVHD", "CVVHDF", "SCUF")
CRRT_SYSTEM_INTEGRITY = (
    "Active",
    "Active",
    "Active",
    "Initiated",
    "Reinitiated",
    "New Filter",
    "Recirculating",
    "Discontinued",
    "Clots Present",
    "No Clot Present",
    "Clots Increasing",
    "Clot Increasing",
    "Clotted",
)
RASS = (
    "0  Alert and calm",
    "-1 Drowsy",
    "-2 Light sedation",
    "-3 Moderate sedation",
    "-4 Deep sedation",
    "+1 Restless",
)

# --- labs ---
BG_SPECIMENS_OTHER = ("VEN.", "MIX.", "CENTRAL VENOUS.")
LAB_TEXT_VALUES = ("<0.2", ">500", "HEMOLYZED", "ERROR", "___")

# --- vasopressors: itemid -> (rate low, rate high, rate unit, amount unit) ---
VASOPRESSORS = {
    221906: (0.01, 0.5, "mcg/kg/min", "mg"),
    221289: (0.02, 0.3, "mcg/kg/min", "mg"),
    221662: (3.0, 20.0, "mcg/kg/min", "mg"),
    221653: (2.5, 15.0, "mcg/kg/min", "mg"),
    221749: (0.3, 4.0, "mcg/kg/min", "mg"),
    222315: (0.6, 2.4, "units/hour", "units"),
    221986: (0.125, 0.75, "mcg/kg/min", "mg"),
}
VASOPRESSOR_RARE_UNITS = {221906: "mg/kg/min", 221749: "mcg/min", 222315: "units/min"}
URINE_ITEMS_MINOR = (226560, 226561, 226584, 226563, 226564, 226565, 226567, 226557, 226558, 227489)

# --- prescriptions: (drug, route, is antibiotic by the concept's list) ---
ANTIBIOTICS_IV = (
    ("Vancomycin", "IV"),
    ("CefTRIAXone", "IV"),
    ("Piperacillin-Tazobactam", "IV"),
    ("CefePIME", "IV"),
    ("MetRONIDAZOLE (FLagyl)", "IV"),
    ("Meropenem", "IV"),
    ("Azithromycin", "IV"),
    ("Levofloxacin", "IV"),
    ("CeFAZolin", "IV"),
    ("Ampicillin-Sulbactam", "IV"),
    ("Linezolid", "IV"),
    ("Ciprofloxacin IV", "IV"),
    ("Gentamicin", "IV"),
    ("Nafcillin", "IV"),
)
ANTIBIOTICS_PO = (
    ("Sulfameth/Trimethoprim DS", "PO"),
    ("Vancomycin Oral Liquid", "PO"),
    ("Levofloxacin", "PO/NG"),
    ("Amoxicillin-Clavulanic Acid", "PO"),
    ("Cephalexin", "PO"),
    ("Doxycycline Hyclate", "PO"),
    ("Nitrofurantoin (Macrodantin)", "PO"),
)
ANTIBIOTICS_EXCLUDED = (
    ("Erythromycin 0.5% Ophth Oint", "BOTH EYES"),
    ("Ciprofloxacin 0.3% Ophth Soln", "OU"),
    ("Mupirocin Ointment 2%", "TP"),
    ("Neomycin-Polymyxin-Bacitracin", "LEFT EAR"),
    ("Clindamycin 1% Gel", "TP"),
    ("Bacitracin Ointment", "TP"),
)
ANTIMICROBIAL_NEAR_MISSES = (
    ("Micafungin", "IV"),
    ("Fluconazole", "IV"),
    ("Acyclovir", "IV"),
    ("Oseltamivir", "PO"),
    ("Daptomycin", "IV"),
    ("Ertapenem Sodium", "IV"),
    ("Cefiderocol", "IV"),
)
OTHER_DRUGS = (
    ("Heparin", "SC"),
    ("Insulin", "SC"),
    ("Acetaminophen", "PO"),
    ("Pantoprazole", "IV"),
    ("Furosemide", "IV"),
    ("Docusate Sodium", "PO"),
    ("Sodium Chloride 0.9%  Flush", "IV"),
    ("Metoprolol Tartrate", "PO"),
    ("Potassium Chloride", "PO"),
    ("Ondansetron", "IV"),
    ("Senna", "PO"),
    ("Propofol", "IV DRIP"),
    ("Fentanyl Citrate", "IV"),
    ("Lisinopril", "PO"),
    ("Ibuprofen", "PO"),
    ("Albuterol 0.083% Neb Soln", "IH"),
)

# --- microbiology: (spec_itemid, spec_type_desc, test_itemid, test_name) ---
MICRO_SPECIMENS = (
    (70012, "BLOOD CULTURE", 90201, "Blood Culture, Routine"),
    (70012, "BLOOD CULTURE", 90201, "Blood Culture, Routine"),
    (70079, "URINE", 90039, "URINE CULTURE"),
    (70062, "SPUTUM", 90070, "RESPIRATORY CULTURE"),
    (70091, "MRSA SCREEN", 90076, "MRSA SCREEN"),
    (70070, "SWAB", 90083, "WOUND CULTURE"),
    (70067, "STOOL", 90265, "C. difficile PCR"),
    (70023, "CATHETER TIP-IV", 90133, "WOUND CULTURE"),
    (70013, "BRONCHOALVEOLAR LAVAGE", 90070, "RESPIRATORY CULTURE"),
    (70087, "Blood (Toxo)", 90224, "Toxoplasma IgG ANTIBODY"),
    (70093, "SEROLOGY/BLOOD", 90226, "RAPID PLASMA REAGIN TEST"),
)
ORGANISMS = (
    (80002, "ESCHERICHIA COLI"),
    (80023, "STAPH AUREUS COAG +"),
    (80026, "PSEUDOMONAS AERUGINOSA"),
    (80004, "KLEBSIELLA PNEUMONIAE"),
    (80053, "ENTEROCOCCUS SP."),
    (80155, "STAPHYLOCOCCUS, COAGULASE NEGATIVE"),
    (80075, "YEAST"),
    (80039, "PROTEUS MIRABILIS"),
)
ORG_NEGATIVE = (90856, "NEGATIVE")
SUSCEPTIBILITY_ANTIBIOTICS = (
    (90004, "AMPICILLIN"),
    (90012, "GENTAMICIN"),
    (90016, "OXACILLIN"),
    (90025, "CEFTRIAXONE"),
    (90019, "VANCOMYCIN"),
    (90005, "CEFAZOLIN"),
    (90015, "MEROPENEM"),
    (90010, "CIPROFLOXACIN"),
)
INTERPRETATIONS = ("S", "S", "S", "R", "I", "P")


@cache
def _load(name: str) -> dict[str, Any]:
    text = resources.files("m4bench.sources.synth").joinpath("data", name).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def d_items() -> dict[str, Any]:
    """The d_items rows the generator writes: ``{"columns": [...], "rows": [[...], ...]}``."""
    return _load("mimic_d_items.json")


def d_labitems() -> dict[str, Any]:
    return _load("mimic_d_labitems.json")


def icd_codes() -> dict[str, Any]:
    return _load("mimic_icd.json")


def lab_unit(itemid: int) -> str | None:
    for row in d_labitems()["rows"]:
        if row[0] == itemid:
            unit: str | None = row[4]
            return unit
    raise KeyError(itemid)
