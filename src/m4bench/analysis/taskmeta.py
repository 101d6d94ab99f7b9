"""Task metadata the analysis groups by: family, mode, database, dependency depth.

Taken from the task catalog when it lists the task (its card), else from the built-in
table of the 28 benchmark tasks, else derived from the task name.

Dependency depth is the length of the longest chain of concepts under a task,
counting the task's own reference query: 1 when the reference reads only source
tables, 2 when it reads concepts built from source tables only, and so on (the task
catalog's convention).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from m4bench.sources.datasets import dataset_named_by


class TaskMeta(BaseModel):
    model_config = ConfigDict(frozen=True)

    task: str
    family: str
    mode: str
    database: str
    depth: int | None


# family -> dependency depth of its reference query (MIMIC-IV variants).
_FAMILY_DEPTH: dict[str, int] = {
    "apsiii": 3,
    "charlson": 2,
    "creatinine-baseline": 2,
    "gcs": 2,
    "kdigo": 4,
    "meld": 3,
    "oasis": 3,
    "sapsii": 3,
    "sepsis3": 4,
    "sirs": 3,
    "sofa": 3,
    "suspicion-infection": 2,
    "urine-output-rate": 2,
    "vasopressor-equivalents": 3,
    "ventilation": 2,
}

# task -> family for the 28 benchmark tasks.
_BUILTIN_FAMILY: dict[str, str] = {
    "mimic-apsiii-24h": "apsiii",
    "mimic-apsiii-24h-raw": "apsiii",
    "mimic-charlson-raw": "charlson",
    "mimic-creatinine-baseline": "creatinine-baseline",
    "mimic-creatinine-baseline-raw": "creatinine-baseline",
    "eicu-gcs": "gcs",
    "mimic-gcs-24h-raw": "gcs",
    "mimic-kdigo-48h": "kdigo",
    "mimic-kdigo-48h-raw": "kdigo",
    "mimic-meld-24h": "meld",
    "mimic-meld-24h-raw": "meld",
    "eicu-oasis": "oasis",
    "mimic-oasis-24h": "oasis",
    "mimic-oasis-24h-raw": "oasis",
    "mimic-sapsii-24h": "sapsii",
    "mimic-sapsii-24h-raw": "sapsii",
    "mimic-sepsis3-raw": "sepsis3",
    "mimic-sirs-24h-raw": "sirs",
    "mimic-sofa-24h": "sofa",
    "mimic-sofa-24h-raw": "sofa",
    "mimic-suspicion-infection": "suspicion-infection",
    "mimic-suspicion-infection-raw": "suspicion-infection",
    "mimic-urine-output-rate": "urine-output-rate",
    "mimic-urine-output-rate-raw": "urine-output-rate",
    "mimic-vasopressor-equivalents": "vasopressor-equivalents",
    "mimic-vasopressor-equivalents-raw": "vasopressor-equivalents",
    "mimic-ventilation": "ventilation",
    "mimic-ventilation-raw": "ventilation",
}

# eICU tasks read only source tables; every other eICU task is raw by construction.
_EICU_TASKS = frozenset({"eicu-gcs", "eicu-oasis"})


def _database(task: str) -> str:
    """The built-in table's dataset; for a task in neither table nor catalog (no card to
    read), the dataset its name's prefix stands for, "unknown" when none does."""
    if task in _BUILTIN_FAMILY:
        return "eicu" if task in _EICU_TASKS else "mimic-iv"
    return dataset_named_by(task) or "unknown"


def _mode(task: str) -> str:
    return "raw" if task.endswith("-raw") or task in _EICU_TASKS else "standard"


def builtin_meta(task: str) -> TaskMeta:
    """Metadata from the built-in table, or derived from the task name."""
    family = _BUILTIN_FAMILY.get(task) or _family_from_name(task)
    depth = 1 if task in _EICU_TASKS else _FAMILY_DEPTH.get(family)
    return TaskMeta(
        task=task, family=family, mode=_mode(task), database=_database(task), depth=depth
    )


def _family_from_name(task: str) -> str:
    stem = re.sub(r"^(mimic|eicu)-", "", task)
    stem = re.sub(r"-raw$", "", stem)
    return re.sub(r"-\d+h$", "", stem)


def _catalog_entries() -> Mapping[str, Any]:
    """Task name -> catalog task, when the task catalog is installed and loads."""
    try:
        module = importlib.import_module("m4bench.tasks.catalog")
        catalog = module.load_catalog()
        return {str(task.name): task for task in catalog.tasks}
    except Exception:  # an absent or broken catalog must not stop an analysis
        return {}


def _from_catalog(task: str, entry: Any) -> TaskMeta:
    """Family, mode and database from the task card; depth from the concept graph
    when the catalog has one, else from the built-in table."""
    fallback = builtin_meta(task)
    card = getattr(entry, "card", None)
    meta = getattr(card, "metadata", None)
    depth = fallback.depth
    if getattr(entry, "concept_graph", None):
        try:
            depth = int(entry.dependency_depth)
        except Exception:  # a reference query the catalog cannot parse
            depth = fallback.depth
    return TaskMeta(
        task=task,
        family=str(getattr(meta, "family", None) or fallback.family),
        mode=str(getattr(meta, "mode", None) or fallback.mode),
        database=str(getattr(meta, "database", None) or fallback.database),
        depth=depth,
    )


def resolve_task_meta(tasks: Iterable[str], use_catalog: bool = True) -> dict[str, TaskMeta]:
    """Metadata for every task, catalog first, then the built-in table."""
    entries = _catalog_entries() if use_catalog else {}
    return {
        task: _from_catalog(task, entries[task]) if task in entries else builtin_meta(task)
        for task in sorted(set(tasks))
    }
