"""Where provisioned material lives under the data home.

::

    tasks/<source>/ground-truth/<key>.parquet           typed, sorted reference answer
    tasks/<source>/ground-truth/<key>.manifest.json     GroundTruthManifest
    tasks/<source>/<schema>/<task>/agent.duckdb         the task's agent catalog
    tasks/<source>/<schema>/<task>/catalog.json         AgentCatalogManifest
    tasks/<source>/<schema>/<task>/m4data/...           links to the allowed Parquet files
    tasks/<source>/<variant>/<task>/dictionary.md       schema dictionary (perturbed only)
    perturbed/<source>/mapping.json                     the full name mapping (never mounted)
    perturbed/<source>/<variant>/parquet/<s>/<t>.parquet
    perturbed/<source>/<variant>/perturbed.json         PerturbedManifest

``<key>`` identifies a reference file (family, plus the file stem when it is not the
family's ``reference.sql``): tasks sharing a reference share one ground truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources.datasets import PERTURBED_DATASETS

SchemaVariant = Literal["native", "obfuscated", "restructured"]
PerturbedVariant = Literal["obfuscated", "restructured"]
SCHEMA_VARIANTS: tuple[SchemaVariant, ...] = ("native", "obfuscated", "restructured")

# The directory, relative to the agent's working directory, that every view reads from.
DATA_DIR = "m4data"
CATALOG_FILE = "agent.duckdb"
CATALOG_MANIFEST = "catalog.json"
DICTIONARY_FILE = "dictionary.md"
GROUND_TRUTH_DIR = "ground-truth"
# Scratch databases of concepts rebuilt under other tie orders, inside the ground-truth folder.
TIE_SCRATCH_PREFIX = ".ties-"
PERTURBED_DIR = "perturbed"
MAPPING_FILE = "mapping.json"
PERTURBED_MANIFEST = "perturbed.json"


@dataclass(frozen=True)
class TaskCatalogPaths:
    """Paths of one task's agent catalog for one schema variant."""

    root: Path

    @property
    def catalog(self) -> Path:
        return self.root / CATALOG_FILE

    @property
    def manifest(self) -> Path:
        return self.root / CATALOG_MANIFEST

    @property
    def data(self) -> Path:
        return self.root / DATA_DIR


def task_catalog_paths(
    home: DataHome, source: str, schema: SchemaVariant, task: str
) -> TaskCatalogPaths:
    return TaskCatalogPaths(home.tasks / source / schema / task)


def ground_truth_dir(home: DataHome, source: str) -> Path:
    return home.tasks / source / GROUND_TRUTH_DIR


def reference_key(family: str, reference_file: str) -> str:
    """The ground-truth key of a reference file: tasks sharing the file share the key."""
    stem = Path(reference_file).stem
    return family if reference_file == "reference.sql" else f"{family}--{stem}"


def perturbed_root(home: DataHome, source: str) -> Path:
    return home.root / PERTURBED_DIR / source


def mapping_path(home: DataHome, source: str) -> Path:
    return perturbed_root(home, source) / MAPPING_FILE


def perturbed_dir(home: DataHome, source: str, variant: PerturbedVariant) -> Path:
    return perturbed_root(home, source) / variant


def check_schema_exists(dataset: str, schema: str, who: str) -> None:
    """Raise a user error when ``schema`` is a perturbed schema and ``dataset`` has none;
    ``who`` says who has the data (``task eicu-gcs reads``, ``source 'x' holds``)."""
    if schema == "native" or dataset in PERTURBED_DATASETS:
        return
    raise M4BenchError(
        f"{who} {dataset} data: the {schema} schema exists for MIMIC-IV tasks only",
        hint=f"use --schema native for {dataset} tasks",
    )
