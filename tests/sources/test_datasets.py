"""m4bench.sources.datasets: the facts of each dataset agree with the code that uses them,
and a task's dataset is its card's, not its name's."""

from __future__ import annotations

from pathlib import Path

import pytest
from profile_text import local_profile

from m4bench.campaign import PlanOptions, TaskFacts, load_profile, plan_campaign
from m4bench.concepts.library import DERIVED_SCHEMA
from m4bench.errors import M4BenchError
from m4bench.sources.datasets import (
    DATASET_NAMES,
    DEFAULT_SOURCES,
    PERTURBED_DATASETS,
    dataset_facts,
    dataset_named_by,
    derived_schema,
)
from m4bench.sources.schema import dataset_schema
from m4bench.sources.synth.mimic_iv import DEFAULT_NAME
from m4bench.tasks.catalog import Catalog


def test_each_datasets_source_schemas_are_its_tables_schemas() -> None:
    assert DATASET_NAMES == ("mimic-iv", "eicu")
    for name in DATASET_NAMES:
        tables = dataset_schema(name).tables
        assert set(dataset_facts(name).source_schemas) == {t.schema_name for t in tables}


def test_the_derived_schema_and_perturbed_schemas_are_mimic_ivs_only() -> None:
    assert derived_schema("mimic-iv") == DERIVED_SCHEMA == "mimiciv_derived"
    with pytest.raises(M4BenchError, match="no derived concepts"):
        derived_schema("eicu")
    assert PERTURBED_DATASETS == ("mimic-iv",)
    assert DEFAULT_SOURCES == {"mimic-iv": DEFAULT_NAME, "eicu": "synthetic-eicu"}


def test_an_unknown_dataset_names_the_known_ones() -> None:
    with pytest.raises(M4BenchError) as caught:
        dataset_facts("omop")
    assert caught.value.hint == "known datasets: mimic-iv, eicu"


def test_every_catalog_task_carries_its_cards_dataset_prefix(catalog: Catalog) -> None:
    for task in catalog.tasks:
        assert dataset_named_by(task.name) == task.card.dataset, task.name
    assert dataset_named_by("omop-sofa") is None


def _facts(name: str, database: str) -> list[TaskFacts]:
    return [TaskFacts(name, "family", "standard", database, False, 1)]


def test_planning_reads_a_tasks_dataset_from_its_card_not_its_name(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    text = local_profile("p", ["mimic-odd"], schemas=["native", "obfuscated"])
    path.write_text(text, encoding="utf-8")
    profile = load_profile(str(path))
    with pytest.raises(M4BenchError, match=r"do not exist for eICU-CRD tasks \(mimic-odd\)"):
        plan_campaign(profile, PlanOptions(), _facts("mimic-odd", "eicu"))
    runs = plan_campaign(profile, PlanOptions(), _facts("mimic-odd", "mimic-iv"))
    assert {run.cell.schema_name for run in runs} == {"native", "obfuscated"}
