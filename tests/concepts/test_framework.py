"""The concept framework: graph from SQL, validation errors, incremental and atomic builds."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from m4bench.concepts.build import (
    BuildEvent,
    build_concepts,
    derived_tables,
    read_build_manifest,
)
from m4bench.concepts.graph import layers, to_dot, topological_order
from m4bench.concepts.library import CATEGORIES, ConceptLibrary
from m4bench.concepts.materialize import materialize
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources.layout import (
    Source,
    SourceLayout,
    SourceManifest,
    record_table,
    write_parquet,
)

SOURCES = {"mimiciv_hosp.patients", "mimiciv_hosp.admissions"}


def write_concept(root: Path, category: str, name: str, query: str, note: str = "") -> Path:
    path = root / category / f"{name}.sql"
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = f"-- {note}\n" if note else ""
    path.write_text(
        f"-- {name}: test concept {name}\n-- Grain: one row per thing\n{extra}{query}\n"
    )
    return path


def small_library(root: Path) -> Path:
    write_concept(
        root,
        "demographics",
        "adults",
        "SELECT subject_id, anchor_age FROM mimiciv_hosp.patients WHERE anchor_age >= 18;",
    )
    write_concept(
        root,
        "demographics",
        "old",
        "WITH adults AS (SELECT * FROM mimiciv_derived.adults) "
        "SELECT subject_id FROM adults WHERE anchor_age >= 65",
    )
    write_concept(
        root,
        "score",
        "admission_count",
        "SELECT a.subject_id, COUNT(ad.hadm_id) AS n FROM mimiciv_derived.adults AS a "
        "LEFT JOIN mimiciv_hosp.admissions AS ad USING (subject_id) "
        "LEFT JOIN mimiciv_derived.old AS o USING (subject_id) GROUP BY a.subject_id",
    )
    return root


def test_dependencies_come_from_the_sql_and_skip_cte_names(tmp_path: Path) -> None:
    lib = ConceptLibrary.load(root=small_library(tmp_path), source_tables=SOURCES)
    old = lib.get("old")
    assert old.dependencies == ("adults",)  # the CTE named `adults` is not a second edge
    assert old.source_tables == ()
    count = lib.get("admission_count")
    assert count.dependencies == ("adults", "old")
    assert count.source_tables == ("mimiciv_hosp.admissions",)
    assert count.category == "score"
    assert [c.name for c in lib.order()] == ["adults", "old", "admission_count"]
    assert [c.name for c in lib.order(["old"])] == ["adults", "old"]
    assert lib.dependents("adults") == ["admission_count", "old"]
    assert count.query.endswith("GROUP BY a.subject_id")
    assert lib.get("adults").query.endswith(">= 18")  # trailing semicolon stripped


def test_layers_and_dot_follow_the_edges() -> None:
    edges = {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"], "e": []}
    assert layers(edges) == [["a", "e"], ["b", "c"], ["d"]]
    dot = to_dot(edges, {"a": "demographics", "d": "score"})
    assert '"a" -> "b";' in dot and '"c" -> "d";' in dot
    assert 'label="score"' in dot
    assert dot.startswith("digraph concepts {")


def test_cycle_is_an_error_naming_the_files(tmp_path: Path) -> None:
    write_concept(tmp_path, "score", "first", "SELECT * FROM mimiciv_derived.second")
    write_concept(tmp_path, "score", "second", "SELECT * FROM mimiciv_derived.third")
    write_concept(tmp_path, "score", "third", "SELECT * FROM mimiciv_derived.first")
    with pytest.raises(M4BenchError) as info:
        ConceptLibrary.load(root=tmp_path, source_tables=SOURCES)
    message = str(info.value)
    assert "cycle" in message
    for name in ("first", "second", "third"):
        assert str(tmp_path / "score" / f"{name}.sql") in message


def test_topological_order_reports_a_self_loop() -> None:
    with pytest.raises(M4BenchError, match="x -> x"):
        topological_order({"x": ["x"]}, {"x": "x.sql"})


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT * FROM mimiciv_derived.nowhere", "mimiciv_derived.nowhere, which no concept"),
        ("SELECT * FROM mimiciv_hosp.nosuch", "mimiciv_hosp.nosuch, which is not a table"),
        ("SELECT * FROM patients", "neither a CTE nor schema-qualified"),
        ("SELECT 1; SELECT 2", "exactly one SELECT"),
        ("CREATE TABLE x AS SELECT 1", "exactly one SELECT"),
        ("SELECT FROM WHERE (", "cannot parse"),
    ],
)
def test_bad_sql_is_an_error_naming_the_file(tmp_path: Path, query: str, expected: str) -> None:
    path = write_concept(tmp_path, "score", "broken", query)
    with pytest.raises(M4BenchError) as info:
        ConceptLibrary.load(root=tmp_path, source_tables=SOURCES)
    assert str(path) in str(info.value)
    assert expected in str(info.value)


def test_a_changed_file_is_parsed_again_and_a_fixed_error_is_not_remembered(
    tmp_path: Path,
) -> None:
    """Each concept text is parsed once per process: the text, not the path, decides."""
    small_library(tmp_path)
    assert ConceptLibrary.load(root=tmp_path, source_tables=SOURCES).get("old").dependencies == (
        "adults",
    )
    write_concept(tmp_path, "demographics", "old", "SELECT * FROM mimiciv_hosp.nosuch")
    with pytest.raises(M4BenchError, match=r"mimiciv_hosp\.nosuch, which is not a table"):
        ConceptLibrary.load(root=tmp_path, source_tables=SOURCES)
    write_concept(tmp_path, "demographics", "old", "SELECT * FROM mimiciv_hosp.admissions")
    old = ConceptLibrary.load(root=tmp_path, source_tables=SOURCES).get("old")
    assert (old.dependencies, old.source_tables) == ((), ("mimiciv_hosp.admissions",))


def test_header_is_required(tmp_path: Path) -> None:
    path = tmp_path / "score" / "bare.sql"
    path.parent.mkdir()
    path.write_text("SELECT 1\n")
    with pytest.raises(M4BenchError, match="first line must be"):
        ConceptLibrary.load(root=tmp_path, source_tables=SOURCES)
    path.write_text("-- bare: no grain\nSELECT 1\n")
    with pytest.raises(M4BenchError, match="Grain"):
        ConceptLibrary.load(root=tmp_path, source_tables=SOURCES)


def test_header_notes_and_deviations_are_parsed(tmp_path: Path) -> None:
    note = "Deviation: fixes a typo\n-- that spans two lines\n--\n-- A plain note.\n--"
    write_concept(tmp_path, "score", "noted", "SELECT 1 AS x", note=note)
    concept = ConceptLibrary.load(root=tmp_path, source_tables=SOURCES).get("noted")
    assert concept.header.summary == "test concept noted"
    assert concept.header.grain == "one row per thing"
    assert concept.header.deviations == ("fixes a typo that spans two lines",)
    assert concept.header.notes[-1] == "A plain note."


def test_duplicate_names_across_categories_are_an_error(tmp_path: Path) -> None:
    write_concept(tmp_path, "score", "twice", "SELECT 1 AS x")
    write_concept(tmp_path, "sepsis", "twice", "SELECT 2 AS x")
    with pytest.raises(M4BenchError, match="also defined"):
        ConceptLibrary.load(root=tmp_path, source_tables=SOURCES)


def test_materialize_without_dependencies_reads_existing_tables(tmp_path: Path) -> None:
    lib = ConceptLibrary.load(root=small_library(tmp_path), source_tables=SOURCES)
    con = duckdb.connect()
    con.execute("CREATE SCHEMA mimiciv_derived")
    con.execute("CREATE TABLE mimiciv_derived.adults AS SELECT 7 AS subject_id, 70 AS anchor_age")
    materialize(con, lib, ["old"], with_dependencies=False)
    assert con.execute("SELECT * FROM mimiciv_derived.old").fetchall() == [(7,)]
    with pytest.raises(M4BenchError, match=r"admission_count\.sql"):
        materialize(con, lib, ["admission_count"], with_dependencies=False)


# --- builds into a source ---------------------------------------------------------------


def make_source(home: Path, patients: list[tuple[int, int]]) -> Source:
    layout = SourceLayout(DataHome(home).source_dir("tiny"))
    layout.root.mkdir(parents=True)
    manifest = SourceManifest(
        name="tiny", dataset="mimic-iv", dataset_version="3.1", kind="synthetic", public=True
    )
    write_patients(layout, manifest, patients)
    con = duckdb.connect()
    rows = write_parquet(
        con,
        "SELECT 1 AS subject_id, 10 AS hadm_id UNION ALL SELECT 1, 11",
        layout.table_path("mimiciv_hosp", "admissions"),
    )
    record_table(layout, manifest, "mimiciv_hosp.admissions", rows)
    return Source(layout, manifest)


def write_patients(
    layout: SourceLayout, manifest: SourceManifest, patients: list[tuple[int, int]]
) -> None:
    values = ", ".join(f"({s}, {a})" for s, a in patients)
    con = duckdb.connect()
    rows = write_parquet(
        con,
        f"SELECT * FROM (VALUES {values}) AS t(subject_id, anchor_age)",
        layout.table_path("mimiciv_hosp", "patients"),
    )
    record_table(layout, manifest, "mimiciv_hosp.patients", rows)


def run_build(source: Source, lib: ConceptLibrary, only: list[str] | None = None) -> dict[str, str]:
    events: list[BuildEvent] = []
    build_concepts(source, only=only, jobs=2, progress=False, library=lib, on_event=events.append)
    return {event.name: event.action for event in events}


def test_build_writes_parquet_manifest_and_catalog(tmp_path: Path) -> None:
    lib = ConceptLibrary.load(root=small_library(tmp_path / "lib"), source_tables=SOURCES)
    source = make_source(tmp_path / "home", [(1, 70), (2, 30), (3, 10)])
    assert run_build(source, lib) == dict.fromkeys(["adults", "old", "admission_count"], "built")
    manifest = read_build_manifest(source)
    assert manifest is not None
    assert {n: e.rows for n, e in manifest.concepts.items()} == {
        "adults": 2,
        "old": 1,
        "admission_count": 2,
    }
    assert manifest.concepts["admission_count"].inputs.keys() == {
        "mimiciv_hosp.admissions",
        "mimiciv_derived.adults",
        "mimiciv_derived.old",
    }
    assert [q for q, _ in derived_tables(source)] == [
        "mimiciv_derived.admission_count",
        "mimiciv_derived.adults",
        "mimiciv_derived.old",
    ]
    with source.connect() as con:
        result = con.execute("SELECT * FROM mimiciv_derived.admission_count ORDER BY 1").fetchall()
    assert result == [(1, 2), (2, 0)]


def test_build_only_builds_the_named_concept_and_its_inputs(tmp_path: Path) -> None:
    lib = ConceptLibrary.load(root=small_library(tmp_path / "lib"), source_tables=SOURCES)
    source = make_source(tmp_path / "home", [(1, 70)])
    assert run_build(source, lib, only=["old"]) == {"adults": "built", "old": "built"}
    assert run_build(source, lib) == {
        "adults": "up-to-date",
        "old": "up-to-date",
        "admission_count": "built",
    }


def test_rebuild_happens_only_when_sql_or_inputs_change(tmp_path: Path) -> None:
    root = small_library(tmp_path / "lib")
    source = make_source(tmp_path / "home", [(1, 70), (2, 30)])
    lib = ConceptLibrary.load(root=root, source_tables=SOURCES)
    run_build(source, lib)
    assert set(run_build(source, lib).values()) == {"up-to-date"}

    # Same output, different SQL text: the concept reruns, its readers see an equal hash.
    write_concept(
        root,
        "demographics",
        "old",
        "SELECT subject_id FROM mimiciv_derived.adults WHERE anchor_age >= 65",
        note="reworded",
    )
    lib = ConceptLibrary.load(root=root, source_tables=SOURCES)
    assert run_build(source, lib) == {
        "adults": "up-to-date",
        "old": "built",
        "admission_count": "up-to-date",
    }

    # A changed source table reaches every concept downstream of it.
    write_patients(source.layout, source.manifest, [(1, 70), (2, 30), (4, 90)])
    assert run_build(source, lib) == dict.fromkeys(["adults", "old", "admission_count"], "built")

    # A deleted output file is rebuilt; its readers are not, since its content is the same.
    (source.layout.table_path("mimiciv_derived", "adults")).unlink()
    assert run_build(source, lib) == {
        "adults": "built",
        "old": "up-to-date",
        "admission_count": "up-to-date",
    }


def test_failed_concept_leaves_finished_tables_and_manifest_intact(tmp_path: Path) -> None:
    root = small_library(tmp_path / "lib")
    source = make_source(tmp_path / "home", [(1, 70), (2, 30)])
    run_build(source, ConceptLibrary.load(root=root, source_tables=SOURCES))
    old_file = source.layout.table_path("mimiciv_derived", "old")
    before = old_file.read_bytes()

    write_concept(
        root,
        "demographics",
        "old",
        "SELECT CAST('not a number' AS INTEGER) AS subject_id FROM mimiciv_derived.adults",
    )
    lib = ConceptLibrary.load(root=root, source_tables=SOURCES)
    with pytest.raises(M4BenchError) as info:
        run_build(source, lib)
    assert str(root / "demographics" / "old.sql") in str(info.value)
    assert old_file.read_bytes() == before  # the previous good output is untouched
    leftovers = [p.name for p in old_file.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    manifest = read_build_manifest(source)
    assert manifest is not None and set(manifest.concepts) == {"adults", "old", "admission_count"}
    with source.connect() as con:  # the catalog still serves every built table
        assert con.execute("SELECT COUNT(*) FROM mimiciv_derived.old").fetchone() == (1,)


def test_the_shipped_library_is_valid_and_builds_on_empty_tables(
    concept_library: ConceptLibrary, mimic_con: duckdb.DuckDBPyConnection
) -> None:
    assert len(concept_library.names) >= 40
    for concept in concept_library.concepts.values():
        assert concept.category in CATEGORIES, concept.path
        assert concept.header.summary and concept.header.grain, concept.path
    materialize(mimic_con, concept_library)
    built = mimic_con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'mimiciv_derived'"
    ).fetchall()
    assert {name for (name,) in built} == set(concept_library.names)


def test_docs_list_every_concept_with_columns_and_deviations(tmp_path: Path) -> None:
    from m4bench.concepts.docs import render

    write_concept(tmp_path, "score", "noted", "SELECT 1 AS x", note="Deviation: fixes a typo")
    write_concept(tmp_path, "demographics", "plain", "SELECT subject_id FROM mimiciv_hosp.patients")
    lib = ConceptLibrary.load(root=tmp_path, source_tables=SOURCES)
    page = render(lib, {"plain": [("subject_id", "INTEGER")]})
    assert page.index("## demographics") < page.index("## score")  # fixed category order
    assert "- `noted`: fixes a typo" in page
    assert "- Columns: `subject_id` INTEGER" in page
    assert "- Inputs: `mimiciv_hosp.patients`" in page


def test_cli_lists_and_graphs_the_shipped_library(concept_library: ConceptLibrary) -> None:
    import json

    from typer.testing import CliRunner

    from m4bench.cli import app

    runner = CliRunner()
    listed = runner.invoke(app, ["concepts", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    names = [record["name"] for record in json.loads(listed.output)]
    assert sorted(names) == concept_library.names
    assert names.index("icustay_times") < names.index("icustay_hourly")
    shown = runner.invoke(app, ["concepts", "list"], env={"COLUMNS": "400"})
    assert shown.exit_code == 0 and "grain" in shown.output.splitlines()[1]
    grain = concept_library.get("icustay_hourly").header.grain
    assert any("icustay_hourly" in line and grain in line for line in shown.output.splitlines())
    dot = runner.invoke(app, ["concepts", "graph", "--dot"])
    assert dot.exit_code == 0
    assert '"vitalsign" -> "first_day_vitalsign";' in dot.output


def test_a_source_missing_an_input_table_is_an_error_naming_the_file(tmp_path: Path) -> None:
    root = small_library(tmp_path / "lib")
    source = make_source(tmp_path / "home", [(1, 70)])
    del source.manifest.tables["mimiciv_hosp.admissions"]
    lib = ConceptLibrary.load(root=root, source_tables=SOURCES)
    with pytest.raises(M4BenchError) as info:
        run_build(source, lib)
    assert str(root / "score" / "admission_count.sql") in str(info.value)
    assert "mimiciv_hosp.admissions" in str(info.value)
    manifest = read_build_manifest(source)  # the concepts that could be built were kept
    assert manifest is not None and set(manifest.concepts) == {"adults", "old"}


def test_every_shipped_concept_has_a_hand_built_test(concept_library: ConceptLibrary) -> None:
    here = Path(__file__).parent
    skip = {"test_framework.py", "test_library_on_synthetic.py"}
    text = "".join(p.read_text() for p in sorted(here.glob("test_*.py")) if p.name not in skip)
    untested = [name for name in concept_library.names if f'"{name}"' not in text]
    assert untested == []


def test_a_second_writer_is_refused_while_a_build_holds_the_source(tmp_path: Path) -> None:
    from m4bench.sources.lock import source_lock

    lib = ConceptLibrary.load(root=small_library(tmp_path / "lib"), source_tables=SOURCES)
    source = make_source(tmp_path / "home", [(1, 70)])
    with source_lock(source.layout), pytest.raises(M4BenchError, match="another m4bench"):
        run_build(source, lib)
    assert read_build_manifest(source) is None


def test_an_up_to_date_build_reads_while_another_process_holds_the_source(
    tmp_path: Path,
) -> None:
    from m4bench.sources.lock import source_lock

    root = small_library(tmp_path / "lib")
    source = make_source(tmp_path / "home", [(1, 70)])
    run_build(source, ConceptLibrary.load(root=root, source_tables=SOURCES))
    with source_lock(source.layout):  # e.g. a second `m4bench setup` of the same source
        lib = ConceptLibrary.load(root=root, source_tables=SOURCES)
        assert set(run_build(source, lib).values()) == {"up-to-date"}
        old = root / "demographics" / "old.sql"
        old.write_text(old.read_text() + "\n-- edited\n")
        edited = ConceptLibrary.load(root=root, source_tables=SOURCES)
        with pytest.raises(M4BenchError, match="another m4bench"):
            run_build(source, edited)  # something to write: the lock is needed


def test_synth_force_cannot_replace_a_source_while_its_concepts_are_being_built(
    tmp_path: Path,
) -> None:
    from m4bench.sources.synth import synthesize_mimic_iv

    lib = ConceptLibrary.load(root=small_library(tmp_path / "lib"), source_tables=SOURCES)
    source = make_source(tmp_path / "home", [(1, 70), (2, 80)])
    before = source.layout.manifest_path.read_bytes()
    refused: list[str] = []

    def replace_it(event: BuildEvent) -> None:  # runs while the build holds the source
        try:
            synthesize_mimic_iv(DataHome(tmp_path / "home"), "tiny", stays=5, force=True)
        except M4BenchError as exc:
            refused.append(exc.message)

    build_concepts(source, jobs=1, progress=False, library=lib, on_event=replace_it)
    assert refused == ["source 'tiny' is being written by another m4bench process"] * 3
    assert source.layout.manifest_path.read_bytes() == before
    manifest = read_build_manifest(source)
    assert manifest is not None and set(manifest.concepts) == {"adults", "old", "admission_count"}
    for entry in manifest.concepts.values():
        assert source.layout.resolve(entry.file).is_file()


def test_a_build_removes_temp_files_killed_writes_left_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = ConceptLibrary.load(root=small_library(tmp_path / "lib"), source_tables=SOURCES)
    source = make_source(tmp_path / "home", [(1, 70), (2, 80)])
    run_build(source, lib)
    derived = source.layout.parquet_dir / "mimiciv_derived"
    orphans = [
        derived / ".adults.parquet.tqlwxf5o.tmp",
        source.layout.root / ".concepts.json.z16gpsf2.tmp",
    ]
    for orphan in orphans:
        orphan.write_bytes(b"x" * 2000)
    capsys.readouterr()
    assert set(run_build(source, lib).values()) == {"up-to-date"}  # reads only: no lock taken
    assert all(orphan.exists() for orphan in orphans)
    write_patients(source.layout, source.manifest, [(1, 70), (3, 90)])
    assert run_build(source, lib)["adults"] == "built"
    assert not any(orphan.exists() for orphan in orphans)
    assert capsys.readouterr().err.splitlines() == [
        f"removed 2 temporary files (4.0 kB) left by an interrupted write in source 'tiny' "
        f"({source.layout.root})"
    ]


def test_a_concept_removed_from_the_library_leaves_the_catalog(tmp_path: Path) -> None:
    root = small_library(tmp_path / "lib")
    source = make_source(tmp_path / "home", [(1, 70)])
    run_build(source, ConceptLibrary.load(root=root, source_tables=SOURCES))
    (root / "score" / "admission_count.sql").unlink()
    assert run_build(source, ConceptLibrary.load(root=root, source_tables=SOURCES)) == {
        "adults": "up-to-date",
        "old": "up-to-date",
    }
    assert [q for q, _ in derived_tables(source)] == [
        "mimiciv_derived.adults",
        "mimiciv_derived.old",
    ]
