"""Strings the synthetic eICU-CRD v2.0 source charts: labels, paths, names and domains.

Everything an eICU concept matches exactly (nursecharting label pairs, physical-exam
GCS paths, intake/output urine cell paths, lab names, infusion drug names, APACHE
admission diagnoses) is listed here, together with decoys that look alike but must not
match. The 125 accepted urine cell-path tails live in ``eicu_data/urine_tails.txt``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

# --- nursecharting -------------------------------------------------------------------------

CAT_VITALS = "Vital Signs"
CAT_SCORES = "Scores"
CAT_OTHER_VITALS = "Other Vital Signs and Infusions"

GCS_LABEL = "Glasgow coma score"
GCS_TOTAL = "GCS Total"
GCS_MOTOR = "Motor"
GCS_VERBAL = "Verbal"
GCS_EYES = "Eyes"
GCS_SCORE_LABEL = "Score (Glasgow Coma Scale)"
VALUE = "Value"

HR = ("Heart Rate", "Heart Rate")
RR = ("Respiratory Rate", "Respiratory Rate")
TEMP_C = ("Temperature", "Temperature (C)")
TEMP_F = ("Temperature", "Temperature (F)")
TEMP_LOCATION = ("Temperature", "Temperature Location")
SPO2 = ("O2 Saturation", "O2 Saturation")
IBP_SYS = ("Invasive BP", "Invasive BP Systolic")
IBP_DIA = ("Invasive BP", "Invasive BP Diastolic")
IBP_MEAN = ("Invasive BP", "Invasive BP Mean")
MAP_VALUE = ("MAP (mmHg)", "Value")
ART_MAP_VALUE = ("Arterial Line MAP (mmHg)", "Value")
NIBP_SYS = ("Non-Invasive BP", "Non-Invasive BP Systolic")
NIBP_DIA = ("Non-Invasive BP", "Non-Invasive BP Diastolic")
NIBP_MEAN = ("Non-Invasive BP", "Non-Invasive BP Mean")
PAIN = ("Pain Score", "Value")  # decoy in the 'Scores' category
SEDATION = ("Sedation Score", "Value")

TEMPERATURE_SITES = ("Oral", "Axillary", "Tympanic", "Temporal", "Rectal", "Core", "Bladder")

# Non-numeric charting that TRY_CAST drops.
CHART_JUNK = ("Unable to score due to medication", "-", ".", "UTA", "unable to assess")
GCS_OUT_OF_RANGE = ("0", "1", "2", "16", "45")

# --- physicalexam ----------------------------------------------------------------------------

PE_ROOT = "notes/Progress Notes/Physical Exam/Physical Exam"
PE_GCS = f"{PE_ROOT}/Neurologic/GCS"
PE_GCS_COMPONENTS = (
    (f"{PE_GCS}/Eyes Score", 4),
    (f"{PE_GCS}/Verbal Score", 5),
    (f"{PE_GCS}/Motor Score", 6),
)
PE_OTHER_PATHS = (
    f"{PE_ROOT}/Constitutional/General Appearance/Awake",
    f"{PE_ROOT}/Constitutional/Vital Sign and Physiological Data/HR Current: /HR Current",
    f"{PE_ROOT}/Constitutional/Vital Sign and Physiological Data/BP (systolic) Current",
    f"{PE_ROOT}/Constitutional/Vital Sign and Physiological Data/Resp Current",
    f"{PE_ROOT}/Neurologic/Orientation/oriented x 3",
    f"{PE_ROOT}/Neurologic/Motor/moves all extremities",
    f"{PE_ROOT}/Pulmonary/Respiratory Effort/Comfortable",
    f"{PE_ROOT}/Pulmonary/Auscultation/clear to auscultation",
    f"{PE_ROOT}/Cardiovascular/Heart Sounds/normal S1, S2",
    f"{PE_ROOT}/Cardiovascular/Rhythm/regular",
    f"{PE_ROOT}/GI/Abdomen/soft",
    f"{PE_ROOT}/Skin/Skin/warm and dry",
    f"{PE_ROOT}/Extremities/Edema/none",
    f"{PE_ROOT}/Neurologic/GCS/Unable to score due to medication",
)

# --- intakeoutput ------------------------------------------------------------------------------

IO_OUTPUT = "flowsheet|Flowsheet Cell Labels|I&O|Output (ml)|"
IO_INTAKE = "flowsheet|Flowsheet Cell Labels|I&O|Intake (ml)|"
IO_DIALYSIS = "flowsheet|Flowsheet Cell Labels|I&O|Dialysis (ml)|"

# Urine by the 'foley' prefix rule (no 'pacu' / 'or' / 'ir' anywhere in the path).
URINE_FOLEY_TAILS = ("Foley", "foley", "FOLEY", "Foley cath", "Foley Catheter", "Foley Output")
# Urine by the case-sensitive wildcard patterns.
URINE_PATTERN_TAILS = (
    "Output (ml)-Urinary Catheter Indwelling/Continuous",
    "Output (ml)-Urethral Catheter Coude",
    "Urine Output (mL)-Straight Cath",
    "Output (ml)-External Urethral Catheter",
    "Urinary Catheter Output: Indwelling/Continuous Ure",
)
# Foley rows the rule excludes (the path contains 'pacu', 'or' or 'ir').
URINE_EXCLUDED_FOLEY_TAILS = (
    "Foley-PACU",
    "Foley (OR)",
    "Foley IR",
    "Foley Catheter Color",
    "Foley-irrigation",
)
OUTPUT_OTHER_TAILS = (
    "Chest Tube #1",
    "Stool",
    "Emesis",
    "NG Tube",
    "Drain #1 (ml)",
    "Blood Loss",
    "urine color",
)
INTAKE_TAILS = (
    "Continuous infusion meds",
    "IV Piggyback",
    "Enteral/Gastric Tube Intake",
    "Oral Intake",
    "Crystalloids",
)
DIALYSIS_TAILS = ("Dialysis Out", "CRRT Out")

# --- respiratorycare --------------------------------------------------------------------------

AIRWAY_TYPES = ("Oral ETT", "Nasal ETT", "Tracheostomy", "Cricothyrotomy", "Double-Lumen Tube")
AIRWAY_SIZES = ("7.0", "7.5", "8.0", "8.5", "6.5")
AIRWAY_POSITIONS = ("21 cm at lip", "23 cm at lip", "24 cm at teeth", "22", "Midline")

# --- lab: (labname, labtypeid, unit, low, high) normal-ish range; sick values drift out ---------

LABS: tuple[tuple[str, int, str, float, float], ...] = (
    ("albumin", 1, "g/dL", 2.8, 4.5),
    ("total bilirubin", 1, "mg/dL", 0.3, 1.2),
    ("BUN", 1, "mg/dL", 8.0, 25.0),
    ("calcium", 1, "mg/dL", 8.4, 10.2),
    ("chloride", 1, "mmol/L", 98.0, 107.0),
    ("creatinine", 1, "mg/dL", 0.6, 1.3),
    ("bedside glucose", 4, "mg/dL", 80.0, 180.0),
    ("glucose", 1, "mg/dL", 75.0, 160.0),
    ("bicarbonate", 1, "mmol/L", 21.0, 29.0),
    ("Total CO2", 1, "mmol/L", 22.0, 30.0),
    ("Hct", 3, "%", 30.0, 45.0),
    ("Hgb", 3, "g/dL", 9.5, 15.0),
    ("PT - INR", 3, "ratio", 0.9, 1.3),
    ("lactate", 1, "mmol/L", 0.6, 2.0),
    ("platelets x 1000", 3, "K/mcL", 150.0, 350.0),
    ("potassium", 1, "mmol/L", 3.5, 5.0),
    ("PTT", 3, "sec", 25.0, 38.0),
    ("sodium", 1, "mmol/L", 135.0, 145.0),
    ("WBC x 1000", 3, "K/mcL", 4.5, 11.0),
    ("-bands", 3, "%", 0.0, 6.0),
    ("ALT (SGPT)", 1, "Units/L", 10.0, 45.0),
    ("AST (SGOT)", 1, "Units/L", 10.0, 40.0),
    ("alkaline phos.", 1, "Units/L", 40.0, 130.0),
    ("anion gap", 1, "mmol/L", 6.0, 14.0),
)
BLOOD_GAS_LABS: tuple[tuple[str, int, str, float, float], ...] = (
    ("paO2", 7, "mm Hg", 70.0, 110.0),
    ("paCO2", 7, "mm Hg", 35.0, 45.0),
    ("pH", 7, "Units", 7.35, 7.45),
    ("FiO2", 7, "%", 21.0, 60.0),
    ("Base Deficit", 7, "mEq/L", 0.0, 3.0),
    ("Base Excess", 7, "mEq/L", -2.0, 2.0),
    ("PEEP", 7, "cm H2O", 5.0, 10.0),
)
LAB_TEXT_VALUES = ("<0.2", ">500", "HEMOLYZED", "see comment", "pending")

# --- infusiondrug -------------------------------------------------------------------------------

# (drugname, typical rate low, high)
VASOACTIVE_DRUGS: tuple[tuple[str, float, float], ...] = (
    ("Norepinephrine (mcg/min)", 2.0, 30.0),
    ("Norepinephrine (mcg/kg/min)", 0.02, 0.5),
    ("Levophed (mcg/min)", 2.0, 30.0),
    ("Dopamine (mcg/kg/min)", 2.0, 20.0),
    ("Epinephrine (mcg/min)", 1.0, 20.0),
    ("Phenylephrine (mcg/min)", 20.0, 200.0),
    ("Neo-Synephrine (mcg/min)", 20.0, 200.0),
    ("Vasopressin (units/min)", 0.01, 0.04),
    ("Milrinone (mcg/kg/min)", 0.125, 0.75),
    ("Dobutamine (mcg/kg/min)", 2.5, 15.0),
)
OTHER_INFUSIONS: tuple[tuple[str, float, float], ...] = (
    ("Propofol (mcg/kg/min)", 5.0, 50.0),
    ("Heparin (units/hr)", 500.0, 1800.0),
    ("Insulin (units/hr)", 1.0, 12.0),
    ("Sodium Chloride 0.9% (ml/hr)", 50.0, 150.0),
)

# --- patient ----------------------------------------------------------------------------------

GENDERS = ("Female", "Male", "Unknown", "Other", "")
GENDER_WEIGHTS = (0.455, 0.54, 0.002, 0.001, 0.002)
ETHNICITIES = (
    "Caucasian",
    "African American",
    "Hispanic",
    "Asian",
    "Native American",
    "Other/Unknown",
    "",
)
ETHNICITY_WEIGHTS = (0.77, 0.11, 0.04, 0.017, 0.008, 0.045, 0.01)
UNIT_TYPES = (
    "Med-Surg ICU",
    "MICU",
    "CCU-CTICU",
    "Neuro ICU",
    "Cardiac ICU",
    "SICU",
    "CSICU",
    "CTICU",
)
UNIT_TYPE_WEIGHTS = (0.5, 0.09, 0.08, 0.08, 0.06, 0.09, 0.05, 0.05)
SURGICAL_SOURCES = ("Operating Room", "Recovery Room", "PACU")
SURGICAL_SOURCE_WEIGHTS = (0.7, 0.2, 0.1)
MEDICAL_SOURCES = (
    "Emergency Department",
    "Floor",
    "Direct Admit",
    "Other Hospital",
    "Step-Down Unit (SDU)",
    "Acute Care/Floor",
    "Other ICU",
    "Chest Pain Center",
    "ICU to SDU",
    "ICU",
    "Observation",
    "Other",
)
MEDICAL_SOURCE_WEIGHTS = (0.58, 0.1, 0.1, 0.07, 0.04, 0.03, 0.02, 0.015, 0.005, 0.01, 0.02, 0.01)
HOSPITAL_ADMIT_SOURCES = (
    "Emergency Department",
    "Operating Room",
    "Floor",
    "Direct Admit",
    "Other Hospital",
    "Recovery Room",
    "Step-Down Unit (SDU)",
)
DISCHARGE_LOCATIONS_ALIVE = (
    "Home",
    "Skilled Nursing Facility",
    "Other External",
    "Other Hospital",
    "Rehabilitation",
    "Nursing Home",
    "Other",
)
DISCHARGE_LOCATION_WEIGHTS = (0.62, 0.15, 0.05, 0.06, 0.06, 0.03, 0.03)
UNIT_DISCHARGE_LOCATIONS_ALIVE = (
    "Floor",
    "Step-Down Unit (SDU)",
    "Home",
    "Telemetry",
    "Other ICU",
    "Other Hospital",
    "Skilled Nursing Facility",
)
UNIT_DISCHARGE_WEIGHTS = (0.45, 0.15, 0.12, 0.12, 0.06, 0.05, 0.05)
UNIT_STAY_TYPES = ("admit", "stepdown/other", "transfer", "readmit")

# APACHE IV admission diagnoses: strings of the eicu-code grouping (typo kept) and a few
# that no group names.
APACHE_DX_SURGICAL = (
    "CABG alone, coronary artery bypass grafting",
    "CABG with aortic valve replacement",
    "Aortic valve replacement (isolated)",
    "Mitral valve replacement",
    "Craniotomy for tumor",
    "Spinal surgery",
    "Cholecystectomy/cholangitis, surgery for",
    "Hip replacement, total (non-traumatic)",
    "Endarterectomy, carotid",
    "Efffusion, pericardial",
)
APACHE_DX_MEDICAL = (
    "Sepsis, pulmonary",
    "Sepsis, renal/UTI (including bladder)",
    "Sepsis, GI",
    "Sepsis, cutaneous/soft tissue",
    "Sepsis, gynecologic",
    "Sepsis, other",
    "Sepsis, unknown",
    "Infarction, acute myocardial (MI)",
    "CHF, congestive heart failure",
    "Rhythm disturbance (atrial, supraventricular)",
    "Cardiac arrest (with or without respiratory arrest; for respiratory arrest see "
    "Respiratory System)",
    "Chest pain, unknown origin",
    "Pneumonia, bacterial",
    "Emphysema/bronchitis",
    "Asthma",
    "GI perforation/rupture",
    "Bleeding, upper GI",
    "CVA, cerebrovascular accident/stroke",
    "Seizures (primary-no structural brain disease)",
    "Overdose, sedatives, hypnotics, antipsychotics, benzodiazepines",
    "Renal failure, acute",
    "Diabetic ketoacidosis",
    "Head only trauma",
    "Coma/change in level of consciousness (for hepatic see GI, for diabetic see Endocrine, "
    "if related to cardiac arrest, see CV)",
    "Hypertension, uncontrolled (for cerebrovascular accident-see Neurological System)",
    "Pulmonary embolism",
)


@cache
def urine_tails() -> tuple[str, ...]:
    """The 125 exact cell-path tails the eICU urine rule accepts (spacing kept as is)."""
    text = resources.files(__package__).joinpath("eicu_data/urine_tails.txt").read_text("utf-8")
    return tuple(line for line in text.split("\n") if line)
