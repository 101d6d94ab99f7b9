"""Strings of the eICU documentation tables no task reads: orders, care plans, notes.

Diagnosis and treatment strings follow the eICU ``organ system|category|item`` paths;
the ICD-9 and ICD-10 codes of a diagnosis are comma-joined as in the real table. Only
the HICL numbers that public eICU-CRD analyses name are given (furosemide 3660,
bumetanide 3664, linezolid 21157); the other drugs have a NULL ``drughiclseqno``.
"""

from __future__ import annotations

# --- medication: (drugname, hicl or None, dosage, routeadmin, frequency) ----------------

FORMULARY: tuple[tuple[str, int | None, str, str, str], ...] = (
    ("PANTOPRAZOLE 40 MG IV RECON SOLN", None, "40 mg", "IV", "Daily"),
    ("HEPARIN (PORCINE) 5,000 UNIT/ML IJ SOLN", None, "5000 Units", "SUBCUTANEOUS", "Q8H"),
    ("ACETAMINOPHEN 325 MG PO TABS", None, "650 mg", "PO", "Q6H PRN"),
    ("ASPIRIN 81 MG PO CHEW", None, "81 mg", "PO", "Daily"),
    ("FUROSEMIDE 10 MG/ML IJ SOLN", 3660, "40 mg", "IV Push", "BID"),
    ("BUMETANIDE 0.25 MG/ML IJ SOLN", 3664, "1 mg", "IV Push", "Once"),
    ("POTASSIUM CHLORIDE 20 MEQ PO PACK", None, "20 mEq", "PO", "Once"),
    ("MAGNESIUM SULFATE 2 GM/50 ML IVPB", None, "2 g", "IVPB", "Once"),
    ("INSULIN LISPRO 100 UNIT/ML SC SOLN", None, "2-10 Units", "SUBCUTANEOUS", "AC & HS"),
    ("METOPROLOL TARTRATE 25 MG PO TABS", None, "25 mg", "PO", "BID"),
    ("ATORVASTATIN 40 MG PO TABS", None, "40 mg", "PO", "Daily"),
    ("DOCUSATE SODIUM 100 MG PO CAPS", None, "100 mg", "PO", "BID"),
    ("SENNA 8.6 MG PO TABS", None, "8.6 mg", "PO", "QHS"),
    ("ONDANSETRON 2 MG/ML IJ SOLN", None, "4 mg", "IV Push", "Q6H PRN"),
    ("MORPHINE 2 MG/ML IJ SOLN", None, "2 mg", "IV Push", "Q2H PRN"),
    ("HYDROMORPHONE 1 MG/ML IJ SOLN", None, "0.5 mg", "IV Push", "Q3H PRN"),
    ("LORAZEPAM 2 MG/ML IJ SOLN", None, "1 mg", "IV Push", "Q4H PRN"),
    ("SODIUM CHLORIDE 0.9 % IV SOLP", None, "1000 mL", "IV", "Continuous"),
    ("DEXTROSE 50 % IV SOLN", None, "25 g", "IV Push", "PRN"),
    ("CHLORHEXIDINE GLUCONATE 0.12 % MT SOLN", None, "15 mL", "Mouth/Throat", "BID"),
    ("ENOXAPARIN 40 MG/0.4ML SC SOLN", None, "40 mg", "SUBCUTANEOUS", "Daily"),
    ("LEVOTHYROXINE 50 MCG PO TABS", None, "50 mcg", "PO", "Daily"),
    ("AMLODIPINE 5 MG PO TABS", None, "5 mg", "PO", "Daily"),
    ("LISINOPRIL 10 MG PO TABS", None, "10 mg", "PO", "Daily"),
    ("HALOPERIDOL LACTATE 5 MG/ML IJ SOLN", None, "2 mg", "IV Push", "Q6H PRN"),
    ("ALBUTEROL-IPRATROPIUM 2.5-0.5 MG/3ML IN SOLN", None, "3 mL", "Inhalation", "Q4H"),
    ("CALCIUM GLUCONATE 1 G/50 ML IVPB", None, "1 g", "IVPB", "Once"),
    ("SODIUM BICARBONATE 650 MG PO TABS", None, "650 mg", "PO", "TID"),
)
ANTIBIOTICS: tuple[tuple[str, int | None, str, str, str], ...] = (
    ("VANCOMYCIN 1 G/200 ML IVPB", None, "1 g", "IVPB", "Q12H"),
    ("PIPERACILLIN-TAZOBACTAM 3.375 G IVPB", None, "3.375 g", "IVPB", "Q8H"),
    ("CEFTRIAXONE 1 G IJ SOLR", None, "1 g", "IVPB", "Q24H"),
    ("CEFEPIME 2 G IJ SOLR", None, "2 g", "IVPB", "Q12H"),
    ("LINEZOLID 600 MG/300ML IV SOLN", 21157, "600 mg", "IVPB", "Q12H"),
    ("AZITHROMYCIN 500 MG IV SOLR", None, "500 mg", "IVPB", "Q24H"),
    ("MEROPENEM 1 G IV SOLR", None, "1 g", "IVPB", "Q8H"),
)

# --- treatment ------------------------------------------------------------------------------

TREATMENTS_VENTILATED = (
    "pulmonary|ventilation and oxygenation|mechanical ventilation",
    "pulmonary|ventilation and oxygenation|CPAP/PEEP therapy",
    "pulmonary|ventilation and oxygenation|ventilator weaning",
    "pulmonary|medications|sedative|propofol",
)
TREATMENTS_VASOPRESSOR = (
    "cardiovascular|shock|vasopressors|norepinephrine > 0.1 micrograms/kg/min",
    "cardiovascular|shock|vasopressors|norepinephrine <= 0.1 micrograms/kg/min",
    "cardiovascular|shock|vasopressors|vasopressin",
    "cardiovascular|shock|vasopressors|phenylephrine (Neosynephrine)",
)
TREATMENTS_GENERAL = (
    "pulmonary|ventilation and oxygenation|oxygen therapy (< 40%)",
    "infectious diseases|medications|therapeutic antibacterials",
    "gastrointestinal|medications|stress ulcer prophylaxis|pantoprazole",
    "hematology|coagulation and platelets|anticoagulant administration|heparin",
    "endocrine|glucose metabolism|insulin|sliding scale administration",
    "neurologic|pain / agitation / altered mentation|analgesics|narcotic analgesic",
    "renal|electrolyte correction|treatment of hypokalemia",
    "renal|electrolyte correction|treatment of hypomagnesemia",
    "renal|intravenous fluid|normal saline administration",
    "cardiovascular|arrhythmias|antiarrhythmics|class III antiarrhythmic|amiodarone",
    "cardiovascular|myocardial ischemia / infarction|antiplatelet agent|aspirin",
    "cardiovascular|vascular disorders|VTE prophylaxis|compression stockings",
    "pulmonary|radiologic procedures / bronchoscopy|chest x-ray",
    "pulmonary|medications|bronchodilator",
    "neurologic|pain / agitation / altered mentation|analgesics|non-narcotic analgesic",
    "renal|medications|diuretic|furosemide",
)

# --- diagnosis: (diagnosisstring, 'ICD-9, ICD-10' or '') ---------------------------------------

DIAGNOSES_SHOCK = (
    ("cardiovascular|shock|septic", "785.52, R65.21"),
    ("infectious diseases|systemic/other infections|sepsis", "038.9, A41.9"),
)
DIAGNOSES_VENTILATED = (
    ("pulmonary|respiratory failure|acute respiratory failure", "518.81, J96.00"),
)
DIAGNOSES_GENERAL = (
    ("renal|disorder of kidney|acute renal failure", "584.9, N17.9"),
    ("cardiovascular|chest pain / ASHD|acute coronary syndrome", "411.1, I24.9"),
    ("neurologic|altered mental status / pain|change in mental status", "780.09, R41.82"),
    ("endocrine|glucose metabolism|diabetes mellitus", ""),
    ("cardiovascular|arrhythmias|atrial fibrillation", "427.31, I48.0"),
    ("cardiovascular|vascular disorders|hypertension", "401.9, I10"),
    ("renal|electrolyte imbalance|hypokalemia", "276.8, E87.6"),
    ("endocrine|glucose metabolism|hyperglycemia", "790.6, R73.9"),
    ("cardiovascular|ventricular disorders|congestive heart failure", "428.0, I50.9"),
    ("pulmonary|disorders of the airways|COPD", "491.20, J44.9"),
    ("renal|disorder of kidney|chronic kidney disease", "585.9, N18.9"),
    ("hematology|bleeding and red blood cell disorders|anemia", "285.9, D64.9"),
    ("pulmonary|pulmonary infections|pneumonia", "486, J18.9"),
    ("infectious diseases|GU infections|urinary tract infection", "599.0, N39.0"),
    ("cardiovascular|chest pain / ASHD|coronary artery disease", "414.00, I25.10"),
    ("gastrointestinal|GI bleeding / PUD|upper GI bleeding", "578.9, K92.2"),
    ("neurologic|disorders of vasculature|stroke", "434.91, I63.50"),
    ("pulmonary|pleural disorders|pleural effusion", ""),
    ("general|postoperative status|s/p surgery", ""),
)
DIAGNOSIS_PRIORITIES = ("Primary", "Major", "Other")

# --- nurseassessment / nursecare: (group, celllabel, cellattribute, values) ------------------

NURSE_ASSESSMENT = (
    (
        "Neurologic",
        "Neurologic",
        "Orientation",
        ("oriented x 3", "disoriented", "unable to assess"),
    ),
    ("Neurologic", "Neurologic", "Pupil Size (R)", ("3 mm", "2 mm", "4 mm")),
    ("Neurologic", "Neurologic", "Speech", ("clear", "slurred", "none")),
    ("Respiratory", "Respiratory", "Breath Sounds", ("clear", "diminished", "crackles", "rhonchi")),
    ("Respiratory", "Respiratory", "Cough", ("none", "weak", "productive")),
    ("Cardiovascular", "Cardiovascular", "Heart Rhythm", ("regular", "irregular")),
    ("Cardiovascular", "Cardiovascular", "Capillary Refill", ("< 3 seconds", "> 3 seconds")),
    ("Cardiovascular", "Cardiovascular", "Edema", ("none", "1+", "2+", "3+")),
    ("Gastrointestinal", "GI", "Bowel Sounds", ("active", "hypoactive", "absent")),
    ("Gastrointestinal", "GI", "Abdomen", ("soft", "distended", "firm")),
    ("Genitourinary", "GU", "Urine Color", ("yellow", "amber", "clear")),
    ("Integumentary", "Skin", "Skin Color", ("normal for ethnicity", "pale", "flushed")),
    ("Integumentary", "Skin", "Skin Temperature", ("warm", "cool", "hot")),
    ("Pain", "Pain Assessment", "Pain Present", ("No", "Yes")),
    ("Safety", "Fall Risk", "Fall Risk", ("low", "moderate", "high")),
    ("Psychosocial", "Psychosocial", "Behavior", ("calm", "anxious", "agitated")),
)
NURSE_CARE = (
    ("Activity", "Activity", "Activity", ("bed rest", "turn q2h", "out of bed to chair")),
    ("Hygiene", "Hygiene", "Oral Care", ("done", "refused")),
    ("Hygiene", "Hygiene", "Bath", ("partial bath", "complete bed bath")),
    ("Safety", "Safety", "Bed Position", ("low and locked",)),
    ("Safety", "Safety", "Side Rails", ("up x 2", "up x 3")),
    ("Skin Care", "Skin Care", "Pressure Relief", ("turned", "specialty mattress")),
    ("Nutrition", "Nutrition", "Diet", ("NPO", "regular", "cardiac", "tube feeding")),
    ("Lines", "Peripheral IV", "Site Condition", ("no redness", "redness", "infiltrated")),
)
ASSESSMENT_PATH = "flowsheet|Flowsheet Cell Labels|Nursing Assessment"
CARE_PATH = "flowsheet|Flowsheet Cell Labels|Nursing Care"

# --- care plans ---------------------------------------------------------------------------------

CAREPLAN_AIRWAY_VENTILATED = ("Airway", "Intubated/oral ETT")
CAREPLAN_AIRWAY_NORMAL = ("Airway", "Not intubated/normal airway")
CAREPLAN_VENTILATION_VENTILATED = ("Ventilation", "Ventilated - with daily extubation evaluation")
CAREPLAN_VENTILATION_NONE = ("Ventilation", "Spontaneous - adequate")
CAREPLAN_GENERAL = (
    ("Code Status", "Full Therapy"),
    ("Care Limitation", "No Limitations"),
    ("Psychosocial Status", "Stable and/or Reassured"),
    ("Activity", "Bed rest"),
    ("Activity", "Out of bed to chair"),
    ("Nutrition", "Oral diet"),
    ("Nutrition", "Enteral feeding"),
    ("Stress Ulcer Prophylaxis", "Pantoprazole"),
    ("DVT Prophylaxis", "Heparin"),
    ("DVT Prophylaxis", "SCDs"),
    ("Glucose Control", "Insulin sliding scale"),
    ("Family/Health Care Proxy/Contact Info", "Family meeting held"),
)
CAREPLAN_GOALS = (
    ("Hemodynamics", "Maintain MAP > 65 mmHg"),
    ("Respiratory", "Maintain SpO2 > 92%"),
    ("Pain", "Pain score < 4"),
    ("Activity", "Out of bed to chair twice daily"),
    ("Nutrition", "Tolerate diet"),
    ("Renal", "Urine output > 0.5 mL/kg/hr"),
)
GOAL_STATUS = ("Active", "Active", "Met", "Not Met")
PROVIDER_TYPES = ("Attending Physician", "Consultant", "Nurse Practitioner")
SPECIALTIES = (
    "critical care medicine (CCM)",
    "internal medicine",
    "pulmonary/CCM",
    "cardiology",
    "surgery-general",
    "nephrology",
    "infectious disease",
)
INTERVENTION_CATEGORIES = ("I", "II", "III", "IV", "Unknown")
MANAGING = ("Managing", "Consulting")

# --- notes ----------------------------------------------------------------------------------------

NOTE_TYPES = ("Progress", "Admission", "Transfer")
NOTE_SECTIONS = (
    ("notes/Progress Notes/HPI/HPI", "HPI"),
    ("notes/Progress Notes/Assessment and Plan/Assessment", "Assessment"),
    ("notes/Progress Notes/Assessment and Plan/Plan", "Plan"),
    ("notes/Progress Notes/Review of Systems/General", "Review of Systems"),
    ("notes/Progress Notes/Social History/Smoking", "Smoking"),
    ("notes/Progress Notes/Lines/Central Line", "Central Line"),
)
NOTE_TEXTS = (
    "patient seen and examined",
    "continue current management",
    "hemodynamically stable",
    "wean as tolerated",
    "discussed with family",
    "no acute events overnight",
)

# --- admission drugs: (drugname, hicl or None, dosage, unit, frequency) --------------------------

HOME_DRUGS: tuple[tuple[str, int | None, float, str, str], ...] = (
    ("LISINOPRIL", None, 10.0, "mg", "daily"),
    ("ASPIRIN", None, 81.0, "mg", "daily"),
    ("METOPROLOL TARTRATE", None, 25.0, "mg", "bid"),
    ("ATORVASTATIN", None, 40.0, "mg", "daily"),
    ("METFORMIN", None, 500.0, "mg", "bid"),
    ("LEVOTHYROXINE", None, 50.0, "mcg", "daily"),
    ("FUROSEMIDE", 3660, 40.0, "mg", "daily"),
    ("AMLODIPINE", None, 5.0, "mg", "daily"),
    ("OMEPRAZOLE", None, 20.0, "mg", "daily"),
    ("INSULIN GLARGINE", None, 20.0, "units", "qhs"),
    ("WARFARIN", None, 5.0, "mg", "daily"),
    ("GABAPENTIN", None, 300.0, "mg", "tid"),
    ("ALBUTEROL", None, 2.0, "puffs", "prn"),
    ("SERTRALINE", None, 50.0, "mg", "daily"),
)
DRUG_NOTE_TYPES = ("Admission", "Comprehensive Progress")
USER_TYPES = ("eICU Physician", "THC Nurse", "Physician")

# --- past history: (organ system folder, item folder) -------------------------------------------

PAST_HISTORY_ROOT = "notes/Progress Notes/Past History/Organ Systems"
PAST_HISTORY = (
    ("Cardiovascular (R)", "Hypertension Requiring Treatment"),
    ("Cardiovascular (R)", "Congestive Heart Failure"),
    ("Cardiovascular (R)", "Atrial Fibrillation"),
    ("Cardiovascular (R)", "MI - remote"),
    ("Endocrine (R)", "Non-Insulin Dependent Diabetes"),
    ("Endocrine (R)", "Insulin Dependent Diabetes"),
    ("Endocrine (R)", "Hypothyroidism"),
    ("Pulmonary", "COPD"),
    ("Pulmonary", "Asthma"),
    ("Renal  (R)", "Renal Insufficiency"),
    ("Neurologic", "Stroke"),
    ("Gastrointestinal (R)", "GI Bleeding"),
    ("Hematology/Oncology (R)", "Cancer"),
)
PAST_HISTORY_NONE = "notes/Progress Notes/Past History/No Health Problems/No Health Problems"
