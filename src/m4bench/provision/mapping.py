"""The secret name mapping behind the obfuscated and restructured schemas.

Every schema, table and column gets an opaque identifier drawn from a seeded random
permutation of a numeric range, so an identifier says nothing about the name's
alphabetical rank. Columns share one global map (``subject_id`` has the same opaque
name in every table), which keeps joins writable. The mapping lives beside the
perturbed data, outside every agent catalog and workdir; agents get only the
dictionary generated from it (:mod:`m4bench.provision.dictionary`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from m4bench.errors import M4BenchError

MAPPING_FORMAT_VERSION = 1


@dataclass(frozen=True)
class MergePlan:
    """Native tables stacked into one restructured table, told apart by a discriminator."""

    name: str
    schema_name: str
    discriminator: str
    parts: tuple[tuple[str, str], ...]  # (native qualified table, discriminator value)
    description: str


MERGES: tuple[MergePlan, ...] = (
    MergePlan(
        "observations",
        "mimiciv_icu",
        "source",
        (("mimiciv_icu.chartevents", "chart"), ("mimiciv_hosp.labevents", "lab")),
        "charted bedside observations and laboratory results",
    ),
    MergePlan(
        "encounters",
        "mimiciv_hosp",
        "record_type",
        (
            ("mimiciv_hosp.patients", "patient"),
            ("mimiciv_hosp.admissions", "admission"),
            ("mimiciv_icu.icustays", "icustay"),
        ),
        "patients, hospital admissions and ICU stays, one record per entity",
    ),
    MergePlan(
        "flows",
        "mimiciv_icu",
        "direction",
        (("mimiciv_icu.inputevents", "in"), ("mimiciv_icu.outputevents", "out")),
        "ICU fluid and drug inputs and measured outputs",
    ),
    MergePlan(
        "item_reference",
        "mimiciv_icu",
        "item_type",
        (("mimiciv_icu.d_items", "chart"), ("mimiciv_hosp.d_labitems", "lab")),
        "dictionary of charted items and laboratory items",
    ),
)


class MergedTable(BaseModel):
    """One restructured table in opaque names, and how to read each original back."""

    table: str = Field(description="opaque qualified name")
    discriminator: str = Field(description="opaque discriminator column")
    values: dict[str, str] = Field(description="native qualified table -> discriminator value")
    columns: list[str] = Field(description="opaque columns after the discriminator, in order")


class SchemaMapping(BaseModel):
    """``mapping.json``: native names -> opaque names for one source."""

    format_version: int = MAPPING_FORMAT_VERSION
    seed: int
    native_fingerprint: str
    schemas: dict[str, str]
    tables: dict[str, str] = Field(description="native qualified -> opaque qualified")
    columns: dict[str, str] = Field(description="native column name -> opaque, global")
    table_columns: dict[str, list[str]] = Field(description="native qualified -> native columns")
    merged: dict[str, MergedTable] = Field(default_factory=dict)

    def table(self, qualified: str) -> str:
        try:
            return self.tables[qualified]
        except KeyError as exc:
            raise M4BenchError(
                f"the schema mapping has no table {qualified!r}",
                hint="rebuild the perturbed schemas with `m4bench setup --schema obfuscated`",
            ) from exc

    def opaque_or_same(self, qualified: str) -> str:
        """The opaque name of a table, or the name itself when the source lacks it."""
        return self.tables.get(qualified, qualified)

    def column(self, name: str) -> str:
        return self.columns.get(name, name)

    def native_column(self) -> dict[str, str]:
        """Inverse column map: opaque -> native."""
        return {opaque: native for native, opaque in self.columns.items()}

    def merged_part(self, qualified: str) -> tuple[MergedTable, str] | None:
        """The merged table holding native ``qualified`` and its discriminator value."""
        for merged in self.merged.values():
            if qualified in merged.values:
                return merged, merged.values[qualified]
        return None


def _opaque(rng: random.Random, prefix: str, names: Sequence[str], low: int) -> dict[str, str]:
    """Names -> ``prefix<number>`` with numbers a random sample of ``[low, 10*low)``."""
    if len(names) > 9 * low:
        raise M4BenchError(f"too many names ({len(names)}) for the {prefix} id range")
    numbers = rng.sample(range(low, 10 * low), len(names))
    return {name: f"{prefix}{number}" for name, number in zip(sorted(names), numbers, strict=True)}


def build_mapping(
    table_columns: Mapping[str, Sequence[tuple[str, str]]], seed: int, native_fingerprint: str
) -> SchemaMapping:
    """A mapping for every ``{qualified table: [(column, type), ...]}`` plus the merges."""
    rng = random.Random(seed)
    schemas = _opaque(rng, "ds_", sorted({q.split(".", 1)[0] for q in table_columns}), 10)
    merged_names = [plan.name for plan in MERGES]
    table_ids = _opaque(rng, "t_", [*table_columns, *merged_names], 100)
    column_names = sorted({name for cols in table_columns.values() for name, _ in cols})
    discriminators = [f"{plan.name}.{plan.discriminator}" for plan in MERGES]
    column_ids = _opaque(rng, "c_", [*column_names, *discriminators], 1000)
    mapping = SchemaMapping(
        seed=seed,
        native_fingerprint=native_fingerprint,
        schemas=schemas,
        tables={q: f"{schemas[q.split('.', 1)[0]]}.{table_ids[q]}" for q in table_columns},
        columns={name: column_ids[name] for name in column_names},
        table_columns={q: [name for name, _ in cols] for q, cols in table_columns.items()},
    )
    for plan in MERGES:
        if all(part in table_columns for part, _ in plan.parts):
            columns = _merged_columns(plan, table_columns)
            mapping.merged[plan.name] = MergedTable(
                table=f"{schemas[plan.schema_name]}.{table_ids[plan.name]}",
                discriminator=column_ids[f"{plan.name}.{plan.discriminator}"],
                values=dict(plan.parts),
                columns=[mapping.columns[name] for name in columns],
            )
    return mapping


def _merged_columns(
    plan: MergePlan, table_columns: Mapping[str, Sequence[tuple[str, str]]]
) -> list[str]:
    """Union of the parts' columns in order of first appearance; a shared name must
    have one type, else the merge could not be read back losslessly."""
    types: dict[str, tuple[str, str]] = {}
    for part, _ in plan.parts:
        for name, sql_type in table_columns[part]:
            seen = types.setdefault(name, (sql_type, part))
            if seen[0] != sql_type:
                raise M4BenchError(
                    f"cannot merge {plan.name}: column {name!r} is {seen[0]} in {seen[1]} "
                    f"but {sql_type} in {part}",
                    hint="the source's column types differ from the official schema",
                )
    return list(types)
