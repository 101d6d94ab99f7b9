"""The whole concept library on the default-size synthetic source (1,000 ICU stays).

Every concept is built into the shared source (two workers; the validity tests read the
same one), then checks that no table is empty, the stay-level tables have one row per
stay, the distributions are plausible, and a second build into a copy finds everything
up to date.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from synthetic_sources import SyntheticSources, copy_source

from m4bench.concepts.build import (
    BuildEvent,
    ConceptBuildManifest,
    build_concepts,
    read_build_manifest,
)
from m4bench.concepts.library import ConceptLibrary
from m4bench.home import DataHome
from m4bench.sources.layout import Source

# Items the synthetic generator does not emit; the test below checks that this is still
# true, so the exemption cannot outlive its reason.
NOT_GENERATED = {
    "cardiac_marker": (51003, 50911, 50963),
    "inflammation": (50889,),
}


@pytest.fixture(scope="module")
def shared(synthetic_sources: SyntheticSources) -> tuple[Source, ConceptBuildManifest]:
    """The shared default-size source (seed 3) with every concept built: read only."""
    source = synthetic_sources.source("mimic-iv", None, 3, concepts=True)
    manifest = read_build_manifest(source)
    assert manifest is not None
    return source, manifest


@pytest.fixture(scope="module")
def built(
    shared: tuple[Source, ConceptBuildManifest], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Source, ConceptBuildManifest]:
    """A copy of the shared source, for the tests that build or open it to write."""
    source, manifest = shared
    home = DataHome(tmp_path_factory.mktemp("concepts-home"))
    return copy_source(source, home, source.name), manifest


@pytest.fixture(scope="module")
def con(shared: tuple[Source, ConceptBuildManifest]) -> Iterator[duckdb.DuckDBPyConnection]:
    source, _ = shared
    connection = source.connect()
    yield connection
    connection.close()


def scalar(con: duckdb.DuckDBPyConnection, query: str) -> Any:
    row = con.execute(query).fetchone()
    assert row is not None
    return row[0]


def test_every_concept_is_built_and_listed_in_the_catalog(shared, con) -> None:
    source, manifest = shared
    library = ConceptLibrary.load()
    assert set(manifest.concepts) == set(library.concepts)
    views = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'mimiciv_derived'"
    ).fetchall()
    assert {name for (name,) in views} == set(library.concepts)
    for name, entry in manifest.concepts.items():
        assert (source.layout.root / entry.file.path).exists(), name


def test_no_concept_is_empty(shared, con) -> None:
    _, manifest = shared
    empty = sorted(name for name, entry in manifest.concepts.items() if entry.rows == 0)
    assert set(empty) <= set(NOT_GENERATED), empty
    for name in empty:
        items = ", ".join(str(i) for i in NOT_GENERATED[name])
        count = scalar(
            con, f"SELECT COUNT(*) FROM mimiciv_hosp.labevents WHERE itemid IN ({items})"
        )
        assert count == 0, f"{name} is empty although its items occur {count} times"


def test_stay_level_tables_have_one_row_per_stay(con) -> None:
    stays = scalar(con, "SELECT COUNT(*) FROM mimiciv_icu.icustays")
    assert stays == 1000
    for table in (
        "icustay_times",
        "icustay_detail",
        "first_day_vitalsign",
        "first_day_lab",
        "first_day_bg",
        "first_day_bg_art",
        "first_day_gcs",
        "first_day_urine_output",
        "first_day_rrt",
        "first_day_height",
        "first_day_weight",
        "first_day_sofa",
    ):
        rows, distinct = con.execute(
            f"SELECT COUNT(*), COUNT(DISTINCT stay_id) FROM mimiciv_derived.{table}"
        ).fetchone() or (0, 0)
        assert rows == distinct == stays, table


def test_first_day_sofa_spans_the_scale_and_kdigo_has_every_stage(con) -> None:
    sofa = {
        v
        for (v,) in con.execute(
            "SELECT DISTINCT sofa FROM mimiciv_derived.first_day_sofa"
        ).fetchall()
    }
    assert 0 in sofa and max(sofa) >= 15
    assert len(sofa & set(range(16))) >= 14
    stages = {
        v
        for (v,) in con.execute(
            "SELECT DISTINCT aki_stage FROM mimiciv_derived.kdigo_stages"
        ).fetchall()
    }
    assert {0, 1, 2, 3} <= stages


def test_measurement_distributions_are_plausible(con) -> None:
    hr, temp = con.execute(
        "SELECT MEDIAN(heart_rate_mean), MEDIAN(temperature_mean) "
        "FROM mimiciv_derived.first_day_vitalsign"
    ).fetchone() or (None, None)
    assert 60 < hr < 120 and 35.5 < temp < 38.5
    gcs_low, gcs_high = con.execute(
        "SELECT MIN(gcs_min), MAX(gcs_min) FROM mimiciv_derived.first_day_gcs"
    ).fetchone() or (None, None)
    assert gcs_low >= 3 and gcs_high == 15
    age_low, age_high = con.execute(
        "SELECT MIN(age), MAX(age) FROM mimiciv_derived.age"
    ).fetchone() or (None, None)
    assert age_low > 17 and age_high < 110
    creat = scalar(con, "SELECT MEDIAN(creatinine_max) FROM mimiciv_derived.first_day_lab")
    assert 0.5 < creat < 3
    pf = scalar(con, "SELECT MEDIAN(pao2fio2ratio) FROM mimiciv_derived.bg")
    assert 50 < pf < 600
    rate = scalar(con, "SELECT MEDIAN(uo_mlkghr_24hr) FROM mimiciv_derived.urine_output_rate")
    assert 0.1 < rate < 5
    weight = scalar(con, "SELECT MEDIAN(weight) FROM mimiciv_derived.first_day_weight")
    assert 40 < weight < 150


def test_a_second_build_is_all_up_to_date(built) -> None:
    source, manifest = built
    events: list[BuildEvent] = []
    again = build_concepts(source, jobs=2, progress=False, on_event=events.append)
    assert {e.action for e in events} == {"up-to-date"}
    assert len(events) == len(manifest.concepts)
    assert {n: e.file.sha256 for n, e in again.concepts.items()} == {
        n: e.file.sha256 for n, e in manifest.concepts.items()
    }


def test_derived_files_live_beside_the_source_tables(shared) -> None:
    source, manifest = shared
    derived = source.layout.parquet_dir / "mimiciv_derived"
    assert sorted(p.stem for p in derived.glob("*.parquet")) == sorted(manifest.concepts)
    assert Path(source.layout.root / "concepts.json").exists()


def test_cli_build_reports_an_up_to_date_source(built) -> None:
    from typer.testing import CliRunner

    from m4bench.cli import app

    source, manifest = built
    home = source.layout.root.parent.parent
    result = CliRunner().invoke(
        app, ["concepts", "build", "--source", source.name, "--home", str(home), "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    assert f"0 built, {len(manifest.concepts)} up to date" in result.output
