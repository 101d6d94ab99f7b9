"""Mutants in the catalog: every family has real, small, well-formed wrong variants."""

from __future__ import annotations

import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from m4bench.errors import M4BenchError
from m4bench.tasks.catalog import CATALOG_ROOT, load_catalog
from m4bench.tasks.finding import Finding
from m4bench.tasks.mutant_lint import (
    MAX_CHANGED_LINES,
    MUTANT_RULES,
    changed_lines,
    lint_mutants,
    normalized,
)
from m4bench.tasks.mutants import (
    catalog_mutant_source,
    exempt_columns,
    family_mutants,
    find_mutant,
    parse_mutants_file,
    task_mutants,
)


def test_every_family_has_four_mutants_and_every_task_at_least_one() -> None:
    catalog = load_catalog()
    assert len(catalog.families) == 15
    for family in catalog.families:
        assert len(family_mutants(catalog.family(family)[0].family_dir)) >= 4, family
    for task in catalog.tasks:
        assert task_mutants(task), task.name


def test_the_catalog_mutants_pass_lint(catalog_findings: list[Finding]) -> None:
    assert [f for f in catalog_findings if f.rule in MUTANT_RULES] == []


def test_each_mutant_is_a_small_change_in_meaning() -> None:
    catalog = load_catalog()
    for task in catalog.tasks:
        reference = normalized(task.reference_sql)
        for mutant in task_mutants(task):
            assert normalized(mutant.sql) != reference, mutant.path
            assert 0 < changed_lines(task.reference_sql, mutant.sql) <= MAX_CHANGED_LINES


def test_changed_lines_counts_added_and_removed_lines() -> None:
    assert changed_lines("a\nb\nc\n", "a\nB\nc\n") == 2
    assert changed_lines("a\nb\n", "a\nb\nc\n") == 1
    assert changed_lines("a\n", "a\n") == 0


def test_layout_and_comments_do_not_make_a_mutant() -> None:
    assert normalized("SELECT a FROM t -- x") == normalized("select  a\nfrom t")
    assert normalized("SELECT a FROM t WHERE b > 1") != normalized("SELECT a FROM t WHERE b >= 1")


def test_the_runner_lookup_returns_the_mutant_sql() -> None:
    catalog = load_catalog()
    lookup = catalog_mutant_source(catalog)
    task = catalog.task("mimic-kdigo-48h")
    mutant = task_mutants(task)[0]
    (edit,) = mutant.spec.edits
    edited = task.reference_sql.replace(edit.find, edit.replace)
    sql = lookup("mimic-kdigo-48h", mutant.name)
    assert sql.startswith(f"-- KNOWN WRONG (mutant {mutant.name} of reference.sql): ")
    assert sql.split("\n", 1)[1] == edited != task.reference_sql


def test_a_fix_to_the_reference_reaches_its_mutants(kdigo_copy: Path) -> None:
    reference = kdigo_copy / "kdigo" / "reference.sql"
    fixed = reference.read_text().replace("stage seen;", "stage seen (fixed);")
    reference.write_text(fixed)
    task = load_catalog(kdigo_copy).task("mimic-kdigo-48h")
    assert all("stage seen (fixed);" in m.sql for m in task_mutants(task))


def test_an_unknown_mutant_names_the_known_ones() -> None:
    task = load_catalog().task("eicu-gcs")
    with pytest.raises(M4BenchError) as err:
        find_mutant(task, "no-such-mistake")
    known = [m.name for m in task_mutants(task)]
    assert all(name in err.value.message for name in known)
    # the MIMIC-IV mutants of the same family do not apply to the eICU task
    assert all(m.spec.reference == "reference-eicu.sql" for m in task_mutants(task))


def test_exempt_columns_are_scored_columns_with_a_reason() -> None:
    catalog = load_catalog()
    for task in catalog.tasks:
        for column, reason in exempt_columns(task).items():
            assert column in task.card.evaluation.scored_columns
            assert len(reason) >= 10


@pytest.fixture
def kdigo_copy(tmp_path: Path) -> Path:
    """A catalog holding only the kdigo family, copied, to break on purpose."""
    root = tmp_path / "catalog"
    shutil.copytree(CATALOG_ROOT / "kdigo", root / "kdigo")
    return root


def _rules(root: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in lint_mutants(load_catalog(root)):
        found.setdefault(finding.rule, []).append(finding.message)
    return found


def _edit_mutants(root: Path, change: Callable[[dict[str, dict[str, Any]]], None]) -> Path:
    """Rewrite the kdigo ``mutants.toml`` after ``change`` edits its entries by name."""
    toml = root / "kdigo" / "mutants.toml"
    raw = tomllib.loads(toml.read_text())
    change({m["name"]: m for m in raw["mutant"]})
    toml.write_text(tomli_w.dumps(raw, multiline_strings=True))
    return toml


def test_lint_finds_a_mutant_that_only_changes_layout(kdigo_copy: Path) -> None:
    def layout_only(mutants: dict[str, dict[str, Any]]) -> None:
        (edit,) = mutants["window-72h"]["edits"]
        edit["replace"] = "-- reformatted\n" + edit["find"].lower()

    _edit_mutants(kdigo_copy, layout_only)
    assert "mutant-differs" in _rules(kdigo_copy)


def test_lint_finds_edits_that_do_not_apply_and_oversized_mutants(kdigo_copy: Path) -> None:
    padding = "".join(f"-- line {i}\n" for i in range(MAX_CHANGED_LINES + 1))

    def break_edits(mutants: dict[str, dict[str, Any]]) -> None:
        mutants["window-72h"]["edits"][0]["find"] = "no such text in the reference"
        mutants["window-opens-6h-early"]["edits"][0]["find"] = "ie.intime"
        big = mutants["no-stage-left-null"]["edits"][0]
        big["replace"] = padding + big["replace"]

    _edit_mutants(kdigo_copy, break_edits)
    found = _rules(kdigo_copy)
    assert any("window-72h, edit 1" in m and "0 times" in m for m in found["mutant-edits"])
    assert any("window-opens-6h-early, edit 1" in m for m in found["mutant-edits"])
    assert "mutant-small" in found


def test_overlapping_edits_are_refused(kdigo_copy: Path) -> None:
    def overlap(mutants: dict[str, dict[str, Any]]) -> None:
        edits = mutants["window-72h"]["edits"]
        find = edits[0]["find"]
        edits.append({"find": find.strip(), "replace": find.strip().lower()})

    _edit_mutants(kdigo_copy, overlap)
    assert any("overlaps" in m for m in _rules(kdigo_copy)["mutant-edits"])


def test_lint_finds_changed_columns_unknown_moves_and_too_few(kdigo_copy: Path) -> None:
    def rename_and_claim(mutants: dict[str, dict[str, Any]]) -> None:
        rename = {"find": "AS aki_stage_crrt", "replace": "AS crrt_stage"}
        mutants["window-72h"]["edits"].append(rename)
        mutants["overall-stage-ignores-rrt"]["moves"].append("not_a_column")

    toml = _edit_mutants(kdigo_copy, rename_and_claim)
    found = _rules(kdigo_copy)
    assert "mutant-columns" in found
    assert any("not_a_column" in m for m in found["mutant-moves"])
    entries = parse_mutants_file(toml).mutant
    kept = [m.model_dump(exclude_none=True) for m in entries[:2]]
    toml.write_text(tomli_w.dumps({"format_version": 1, "mutant": kept}))
    assert any("at least 4" in m for m in _rules(kdigo_copy)["mutants-count"])


def test_a_malformed_mutants_file_is_named(kdigo_copy: Path) -> None:
    toml = kdigo_copy / "kdigo" / "mutants.toml"
    toml.write_text('format_version = 1\n[[mutant]]\nname = "Bad Name"\nrationale = "x"\n')
    with pytest.raises(M4BenchError) as err:
        parse_mutants_file(toml)
    assert str(toml) in err.value.message and "name" in err.value.message
    assert "mutants-file" in _rules(kdigo_copy)


def test_the_name_first_is_reserved_for_every_tasks_first_mutant(kdigo_copy: Path) -> None:
    toml = kdigo_copy / "kdigo" / "mutants.toml"
    entries = parse_mutants_file(toml).mutant
    renamed = [m.model_dump(exclude_none=True) for m in entries]
    renamed[1]["name"] = "first"
    toml.write_text(tomli_w.dumps({"format_version": 1, "mutant": renamed}))
    with pytest.raises(M4BenchError) as err:
        parse_mutants_file(toml)
    assert "'first', which is reserved" in err.value.message
    assert any("reserved" in m for m in _rules(kdigo_copy)["mutants-file"])


def test_every_rule_is_documented() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "validity.md").read_text()
    assert [rule for rule in MUTANT_RULES if f"`{rule}`" not in docs] == []


def test_a_mutant_limited_to_tasks_applies_to_those_only(kdigo_copy: Path) -> None:
    toml = kdigo_copy / "kdigo" / "mutants.toml"
    text = toml.read_text().replace(
        'name = "window-72h"\n', 'name = "window-72h"\ntasks = ["mimic-kdigo-48h"]\n'
    )
    toml.write_text(text)
    catalog = load_catalog(kdigo_copy)
    standard = [m.name for m in task_mutants(catalog.task("mimic-kdigo-48h"))]
    raw = [m.name for m in task_mutants(catalog.task("mimic-kdigo-48h-raw"))]
    assert "window-72h" in standard and "window-72h" not in raw
    assert lint_mutants(catalog) == []
    toml.write_text(text.replace('tasks = ["mimic-kdigo-48h"]', 'tasks = ["mimic-sofa-24h"]'))
    assert any("mimic-sofa-24h" in m for m in _rules(kdigo_copy)["mutant-reference"])
