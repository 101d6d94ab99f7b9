"""The hospital formulary of the synthetic prescriptions: what each drug line holds.

Every drug the generator prescribes has one entry: its route, product strength, the
dose per administration, what the pharmacy dispenses per dose, and how often it is given.
``doses_per_24_hrs`` is derived from the frequency (:data:`FREQUENCY_DOSES`), so the
prescription line and its pharmacy order always agree.

The routine drugs below (:data:`ROUTINE_DRUGS`) are the filler of every admission. None
of their names contains an antibiotic name fragment, an NSAID or an ACE-inhibitor name:
those concept inputs come only from the infection plan and the decoys of
``mimic_infection`` (the tests check this).

Product codes (``formulary_drug_cd``, ``gsn``, ``ndc``) are synthetic: stable per drug,
shaped like the real ones, not looked up in any drug database.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.mimic_orders_vocab import DEFAULT_DOSE, DRUG_DOSES

# pharmacy frequency -> administrations per 24 hours
FREQUENCY_DOSES: dict[str, float] = {
    "ONCE": 1.0,
    "DAILY": 1.0,
    "Q24H": 1.0,
    "QHS": 1.0,
    "QHS:PRN": 1.0,
    "CONTINUOUS": 1.0,
    "BID": 2.0,
    "Q12H": 2.0,
    "TID": 3.0,
    "Q8H": 3.0,
    "Q8H:PRN": 3.0,
    "QID": 4.0,
    "Q6H": 4.0,
    "Q6H:PRN": 4.0,
    "Q4H": 6.0,
    "Q4H:PRN": 6.0,
    "Q3H:PRN": 8.0,
}

# routine drugs: (drug, route, frequency, share on the ward, share in the ICU, drug_type,
#                 dose_val_rx, dose_unit_rx, prod_strength, form_unit_disp, form_val_disp)
# Drugs the administration records already know (mimic_orders_vocab.DRUG_DOSES) take
# their dose columns from there; the others carry their own.
ROUTINE_DRUGS: tuple[tuple[Any, ...], ...] = (
    ("Heparin", "SC", "TID", 6.0, 6.0, "MAIN"),
    ("Insulin", "SC", "QID", 4.0, 6.0, "MAIN"),
    ("Acetaminophen", "PO", "Q6H:PRN", 6.0, 4.0, "MAIN"),
    ("Pantoprazole", "IV", "Q24H", 3.0, 4.0, "MAIN"),
    ("Furosemide", "IV", "BID", 2.0, 3.0, "MAIN"),
    ("Docusate Sodium", "PO", "BID", 4.0, 3.0, "MAIN"),
    ("Sodium Chloride 0.9%  Flush", "IV", "Q8H", 7.0, 6.0, "MAIN"),
    ("Metoprolol Tartrate", "PO", "BID", 3.0, 3.0, "MAIN"),
    ("Potassium Chloride", "PO", "ONCE", 3.0, 3.0, "MAIN"),
    ("Ondansetron", "IV", "Q8H:PRN", 4.0, 3.0, "MAIN"),
    ("Senna", "PO", "BID", 4.0, 3.0, "MAIN"),
    ("Albuterol 0.083% Neb Soln", "IH", "Q6H:PRN", 2.0, 2.0, "MAIN"),
    ("Fentanyl Citrate", "IV", "ONCE", 0.3, 2.0, "MAIN"),
    ("Pantoprazole", "PO", "Q24H", 3.0, 1.0, "MAIN",
     "40", "mg", "40mg Delayed Release Tab", "TAB", "1"),
    ("Magnesium Sulfate", "IV", "ONCE", 2.0, 4.0, "MAIN",
     "2", "gm", "2 g / 50 mL Premix Bag", "BAG", "1"),
    ("Potassium Chloride", "IV", "ONCE", 1.0, 3.0, "MAIN",
     "20", "mEq", "20 mEq / 50 mL Premix Bag", "BAG", "1"),
    ("OxyCODONE (Immediate Release)", "PO", "Q4H:PRN", 3.0, 1.5, "MAIN",
     "5", "mg", "5 mg Tab", "TAB", "1"),
    ("HYDROmorphone (Dilaudid)", "IV", "Q3H:PRN", 1.5, 2.0, "MAIN",
     "0.5", "mg", "2 mg / mL Syringe", "mL", "0.25"),
    ("Polyethylene Glycol", "PO", "DAILY", 3.0, 2.0, "MAIN",
     "17", "g", "17 g Powder Packet", "PKT", "1"),
    ("Bisacodyl", "PR", "DAILY", 2.0, 1.5, "MAIN", "10", "mg", "10 mg Suppository", "SUPP", "1"),
    ("Atorvastatin", "PO", "QHS", 2.5, 1.5, "MAIN", "40", "mg", "40 mg Tab", "TAB", "1"),
    ("Aspirin", "PO", "DAILY", 2.5, 2.0, "MAIN", "81", "mg", "81 mg Chewable Tab", "TAB", "1"),
    ("Amlodipine", "PO", "DAILY", 1.5, 0.8, "MAIN", "5", "mg", "5 mg Tab", "TAB", "1"),
    ("Famotidine", "PO", "BID", 1.0, 1.0, "MAIN", "20", "mg", "20 mg Tab", "TAB", "1"),
    ("Enoxaparin Sodium", "SC", "DAILY", 1.5, 1.0, "MAIN",
     "40", "mg", "40 mg / 0.4 mL Syringe", "mL", "0.4"),
    ("Levothyroxine Sodium", "PO", "DAILY", 1.0, 0.8, "MAIN",
     "50", "mcg", "50 mcg Tab", "TAB", "1"),
    ("Tamsulosin", "PO", "QHS", 0.8, 0.5, "MAIN", "0.4", "mg", "0.4 mg Cap", "CAP", "1"),
    ("Gabapentin", "PO", "TID", 1.0, 0.6, "MAIN", "300", "mg", "300 mg Cap", "CAP", "1"),
    ("Ipratropium Bromide Neb", "IH", "Q6H", 1.0, 1.5, "MAIN",
     "1", "NEB", "0.02% 2.5 mL Neb", "NEB", "1"),
    ("Lidocaine 5% Patch", "TD", "DAILY", 0.8, 0.4, "MAIN",
     "1", "PTCH", "700 mg Patch", "PTCH", "1"),
    ("Nicotine Patch", "TD", "DAILY", 0.6, 0.4, "MAIN",
     "14", "mg", "14 mg / 24 hr Patch", "PTCH", "1"),
    ("Multivitamins", "PO", "DAILY", 1.2, 0.8, "MAIN", "1", "TAB", "Tab", "TAB", "1"),
    ("Thiamine", "PO", "DAILY", 1.0, 0.8, "MAIN", "100", "mg", "100 mg Tab", "TAB", "1"),
    ("FoLIC Acid", "PO", "DAILY", 1.0, 0.8, "MAIN", "1", "mg", "1 mg Tab", "TAB", "1"),
    ("LORazepam", "IV", "Q4H:PRN", 0.8, 1.5, "MAIN", "0.5", "mg", "2 mg / mL Vial", "mL", "0.25"),
    ("QUEtiapine Fumarate", "PO", "QHS", 0.8, 1.0, "MAIN", "25", "mg", "25 mg Tab", "TAB", "1"),
    ("TraZODone", "PO", "QHS:PRN", 1.0, 0.4, "MAIN", "50", "mg", "50 mg Tab", "TAB", "1"),
    ("Melatonin", "PO", "QHS:PRN", 1.0, 0.6, "MAIN", "3", "mg", "3 mg Tab", "TAB", "1"),
    ("PredniSONE", "PO", "DAILY", 0.8, 0.5, "MAIN", "40", "mg", "20 mg Tab", "TAB", "2"),
    ("Warfarin", "PO", "DAILY", 0.8, 0.5, "MAIN", "5", "mg", "5 mg Tab", "TAB", "1"),
    ("Apixaban", "PO", "BID", 1.0, 0.6, "MAIN", "5", "mg", "5 mg Tab", "TAB", "1"),
    ("HydrALAZINE", "IV", "Q6H:PRN", 0.8, 1.2, "MAIN", "10", "mg", "20 mg / mL Vial", "mL", "0.5"),
    ("Labetalol", "IV", "Q6H:PRN", 0.5, 1.0, "MAIN", "10", "mg", "5 mg / mL Vial", "mL", "2"),
    ("Carvedilol", "PO", "BID", 0.8, 0.5, "MAIN", "6.25", "mg", "6.25 mg Tab", "TAB", "1"),
    ("Calcium Gluconate", "IV", "ONCE", 0.6, 2.0, "MAIN",
     "2", "gm", "2 g / 100 mL Premix Bag", "BAG", "1"),
    ("Dextrose 50%", "IV", "ONCE", 0.4, 1.0, "MAIN",
     "12.5", "gm", "25 g / 50 mL Syringe", "mL", "25"),
    ("Glucagon", "IM", "ONCE", 0.2, 0.4, "MAIN", "1", "mg", "1 mg Kit", "KIT", "1"),
    ("Chlorhexidine Gluconate 0.12% Oral Rinse", "ORAL", "BID", 0.0, 2.0, "MAIN",
     "15", "mL", "0.12% 15 mL Unit Dose", "UDCUP", "1"),
    ("Artificial Tears", "BOTH EYES", "Q6H:PRN", 0.3, 1.0, "MAIN",
     "1-2", "DROP", "15 mL Bottle", "DROP", "1"),
    ("Propofol", "IV DRIP", "CONTINUOUS", 0.0, 1.5, "MAIN"),
    ("Dexmedetomidine", "IV DRIP", "CONTINUOUS", 0.0, 0.8, "MAIN",
     "0.4", "mcg/kg/hr", "400 mcg / 100 mL Premix Bag", "BAG", "1"),
    ("Norepinephrine", "IV DRIP", "CONTINUOUS", 0.0, 0.8, "MAIN",
     "0.06", "mcg/kg/min", "4 mg / 250 mL Premix Bag", "BAG", "1"),
    ("Sodium Chloride 0.9%", "IV", "CONTINUOUS", 1.5, 2.5, "BASE",
     "1000", "mL", "1000 mL Bag", "BAG", "1"),
    ("Dextrose 5%", "IV", "CONTINUOUS", 0.5, 1.0, "BASE", "250", "mL", "250 mL Bag", "BAG", "1"),
    ("Lactated Ringers", "IV", "CONTINUOUS", 1.0, 1.5, "BASE",
     "1000", "mL", "1000 mL Bag", "BAG", "1"),
    ("Potassium Chloride Additive", "IV", "CONTINUOUS", 0.3, 0.8, "ADDITIVE",
     "20", "mEq", "2 mEq / mL Vial", "mL", "10"),
    ("Multivitamin IV Additive", "IV", "CONTINUOUS", 0.2, 0.5, "ADDITIVE",
     "10", "mL", "10 mL Vial", "VIAL", "1"),
)  # fmt: skip

# antimicrobial and decoy lines of the infection plan: usual frequency per drug
INFECTION_FREQUENCIES: dict[str, str] = {
    "Vancomycin": "Q12H",
    "CefTRIAXone": "Q24H",
    "Piperacillin-Tazobactam": "Q8H",
    "CefePIME": "Q12H",
    "MetRONIDAZOLE (FLagyl)": "Q8H",
    "Meropenem": "Q8H",
    "Azithromycin": "Q24H",
    "Levofloxacin": "Q24H",
    "CeFAZolin": "Q8H",
    "Ampicillin-Sulbactam": "Q6H",
    "Linezolid": "Q12H",
    "Ciprofloxacin IV": "Q12H",
    "Gentamicin": "Q24H",
    "Nafcillin": "Q4H",
    "Sulfameth/Trimethoprim DS": "BID",
    "Vancomycin Oral Liquid": "Q6H",
    "Amoxicillin-Clavulanic Acid": "Q12H",
    "Cephalexin": "Q6H",
    "Doxycycline Hyclate": "Q12H",
    "Nitrofurantoin (Macrodantin)": "Q12H",
    "Erythromycin 0.5% Ophth Oint": "QID",
    "Ciprofloxacin 0.3% Ophth Soln": "Q6H",
    "Micafungin": "Q24H",
    "Fluconazole": "Q24H",
    "Acyclovir": "Q8H",
    "Oseltamivir": "Q12H",
    "Daptomycin": "Q24H",
    "Ertapenem Sodium": "Q24H",
    "Cefiderocol": "Q8H",
    "Lisinopril": "DAILY",
    "Ibuprofen": "Q8H:PRN",
    "Propofol": "CONTINUOUS",
}
DEFAULT_FREQUENCY = "DAILY"


@dataclass(frozen=True)
class DrugTable:
    """Per-drug columns of the routine formulary, indexable by entry number."""

    drug: np.ndarray
    route: np.ndarray
    frequency: np.ndarray
    drug_type: np.ndarray
    ward_share: np.ndarray
    icu_share: np.ndarray


@cache
def routine_drugs() -> DrugTable:
    rows = ROUTINE_DRUGS
    return DrugTable(
        drug=np.array([r[0] for r in rows], dtype=object),
        route=np.array([r[1] for r in rows], dtype=object),
        frequency=np.array([r[2] for r in rows], dtype=object),
        drug_type=np.array([r[5] for r in rows], dtype=object),
        ward_share=np.array([r[3] for r in rows], dtype=float),
        icu_share=np.array([r[4] for r in rows], dtype=float),
    )


def _own_details() -> dict[tuple[str, str], tuple[str, str, str, str, str]]:
    """(dose, unit, strength, dispensed form, dispensed amount) by (drug, route)."""
    return {(r[0], r[1]): (r[6], r[7], r[8], r[9], r[10]) for r in ROUTINE_DRUGS if len(r) > 6}


def _codes(name: str) -> tuple[str, str, str]:
    """Synthetic (formulary_drug_cd, gsn, ndc) of a drug: stable, shaped like real codes."""
    h = zlib.crc32(name.encode("utf-8"))
    letters = "".join(c for c in name.upper() if c.isalpha())[:4].ljust(4, "X")
    return f"{letters}{h % 1000}", f"{h % 999_983:06d}", f"{(h * 7_919) % 10**11:011d}"


@cache
def _detail_rows(keys: tuple[tuple[str, str], ...]) -> tuple[tuple[str | None, ...], ...]:
    own = _own_details()
    rows = []
    for name, route in keys:
        if (name, route) in own:
            dose, unit, strength, form, amount = own[(name, route)]
            cd, gsn, ndc = _codes(f"{name} {route}")
        elif name in DRUG_DOSES:
            dose, unit, strength, form, amount, code = DRUG_DOSES[name]
            cd, gsn, ndc = code, *_codes(name)[1:]
        else:
            dose, unit, strength, form, amount, cd = DEFAULT_DOSE
            gsn, ndc = _codes(name)[1:]
        rows.append((cd, gsn, ndc, strength, dose, unit, amount, form))
    return tuple(rows)


DETAIL_COLUMNS = (
    "formulary_drug_cd",
    "gsn",
    "ndc",
    "prod_strength",
    "dose_val_rx",
    "dose_unit_rx",
    "form_val_disp",
    "form_unit_disp",
)


def line_details(pairs: list[tuple[str, str]], pair: np.ndarray) -> dict[str, pa.Array]:
    """The product and dose columns of lines whose (drug, route) is ``pairs[pair]``."""
    rows = _detail_rows(tuple(pairs))
    take = pa.array(pair.astype(np.int64))
    return {
        column: pa.array([r[i] for r in rows], type=pa.string()).take(take)
        for i, column in enumerate(DETAIL_COLUMNS)
    }
