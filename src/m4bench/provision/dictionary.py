"""The schema dictionary an agent receives with a perturbed database.

Generated from the mapping: what each opaque schema holds, the key tables and key
columns with their meanings, and for the restructured schema the merged tables, their
discriminator and its values. It names only opaque identifiers next to plain-language
meanings; it never pairs an opaque name with its original identifier, and it does not
describe derived tables (finding them is part of the task).
"""

from __future__ import annotations

from m4bench.provision.layout import PerturbedVariant
from m4bench.provision.mapping import MERGES, SchemaMapping
from m4bench.sources.schema import dataset_schema

SCHEMA_MEANINGS: dict[str, str] = {
    "mimiciv_hosp": "hospital-wide records: patients, admissions, laboratory results, "
    "microbiology, prescriptions, diagnoses and procedures",
    "mimiciv_icu": "intensive care records: ICU stays, charted observations, inputs, "
    "outputs and procedures",
    "mimiciv_derived": "precomputed clinical concepts built from the other two schemas",
}

KEY_TABLES: tuple[str, ...] = (
    "mimiciv_hosp.patients",
    "mimiciv_hosp.admissions",
    "mimiciv_icu.icustays",
    "mimiciv_icu.chartevents",
    "mimiciv_hosp.labevents",
    "mimiciv_icu.inputevents",
    "mimiciv_icu.outputevents",
    "mimiciv_icu.procedureevents",
    "mimiciv_icu.d_items",
    "mimiciv_hosp.d_labitems",
    "mimiciv_hosp.services",
    "mimiciv_hosp.diagnoses_icd",
    "mimiciv_hosp.procedures_icd",
    "mimiciv_hosp.transfers",
)

KEY_COLUMNS: dict[str, str] = {
    "subject_id": "patient identifier",
    "hadm_id": "hospital admission identifier",
    "stay_id": "ICU stay identifier",
    "itemid": "measured or charted item identifier (see the item dictionaries)",
    "charttime": "time the observation was made",
    "storetime": "time the observation was recorded",
    "starttime": "start of an interval event",
    "endtime": "end of an interval event",
    "intime": "ICU admission time",
    "outtime": "ICU discharge time",
    "admittime": "hospital admission time",
    "dischtime": "hospital discharge time",
    "deathtime": "in-hospital time of death",
    "dod": "date of death",
    "gender": "patient sex",
    "anchor_age": "patient age in the anchor year",
    "anchor_year": "shifted reference year of the patient",
    "admission_type": "urgency of the admission",
    "hospital_expire_flag": "1 when the patient died in hospital",
    "first_careunit": "first ICU care unit of the stay",
    "last_careunit": "last ICU care unit of the stay",
    "los": "length of stay in days",
    "value": "observation value as text",
    "valuenum": "observation value as a number",
    "valueuom": "unit of the value",
    "label": "item name",
    "category": "item category",
    "fluid": "specimen fluid of a laboratory item",
    "ref_range_lower": "lower bound of the normal range",
    "ref_range_upper": "upper bound of the normal range",
    "flag": "abnormal flag of a laboratory result",
    "specimen_id": "laboratory specimen identifier",
    "amount": "amount given",
    "amountuom": "unit of the amount",
    "rate": "infusion rate",
    "rateuom": "unit of the rate",
    "patientweight": "patient weight in kilograms at the event",
    "orderid": "order identifier grouping related inputs",
    "statusdescription": "final status of an input event",
    "icd_code": "ICD diagnosis or procedure code",
    "icd_version": "ICD version (9 or 10)",
    "seq_num": "priority order of a code",
    "curr_service": "current hospital service",
    "transfertime": "time of a service change",
    "careunit": "ward or unit of a transfer",
    "eventtype": "kind of transfer event",
    "linksto": "table an item's records are stored in",
}


def schema_dictionary(
    mapping: SchemaMapping, variant: PerturbedVariant, include_derived: bool = True
) -> str:
    """Markdown describing ``variant``'s opaque names for an agent."""
    lines = ["## Schema dictionary", "", "Schemas:"]
    for native, opaque in sorted(mapping.schemas.items(), key=lambda item: item[1]):
        if native == "mimiciv_derived" and not include_derived:
            continue
        lines.append(f"- `{opaque}`: {SCHEMA_MEANINGS.get(native, 'other records')}")
    merged_away = _merged_away(mapping) if variant == "restructured" else set()
    lines += ["", "Key tables:"]
    meanings = {table.qualified: table.description for table in dataset_schema("mimic-iv").tables}
    for native in KEY_TABLES:
        if native in mapping.tables and native not in merged_away:
            lines.append(f"- `{mapping.tables[native]}`: {meanings.get(native, '')}")
    if variant == "restructured":
        lines += _merged_lines(mapping)
    lines += ["", "Key columns (the same name in every table):"]
    for native, meaning in sorted(KEY_COLUMNS.items(), key=lambda item: mapping.column(item[0])):
        if native in mapping.columns:
            lines.append(f"- `{mapping.columns[native]}`: {meaning}")
    return "\n".join(lines) + "\n"


def _merged_away(mapping: SchemaMapping) -> set[str]:
    return {part for merged in mapping.merged.values() for part in merged.values}


def _merged_lines(mapping: SchemaMapping) -> list[str]:
    meanings = {table.qualified: table.description for table in dataset_schema("mimic-iv").tables}
    lines = ["", "Merged tables (the tables they replace do not exist in this schema):"]
    for plan in MERGES:
        merged = mapping.merged.get(plan.name)
        if merged is None:
            continue
        lines.append(
            f"- `{merged.table}`: {plan.description}; column `{merged.discriminator}` says "
            "which kind each row is:"
        )
        for part, value in plan.parts:
            lines.append(f"  - `'{value}'`: {meanings.get(part, part)}")
    return lines
