"""The card format, the catalog loader, dependency closure and generated skills."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from m4bench.errors import M4BenchError
from m4bench.tasks.card import parse_card
from m4bench.tasks.catalog import CATALOG_ROOT, concept_depth, load_catalog
from m4bench.tasks.skills import (
    decoy_skill,
    parse_skill,
    raw_sql_skill,
    split_front_matter,
    write_skill,
)

EICU_CARD = """
format_version = 1

[metadata]
name = "eicu-gcs"
family = "gcs"
description = "Lowest GCS in the first unit day, from nurse charting."
difficulty = "hard"
mode = "raw"
database = "eicu"
tags = ["cross-database"]

[reference]
file = "reference-eicu.sql"

[evaluation]
key_columns = ["patientunitstayid"]
value_columns = ["gcs_min"]
required_columns = ["patientunitstayid", "uniquepid", "patienthealthsystemstayid", "gcs_min"]
scored_columns = ["gcs_min"]
row_coverage_threshold = 1.0
accuracy_threshold = 1.0

[controls]
decoy_skill = "meld-score"
"""


def test_an_eicu_card_validates_and_keeps_its_drop_list() -> None:
    card = parse_card(EICU_CARD, Path("eicu-gcs/task.toml"))
    assert card.dataset == "eicu" and card.mode == "raw"
    assert card.evaluation.key_columns == ["patientunitstayid"]
    assert card.effective_drop_tables(["mimiciv_derived.gcs"]) == []  # no derived schema
    assert card.reference.file == "reference-eicu.sql"


def test_a_raw_mimic_card_loses_the_whole_derived_schema(catalog) -> None:
    card = catalog.task("mimic-gcs-24h-raw").card
    dropped = card.effective_drop_tables(["mimiciv_derived.age", "mimiciv_derived.gcs"])
    assert dropped == [
        "mimiciv_derived.age",
        "mimiciv_derived.first_day_gcs",
        "mimiciv_derived.gcs",
    ]
    standard = catalog.task("mimic-meld-24h").card
    assert standard.effective_drop_tables(["mimiciv_derived.age"]) == ["mimiciv_derived.meld"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('difficulty = "hard"', 'difficulty = "impossible"'), ":8: [metadata.difficulty]"),
        (("[controls]", "[controls]\nsentinel = 3"), "[controls.sentinel]"),
        (
            ('tags = ["cross-database"]', 'tags = ["x"]\ndepends_on = ["gcs"]'),
            "depends_on is derived",
        ),
        (("format_version = 1", "format_version = 2"), "[format_version]"),
        (("[evaluation]", "[evaluation"), "not valid TOML"),
        (("[controls]", "[extras]\nx = 1\n[controls]"), "[extras]"),
    ],
)
def test_card_errors_name_the_file_and_field(change: tuple[str, str], expected: str) -> None:
    text = EICU_CARD.replace(*change)
    with pytest.raises(M4BenchError) as caught:
        parse_card(text, Path("cards/eicu-gcs/task.toml"))
    assert "cards/eicu-gcs/task.toml" in caught.value.message
    assert expected in caught.value.message


def test_catalog_lookup_and_contents(catalog) -> None:
    assert len(catalog.tasks) == 28
    assert catalog.names == sorted(catalog.names)
    assert len(catalog.families) == 15
    task = catalog.task("mimic-sofa-24h-raw")
    assert task.operational_spec and "Operational specification" in task.operational_spec
    assert "{output_path}" not in task.render_instruction("./out.csv")
    assert "./out.csv" in task.render_instruction("./out.csv")
    assert task.provenance.review_status == "pending" and task.provenance.reviews == []
    with pytest.raises(M4BenchError, match="no task named 'mimic-sofa'") as caught:
        catalog.task("mimic-sofa")
    assert caught.value.hint and "mimic-sofa-24h" in caught.value.hint
    # A misspelling is no substring of the name, yet it is suggested.
    with pytest.raises(M4BenchError) as misspelled:
        catalog.task("mimic-ventilaton")
    assert misspelled.value.hint == "did you mean mimic-ventilation, mimic-ventilation-raw?"


def test_dependencies_are_read_from_sql_and_closed_over_the_library(catalog) -> None:
    kdigo = catalog.task("mimic-kdigo-48h")
    assert kdigo.direct_dependencies == ["kdigo_stages"]
    assert {"kdigo_creatinine", "kdigo_uo", "crrt", "urine_output"} <= set(kdigo.depends_on)
    assert catalog.task("mimic-charlson-raw").direct_dependencies == ["age"]
    assert catalog.task("mimic-charlson-raw").dependency_depth == 2


def test_concept_depth_counts_the_longest_chain() -> None:
    graph = {"a": frozenset(), "b": frozenset({"a"}), "c": frozenset({"a", "b"})}
    assert [concept_depth(n, graph) for n in ("a", "b", "c")] == [1, 2, 3]
    with pytest.raises(M4BenchError, match="cycle"):
        concept_depth("x", {"x": frozenset({"y"}), "y": frozenset({"x"})})


def test_raw_sql_skill_has_front_matter_and_the_query(catalog, tmp_path: Path) -> None:
    task = catalog.task("mimic-meld-24h-raw")
    folder, text = raw_sql_skill(task)
    header, body, _ = split_front_matter(text, tmp_path / "SKILL.md")
    assert folder == "mimic-meld-24h-raw"
    assert set(header) == {"name", "description", "version", "category"}
    assert header["name"] == folder
    assert f"```sql\n{task.reference_sql.strip()}\n```" in body
    written = write_skill(tmp_path, folder, text)
    assert parse_skill(written).name == folder


def test_decoy_is_the_papers_variant_of_another_familys_skill(catalog) -> None:
    name, text = decoy_skill(catalog.task("mimic-meld-24h-raw"), catalog)
    assert name == "kdigo-aki-staging"
    raw_variant = catalog.task("mimic-kdigo-48h-raw").skill_paths[name].read_text()
    assert text == raw_variant
    # decoy_from: the paper gave the raw KDIGO text to standard hosts too
    _, standard = decoy_skill(catalog.task("mimic-meld-24h"), catalog)
    assert standard == raw_variant
    assert standard != catalog.task("mimic-kdigo-48h").skill_paths[name].read_text()


def test_decoy_missing_from_the_catalog_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "catalog"
    shutil.copytree(CATALOG_ROOT / "sofa", root / "sofa")
    partial = load_catalog(root)
    with pytest.raises(M4BenchError, match="sapsii-score"):
        decoy_skill(partial.task("mimic-sofa-24h"), partial)


def test_a_catalog_with_a_duplicate_task_name_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "catalog"
    shutil.copytree(CATALOG_ROOT / "meld", root / "meld")
    shutil.copytree(root / "meld" / "mimic-meld-24h", root / "meld" / "copy")
    with pytest.raises(M4BenchError, match="defined twice"):
        load_catalog(root)


def test_every_skill_front_matter_parses(catalog) -> None:
    for task in catalog.tasks:
        for name, skill in task.skills.items():
            assert skill.name == name and skill.path == task.skill_paths[name]
            assert yaml.safe_load(skill.text.split("---")[1])["version"] == "1.0"
