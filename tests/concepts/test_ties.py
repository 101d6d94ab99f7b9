"""Tie declarations: every ``*.ties.toml`` beside a concept or reference applies to its
SQL, and a declaration whose edit does not pin one place is refused."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import duckdb
import pytest
import sqlglot
from concept_rows import at, chart, fetch_rows, insert_rows, stay

from m4bench.concepts.library import SQL_ROOT, ConceptLibrary
from m4bench.concepts.materialize import create_concept_table
from m4bench.concepts.ties import TIES_SUFFIX, apply_orders, load_ties
from m4bench.errors import M4BenchError
from m4bench.provision.tie_scenarios import (
    Scenario,
    combined_scenarios,
    single_scenarios,
    task_tie_files,
    task_ties,
)
from m4bench.tasks.catalog import CATALOG_ROOT, load_catalog

LIBRARY = ConceptLibrary.load("mimic-iv")


def _declared() -> list[Path]:
    return sorted([*SQL_ROOT.rglob(f"*{TIES_SUFFIX}"), *CATALOG_ROOT.rglob(f"*{TIES_SUFFIX}")])


def test_every_declaration_edits_its_sql_into_another_query() -> None:
    files = _declared()
    assert {f.name for f in files} >= {"bg.ties.toml", "first_day_gcs.ties.toml"}
    for ties_file in files:
        sql_path = ties_file.with_name(ties_file.name.removesuffix(TIES_SUFFIX) + ".sql")
        sql = sql_path.read_text()
        ties = load_ties(sql_path, sql_path.stem, sql)
        assert ties, ties_file
        for tie in ties:
            for order in tie.point.alternative:
                edited = apply_orders(sql, [(tie, order)])
                assert edited != sql
                assert sqlglot.parse_one(edited, read="duckdb") is not None


def test_tasks_depend_on_the_ties_of_their_concepts_and_reference() -> None:
    catalog = load_catalog()
    ids = {name: [t.id for t in task_ties(catalog.task(name), LIBRARY)] for name in catalog.names}
    assert ids["mimic-apsiii-24h"] == ["bg:simultaneous-gases", "first_day_gcs:equally-low-gcs"]
    assert ids["mimic-gcs-24h-raw"] == ["gcs/reference.sql:equally-low-gcs"]
    assert ids["mimic-sofa-24h"] == ["bg:simultaneous-gases", "first_day_gcs:equally-low-gcs"]
    assert ids["mimic-kdigo-48h"] == ["weight_durations:same-start-weights"]
    assert ids["mimic-meld-24h"] == [] and ids["eicu-gcs"] == []
    # the staleness check finds the same files without parsing the library
    for name in ("mimic-apsiii-24h", "mimic-sapsii-24h", "mimic-kdigo-48h", "mimic-meld-24h"):
        task = catalog.task(name)
        found = {(t.owner, t.path) for t in task_ties(task, LIBRARY)}
        assert set(task_tie_files(task)) == found


def test_an_edit_found_twice_or_not_at_all_is_refused(tmp_path: Path) -> None:
    sql_path = tmp_path / "demo.sql"
    sql = "SELECT a FROM t ORDER BY a, b\nUNION ALL SELECT a FROM t ORDER BY a, b\n"
    sql_path.write_text(sql)
    declaration = """format_version = 1
[[tie]]
name = "demo"
rows = "rows sharing a"
kept = "lowest b"
why = "nothing orders b clinically"
[[tie.alternative]]
name = "highest-b"
kept = "highest b"
[[tie.alternative.edits]]
find = "{find}"
replace = "ORDER BY a, b DESC"
"""
    ties_path = tmp_path / "demo.ties.toml"
    ties_path.write_text(declaration.format(find="ORDER BY a, b"))
    with pytest.raises(M4BenchError, match="occurs 2 times"):
        load_ties(sql_path, "demo", sql)
    ties_path.write_text(declaration.format(find="ORDER BY c"))
    with pytest.raises(M4BenchError, match="occurs 0 times"):
        load_ties(sql_path, "demo", sql)


def test_scenarios_run_each_order_then_the_effective_ones_combined() -> None:
    task = load_catalog().task("mimic-apsiii-24h")
    gas, gcs = task_ties(task, LIBRARY)
    singles = single_scenarios([gas, gcs])
    assert [s.label for s in singles] == [
        "bg:simultaneous-gases=highest-specimen-id",
        "first_day_gcs:equally-low-gcs=latest-charttime",
    ]
    both = {tie.id: [s.choices[0]] for tie, s in zip((gas, gcs), singles, strict=True)}
    assert [s.label for s in combined_scenarios(both)] == [
        "bg:simultaneous-gases=highest-specimen-id + first_day_gcs:equally-low-gcs=latest-charttime"
    ]
    assert combined_scenarios({gas.id: both[gas.id]}) == []
    assert Scenario(singles[0].choices).reference_sql(task) == task.reference_sql


def test_the_other_weight_order_covers_the_interval_with_the_other_weight(
    mimic_con: duckdb.DuckDBPyConnection, concept_library: ConceptLibrary
) -> None:
    """Two daily weights charted together: either may cover the time that follows."""
    insert_rows(mimic_con, "mimiciv_icu.icustays", [stay(1, 10, 1)])
    insert_rows(
        mimic_con, "mimiciv_icu.chartevents", [chart(1, 224639, 5, 80.0), chart(1, 224639, 5, 90.0)]
    )
    concept = concept_library.get("weight_durations")
    (tie,) = load_ties(concept.path, concept.name, concept.query)
    covering = []
    for choices in ([], [(tie, tie.point.alternative[0])]):
        edited = replace(concept, sql=apply_orders(concept.sql, choices))
        mimic_con.execute("CREATE SCHEMA IF NOT EXISTS mimiciv_derived")
        create_concept_table(mimic_con, edited)
        found = fetch_rows(mimic_con, "weight_durations", "starttime, endtime")
        covering.append([(r["starttime"], r["endtime"], r["weight"]) for r in found][-1])
    assert covering == [(at(5), at(74), 90.0), (at(5), at(74), 80.0)]
