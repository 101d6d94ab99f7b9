"""What m4bench knows of each dataset it reads, in one place.

For each dataset: its name, the schemas of its source tables, the schema of its derived
concepts (MIMIC-IV only), the prefix its task names carry (a lint rule of the task
cards), the synthetic source a command reads when it names none, and whether the
perturbed (obfuscated, restructured) schemas exist for it.

A catalog task's dataset is the one its card names (``task.card.dataset``), never read
off its name; :func:`dataset_named_by` is for a task no catalog holds (runs of another
catalog, read by the analysis), where the name is all there is.

The table definitions themselves live in :mod:`m4bench.sources.schema`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

from m4bench.errors import M4BenchError

Dataset = Literal["mimic-iv", "eicu"]


@dataclass(frozen=True)
class DatasetFacts:
    """One dataset's names and properties (see the module docstring)."""

    name: Dataset
    label: str
    source_schemas: tuple[str, ...]
    derived_schema: str | None
    task_prefix: str
    default_source: str
    perturbed_schemas: bool


DATASETS: Final[Mapping[str, DatasetFacts]] = MappingProxyType(
    {
        "mimic-iv": DatasetFacts(
            name="mimic-iv",
            label="MIMIC-IV",
            source_schemas=("mimiciv_hosp", "mimiciv_icu"),
            derived_schema="mimiciv_derived",
            task_prefix="mimic-",
            default_source="synthetic-mimic-iv",
            perturbed_schemas=True,
        ),
        "eicu": DatasetFacts(
            name="eicu",
            label="eICU-CRD",
            source_schemas=("eicu_crd",),
            derived_schema=None,
            task_prefix="eicu-",
            default_source="synthetic-eicu",
            perturbed_schemas=False,
        ),
    }
)

DATASET_NAMES: Final[tuple[str, ...]] = tuple(DATASETS)
SOURCE_SCHEMAS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {name: facts.source_schemas for name, facts in DATASETS.items()}
)
DERIVED_SCHEMAS: Final[Mapping[str, str | None]] = MappingProxyType(
    {name: facts.derived_schema for name, facts in DATASETS.items()}
)
TASK_PREFIXES: Final[Mapping[str, str]] = MappingProxyType(
    {name: facts.task_prefix for name, facts in DATASETS.items()}
)
DEFAULT_SOURCES: Final[Mapping[str, str]] = MappingProxyType(
    {name: facts.default_source for name, facts in DATASETS.items()}
)
PERTURBED_DATASETS: Final[tuple[str, ...]] = tuple(
    name for name, facts in DATASETS.items() if facts.perturbed_schemas
)


def dataset_facts(dataset: str) -> DatasetFacts:
    """The facts of ``dataset``; a user error naming the known datasets otherwise."""
    try:
        return DATASETS[dataset]
    except KeyError:
        raise M4BenchError(
            f"unknown dataset {dataset!r}", hint=f"known datasets: {', '.join(DATASET_NAMES)}"
        ) from None


def derived_schema(dataset: str) -> str:
    """The schema of ``dataset``'s derived concepts; an error for a dataset without."""
    schema = dataset_facts(dataset).derived_schema
    if schema is None:
        raise M4BenchError(f"{dataset} has no derived concepts")
    return schema


def dataset_named_by(task: str) -> str | None:
    """The dataset whose task prefix ``task`` carries, None when none does. Only for a
    task no catalog holds: a catalog task's dataset is its card's."""
    found = [name for name, prefix in TASK_PREFIXES.items() if task.startswith(prefix)]
    return found[0] if len(found) == 1 else None
