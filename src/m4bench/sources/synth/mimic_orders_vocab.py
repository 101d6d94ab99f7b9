"""Strings of MIMIC-IV v3.1 order entry (poe, poe_detail), medication administration (emar,
emar_detail) and ingredientevents that the synthetic generator writes.

``order_type``, ``transaction_type`` and the emar ``event_txt`` values are the real ones
(MIMIC-IV documentation); order subtypes, poe_detail values, products and doses are
plausible examples of the real shapes, not a copy of the real vocabularies.
"""

from __future__ import annotations

# --- poe: (order_type, share of the non-medication orders, subtypes) ----------------------
# 'ADT orders' are placed per admission (admit, transfers, discharge), not drawn here.
POE_ORDER_MIX: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    ("Lab", 0.22, ("Lab", "Blood Gas", "Point of Care", "Microbiology")),
    ("General Care", 0.17, ("Vitals/Monitoring", "Activity", "Nursing", "Other", "Precautions")),
    ("Radiology", 0.2, ("Portable Chest X-Ray", "CT Scan", "Ultrasound", "General X-Ray", "MRI")),
    ("IV therapy", 0.08, ("IV fluids", "Saline lock", "Line care")),
    ("Nutrition", 0.07, ("Diet Order", "Tube Feeding", "Supplements")),
    ("Respiratory", 0.05, ("Oxygen Therapy", "Nebulizer Treatment", "Incentive Spirometry")),
    ("Consults", 0.08, ("Physical Therapy", "Social Work", "Nutrition Consult", "Case Management")),
    ("Cardiology", 0.03, ("EKG", "Echo", "Telemetry", "Holter Monitor")),
    ("Blood Bank", 0.03, ("Type and Screen", "Crossmatch", "Transfuse")),
    ("Neurology", 0.01, ("EEG", "Neuro Checks")),
    ("Critical Care", 0.05, ("Sedation Protocol", "Glucose Protocol", "Restraints")),
    ("Hemodialysis", 0.01, ("Hemodialysis", "CRRT")),
    ("TPN", 0.005, ("TPN",)),
    ("OB", 0.005, ("Fetal Monitoring",)),
)
ICU_ONLY_ORDER_TYPES = ("Critical Care", "Hemodialysis")
ADT_SUBTYPES = ("Admit", "Transfer", "Discharge")
MEDICATION_ORDER_TYPE = "Medications"
# follow-up orders that end an earlier order: (transaction_type, share of the follow-ups)
FOLLOW_UP_TRANSACTIONS = (("D/C", 0.7), ("Change", 0.25), ("H", 0.05))
ORDER_STATUSES = ("Active", "Inactive")

# --- poe_detail: field names and values per order -----------------------------------------
ADMIT_TO = ("Admit to inpatient", "Admit to observation")
ADMIT_CATEGORY = ("Medicine", "Surgery", "Cardiology", "Neurology")
CODE_STATUS_ALIVE = (("Full code", 0.85), ("DNR/DNI", 0.1), ("DNR (do not resuscitate)", 0.05))
CODE_STATUS_DYING = (("Full code", 0.3), ("DNR/DNI", 0.45), ("Comfort measures only", 0.25))
DISCHARGE_PLANNING = ("Finalized", "In progress")
DISCHARGE_WHEN = ("Today", "Tomorrow", "When medically ready")
TRANSFER_TO = ("Intensive Care Unit", "Medicine floor", "Step-down unit", "Surgery floor")
LEVEL_OF_URGENCY = (("Routine", 0.7), ("Urgent", 0.2), ("STAT", 0.1))
CONSULT_STATUS = ("Ordered", "Completed", "Cancelled")
TELE = ("Yes", "No")

# --- emar ---------------------------------------------------------------------------------
# (event_txt, share) of a scheduled dose, by the kind of administration
EVENTS_SCHEDULED = (
    ("Administered", 0.86),
    ("Not Given", 0.05),
    ("Delayed Administered", 0.04),
    ("Hold Dose", 0.03),
    ("Partial Administered", 0.01),
    ("Administered in Other Location", 0.01),
)
EVENTS_FLUSH = (("Flushed", 0.85), ("Not Flushed", 0.15))
EVENTS_SLIDING_SCALE = (("Administered", 0.7), ("Not Given per Sliding Scale", 0.3))
# an infusion is 'Started', then 'Confirmed' or 'Rate Change' at each check, then 'Stopped'
EVENTS_INFUSION_CHECK = (("Confirmed", 0.6), ("Rate Change", 0.4))
GIVEN_EVENTS = (
    "Administered",
    "Delayed Administered",
    "Partial Administered",
    "Administered in Other Location",
    "Flushed",
    "Started",
    "Confirmed",
    "Rate Change",
)

# drug -> (dose due, dose unit, product description, product unit, product amount, code)
# doses follow common adult regimens; any other drug gets DEFAULT_DOSE
DRUG_DOSES: dict[str, tuple[str, str, str, str, str, str]] = {
    "Vancomycin": ("1000", "mg", "Vancomycin 1 g Frozen Bag", "BAG", "1", "VANC1F"),
    "CefTRIAXone": ("1", "g", "CefTRIAXone 1 g Vial", "VIAL", "1", "CEFT1I"),
    "Piperacillin-Tazobactam": (
        "4.5", "g", "Piperacillin-Tazobactam 4.5 g Bag", "BAG", "1", "PIPT45"),
    "CefePIME": ("2", "g", "CefePIME 2 g Bag", "BAG", "1", "CEFE2F"),
    "MetRONIDAZOLE (FLagyl)": ("500", "mg", "MetRONIDAZOLE 500 mg Bag", "BAG", "1", "METR500"),
    "Meropenem": ("1", "g", "Meropenem 1 g Vial", "VIAL", "1", "MERO1I"),
    "Azithromycin": ("500", "mg", "Azithromycin 500 mg Vial", "VIAL", "1", "AZIT500I"),
    "Levofloxacin": ("750", "mg", "Levofloxacin 750 mg Premix", "BAG", "1", "LEVO750"),
    "CeFAZolin": ("2", "g", "CeFAZolin 2 g Frozen Bag", "BAG", "1", "CEFA2F"),
    "Ampicillin-Sulbactam": ("3", "g", "Ampicillin-Sulbactam 3 g Vial", "VIAL", "1", "AMPS3I"),
    "Linezolid": ("600", "mg", "Linezolid 600 mg Bag", "BAG", "1", "LINE600"),
    "Ciprofloxacin IV": ("400", "mg", "Ciprofloxacin 400 mg Premix", "BAG", "1", "CIPR400"),
    "Gentamicin": ("80", "mg", "Gentamicin 80 mg Premix", "BAG", "1", "GENT80"),
    "Nafcillin": ("2", "g", "Nafcillin 2 g Frozen Bag", "BAG", "1", "NAFC2F"),
    "Sulfameth/Trimethoprim DS": (
        "1", "TAB", "Sulfameth/Trimethoprim DS Tab", "TAB", "1", "SMX800"),
    "Vancomycin Oral Liquid": (
        "125", "mg", "Vancomycin Oral Liquid 125 mg", "SYR", "1", "VANCO125L"),
    "Amoxicillin-Clavulanic Acid": (
        "875", "mg", "Amoxicillin-Clav 875 mg Tab", "TAB", "1", "AMOX875"),
    "Cephalexin": ("500", "mg", "Cephalexin 500 mg Cap", "CAP", "1", "CEPH500"),
    "Doxycycline Hyclate": ("100", "mg", "Doxycycline 100 mg Cap", "CAP", "1", "DOXY100"),
    "Nitrofurantoin (Macrodantin)": (
        "100", "mg", "Nitrofurantoin 100 mg Cap", "CAP", "1", "NITR100"),
    "Heparin": ("5000", "UNIT", "Heparin 5000 Units/mL Vial", "mL", "1", "HEPA5I"),
    "Insulin": ("2", "UNIT", "Insulin Regular 100 Units/mL", "UNIT", "2", "INSR100"),
    "Acetaminophen": ("650", "mg", "Acetaminophen 325 mg Tab", "TAB", "2", "ACET325"),
    "Pantoprazole": ("40", "mg", "Pantoprazole 40 mg Vial", "VIAL", "1", "PANT40I"),
    "Furosemide": ("40", "mg", "Furosemide 10 mg/mL 4 mL Vial", "mL", "4", "FURO40I"),
    "Docusate Sodium": ("100", "mg", "Docusate Sodium 100 mg Cap", "CAP", "1", "DOCU100"),
    "Sodium Chloride 0.9%  Flush": (
        "10", "mL", "Sodium Chloride 0.9% Flush Syringe", "mL", "10", "NS10F"),
    "Metoprolol Tartrate": ("25", "mg", "Metoprolol Tartrate 25 mg Tab", "TAB", "1", "METO25"),
    "Potassium Chloride": ("20", "mEq", "Potassium Chloride 10 mEq ER Tab", "TAB", "2", "KCL10"),
    "Ondansetron": ("4", "mg", "Ondansetron 2 mg/mL 2 mL Vial", "mL", "2", "ONDA4I"),
    "Senna": ("8.6", "mg", "Senna 8.6 mg Tab", "TAB", "1", "SENN8"),
    "Propofol": ("20", "mcg/kg/min", "Propofol 10 mg/mL 100 mL Vial", "VIAL", "1", "PROP100I"),
    "Fentanyl Citrate": (
        "25", "mcg", "Fentanyl Citrate 50 mcg/mL 2 mL Amp", "mL", "0.5", "FENT50I"),
    "Lisinopril": ("10", "mg", "Lisinopril 10 mg Tab", "TAB", "1", "LISI10"),
    "Ibuprofen": ("400", "mg", "Ibuprofen 400 mg Tab", "TAB", "1", "IBUP400"),
    "Albuterol 0.083% Neb Soln": ("1", "NEB", "Albuterol 0.083% 3 mL Neb", "NEB", "1", "ALBU3H"),
    "Micafungin": ("100", "mg", "Micafungin 100 mg Vial", "VIAL", "1", "MICA100I"),
    "Fluconazole": ("400", "mg", "Fluconazole 400 mg Premix", "BAG", "1", "FLUC400I"),
    "Acyclovir": ("700", "mg", "Acyclovir 500 mg Vial", "VIAL", "2", "ACYC500I"),
    "Oseltamivir": ("75", "mg", "Oseltamivir 75 mg Cap", "CAP", "1", "OSEL75"),
    "Daptomycin": ("500", "mg", "Daptomycin 500 mg Vial", "VIAL", "1", "DAPT500I"),
    "Ertapenem Sodium": ("1", "g", "Ertapenem 1 g Vial", "VIAL", "1", "ERTA1I"),
    "Cefiderocol": ("2", "g", "Cefiderocol 1 g Vial", "VIAL", "2", "CEFI1I"),
    "Erythromycin 0.5% Ophth Oint": (
        "0.5", "in", "Erythromycin 0.5% Ophth Oint 3.5 g", "TUBE", "1", "ERYT35O"),
    "Ciprofloxacin 0.3% Ophth Soln": (
        "1", "DROP", "Ciprofloxacin 0.3% Ophth Soln 5 mL", "DROP", "1", "CIPR3O"),
    "Mupirocin Ointment 2%": ("1", "Appl", "Mupirocin 2% Ointment 22 g", "TUBE", "1", "MUPI22"),
    "Neomycin-Polymyxin-Bacitracin": (
        "1", "Appl", "Neomycin-Polymyxin-Bacitracin Oint", "TUBE", "1", "NEOP15"),
    "Clindamycin 1% Gel": ("1", "Appl", "Clindamycin 1% Gel 30 g", "TUBE", "1", "CLIN30G"),
    "Bacitracin Ointment": ("1", "Appl", "Bacitracin 500 Units/g Ointment", "TUBE", "1", "BACI28"),
}  # fmt: skip
DEFAULT_DOSE = ("1", "dose", "Unit dose", "dose", "1", "UD1")
# IV drugs given from a bag run with a diluent: the second product row ('1.2')
DILUENTS = (("Sodium Chloride 0.9%", "NS100"), ("Dextrose 5%", "D5W100"))
ADMINISTRATION_TYPES = {
    "IV DRIP": "IV Infusion",
    "IV": "IV Bolus",
    "SC": "Subcutaneous",
}
DEFAULT_ADMINISTRATION_TYPE = "Standard"
SLIDING_SCALE_DRUGS = ("Insulin",)
FLUSH_DRUGS = ("Sodium Chloride 0.9%  Flush",)

# --- ingredientevents ---------------------------------------------------------------------
FREE_WATER = 220490  # mL
CALORIES = 226060  # Kcal
# kilocalories per mL of the input items that carry energy
CALORIES_PER_ML = {220949: 0.17, 220950: 0.34, 222168: 1.1}
# drug per mL of the carrier, by input item (common ICU mixes), else by the amount unit
CARRIER_CONCENTRATION_BY_ITEM = {
    221906: 0.016,  # norepinephrine 4 mg / 250 mL
    221289: 0.004,  # epinephrine 1 mg / 250 mL
    221749: 0.2,  # phenylephrine 50 mg / 250 mL
    222315: 0.2,  # vasopressin 20 units / 100 mL
    221662: 1.6,  # dopamine 400 mg / 250 mL
    221653: 2.0,  # dobutamine 500 mg / 250 mL
    222168: 10.0,  # propofol 10 mg / mL
    225942: 0.01,  # fentanyl 1 mg / 100 mL
    225150: 0.004,  # dexmedetomidine 400 mcg / 100 mL (in mg)
    221668: 1.0,  # midazolam 100 mg / 100 mL
    223258: 1.0,  # insulin 100 units / 100 mL
    225152: 100.0,  # heparin 25,000 units / 250 mL
}
CARRIER_CONCENTRATION = {"mg": 1.0, "mcg": 10.0, "units": 1.0, "mEq": 0.4, "grams": 0.04}
DEFAULT_CARRIER_CONCENTRATION = 1.0
MAX_CARRIER_ML = 500.0  # a drug row's carrier volume stays within one bag
D5W_CARRIER_SHARE = 0.3  # drips mixed in dextrose 5 % (calories from the carrier)
