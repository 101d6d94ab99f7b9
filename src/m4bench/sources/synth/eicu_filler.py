"""The small eICU tables no concept reads (allergy, admissiondx, microlab, customlab,
careplaneol, careplaninfectiousdisease): every column of the official schema filled with
plausible values of its type (offsets inside the stay, short text). The large tables no
task reads are written by ``eicu_records`` at their real volume.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from m4bench.sources.schema.base import Table
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_series import pick

# Mean rows per stay (the real per-stay rates).
ROWS_PER_STAY: dict[str, float] = {
    "admissiondx": 3.0,
    "allergy": 1.0,
    "careplaneol": 0.01,
    "careplaninfectiousdisease": 0.05,
    "customlab": 0.01,
    "microlab": 0.1,
}

_TEXT: dict[str, tuple[str, ...]] = {
    "activeupondischarge": ("True", "False"),
    "usertype": ("eICU Physician", "THC Nurse", "Physician"),
    "rxincluded": ("Yes", "No"),
    "writtenineicu": ("True", "False"),
    "drugivadmixture": ("No", "Yes"),
    "drugordercancelled": ("No", "No", "No", "Yes"),
    "loadingdose": ("No",),
    "prn": ("No", "No", "Yes"),
    "routeadmin": ("IV", "PO", "SubQ", "IV Push"),
    "frequency": ("Q6H", "Daily", "Q12H", "Once"),
    "dosage": ("1 g", "40 mg", "5000 Units", "325 mg"),
    "diagnosispriority": ("Primary", "Major", "Other"),
    "drugadmitfrequency": ("daily", "bid", "prn", "tid"),
    "culturesite": ("Blood, Venipuncture", "Urine, Catheter Specimen", "Sputum, Tracheal Specimen"),
    "organism": ("Escherichia coli", "Staphylococcus aureus", "no growth", "Klebsiella pneumoniae"),
    "sensitivitylevel": ("Sensitive", "Resistant", "Intermediate"),
    "notetype": ("Progress", "Admission", "Transfer"),
    "providertype": ("Physician", "Nurse Practitioner"),
    "specialty": ("critical care medicine (CCM)", "internal medicine", "surgery-general"),
    "cplgroup": ("Code Status", "Airway", "Ventilation", "Infectious Disease"),
    "cplitemvalue": ("Full Therapy", "No CPR", "Intubated/oral ETT", "Antibiotics"),
    "cplgoalstatus": ("Active", "Met"),
    "allergytype": ("Drug", "Non Drug"),
    "allergyname": ("penicillin", "sulfa (sulfonamide antibiotics)", "latex"),
}


def filler(table: Table, cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
    """Rows of ``table`` for one chunk: every column but the leading id filled by type."""
    counts = rng.poisson(ROWS_PER_STAY.get(table.name, 1.0), cohort.n)
    owner = np.repeat(np.arange(cohort.n), counts)
    m = owner.size
    low = np.minimum(cohort.chart_start, 0)[owner]
    high = cohort.los_minutes[owner]
    offset = low + (rng.random(m) * (high - low + 1)).astype(np.int64)
    order = np.lexsort((offset, owner))
    owner, offset = owner[order], offset[order]
    columns: dict[str, Any] = {"patientunitstayid": cohort.stay_id[owner]}
    for column in table.columns[1:]:
        if column.name in columns:
            continue
        columns[column.name] = _fill(table.name, column.name, column.type, offset, rng)
    return columns


def _fill(table: str, name: str, type_: str, offset: np.ndarray, rng: np.random.Generator) -> Any:
    m = offset.size
    if type_ == "INTEGER" and "offset" in name:
        return offset + (rng.integers(0, 60, m) if "enter" in name or "save" in name else 0)
    if type_ in ("INTEGER", "SMALLINT", "BIGINT"):
        return rng.integers(0, 10, m)
    if type_ == "DOUBLE":
        return np.round(rng.uniform(0, 100, m), 1)
    if type_ == "BOOLEAN":
        return rng.random(m) < 0.5
    choices = _TEXT.get(name) or tuple(f"{table} {name} {k}" for k in range(1, 6))
    return pick(rng, choices, m)
