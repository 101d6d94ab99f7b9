"""Obfuscated and restructured schemas: opaque names, lossless merges, equivalent answers."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from provision_helpers import SOURCE, Provisioned, checked_equivalence, mimic_tasks
from sweeps import SWEEP, swept

from m4bench.home import DataHome
from m4bench.provision.equivalence import (
    EquivalenceResult,
    compare_tables,
    create_views,
    load_mapping,
    run_transformed,
    verify_round_trip,
)
from m4bench.provision.ground_truth import ground_truth_path, representatives
from m4bench.provision.layout import mapping_path, task_catalog_paths
from m4bench.provision.mapping import SchemaMapping, build_mapping
from m4bench.provision.perturb import (
    build_obfuscated,
    build_restructured,
    describe_files,
    ensure_mapping,
    perturbed_view,
)
from m4bench.provision.preflight import check_agent_catalog
from m4bench.provision.provisioner import setup
from m4bench.provision.relations import SchemaView, native_view
from m4bench.provision.rewrite import transform_sql
from m4bench.sources.schema import create_empty_tables, dataset_schema
from m4bench.tasks.catalog import Catalog

pytestmark = pytest.mark.xdist_group("provision-synthetic")

MERGED_AWAY = (
    "mimiciv_icu.chartevents",
    "mimiciv_hosp.labevents",
    "mimiciv_hosp.patients",
    "mimiciv_hosp.admissions",
    "mimiciv_icu.icustays",
    "mimiciv_icu.inputevents",
    "mimiciv_icu.outputevents",
    "mimiciv_icu.d_items",
    "mimiciv_hosp.d_labitems",
)


@SWEEP
def test_equivalence_holds_for_every_mimic_reference(
    perturbed: list[EquivalenceResult],
    provisioned: Provisioned,
    catalog: Catalog,
    every: bool,
) -> None:
    """The sample the ``perturbed`` fixture checked; every reference in the heavy tier."""
    tasks = swept([catalog.task(n) for n in mimic_tasks(catalog)], every)
    results = checked_equivalence(provisioned, tasks) if every else perturbed
    expected = {t.name for t in representatives(tasks)}
    assert len(expected) >= (9 if every else 2)
    for variant in ("obfuscated", "restructured"):
        checked = {r.name: r for r in results if r.variant == variant and "." not in r.name}
        assert set(checked) == expected, variant
        failed = {name: r.detail for name, r in checked.items() if not r.ok}
        assert failed == {}, variant


def test_restructuring_round_trips_every_merged_table(perturbed: list[EquivalenceResult]) -> None:
    trips = {r.name: r for r in perturbed if "." in r.name}
    assert set(trips) == set(MERGED_AWAY)
    assert all(r.ok for r in trips.values()), {n: r.detail for n, r in trips.items()}


def test_obfuscated_files_carry_no_native_name(
    provisioned: Provisioned, perturbed: list[EquivalenceResult]
) -> None:
    view = perturbed_view(provisioned.home, SOURCE, "obfuscated")
    native = native_view(provisioned.source)
    assert len(view.files) == len(native.files)
    native_words = {part for name in native.files for part in name.split(".")}
    for name, path in view.files.items():
        assert not any(
            word in str(path.relative_to(provisioned.home.root))
            for word in native_words
            if len(word) > 3
        ), path
        columns = pq.read_schema(path).names
        assert all(column.startswith("c_") for column in columns), name


def test_mapping_ids_are_a_seeded_permutation_not_ranks(provisioned: Provisioned) -> None:
    described = describe_files(native_view(provisioned.source).files)
    first = build_mapping(described, 0, "data")
    assert build_mapping(described, 0, "data") == first
    other = build_mapping(described, 1, "data")
    assert other.tables != first.tables and other.columns != first.columns
    numbers = [int(first.tables[q].split("_")[-1]) for q in sorted(first.tables)]
    assert numbers != sorted(numbers) and numbers != sorted(numbers, reverse=True)
    columns = [int(first.columns[c][2:]) for c in sorted(first.columns)]
    assert columns != sorted(columns)
    assert len(set(first.tables.values())) == len(first.tables)
    assert len(set(first.columns.values())) == len(first.columns)


def test_rewrite_edits_the_tree_not_the_text() -> None:
    described = {
        "mimiciv_hosp.patients": [("subject_id", "INTEGER"), ("gender", "VARCHAR")],
        "mimiciv_hosp.admissions": [("subject_id", "INTEGER"), ("hadm_id", "INTEGER")],
    }
    mapping = build_mapping(described, 3, "data")
    sql = """
        -- reads mimiciv_hosp.patients
        WITH counted AS (
            SELECT patients.subject_id, COUNT(a.hadm_id) AS hadm_id
            FROM mimiciv_hosp.patients LEFT JOIN mimiciv_hosp.admissions AS a USING (subject_id)
            GROUP BY patients.subject_id
        )
        SELECT subject_id, hadm_id, 'subject_id' AS label FROM counted
    """
    out = transform_sql(sql, mapping, "obfuscated")
    patients = mapping.tables["mimiciv_hosp.patients"].split(".")[1]
    assert "mimiciv" not in out and "gender" not in out
    assert f"{patients}.{mapping.columns['subject_id']}" in out
    assert "'subject_id' AS label" in out
    assert f"AS {mapping.columns['hadm_id']}" in out
    assert f"USING ({mapping.columns['subject_id']})" in out


def test_perturbed_catalogs_expose_only_opaque_names(
    provisioned: Provisioned, perturbed: list[EquivalenceResult], catalog: Catalog
) -> None:
    home = provisioned.home
    names = ["mimic-kdigo-48h", "mimic-kdigo-48h-raw"]
    mapping = load_mapping(home, SOURCE)
    for variant in ("obfuscated", "restructured"):
        setup(home, SOURCE, names, variant, progress=False)
        view = perturbed_view(home, SOURCE, variant)
        derived = mapping.schemas["mimiciv_derived"]
        for name in names:
            paths = task_catalog_paths(home, SOURCE, variant, name)
            data = paths.catalog.read_bytes()
            for word in (b"mimiciv", b"kdigo", b"subject_id", b"chartevents", b"icustays"):
                assert word not in data, (variant, name, word)
            check = check_agent_catalog(home, SOURCE, catalog.task(name), view, mapping.table)
            assert check.ok, check.detail
            dictionary = (paths.root / "dictionary.md").read_text()
            assert "subject_id" not in dictionary and "icustays" not in dictionary
            assert mapping.columns["subject_id"] in dictionary
            assert (derived in dictionary) == name.endswith("48h")
            assert not any(p.name == "mapping.json" for p in paths.root.rglob("*"))
        raw = task_catalog_paths(home, SOURCE, variant, "mimic-kdigo-48h-raw").catalog
        assert derived.encode() not in raw.read_bytes()
    assert mapping_path(home, SOURCE).exists()
    text = task_catalog_paths(home, SOURCE, "restructured", names[0]).root / "dictionary.md"
    merged = mapping.merged["observations"]
    assert merged.table in text.read_text() and "'chart'" in text.read_text()


def mini_source(tmp_path: Path) -> SchemaView:
    """The nine merged tables, official columns, with a patient who has no admission
    and an admission with two ICU stays."""
    con = duckdb.connect()
    create_empty_tables(con, dataset_schema("mimic-iv"))
    con.execute(
        "INSERT INTO mimiciv_hosp.patients (subject_id, gender, anchor_age) "
        "VALUES (1, 'F', 60), (2, 'M', 70), (3, 'F', 50)"
    )
    con.execute(
        "INSERT INTO mimiciv_hosp.admissions (subject_id, hadm_id, admittime) VALUES "
        "(1, 10, '2150-01-01 08:00'), (2, 20, '2151-02-01 09:00')"
    )
    con.execute(
        "INSERT INTO mimiciv_icu.icustays (subject_id, hadm_id, stay_id, intime) VALUES "
        "(1, 10, 100, '2150-01-01 10:00'), (1, 10, 101, '2150-01-05 10:00'), "
        "(2, 20, 200, '2151-02-01 12:00')"
    )
    con.execute(
        "INSERT INTO mimiciv_icu.chartevents (subject_id, hadm_id, stay_id, itemid, "
        "charttime, valuenum) VALUES (1, 10, 100, 220045, '2150-01-01 11:00', 88.0)"
    )
    con.execute(
        "INSERT INTO mimiciv_hosp.labevents (labevent_id, subject_id, itemid, valuenum) "
        "VALUES (5, 3, 50912, 1.1)"
    )
    files = {}
    for qualified in MERGED_AWAY:
        path = tmp_path / "src" / f"{qualified}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY {qualified} TO '{path}' (FORMAT PARQUET)")
        files[qualified] = path
    con.close()
    return SchemaView("native", files, "mimiciv_derived", "mini-data")


def test_merges_keep_orphan_patients_and_multi_stay_admissions(tmp_path: Path) -> None:
    home = DataHome(tmp_path / "home")
    view = mini_source(tmp_path)
    mapping = ensure_mapping(home, "mini", view)
    obfuscated = build_obfuscated(home, "mini", view, mapping, progress=False)
    build_restructured(home, "mini", view, mapping, obfuscated, progress=False)
    trips = verify_round_trip(home, "mini")
    assert len(trips) == 9 and all(t.ok for t in trips), [t.detail for t in trips]
    encounters = perturbed_view(home, "mini", "restructured").files[
        mapping.merged["encounters"].table
    ]
    kinds = duckdb.sql(
        f"SELECT {mapping.merged['encounters'].discriminator} AS k, COUNT(*) FROM "
        f"read_parquet('{encounters}') GROUP BY k ORDER BY k"
    ).fetchall()
    assert kinds == [("admission", 2), ("icustay", 3), ("patient", 3)]
    sql = (
        "SELECT p.subject_id, COUNT(DISTINCT a.hadm_id) AS admissions, COUNT(i.stay_id) AS stays "
        "FROM mimiciv_hosp.patients AS p "
        "LEFT JOIN mimiciv_hosp.admissions AS a ON a.subject_id = p.subject_id "
        "LEFT JOIN mimiciv_icu.icustays AS i ON i.hadm_id = a.hadm_id GROUP BY p.subject_id"
    )
    con = duckdb.connect()
    create_views(con, view.files)
    native_rows = con.sql(sql + " ORDER BY 1").fetchall()
    con.close()
    assert native_rows == [(1, 1, 2), (2, 1, 1), (3, 0, 0)]
    restructured = perturbed_view(home, "mini", "restructured")
    out = run_transformed_sql(sql, mapping, restructured)
    assert out == native_rows


def run_transformed_sql(
    sql: str, mapping: SchemaMapping, view: SchemaView
) -> list[tuple[object, ...]]:
    con = duckdb.connect()
    try:
        create_views(con, view.files)
        return con.sql(transform_sql(sql, mapping, "restructured") + " ORDER BY 1").fetchall()
    finally:
        con.close()


def test_equivalence_catches_a_wrong_rewrite(
    provisioned: Provisioned, perturbed: list[EquivalenceResult], catalog: Catalog
) -> None:
    """Reading ICU stays back with the admissions' discriminator value gives other rows."""
    task = catalog.task("mimic-kdigo-48h")
    truth = pq.read_table(ground_truth_path(provisioned.home, SOURCE, task))
    mapping = load_mapping(provisioned.home, SOURCE)
    view = perturbed_view(provisioned.home, SOURCE, "restructured")
    good = run_transformed(task, mapping, view, "restructured")
    assert compare_tables(truth, good)[0]
    wrong = mapping.model_copy(deep=True)
    wrong.merged["encounters"].values["mimiciv_icu.icustays"] = "admission"
    ok, detail = compare_tables(truth, run_transformed(task, wrong, view, "restructured"))
    assert not ok and detail
